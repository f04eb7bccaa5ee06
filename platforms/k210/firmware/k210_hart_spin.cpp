// Busy-wait loops (docs/firmware.md, "Busy-wait loops"): a hart that spins on memory or on
// nothing at all (`while (!flag);`, `while (1);`) changes nothing until another agent does. When a
// quantum ends inside such a loop, one turn of it is run block by block and checked:
// only integer loads, arithmetic and branches (rv64::spin_safe), no device, counter or uncached
// access, and every integer register the same after the turn. Then, while the other hart is not
// running, the hart waits for what could end the loop (an interrupt line, the CLINT, its timer, a
// write by another master, a KPU layer, the other hart running again, its budgets) instead of
// running it; its cycles follow the time waited and its instructions the turns that fit.
#include <cstring>

#include "models/k210_soc/clint.h"
#include "platforms/k210/firmware/k210_hart.h"
#include "sim/core/regs.h"

namespace npu::k210 {

using sc_core::sc_time;

namespace {
constexpr uint64_t kMtip = uint64_t{1} << rv64::kIrqTimer;
}  // namespace

void K210Hart::set_busy(bool busy) {
    if (busy && !m_busy) {
        m_busy_event.notify(sc_core::SC_ZERO_TIME);
    }
    m_busy = busy;
}

// A first look: the quantum ended within a short loop's reach of where the previous one did, and
// no look failed in the last kSpinBackoff instructions.
bool K210Hart::spin_candidate() {
    const uint64_t pc = m_cpu->pc();
    const bool near = pc <= m_last_stop_pc + kSpinBytes && m_last_stop_pc <= pc + kSpinBytes;
    m_last_stop_pc = pc;
    return near && m_result.instructions >= m_spin_retry_at;
}

// While the other hart is busy: the quantum just run ended where the busy-wait last checked
// began, with no side access since: not busy, without checking a turn again (the registers are
// not compared: should the hart have left the loop and come back, it is busy again at the end of
// its next quantum that does not end there, a quantum late at most for the other hart, which only
// looks at this while it runs).
bool K210Hart::still_spinning() {
    if (m_spin_head == 0 || m_cpu->pc() != m_spin_head || m_side_accesses != m_spin_side ||
        m_peer == nullptr || !m_peer->busy()) {
        return false;
    }
    set_busy(false);
    return true;
}

// A quantum that starts at the head of the busy-wait last found, while the other hart is busy:
// one turn of it checked (spin_turn) stands for the quantum, whose rest passes as in spin_wait,
// instead of running the loop for a whole quantum. False when the hart is elsewhere or left the
// loop (the turn's progress stays; step() runs on from there): nullopt.
std::optional<bool> K210Hart::spinning_on() {
    if (m_spin_head == 0 || m_cpu->pc() != m_spin_head ||
        (!m_spin_poll && (m_peer == nullptr || !m_peer->busy()))) {
        return std::nullopt;
    }
    rv64::RunResult r;
    const std::optional<SpinTurn> turn = spin_turn(r);
    if (!turn || turn->counter_reads != 0) {
        if (r.stop != rv64::Stop::Budget) {
            return after_run(r);
        }
        return std::nullopt;
    }
    if (turn->device_reads > 0) {
        poll_wait(*turn);
    } else {
        spin_wait(*turn);
    }
    return true;
}

// The hart polls a device register (its loop reads devices without read effects and changes
// nothing): one turn a quantum stands for the quantum, whose rest passes as turns of the loop. A
// change the device makes is seen at the next quantum's turn, a quantum late at most (under
// temporal decoupling the hart sees other agents' changes at quantum boundaries anyway). The
// hart is not busy while it polls: the registers it reads are not memory.
void K210Hart::poll_wait(const SpinTurn& turn) {
    set_busy(false);
    pass_quantum(turn);
    ++m_result.spins;
    m_qk.sync_if_needed();
}

// The rest of the quantum passes as turns of the loop, without running it.
void K210Hart::pass_quantum(const SpinTurn& turn) {
    const sc_time left = m_qk.remaining();
    m_qk.local() += left;
    spin_account(turn, left);
}

// Whether the `n` instructions from `pc` (a block that just ran) are all spin_safe.
bool K210Hart::spin_safe_block(uint64_t pc, uint64_t n) const {
    for (uint64_t i = 0; i < n; ++i) {
        const uint8_t* code = host(pc, 2);
        if (code == nullptr) {
            return false;
        }
        uint32_t insn = code[0] | (uint32_t{code[1]} << 8);
        if (rv64::insn_bytes(insn) == 4) {
            const uint8_t* full = host(pc, 4);
            if (full == nullptr) {
                return false;
            }
            std::memcpy(&insn, full, 4);
        }
        if (!rv64::spin_safe(insn)) {
            return false;
        }
        pc += rv64::insn_bytes(insn);
    }
    return true;
}

// Runs the hart around the loop it may be in, one translated block at a time (real progress,
// accounted as any run): the turn, when the loop is a busy-wait; nothing otherwise. `r` is the
// last run's result (a stop other than the budget ends the look: the caller handles it).
std::optional<K210Hart::SpinTurn> K210Hart::spin_turn(rv64::RunResult& r) {
    const uint64_t head = m_cpu->pc();
    std::array<uint64_t, 32> regs{};
    for (unsigned i = 1; i < 32; ++i) {
        regs[i] = m_cpu->x(i);
    }
    const uint64_t side = m_side_accesses, counters = m_counter_reads, reads = m_device_reads;
    const uint64_t effects = sim::Register::effectful_reads();
    SpinTurn turn;
    bool safe = true;
    for (unsigned block = 0; block < kSpinBlocks; ++block) {
        const uint64_t start = m_cpu->pc();
        m_run_base = m_qk.local();
        m_bus_time = sc_core::SC_ZERO_TIME;
        r = m_cpu->run(1);  // one block
        account(r);
        if (r.stop != rv64::Stop::Budget) {
            return std::nullopt;
        }
        safe = safe && spin_safe_block(start, r.instructions);
        turn.blocks[turn.block_count++] = start;
        turn.instructions += r.instructions;
        turn.cycles += r.cycles;
        if (m_cpu->pc() == head) {
            break;
        }
    }
    m_spin_head = 0;
    turn.counter_reads = m_counter_reads - counters;
    turn.device_reads = m_device_reads - reads;
    if (!safe || m_cpu->pc() != head ||
        m_side_accesses - side != turn.counter_reads + turn.device_reads || turn.cycles == 0 ||
        (turn.device_reads > 0 &&
         (turn.counter_reads > 0 || sim::Register::effectful_reads() != effects))) {
        return std::nullopt;
    }
    turn.head = head;
    turn.before = regs;
    if (turn.counter_reads > 0) {
        return turn;  // a loop on the counters: counter_wait checks it further
    }
    for (unsigned i = 1; i < 32; ++i) {
        if (m_cpu->x(i) != regs[i]) {
            return std::nullopt;
        }
    }
    m_spin_head = head, m_spin_side = side;
    m_spin_poll = turn.device_reads > 0;
    return turn;
}

// When the hart must look again without an event: its --max-time, its timer (if it enables
// one), and, waiting out a loop, when the turns would spend its instruction budget.
sc_time K210Hart::wake_deadline(const SpinTurn* turn) const {
    sc_time due = m_options.max_time_ps == 0
                      ? sc_core::sc_max_time()
                      : sc_time(static_cast<double>(m_options.max_time_ps), sc_core::SC_PS);
    if ((m_cpu->csr(rv64::Csr::Mie) & kMtip) != 0) {
        due = std::min(due, m_clint.timer_due(m_hart, sc_core::sc_time_stamp()));
    }
    if (turn != nullptr && m_result.instructions < m_options.max_instructions) {
        const uint64_t turns =
            (m_options.max_instructions - m_result.instructions + turn->instructions - 1) /
            turn->instructions;
        const double cycles = static_cast<double>(turns) * static_cast<double>(turn->cycles);
        if (cycles < 1e18) {  // (no budget: 2^62 instructions)
            due = std::min(due, sc_core::sc_time_stamp() + span(cycles));
        }
    }
    return due;
}

// Counts `elapsed` of turning in the loop: every cycle of it, and the turns that fit.
void K210Hart::spin_account(const SpinTurn& turn, const sc_time& elapsed) {
    const uint64_t cycles = cycles_in(elapsed);
    m_result.cpu_cycles += cycles;
    m_result.instructions += cycles / turn.cycles * turn.instructions;
    m_result.spin_ps += to_ps(elapsed);
}

// The hart turns in a busy-wait: it is not busy (nothing it does changes memory) while it does.
// While the other hart is busy, the rest of the quantum passes without running the loop (while
// this thread runs no other agent does, so the turns would read what they read); else it waits
// out the loop until something could end it. It stays not busy until a quantum of it is not the
// loop (step()): two waiting harts do not wake each other by waking up.
void K210Hart::spin_wait(const SpinTurn& turn) {
    set_busy(false);
    if (m_peer != nullptr && m_peer->busy()) {
        pass_quantum(turn);
        m_qk.sync_if_needed();
        return;
    }
    wait_turning(turn, 0, "busy-wait");
}

// Waits, turning in a loop, for `turns` turns (0: until something could end the loop,
// wake_deadline) or less if something wakes the hart; the time counts as turns of the loop and
// is one span named `what` in the trace.
void K210Hart::wait_turning(const SpinTurn& turn, uint64_t turns, const char* what) {
    m_qk.sync();
    const sc_time start = sc_core::sc_time_stamp();
    close_segment(to_ps(start));
    const sc_time due =
        turns == 0 ? wake_deadline(&turn) : start + span(static_cast<double>(turns * turn.cycles));
    if (due == sc_core::sc_max_time()) {
        sc_core::wait(m_wake);
    } else if (due > start) {
        sc_core::wait(due - start, m_wake);
    }
    const sc_time end = sc_core::sc_time_stamp();
    spin_account(turn, end - start);
    ++m_result.spins;
    m_trace.complete(m_track, what, "sleep", to_ps(start), to_ps(end - start));
    m_segment_start_ps = to_ps(end);
    m_segment_pc = m_cpu->pc();
}

}  // namespace npu::k210
