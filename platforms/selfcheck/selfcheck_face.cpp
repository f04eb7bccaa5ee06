#include "platforms/selfcheck/selfcheck_face.h"

#include <iterator>

#include <fmt/format.h>

#include "platforms/selfcheck/selfcheck.h"
#include "sim/core/error.h"
#include "sim/core/version.h"
#include "sim/tlm/kernel.h"
#include "sim/tlm/sim_time.h"

namespace npu::platform {

using sim::to_ps;

namespace {
std::string ns(const sc_core::sc_time& t) {
    return fmt::format("{:.1f} ns", t.to_seconds() * 1e9);
}

std::string round_trip_table(const std::vector<RoundTrip>& trips) {
    std::string s;
    auto it = std::back_inserter(s);
    fmt::format_to(it, "  {:<10} {:<12} {:<6} {:<12} {:<6} {:>10} {:>10} {:>10} {:>10}  {}\n",
                   "bytes", "write at", "path", "read at", "path", "write", "expected", "read",
                   "expected", "result");
    for (const RoundTrip& t : trips) {
        fmt::format_to(
            it, "  {:<10} {:<#12x} {:<6} {:<#12x} {:<6} {:>10} {:>10} {:>10} {:>10}  {}\n", t.bytes,
            t.write_addr, t.write_dmi ? "dmi" : "burst", t.read_addr, t.read_dmi ? "dmi" : "burst",
            ns(t.write_time), ns(t.expected_write_time), ns(t.read_time), ns(t.expected_read_time),
            t.ok()      ? "ok"
            : t.data_ok ? "TIME MISMATCH"
                        : "DATA MISMATCH");
    }
    return s;
}

// A round trip as one layer of the record: the write and the read as engines, their paths and
// the expected times as measures; its checks: the data and both times as transfer_cost says.
sim::LayerRecord trip_layer(const RoundTrip& t, size_t index) {
    sim::LayerRecord l;
    l.index = index;
    l.name = t.memory;
    l.op = "round trip";
    l.shape = fmt::format("{} bytes: {} {:#x} -> {} {:#x}", t.bytes, t.write_window, t.write_addr,
                          t.read_window, t.read_addr);
    l.engines = {{"write (" + std::string(t.write_dmi ? "dmi" : "burst") + ")",
                  to_ps(t.write_time),
                  "",
                  0,
                  {}},
                 {"read (" + std::string(t.read_dmi ? "dmi" : "burst") + ")",
                  to_ps(t.read_time),
                  "",
                  0,
                  {}}};
    l.measures = {{"bytes", static_cast<double>(t.bytes), "bytes"},
                  {"expected_write_ps", static_cast<double>(to_ps(t.expected_write_time)), "ps"},
                  {"expected_read_ps", static_cast<double>(to_ps(t.expected_read_time)), "ps"}};
    return l;
}

void add_trip_checks(sim::RunRecord& r, const RoundTrip& t) {
    const auto off = [](const sc_core::sc_time& a, const sc_core::sc_time& b) {
        return static_cast<double>(a > b ? to_ps(a - b) : to_ps(b - a));
    };
    const double w = off(t.write_time, t.expected_write_time),
                 rd = off(t.read_time, t.expected_read_time);
    r.checks.push_back({t.memory + " data mismatches", t.data_ok ? 0.0 : 1.0, "<=", 0, "",
                        t.data_ok, std::nullopt, ""});
    r.checks.push_back({t.memory + " write time off", w, "<=", 0, "ps", w == 0, std::nullopt, ""});
    r.checks.push_back({t.memory + " read time off", rd, "<=", 0, "ps", rd == 0, std::nullopt, ""});
}

std::string bus_line(const PlatformConfig& c) {
    return fmt::format(
        "bus: {} B/beat, bursts of at most {} beats, {} cycles per burst, {} boundary, {}\n",
        c.bus.data_width_bytes, c.bus.max_burst_beats, c.bus.burst_latency_cycles,
        sim::format_size(c.bus.boundary_bytes), sim::format_frequency(c.bus.clock_hz));
}

}  // namespace

SelfCheckFace::SelfCheckFace(PlatformConfig cfg, std::string source)
    : Platform("selfcheck", std::move(source))
    , m_cfg(std::move(cfg)) {
}

std::string SelfCheckFace::describe() const {
    const PlatformConfig& c = m_cfg;
    sim::AddressMap map;
    for (unsigned port = 0; port < c.memories.size(); ++port) {
        for (const sim::MapWindow& w : windows_of(c.memories[port], port)) {
            map.add(w);  // the same overlap check the router makes at elaboration
        }
    }
    std::string s = fmt::format("platform {} ({}), from {}\n", c.name, c.kind, source());
    auto it = std::back_inserter(s);
    fmt::format_to(it, "quantum: {} ns\n", c.quantum_ns);
    s += bus_line(c);
    fmt::format_to(it, "\naddress map:\n{}", map.table());
    fmt::format_to(it, "\nmemories:\n");
    for (const MemoryRegion& m : c.memories) {
        fmt::format_to(it, "  {:<12} {:>8}  read {} ns, write {} ns, DMI {}\n", m.name,
                       sim::format_size(m.memory.size_bytes), m.memory.read_latency_ns,
                       m.memory.write_latency_ns, m.memory.dmi ? "on" : "off");
    }
    return s;
}

RunReport SelfCheckFace::run(const RunRequest& request) {
    if (!request.model.empty() || !request.input.empty() || request.functional ||
        !request.network.empty()) {
        throw sim::Error(
            "--model, --input and --functional need a platform that runs models (e.g. "
            "configs/k210.yaml)");
    }
    sim::Session session({request.trace, request.verbose});
    SelfCheckPlatform top("selfcheck", m_cfg, session.trace());
    session.run();
    RunReport rep;
    rep.passed = !top.results().empty();
    for (const RoundTrip& t : top.results()) {
        rep.passed = rep.passed && t.ok();
    }
    auto it = std::back_inserter(rep.text);
    fmt::format_to(it, "npusim {}: self-check of platform '{}' ({})\n\n", sim::npusim_version(),
                   m_cfg.name, source());
    fmt::format_to(it, "address map:\n{}\n", top.address_map().table());
    rep.text += bus_line(m_cfg) + "\n";
    fmt::format_to(it,
                   "memory round trips (expected time = transfer_cost cycles + memory latency "
                   "per burst):\n{}",
                   round_trip_table(top.results()));
    fmt::format_to(it, "\nself-check {}: {} round trips, simulated time {:.3f} us\n",
                   rep.passed ? "passed" : "FAILED", top.results().size(),
                   sc_core::sc_time_stamp().to_seconds() * 1e6);
    sim::RunRecord rec;
    rec.command = "run";
    rec.mode = "timed";
    rec.platform = {m_cfg.kind, m_cfg.name, source(), {}};
    rec.program = {"", "pattern round trips", {}};
    for (const RoundTrip& t : top.results()) {
        rec.layers.push_back(trip_layer(t, rec.layers.size()));
        add_trip_checks(rec, t);
    }
    rec.totals = {
        {"round_trips", static_cast<double>(top.results().size()), ""},
        {"simulated_time_ps", static_cast<double>(to_ps(sc_core::sc_time_stamp())), "ps"}};
    nlohmann::ordered_json windows = nlohmann::ordered_json::array();
    for (const sim::MapWindow& w : top.address_map().windows()) {
        windows.push_back({{"name", w.name}, {"base", w.base}, {"size", w.size}, {"port", w.port}});
    }
    rec.extra = {{"address_map", windows}};
    rec.stats = top.stats().to_json();
    rep.record = std::move(rec);
    return rep;
}

PlatformKind selfcheck_platform_kind() {
    return {"selfcheck",
            "memories behind a router, checked by a pattern round trip "
            "(configs/selfcheck.yaml)",
            [](const sim::ConfigNode& p, const std::string& source) {
                return std::make_unique<SelfCheckFace>(read_platform(p), source);
            },
            false};
}

}  // namespace npu::platform
