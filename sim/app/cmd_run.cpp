// npusim run: builds the platform a config describes, runs it, prints the result, and writes the
// report (and optionally the trace) into --out, whole or not at all.
#include <cstdio>
#include <memory>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "platforms/selfcheck/selfcheck.h"
#include "sim/app/app.h"
#include "sim/app/platform_loader.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/trace.h"
#include "sim/tlm/kernel.h"

namespace npu::app {

namespace {

uint64_t to_ps(const sc_core::sc_time& t) {
    return static_cast<uint64_t>(t.to_seconds() * 1e12 + 0.5);
}

std::string ns(const sc_core::sc_time& t) {
    return fmt::format("{:.1f} ns", t.to_seconds() * 1e9);
}

void print_selfcheck(const LoadedPlatform& p, const platform::SelfCheckPlatform& top) {
    const platform::PlatformConfig& c = p.config;
    fmt::print("npusim {}: self-check of platform '{}' ({})\n\n", version(), c.name, p.source);
    fmt::print("address map:\n{}\n", top.address_map().table());
    fmt::print(
        "bus: {} B/beat, bursts of at most {} beats, {} cycles per burst, {} boundary, {}\n\n",
        c.bus.data_width_bytes, c.bus.max_burst_beats, c.bus.burst_latency_cycles,
        sim::format_size(c.bus.boundary_bytes), sim::format_frequency(c.bus.clock_hz));
    fmt::print(
        "memory round trips (expected time = transfer_cost cycles + memory latency per burst):\n");
    fmt::print("  {:<10} {:<12} {:<6} {:<12} {:<6} {:>10} {:>10} {:>10} {:>10}  {}\n", "bytes",
               "write at", "path", "read at", "path", "write", "expected", "read", "expected",
               "result");
    for (const platform::RoundTrip& t : top.results()) {
        fmt::print("  {:<10} {:<#12x} {:<6} {:<#12x} {:<6} {:>10} {:>10} {:>10} {:>10}  {}\n",
                   t.bytes, t.write_addr, t.write_dmi ? "dmi" : "burst", t.read_addr,
                   t.read_dmi ? "dmi" : "burst", ns(t.write_time), ns(t.expected_write_time),
                   ns(t.read_time), ns(t.expected_read_time),
                   t.ok()      ? "ok"
                   : t.data_ok ? "TIME MISMATCH"
                               : "DATA MISMATCH");
    }
}

nlohmann::ordered_json selfcheck_report(const LoadedPlatform& p, platform::SelfCheckPlatform& top,
                                        bool passed) {
    nlohmann::ordered_json j;
    j["tool"] = "npusim";
    j["version"] = version();
    j["command"] = "run";
    j["platform"] = {{"kind", p.config.kind}, {"name", p.config.name}, {"source", p.source}};
    j["passed"] = passed;
    j["simulated_time_ps"] = to_ps(sc_core::sc_time_stamp());
    nlohmann::ordered_json windows = nlohmann::ordered_json::array();
    for (const sim::MapWindow& w : top.address_map().windows()) {
        windows.push_back({{"name", w.name}, {"base", w.base}, {"size", w.size}, {"port", w.port}});
    }
    j["address_map"] = windows;
    nlohmann::ordered_json trips = nlohmann::ordered_json::array();
    for (const platform::RoundTrip& t : top.results()) {
        trips.push_back({{"memory", t.memory},
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
                         {"ok", t.ok()}});
    }
    j["round_trips"] = trips;
    j["stats"] = top.stats().to_json();
    return j;
}

}  // namespace

int cmd_run(const RunOptions& opts) {
    if (opts.trace && opts.out.empty()) {
        throw sim::Error("--trace writes trace.json into the output directory: add --out DIR");
    }
    const LoadedPlatform p = load_platform(opts.platform);
    if (p.k210) {
        return cmd_run_k210(opts, p);
    }
    if (p.dlp) {
        return cmd_run_dlp(opts, p);
    }
    if (!opts.model.empty() || !opts.input.empty() || opts.functional) {
        throw sim::Error(
            "--model, --input and --functional need a platform that runs models (e.g. "
            "configs/k210.yaml)");
    }
    // Create the output directory before simulating, so a bad path fails fast.
    std::unique_ptr<sim::OutputDir> out;
    if (!opts.out.empty()) {
        out = std::make_unique<sim::OutputDir>(opts.out);
    }
    sim::install_report_handler({}, opts.verbose);
    sim::TraceWriter trace(opts.trace);

    platform::SelfCheckPlatform top("selfcheck", p.config, trace);
    sc_core::sc_start();

    bool passed = !top.results().empty();
    for (const platform::RoundTrip& t : top.results()) {
        passed = passed && t.ok();
    }
    print_selfcheck(p, top);
    fmt::print("\nself-check {}: {} round trips, simulated time {:.3f} us\n",
               passed ? "passed" : "FAILED", top.results().size(),
               sc_core::sc_time_stamp().to_seconds() * 1e6);
    if (out) {
        out->write_text("report.json", selfcheck_report(p, top, passed).dump(2) + "\n");
        if (opts.trace) {
            out->write_text("trace.json", trace.dump() + "\n");
        }
        out->commit();
        fmt::print("wrote {} to {}\n", fmt::join(out->files(), ", "), out->dir().string());
    }
    return passed ? kExitOk : kExitCheckFailed;
}

}  // namespace npu::app
