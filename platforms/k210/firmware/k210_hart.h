// The K210's CPU (hart 0) running a firmware ELF as an SC_THREAD: the RV64 hart (models/rv64)
// sees the SRAM and the AI SRAM as memory (the uncached windows cost bus time), every device
// through the CPU's AXI port as TLM transactions, interrupts from the PLIC and the CLINT, and
// semihosting. Time: each run's cycles by instruction class at the CPU clock, plus the bus time
// of its device and uncached accesses, under the quantum keeper; wfi sleeps until an interrupt.
// docs/firmware.md.
#pragma once

#include <array>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "models/k210_soc/cycle_clock.h"
#include "models/rv64/cpu.h"
#include "models/rv64/elf.h"
#include "models/rv64/gdb_rsp.h"
#include "models/rv64/semihost.h"
#include "sim/core/trace.h"
#include "sim/tlm/axi_port.h"
#include "sim/tlm/quantum.h"
#include "sim/tlm/sim_time.h"

namespace npu::soc {
class Plic;
class Clint;
}  // namespace npu::soc

namespace npu::k210 {

class GdbLink;

using sim::to_ps;

struct HartOptions {
    std::vector<std::string> args;  // argv: the program's name first
    double clock_hz = 390'000'000;  // at the start (SYSCTL at boot); set_clock_hz changes it
    rv64::CycleModel cpi;
    // CPU cycles per access to an uncached window beyond its bus transfer (K210Config).
    double uncached_load_cycles = 0, uncached_store_cycles = 0;
    uint64_t max_instructions = 2'000'000'000;
    uint64_t max_time_ps = 0;      // the simulated-time budget (0: none)
    bool trap_exceptions = false;  // illegal instructions enter the firmware's handler
    GdbLink* gdb = nullptr;        // a connected debugger: the hart starts stopped at the entry
    // What the firmware prints (semihosting console, UARTs), as it prints it; source "npusim":
    // a line of ours about the firmware (a refused file).
    std::function<void(const std::string& source, const std::string& text)> output;
    std::string read_root, write_root, files_hint;  // semihosting files (rv64::Semihost)
    // What lies at an address no memory or device answers ("" if nothing known): a bus fault
    // names it.
    std::function<std::string(uint64_t addr)> unmodelled;
};

// Memory the hart reaches directly: host bytes at an address; uncached windows cost bus time.
struct HartMemory {
    std::string name;
    uint64_t addr = 0, size = 0;
    uint8_t* host = nullptr;
    bool uncached = false;
};

// A device the hart reaches through the CPU's AXI port.
struct HartDevice {
    std::string name;
    uint64_t addr = 0, size = 0;
    uint64_t reads = 0, writes = 0;
};

struct HartResult {
    bool exited = false;        // the firmware ended by semihosting SYS_EXIT
    bool budget_spent = false;  // hart 1 met --max-instructions or --max-time and stopped
    int exit_code = 0;
    std::string error;  // why the run ended otherwise: the cause, pc and symbol
    uint64_t instructions = 0, cpu_cycles = 0;
    uint64_t sleep_ps = 0, wfi_count = 0;
    uint64_t irq_external = 0, irq_timer = 0, irq_software = 0;
    uint64_t uncached_accesses = 0;
    uint64_t spin_ps = 0, spins = 0;  // busy-wait loops waited out instead of run (spin_wait)
    uint64_t end_ps = 0;
    std::vector<std::string> unsupported;  // semihosting operations refused
    std::vector<std::string> refused;      // files opened outside the semihosting roots
};

class K210Hart : public sc_core::sc_module {
public:
    // Hart `hart` (mhartid; its PLIC machine-mode context and CLINT registers are the same
    // number, as the Kendryte SDK addresses them by current_coreid()).
    K210Hart(sc_core::sc_module_name name, sim::AxiPort& port, soc::Plic& plic, soc::Clint& clint,
             sim::TraceWriter& trace, unsigned hart = 0);
    ~K210Hart() override;

    // Before sc_start(). Throws sim::Error when a segment lies outside the memories.
    void map(std::vector<HartMemory> memories, std::vector<HartDevice> devices);
    void load(const rv64::ElfImage& elf, HartOptions options);
    const HartResult& result() const { return m_result; }
    // After load(): how many instructions of the firmware read mhartid (none: it cannot tell
    // harts apart, so it cannot be written for a second one).
    size_t hartid_reads() const { return m_hartid_reads; }
    const std::vector<HartDevice>& devices() const { return m_devices; }
    // After sc_start(): a firmware that neither exited nor failed is still waiting.
    bool running() const { return m_started && !m_done; }
    uint64_t pc() const { return m_cpu->pc(); }
    std::string describe(uint64_t addr) const { return m_elf.describe(addr); }
    // Running instructions (not asleep, not waiting out a busy-wait loop, not done or in reset):
    // it may write memory another hart polls. busy_event() is notified when it starts again.
    bool busy() const { return m_busy; }
    const sc_core::sc_event& busy_event() const { return m_busy_event; }
    // Before load(): the other hart, and what else can change memory this hart may poll (other
    // masters' writes, the KPU's layers): a hart waiting out a busy-wait loop wakes on them.
    void set_peer(const K210Hart* peer) { m_peer = peer; }
    void wake_on(const sc_core::sc_event& e) { m_wake_events.push_back(&e); }
    // The CPU clock changed (SYSCTL): it takes effect at the hart's next run (a run in progress
    // stops after the access that changed it); mcycle counts on from its value then.
    void set_clock_hz(double hz);
    const soc::CycleClock& clock() const { return m_clock; }  // mcycle as a function of time

private:
    void run();
    bool step();  // one run of the hart; false when the firmware is done
    std::string spent_budget();
    bool after_run(const rv64::RunResult& r);  // false when the firmware is done
    void account(const rv64::RunResult& r);
    // The debugger (k210_hart_debug.cpp): its turn before each run (false: it ended the run),
    // a stop to report, the end to report.
    void attach_debugger();
    bool debug_turn();
    void debug_stop(int signal);
    void debug_end();
    rv64::GdbTarget debug_target();
    void deliver_interrupts();
    uint64_t pending_bits(const sc_core::sc_time& at) const;
    void sleep();
    void set_busy(bool busy);
    // Busy-wait loops (k210_hart_spin.cpp): a look after a quantum, one turn checked, the wait.
    static constexpr unsigned kSpinBlocks = 4;  // translated blocks in one turn, at most
    struct SpinTurn {
        uint64_t instructions = 0, cycles = 0;
        uint64_t counter_reads = 0;  // of cycle/time/instret (a loop on the counters)
        uint64_t device_reads = 0;   // of device registers without read effects (a poll)
        uint64_t head = 0;           // where the turn began and ended
        // The turn's translated blocks, by their first pc (no heap: a turn can be on a hart's
        // stack when the simulation stops, never unwound).
        std::array<uint64_t, kSpinBlocks> blocks{};
        unsigned block_count = 0;
        std::array<uint64_t, 32> before{};  // the integer registers at its start
    };
    static constexpr uint64_t kSpinBytes = 128;       // a loop's reach from one end to the other
    static constexpr uint64_t kSpinBackoff = 10'000;  // instructions after a failed look
    bool spin_candidate();
    bool still_spinning();
    std::optional<bool> spinning_on();  // step()'s result when a busy-wait stood for the quantum
    void poll_wait(const SpinTurn& turn);
    void pass_quantum(const SpinTurn& turn);
    std::optional<SpinTurn> spin_turn(rv64::RunResult& r);
    bool spin_safe_block(uint64_t pc, uint64_t n) const;
    void spin_wait(const SpinTurn& turn);
    void spin_account(const SpinTurn& turn, const sc_core::sc_time& elapsed);
    void wait_turning(const SpinTurn& turn, uint64_t turns, const char* what);
    // Loops on the counters (k210_hart_wait.cpp): `while (read_cycle() - start < n);` waited out
    // to the turn that leaves it, found by trying turns at later times.
    struct Probe {
        bool looping = false, spoiled = false;
        std::array<uint64_t, 32> regs{};
    };
    bool counter_wait(const SpinTurn& turn);
    Probe probe_turn(const SpinTurn& turn, const std::array<uint64_t, 32>& from, uint64_t turns);
    uint64_t first_exit(const SpinTurn& turn, const std::array<uint64_t, 32>& from,
                        uint64_t max_turns);
    void wait_turns(const SpinTurn& turn, uint64_t turns);
    sc_core::sc_time wake_deadline(const SpinTurn* turn) const;
    void close_segment(uint64_t end_ps);
    bool instruction_at(uint64_t addr);  // for the debugger's breakpoints
    void start_semihosting();            // the semihosting server, with the options' roots
    void semihost();
    // The run's end for `what`, at `at_pc` (0: the hart's pc now).
    void fail(const std::string& what, uint64_t at_pc = 0);
    std::string device_name(uint64_t addr) const;
    bool device_access(size_t index, uint64_t offset, unsigned size, uint64_t& value, bool write);
    bool counter(uint64_t offset, unsigned size, uint64_t& value) const;
    uint64_t cycles_at(const sc_core::sc_time& at) const;  // mcycle
    void apply_clock();
    void uncached_access(uint64_t addr, unsigned size, bool write);
    uint8_t* host(uint64_t addr, size_t n) const;
    sc_core::sc_time now() const { return m_qk.get_current_time(); }
    sc_core::sc_time access_time() const;

    unsigned m_hart;
    size_t m_hartid_reads = 0;
    sim::AxiPort& m_port;
    soc::Plic& m_plic;
    soc::Clint& m_clint;
    sim::TraceWriter& m_trace;
    int m_track, m_irq_track;
    std::unique_ptr<rv64::Cpu> m_cpu;
    std::unique_ptr<rv64::Semihost> m_semihost;
    rv64::ElfImage m_elf;
    HartOptions m_options;
    std::vector<HartMemory> m_memories;
    std::vector<HartDevice> m_devices;
    sim::QuantumKeeper m_qk;
    // The CPU clock's period in ps, not rounded to the kernel's 1 ps (390 MHz: 2564.1026 ps), and
    // the time of `cycles` of it (rounded once) and the whole cycles in a time.
    double m_period_ps = 2500;
    sc_core::sc_time span(double cycles) const { return sim::from_ps(cycles * m_period_ps); }
    uint64_t cycles_in(const sc_core::sc_time& t) const {
        return static_cast<uint64_t>(static_cast<double>(to_ps(t)) / m_period_ps);
    }
    double m_next_period_ps = 2500;  // set_clock_hz's, until the next run takes it
    bool m_in_run = false;
    soc::CycleClock m_clock{2500};  // mcycle (the CLINT divides hart 0's)
    sc_core::sc_time m_run_base;    // local time at the start of the current run
    sc_core::sc_time m_bus_time;    // bus time of the current run's accesses so far
    uint64_t m_segment_start_ps = 0;
    uint64_t m_segment_pc = 0;
    bool m_started = false, m_done = false;
    sc_core::sc_event m_wake{"wake"};  // an interrupt line changed or the CLINT was written
    bool m_busy = false;
    sc_core::sc_event m_busy_event{"busy"};
    const K210Hart* m_peer = nullptr;
    std::vector<const sc_core::sc_event*> m_wake_events;
    uint64_t m_side_accesses = 0;  // device, counter and uncached accesses so far
    uint64_t m_counter_reads = 0;  // of them, counter reads
    uint64_t m_device_reads = 0;   // of them, device reads
    bool m_spin_poll = false;      // the busy-wait at m_spin_head reads a device
    bool m_probing = false, m_probe_spoiled = false;  // trying a turn (probe_turn)
    uint64_t m_probe_instructions = 0;                // instret's advance in the turn tried
    uint64_t m_last_stop_pc = 0;                      // where the last quantum ended
    uint64_t m_spin_retry_at = 0;  // instructions before the next look for a busy-wait
    // The busy-wait last checked: its head and the side accesses then.
    uint64_t m_spin_head = 0, m_spin_side = 0;
    std::unique_ptr<rv64::GdbServer> m_gdb;
    bool m_debug_stopped = false;  // the debugger has control: the hart and the SoC wait
    int m_fault_signal = 0;        // a fault reported to the debugger ends the run on resume
    bool m_killed = false;         // the debugger killed the run
    HartResult m_result;
};

}  // namespace npu::k210
