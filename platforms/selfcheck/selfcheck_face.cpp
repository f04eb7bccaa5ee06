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

nlohmann::ordered_json trip_json(const RoundTrip& t) {
    return {{"memory", t.memory},
            {"bytes", t.bytes},
            {"write_window", t.write_window},
            {"write_addr", t.write_addr},
            {"write_path", t.write_dmi ? "dmi" : "burst"},
            {"write_time_ps", to_ps(t.write_time)},
            {"expected_write_time_ps", to_ps(t.expected_write_time)},
            {"read_window", t.read_window},
            {"read_addr", t.read_addr},
            {"read_path", t.read_dmi ? "dmi" : "burst"},
            {"read_time_ps", to_ps(t.read_time)},
            {"expected_read_time_ps", to_ps(t.expected_read_time)},
            {"data_ok", t.data_ok},
            {"ok", t.ok()}};
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
    rep.json["platform"] = {{"kind", m_cfg.kind}, {"name", m_cfg.name}, {"source", source()}};
    rep.json["passed"] = rep.passed;
    rep.json["simulated_time_ps"] = to_ps(sc_core::sc_time_stamp());
    nlohmann::ordered_json windows = nlohmann::ordered_json::array();
    for (const sim::MapWindow& w : top.address_map().windows()) {
        windows.push_back({{"name", w.name}, {"base", w.base}, {"size", w.size}, {"port", w.port}});
    }
    rep.json["address_map"] = windows;
    nlohmann::ordered_json trips = nlohmann::ordered_json::array();
    for (const RoundTrip& t : top.results()) {
        trips.push_back(trip_json(t));
    }
    rep.json["round_trips"] = trips;
    rep.json["stats"] = top.stats().to_json();
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
