#include "platforms/selfcheck/selfcheck.h"

#include <fmt/format.h>

namespace npu::platform {

using sc_core::sc_time;

namespace {
// xorshift64: a fixed, documented pattern so that every run moves the same bytes.
std::vector<uint8_t> pattern(uint64_t seed, size_t n) {
    std::vector<uint8_t> out(n);
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 1;
    for (uint8_t& b : out) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        b = static_cast<uint8_t>(x >> 24);
    }
    return out;
}
}  // namespace

SelfCheckPlatform::SelfCheckPlatform(sc_core::sc_module_name name, const PlatformConfig& cfg,
                                     sim::TraceWriter& trace)
    : sc_module(name)
    , m_cfg(cfg)
    , m_trace(trace)
    , m_track(trace.track("cpu.axi"))
    , m_router("router")
    , m_cpu("cpu", cfg.bus)
    , m_stats(basename()) {
    m_cpu.socket.bind(m_router.target_socket);
    for (const MemoryRegion& r : cfg.memories) {
        m_memories.push_back(std::make_unique<sim::Memory>(r.name.c_str(), r.memory));
        const unsigned port = m_router.bind_target(m_memories.back()->socket);
        for (const sim::MapWindow& w : windows_of(r, port)) {
            m_router.map(w.name, w.base, w.size, port, w.target_base);
        }
    }
    m_stats.attach(m_router.stats());
    for (auto& m : m_memories) {
        m_stats.attach(m->stats());
    }
    m_stats.attach(m_cpu.stats());
    sim::set_global_quantum(sc_time(cfg.quantum_ns, sc_core::SC_NS));
    SC_HAS_PROCESS(SelfCheckPlatform);
    SC_THREAD(run);
}

sc_time SelfCheckPlatform::expected(const sim::MemoryConfig& m, bool write, uint64_t addr,
                                    uint64_t bytes) const {
    // Worked by hand in docs/counters.md: bus cycles at the bus clock plus the memory's own
    // latency once per burst (one b_transport, or one DMI access, per burst).
    const sim::TransferCost c = sim::transfer_cost(m_cfg.bus, addr, bytes);
    const double latency_ns = write ? m.write_latency_ns : m.read_latency_ns;
    return m_cpu.clock_period() * static_cast<double>(c.cycles) +
           sc_time(latency_ns, sc_core::SC_NS) * static_cast<double>(c.bursts);
}

RoundTrip SelfCheckPlatform::round_trip(size_t mem, uint64_t write_addr, uint64_t read_addr,
                                        const std::string& read_window, uint64_t bytes) {
    const MemoryRegion& r = m_cfg.memories[mem];
    RoundTrip t;
    t.memory = r.name;
    t.write_window = r.name;
    t.read_window = read_window;
    t.write_addr = write_addr;
    t.read_addr = read_addr;
    t.bytes = bytes;
    const std::vector<uint8_t> data = pattern(mem + 1, bytes);
    std::vector<uint8_t> back(bytes, 0);

    const uint64_t dmi_before = m_cpu.dmi_transfer_count();

    const sc_time w0 = sc_core::sc_time_stamp() + m_qk.local();
    const bool w_ok =
        m_cpu.write(write_addr, data.data(), bytes, m_qk.local()) == tlm::TLM_OK_RESPONSE;
    const sc_time w1 = sc_core::sc_time_stamp() + m_qk.local();
    t.write_dmi = m_cpu.dmi_transfer_count() > dmi_before;
    m_qk.sync_if_needed();

    const uint64_t dmi_mid = m_cpu.dmi_transfer_count();
    const sc_time r0 = sc_core::sc_time_stamp() + m_qk.local();
    const bool r_ok =
        m_cpu.read(read_addr, back.data(), bytes, m_qk.local()) == tlm::TLM_OK_RESPONSE;
    const sc_time r1 = sc_core::sc_time_stamp() + m_qk.local();
    t.read_dmi = m_cpu.dmi_transfer_count() > dmi_mid;
    m_qk.sync_if_needed();

    t.write_time = w1 - w0;
    t.read_time = r1 - r0;
    t.expected_write_time = expected(r.memory, true, write_addr, bytes);
    t.expected_read_time = expected(r.memory, false, read_addr, bytes);
    t.data_ok = w_ok && r_ok && back == data;

    auto ps = [](const sc_time& s) {
        return static_cast<uint64_t>(s.to_seconds() * 1e12 + 0.5);
    };
    m_trace.complete(m_track, "write " + t.write_window, "bus", ps(w0), ps(t.write_time),
                     {{"addr", fmt::format("{:#x}", write_addr)}, {"bytes", bytes}});
    m_trace.complete(m_track, "read " + t.read_window, "bus", ps(r0), ps(t.read_time),
                     {{"addr", fmt::format("{:#x}", read_addr)}, {"bytes", bytes}});
    return t;
}

void SelfCheckPlatform::run() {
    // 4109 bytes from offset 3: unaligned at both ends and across a 4 KiB boundary.
    constexpr uint64_t kOffset = 3;
    constexpr uint64_t kBytes = 4096 + 13;
    for (size_t i = 0; i < m_cfg.memories.size(); ++i) {
        const MemoryRegion& r = m_cfg.memories[i];
        const uint64_t bytes =
            std::min(kBytes, r.memory.size_bytes - std::min(kOffset, r.memory.size_bytes));
        const uint64_t off = std::min(kOffset, r.memory.size_bytes - bytes);
        const std::vector<sim::MapWindow> ws = windows_of(r, 0);
        const sim::MapWindow& read_w = ws.size() > 1 ? ws[1] : ws[0];  // first alias, if any
        // Twice: the first pass goes by b_transport bursts and earns DMI, the second uses DMI.
        for (int pass = 0; pass < 2; ++pass) {
            m_results.push_back(
                round_trip(i, r.base_addr + off, read_w.base + off, read_w.name, bytes));
        }
    }
    m_qk.sync();
}

}  // namespace npu::platform
