// sc_spawn (the wfi wake-up method) needs SystemC's dynamic processes.
#define SC_INCLUDE_DYNAMIC_PROCESSES

#include "platforms/k210/firmware/k210_hart.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "models/k210_soc/clint.h"
#include "models/k210_soc/plic.h"
#include "models/rv64/counter_reads.h"
#include "sim/core/bus_cost.h"
#include "sim/core/error.h"
#include "sim/tlm/sim_time.h"

namespace npu::k210 {

using sc_core::sc_time;

namespace {
constexpr uint64_t kMeip = uint64_t{1} << rv64::kIrqExternal;
constexpr uint64_t kMtip = uint64_t{1} << rv64::kIrqTimer;
constexpr uint64_t kMsip = uint64_t{1} << rv64::kIrqSoftware;

}  // namespace

K210Hart::K210Hart(sc_core::sc_module_name name, sim::AxiPort& port, soc::Plic& plic,
                   soc::Clint& clint, sim::TraceWriter& trace, unsigned hart)
    : sc_module(name)
    , m_hart(hart)
    , m_port(port)
    , m_plic(plic)
    , m_clint(clint)
    , m_trace(trace)
    , m_track(trace.track(hart == 0 ? "cpu" : fmt::format("cpu{}", hart)))
    , m_irq_track(trace.track(hart == 0 ? "irq" : fmt::format("irq{}", hart)))
    , m_cpu(rv64::make_unicorn_cpu()) {
    SC_HAS_PROCESS(K210Hart);
    SC_THREAD(run);
    // The ISS (Unicorn's translator and its run loop) runs on this thread's stack: give it a
    // host-sized one (SystemC's default is 64 KiB; sanitizers make frames larger still).
    set_stack_size(size_t{8} << 20);
}

K210Hart::~K210Hart() = default;

void K210Hart::map(std::vector<HartMemory> memories, std::vector<HartDevice> devices) {
    m_memories = std::move(memories);
    m_devices = std::move(devices);
    for (const HartMemory& m : m_memories) {
        m_cpu->map_ram(m.addr, m.size, m.host);
        if (m.uncached) {
            m_cpu->watch(m.addr, m.size,
                         [this](uint64_t a, unsigned n, bool w) { uncached_access(a, n, w); });
        }
    }
    for (size_t i = 0; i < m_devices.size(); ++i) {
        const uint64_t page = 4096, size = (m_devices[i].size + page - 1) / page * page;
        m_cpu->map_device(m_devices[i].addr, size,
                          {[this, i](uint64_t off, unsigned n, uint64_t& v) {
                               return device_access(i, off, n, v, false);
                           },
                           [this, i](uint64_t off, unsigned n, uint64_t v) {
                               return device_access(i, off, n, v, true);
                           }});
    }
}

void K210Hart::load(const rv64::ElfImage& elf, HartOptions options) {
    for (const rv64::ElfSegment& s : elf.segments) {
        uint8_t* at = host(s.addr, s.bytes.size());
        if (at == nullptr) {
            throw sim::Error(fmt::format(
                "{}: a segment at {:#x} ({} bytes) lies outside the SRAM and the AI SRAM", elf.file,
                s.addr, s.bytes.size()));
        }
        std::copy(s.bytes.begin(), s.bytes.end(), at);
    }
    // Counter CSR reads become loads the hart answers with simulated values (counter_reads.h).
    for (const auto& [addr, size] : elf.code) {
        if (uint8_t* at = host(addr, size); at != nullptr) {
            rv64::redirect_counter_reads(at, size, &m_hartid_reads);
        }
    }
    m_cpu->map_device(rv64::kCounterPage, rv64::kCounterPageBytes,
                      {[this](uint64_t off, unsigned n, uint64_t& v) {
                           ++m_side_accesses;
                           ++m_counter_reads;
                           return counter(off, n, v);
                       },
                       [](uint64_t, unsigned, uint64_t) {
                           return false;
                       }});
    m_elf = elf;
    m_options = std::move(options);
    m_period_ps = m_next_period_ps = 1e12 / m_options.clock_hz;
    m_clock = soc::CycleClock(m_period_ps);
    m_cpu->set_cycle_model(m_options.cpi);
    m_cpu->stop_on_exceptions(!m_options.trap_exceptions);
    m_cpu->set_pc(elf.entry);
    start_semihosting();
    m_started = true;
    // What can wake a wfi, gathered into one event by a method (a list of events built on the
    // waiting thread's stack would outlive the simulation there, unreachable).
    sc_core::sc_spawn_options wake;
    wake.spawn_method();
    wake.dont_initialize();
    for (const sim::IrqLine* line : m_plic.lines()) {
        wake.set_sensitivity(&line->changed_event());
    }
    wake.set_sensitivity(&m_clint.changed());
    for (const sc_core::sc_event* e : m_wake_events) {
        wake.set_sensitivity(e);
    }
    sc_core::sc_spawn([this] { m_wake.notify(sc_core::SC_ZERO_TIME); },
                      fmt::format("wake{}", m_hart).c_str(), &wake);
    if (m_options.gdb != nullptr) {
        attach_debugger();
    }
}

uint8_t* K210Hart::host(uint64_t addr, size_t n) const {
    for (const HartMemory& m : m_memories) {
        if (addr >= m.addr && addr - m.addr <= m.size && n <= m.size - (addr - m.addr)) {
            return m.host + (addr - m.addr);
        }
    }
    return nullptr;
}

// ---------------------------------------------------------------- accesses

// The counters a rewritten CSR read loads (8 bytes at their offsets; anything else in the page
// is a bus fault, as an unmapped address), at the access's time (the end of the block being run):
// cycles = simulated time in CPU clock periods, each period at the clock it ran at (the clock
// runs through bus waits and wfi: assumed, no K210 document says it stops), instructions retired,
// and the CLINT's mtime (hart 0's cycles over 50).
bool K210Hart::counter(uint64_t offset, unsigned size, uint64_t& value) const {
    if (size != 8) {
        return false;
    }
    const sc_time at = sc_core::sc_time_stamp() + access_time();
    switch (offset) {
    case rv64::kCounterCycle: value = cycles_at(at); return true;
    case rv64::kCounterInstret:
        value = m_result.instructions + m_cpu->run_instructions() + m_probe_instructions;
        return true;
    case rv64::kCounterTime: value = m_clint.mtime(at); return true;
    case rv64::kCounterHartId: value = m_hart; return true;
    default: return false;
    }
}

uint64_t K210Hart::cycles_at(const sc_time& at) const {
    return m_clock.cycles_at(at);
}

void K210Hart::set_clock_hz(double hz) {
    m_next_period_ps = 1e12 / hz;
    if (m_next_period_ps != m_period_ps && m_in_run) {
        m_cpu->request_stop();  // the rest of this run would be timed at the old clock
    }
}

void K210Hart::apply_clock() {
    const sc_time at = sc_core::sc_time_stamp() + m_qk.local();
    m_clock.change(at, m_next_period_ps);
    m_period_ps = m_next_period_ps;
    m_clint.clock_changed();
}

sc_time K210Hart::access_time() const {
    return m_run_base + span(static_cast<double>(m_cpu->run_cycles())) + m_bus_time;
}

bool K210Hart::device_access(size_t index, uint64_t offset, unsigned size, uint64_t& value,
                             bool write) {
    if (m_probing) {  // a turn tried must not touch a device: it is abandoned (probe_turn)
        m_probe_spoiled = true;
        m_cpu->request_stop();
        value = 0;
        return true;
    }
    HartDevice& d = m_devices[index];
    sc_time t = access_time();
    const sc_time before = t;
    const uint64_t addr = d.addr + offset;
    const tlm::tlm_response_status s =
        write ? m_port.write(addr, &value, size, t) : m_port.read(addr, &value, size, t);
    m_bus_time += t - before;
    ++(write ? d.writes : d.reads);
    ++m_side_accesses;
    m_device_reads += write ? 0 : 1;
    if (!write && size < 8) {
        value &= (uint64_t{1} << (8 * size)) - 1;
    }
    return s == tlm::TLM_OK_RESPONSE;
}

void K210Hart::uncached_access(uint64_t addr, unsigned size, bool write) {
    const sim::TransferCost c = sim::transfer_cost(m_port.bus(), addr, size);
    m_bus_time += m_port.clock_period() * static_cast<double>(c.cycles) +
                  span(write ? m_options.uncached_store_cycles : m_options.uncached_load_cycles);
    ++m_result.uncached_accesses;
    ++m_side_accesses;
}

// ---------------------------------------------------------------- the run

void K210Hart::run() {
    if (!m_started) {
        return;  // no firmware: the hart stays in reset
    }
    m_segment_pc = m_cpu->pc();
    set_busy(true);
    while (step()) {
    }
    set_busy(false);
    debug_end();
    m_qk.sync();
    m_result.end_ps = to_ps(sc_core::sc_time_stamp());
    m_done = true;
    if (!m_result.budget_spent) {
        sc_core::sc_stop();  // an exit or a failure ends the run, whichever hart meets it
    }
}

// Which budget the hart has spent ("" while it has time and instructions left).
std::string K210Hart::spent_budget() {
    if (m_options.max_time_ps != 0 && to_ps(now()) >= m_options.max_time_ps) {
        return fmt::format("did not finish within its --max-time of {:.6g} ms (simulated)",
                           static_cast<double>(m_options.max_time_ps) / 1e9);
    }
    if (m_result.instructions >= m_options.max_instructions) {
        return fmt::format(
            "did not finish within its budget of {} instructions "
            "(--max-instructions)",
            m_options.max_instructions);
    }
    return "";
}

bool K210Hart::step() {
    if (const std::string spent = spent_budget(); !spent.empty()) {
        if (m_hart != 0) {  // hart 1 parks: the run is hart 0's to end (or the SoC's to idle)
            m_result.budget_spent = true;
        } else {
            fail(spent);
        }
        return false;
    }
    if (m_gdb != nullptr && !debug_turn()) {
        return false;
    }
    if (m_next_period_ps != m_period_ps) {  // set_clock_hz since the last run
        apply_clock();
    }
    deliver_interrupts();
    if (const std::optional<bool> done = spinning_on()) {
        return *done;
    }
    const uint64_t quantum = cycles_in(m_qk.remaining());
    const uint64_t budget = std::min(std::max<uint64_t>(quantum, 1),
                                     m_options.max_instructions - m_result.instructions);
    m_run_base = m_qk.local();
    m_bus_time = sc_core::SC_ZERO_TIME;
    m_in_run = true;
    rv64::RunResult r = m_cpu->run(budget);
    m_in_run = false;
    account(r);
    if (r.stop == rv64::Stop::Budget && still_spinning()) {
        return after_run(r);
    }
    if (r.stop == rv64::Stop::Budget && spin_candidate()) {
        if (const std::optional<SpinTurn> turn = spin_turn(r)) {
            if (turn->device_reads > 0) {
                poll_wait(*turn);
                return true;
            }
            if (turn->counter_reads == 0) {
                spin_wait(*turn);
                return true;
            }
            if (counter_wait(*turn)) {
                return true;
            }
        }
        m_spin_retry_at = m_result.instructions + kSpinBackoff;
    }
    set_busy(true);
    return after_run(r);
}

void K210Hart::account(const rv64::RunResult& r) {
    m_qk.local() = m_run_base + span(static_cast<double>(r.cycles)) + m_bus_time;
    m_result.instructions += r.instructions;
    m_result.cpu_cycles += r.cycles;
}

bool K210Hart::after_run(const rv64::RunResult& r) {
    switch (r.stop) {
    case rv64::Stop::Budget:
    case rv64::Stop::Requested: m_qk.sync_if_needed(); return true;
    case rv64::Stop::Wfi: sleep(); return true;
    case rv64::Stop::Semihost: semihost(); return !m_result.exited;
    case rv64::Stop::Debug: debug_stop(rv64::kSigTrap); return true;
    case rv64::Stop::Breakpoint:
        fail("ebreak (a breakpoint, not semihosting)");
        return m_gdb != nullptr && (debug_stop(rv64::kSigTrap), true);
    case rv64::Stop::Exception:
        fail(fmt::format("illegal instruction {:#010x} (mcause {})", r.tval, r.cause));
        return m_gdb != nullptr && (debug_stop(4), true);  // SIGILL
    case rv64::Stop::Fault:
        if (r.device_error) {
            fail(fmt::format("bus error: the {} answered a {}-byte {} at {:#x} with an error (a "
                             "warning above names the register)",
                             device_name(r.fault_addr), r.fault_size,
                             r.fault_write ? "write" : "read", r.fault_addr),
                 r.fault_pc);
        } else {
            const std::string what =
                m_options.unmodelled ? m_options.unmodelled(r.fault_addr) : std::string();
            fail(what.empty()
                     ? fmt::format("bus fault: an access to {:#x}, where no memory or "
                                   "device answers",
                                   r.fault_addr)
                     : fmt::format("bus fault: an access to {:#x}, {}", r.fault_addr, what));
        }
        return m_gdb != nullptr && (debug_stop(11), true);  // SIGSEGV
    }
    return false;
}

std::string K210Hart::device_name(uint64_t addr) const {
    for (const HartDevice& d : m_devices) {
        if (addr >= d.addr && addr - d.addr < d.size) {
            return d.name;
        }
    }
    return "device";
}

void K210Hart::fail(const std::string& what, uint64_t at_pc) {
    const uint64_t pc = at_pc != 0 ? at_pc : m_cpu->pc();
    m_result.error = fmt::format("firmware {}: {}{} at pc {:#x} ({}), after {} instructions",
                                 m_elf.file, m_hart == 0 ? "" : fmt::format("hart {}: ", m_hart),
                                 what, pc, m_elf.describe(pc), m_result.instructions);
}

uint64_t K210Hart::pending_bits(const sc_time& at) const {
    return (m_plic.interrupt_pending(soc::Plic::machine_context(m_hart)) ? kMeip : 0) |
           (m_clint.timer_pending(m_hart, at) ? kMtip : 0) |
           (m_clint.software_pending(m_hart) ? kMsip : 0);
}

void K210Hart::deliver_interrupts() {
    const uint64_t pending = pending_bits(now());
    m_cpu->set_pending(pending);
    if (pending == 0 || !m_cpu->take_interrupt(pending)) {
        return;
    }
    const uint64_t cause = m_cpu->csr(rv64::Csr::Mcause) & ~rv64::kInterrupt;
    const char* kind = cause == rv64::kIrqExternal ? "external"
                       : cause == rv64::kIrqTimer  ? "timer"
                                                   : "software";
    ++(cause == rv64::kIrqExternal ? m_result.irq_external
       : cause == rv64::kIrqTimer  ? m_result.irq_timer
                                   : m_result.irq_software);
    m_trace.complete(m_irq_track, fmt::format("{} interrupt", kind), "irq", to_ps(now()), 0,
                     {{"mepc", m_elf.describe(m_cpu->csr(rv64::Csr::Mepc))}});
}

// The trace's span of the CPU running since the last wake-up (named by where it resumed).
void K210Hart::close_segment(uint64_t end_ps) {
    if (end_ps > m_segment_start_ps) {
        m_trace.complete(m_track, m_elf.describe(m_segment_pc), "cpu", m_segment_start_ps,
                         end_ps - m_segment_start_ps);
    }
}

// wfi: the hart sleeps until an interrupt it enables (mie) is pending, whatever mstatus.MIE.
void K210Hart::sleep() {
    ++m_result.wfi_count;
    m_qk.sync();
    set_busy(false);
    const uint64_t start = to_ps(sc_core::sc_time_stamp());
    close_segment(start);
    const sc_time deadline =
        m_options.max_time_ps == 0
            ? sc_core::sc_max_time()
            : sc_time(static_cast<double>(m_options.max_time_ps), sc_core::SC_PS);
    while ((pending_bits(sc_core::sc_time_stamp()) & m_cpu->csr(rv64::Csr::Mie)) == 0 &&
           sc_core::sc_time_stamp() < deadline) {
        const sc_time due = wake_deadline(nullptr);
        if (due == sc_core::sc_max_time()) {
            sc_core::wait(m_wake);  // no timer: an interrupt line or a CLINT write must come
        } else {
            sc_core::wait(due - sc_core::sc_time_stamp(), m_wake);
        }
    }
    set_busy(true);
    const uint64_t end = to_ps(sc_core::sc_time_stamp());
    m_result.sleep_ps += end - start;
    m_trace.complete(m_track, "wfi", "sleep", start, end - start);
    m_segment_start_ps = end;
    m_segment_pc = m_cpu->pc();
}

void K210Hart::start_semihosting() {
    rv64::Semihost::Options so;
    so.args = m_options.args;
    so.console = [this](const std::string& text) {
        if (m_options.output) {
            m_options.output("console", text);
        }
    };
    so.centiseconds = [this] {
        return to_ps(now()) / 10'000'000'000;
    };
    so.read_root = m_options.read_root;
    so.write_root = m_options.write_root;
    so.no_root_hint = m_options.files_hint;
    so.refused = [this](const std::string& line) {
        m_result.refused.push_back(line);
        if (m_options.output) {
            m_options.output("npusim", line + "\n");
        }
    };
    m_semihost = std::make_unique<rv64::Semihost>(std::move(so));
}

void K210Hart::semihost() {
    rv64::GuestMemory mem{[this](uint64_t a, void* dst, size_t n) {
                              const uint8_t* p = host(a, n);
                              return p != nullptr && (std::memcpy(dst, p, n), true);
                          },
                          [this](uint64_t a, const void* src, size_t n) {
                              uint8_t* p = host(a, n);
                              return p != nullptr && (std::memcpy(p, src, n), true);
                          }};
    const uint64_t a0 = m_semihost->call(m_cpu->x(10), m_cpu->x(11), mem);
    m_cpu->set_x(10, a0);
    m_cpu->set_pc(m_cpu->pc() + 8);  // past the ebreak and the srai marker
    if (m_semihost->exited()) {
        m_result.exited = true;
        m_result.exit_code = m_semihost->exit_code();
        m_result.unsupported = m_semihost->unsupported();
        close_segment(to_ps(now()));
    }
}

}  // namespace npu::k210
