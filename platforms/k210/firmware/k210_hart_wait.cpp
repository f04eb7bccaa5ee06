// Loops on the counters (docs/firmware.md, "Busy-wait loops"): `usleep`'s `while (read_cycle() -
// start < n);`, a timeout on mtime. A turn checked as for a busy-wait (k210_hart_spin.cpp: safe
// instructions, back at its head, no device or uncached access) but reading cycle, time or
// instret changes registers every turn, so it is not waited out on events alone: the turn that
// leaves the loop is found by trying turns as if k turns had passed (the counters read at that
// time, from the registers now, nothing of it kept), doubling k, then halving the interval. A
// loop qualifies when a turn's registers after it depend on the counters only: the next turn
// tried from the registers before the checked turn and from those after it must agree. Then the
// hart waits out the turns before that one (or less, should something wake it: an interrupt,
// another master's write, the other hart), and runs the one that leaves: the same instructions,
// cycles and registers as running every turn.
#include <algorithm>

#include "platforms/k210/firmware/k210_hart.h"

namespace npu::k210 {

using sc_core::sc_time;

namespace {
std::array<uint64_t, 32> registers(const rv64::Cpu& cpu) {
    std::array<uint64_t, 32> r{};
    for (unsigned i = 1; i < 32; ++i) {
        r[i] = cpu.x(i);
    }
    return r;
}
void set_registers(rv64::Cpu& cpu, const std::array<uint64_t, 32>& r) {
    for (unsigned i = 1; i < 32; ++i) {
        cpu.set_x(i, r[i]);
    }
}
}  // namespace

// One turn from the loop's head with registers `from`, its counters read as if `turns` turns had
// passed since now; only the loop's own blocks run (a branch elsewhere ends the turn: it left the
// loop). Whether it came back to the head, and the registers then. The hart's state is restored.
K210Hart::Probe K210Hart::probe_turn(const SpinTurn& turn, const std::array<uint64_t, 32>& from,
                                     uint64_t turns) {
    const std::array<uint64_t, 32> saved = registers(*m_cpu);
    const uint64_t side = m_side_accesses, counters = m_counter_reads;
    const sc_time run_base = m_run_base, bus_time = m_bus_time;
    set_registers(*m_cpu, from);
    m_probing = true;
    m_probe_spoiled = false;
    m_probe_instructions = turns * turn.instructions;
    const sc_time start = m_qk.local() + span(static_cast<double>(turns * turn.cycles));
    uint64_t cycles = 0;
    Probe p;
    for (unsigned b = 0; b <= kSpinBlocks; ++b) {
        const uint64_t pc = m_cpu->pc();
        if (b > 0 && pc == turn.head) {
            p.looping = true;
            break;
        }
        const auto* end = turn.blocks.begin() + turn.block_count;
        if (std::find(turn.blocks.begin(), end, pc) == end) {
            break;  // left the loop
        }
        m_run_base = start + span(static_cast<double>(cycles));
        m_bus_time = sc_core::SC_ZERO_TIME;
        const rv64::RunResult r = m_cpu->run(1);
        cycles += r.cycles;
        if (r.stop != rv64::Stop::Budget || m_probe_spoiled) {
            p.spoiled = true;
            break;
        }
    }
    p.regs = registers(*m_cpu);
    m_probing = false;
    m_probe_instructions = 0;
    set_registers(*m_cpu, saved);
    m_cpu->set_pc(turn.head);
    m_side_accesses = side, m_counter_reads = counters;
    m_run_base = run_base, m_bus_time = bus_time;
    return p;
}

// The fewest turns to pass before the turn that leaves the loop (max_turns + 1 if none within
// them): 1, 2, 4, ... until one leaves, then halving the interval (the counters only grow, so a
// loop left at some count stays left at every later one).
uint64_t K210Hart::first_exit(const SpinTurn& turn, const std::array<uint64_t, 32>& from,
                              uint64_t max_turns) {
    uint64_t looping = 0, leaves = 1;  // probe_turn(looping) loops; does probe_turn(leaves)?
    while (true) {
        if (leaves > max_turns) {
            leaves = max_turns + 1;
            if (looping == max_turns || probe_turn(turn, from, max_turns).looping) {
                return max_turns + 1;
            }
            break;
        }
        const Probe p = probe_turn(turn, from, leaves);
        if (p.spoiled || !p.looping) {
            break;
        }
        looping = leaves;
        leaves *= 2;
    }
    while (leaves - looping > 1) {  // looping loops, leaves leaves
        const uint64_t mid = looping + (leaves - looping) / 2;
        const Probe p = probe_turn(turn, from, mid);
        (p.looping && !p.spoiled ? looping : leaves) = mid;
    }
    return leaves;
}

// After a checked turn that read the counters: false when the loop does not qualify (or leaves
// at its next turn), the hart then running on; else the turns before the one that leaves are
// waited out.
bool K210Hart::counter_wait(const SpinTurn& turn) {
    if (m_gdb != nullptr || m_cpu->pc() != turn.head) {
        return false;
    }
    const std::array<uint64_t, 32> now = registers(*m_cpu);
    const Probe next = probe_turn(turn, now, 0);
    const Probe replay = probe_turn(turn, turn.before, 0);
    if (next.spoiled || replay.spoiled || !next.looping || next.regs != replay.regs) {
        return false;  // the registers carry more than the counters from turn to turn
    }
    const sc_time deadline = wake_deadline(&turn);
    const sc_time at = sc_core::sc_time_stamp() + m_qk.local();
    const uint64_t max_turns =
        deadline <= at ? 0 : std::min(cycles_in(deadline - at) / turn.cycles, uint64_t{1} << 40);
    const uint64_t turns = first_exit(turn, now, max_turns);
    if (turns <= 1) {
        return false;
    }
    wait_turns(turn, std::min(turns, max_turns));
    return true;
}

// Passes `turns` turns of the loop: within the quantum while the other hart runs (it may write
// what the loop reads), else waiting, woken early by what wakes a busy-wait.
void K210Hart::wait_turns(const SpinTurn& turn, uint64_t turns) {
    set_busy(false);
    if (m_peer != nullptr && m_peer->busy()) {
        const uint64_t fit = cycles_in(m_qk.remaining()) / turn.cycles;
        const sc_time part =
            span(static_cast<double>(std::min(turns, std::max<uint64_t>(fit, 1)) * turn.cycles));
        m_qk.local() += part;
        spin_account(turn, part);
        set_busy(true);
        m_qk.sync_if_needed();
        return;
    }
    wait_turning(turn, turns, "counter wait");
    set_busy(true);
}

}  // namespace npu::k210
