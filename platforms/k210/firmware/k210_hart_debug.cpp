// The hart under a debugger (npusim run --gdb PORT): the GDB server (models/rv64/gdb_rsp.h) on
// the link; while the debugger has control the hart's thread waits for it, so the whole SoC
// waits with it and simulated time stands still. docs/firmware.md, "Debugging with GDB".
#include <cstring>

#include <fmt/format.h>

#include "platforms/k210/firmware/gdb_link.h"
#include "platforms/k210/firmware/k210_hart.h"

namespace npu::k210 {

rv64::GdbTarget K210Hart::debug_target() {
    rv64::GdbTarget t;
    t.reg = [this](unsigned n) -> uint64_t {
        if (n < 32) {
            return m_cpu->x(n);
        }
        if (n == 32) {
            return m_cpu->pc();
        }
        if (n < 65) {
            return m_cpu->f(n - 33);
        }
        return m_cpu->csr(n == 65 ? rv64::Csr::Fflags : n == 66 ? rv64::Csr::Frm : rv64::Csr::Fcsr);
    };
    t.set_reg = [this](unsigned n, uint64_t v) {
        if (n < 32) {
            m_cpu->set_x(n, v);
        } else if (n == 32) {
            m_cpu->set_pc(v);
        } else if (n < 65) {
            m_cpu->set_f(n - 33, v);
        } else {
            m_cpu->set_csr(n == 65   ? rv64::Csr::Fflags
                           : n == 66 ? rv64::Csr::Frm
                                     : rv64::Csr::Fcsr,
                           v);
        }
    };
    // Memory as the hart sees it; devices by debug transport: reads without side effects, writes
    // as the bus writes they ask for, both taking no time.
    t.read_mem = [this](uint64_t a, uint8_t* dst, size_t n) {
        if (const uint8_t* p = host(a, n)) {
            std::memcpy(dst, p, n);
            return true;
        }
        return m_port.debug_read(a, dst, n) == n;
    };
    t.write_mem = [this](uint64_t a, const uint8_t* src, size_t n) {
        if (uint8_t* p = host(a, n)) {
            std::memcpy(p, src, n);
            return true;
        }
        return m_port.debug_write(a, src, n) == n;
    };
    t.add_breakpoint = [this](uint64_t a) {
        m_cpu->add_breakpoint(a);
    };
    t.remove_breakpoint = [this](uint64_t a) {
        m_cpu->remove_breakpoint(a);
    };
    t.instruction_at = [this](uint64_t a) {
        return instruction_at(a);
    };
    return t;
}

// Whether an instruction starts at `a`: in the ELF's code, decoded by length (16 or 32 bits)
// from the symbol at or below it (else the section's start); elsewhere in memory, any halfword.
bool K210Hart::instruction_at(uint64_t a) {
    if (a % 2 != 0 || host(a, 2) == nullptr) {
        return false;
    }
    for (const auto& [start, size] : m_elf.code) {
        if (a < start || a - start >= size) {
            continue;
        }
        uint64_t from = start;
        if (auto it = m_elf.symbols.upper_bound(a); it != m_elf.symbols.begin()) {
            --it;
            from = it->first >= start && it->first % 2 == 0 ? it->first : start;
        }
        while (from < a) {
            const uint8_t* op = host(from, 2);
            if (op == nullptr) {
                return false;
            }
            from += (op[0] & 3) == 3 ? 4 : 2;
        }
        return from == a;
    }
    return true;
}

void K210Hart::attach_debugger() {
    m_gdb = std::make_unique<rv64::GdbServer>(debug_target());
    m_debug_stopped = true;  // at the entry point, before the first instruction
}

void K210Hart::debug_stop(int signal) {
    if (m_gdb == nullptr) {
        return;
    }
    if (signal != rv64::kSigTrap && signal != rv64::kSigInt) {
        m_fault_signal = signal;
    }
    m_options.gdb->send(m_gdb->stop_reply(signal));
    m_debug_stopped = true;
}

// Before each run: a ^C while running stops the hart; while stopped, packets are served until
// the debugger continues, steps (done here, one instruction), kills, detaches or goes away.
bool K210Hart::debug_turn() {
    GdbLink& link = *m_options.gdb;
    rv64::GdbAction action = rv64::GdbAction::None;
    if (!m_debug_stopped) {
        link.send(m_gdb->feed(link.receive(false), action));
        if (m_gdb->interrupted()) {
            m_gdb->clear_interrupt();
            debug_stop(rv64::kSigInt);
        }
    }
    while (m_debug_stopped) {
        const std::string in = link.receive(true);
        if (link.closed()) {
            m_gdb.reset();  // the debugger went away: run on without it
            return true;
        }
        link.send(m_gdb->feed(in, action));
        if (action == rv64::GdbAction::None) {
            continue;
        }
        if (action == rv64::GdbAction::Kill && m_fault_signal == 0) {
            m_killed = true;  // not an exit: the run fails (its record says so)
            fail("killed by the debugger before it exited");
        }
        if (action == rv64::GdbAction::Kill || m_fault_signal != 0) {
            return false;  // killed, or resumed after a fault it was shown: the run ends
        }
        if (action == rv64::GdbAction::Detach) {
            m_gdb.reset();
            return true;
        }
        m_debug_stopped = false;
        if (action == rv64::GdbAction::Step) {
            m_run_base = m_qk.local();
            m_bus_time = sc_core::SC_ZERO_TIME;
            const rv64::RunResult r = m_cpu->step();
            account(r);
            if (!after_run(r)) {
                return false;
            }
            if (!m_debug_stopped) {
                debug_stop(rv64::kSigTrap);
            }
        }
    }
    return true;
}

// The run ended: the debugger hears how (the exit code; the fault's signal; SIGKILL after its
// kill; SIGXCPU when --max-time or --max-instructions ended it; else SIGINT).
void K210Hart::debug_end() {
    if (m_gdb == nullptr) {
        return;
    }
    if (m_result.exited) {
        m_options.gdb->send(m_gdb->exit_reply(m_result.exit_code));
        return;
    }
    const int signal = m_fault_signal != 0       ? m_fault_signal
                       : m_killed                ? rv64::kSigKill
                       : !spent_budget().empty() ? rv64::kSigXcpu
                                                 : rv64::kSigInt;
    m_options.gdb->send(rv64::rsp_frame(fmt::format("X{:02x}", signal)));
}

}  // namespace npu::k210
