#include "platforms/k210/k210_script.h"

#include <fmt/format.h>

#include "platforms/k210/soc/k210_platform.h"
#include "platforms/k210/soc/trace_player.h"
#include "sim/core/version.h"
#include "sim/tlm/kernel.h"

namespace npu::k210 {

namespace {

nlohmann::ordered_json layer_json(const kpu::LayerRecord& l, uint64_t hz) {
    return {{"index", l.index},
            {"macs", l.cost.macs},
            {"kpu_cycles", l.cost.total_cycles},
            {"time_us", static_cast<double>(l.cost.total_cycles) * 1e6 / static_cast<double>(hz)},
            {"start_ps", l.start_ps},
            {"end_ps", l.end_ps},
            {"skipped", l.skipped}};
}

}  // namespace

platform::RunReport run_script(const K210Config& cfg, const std::string& source,
                               const platform::RunRequest& request) {
    TraceScript script = load_trace_script(request.script);
    sim::Session session({request.trace, request.verbose});
    K210Platform soc("k210", cfg, session.trace());
    const size_t steps = script.steps.size();
    TracePlayer player("script", soc, std::move(script.steps), std::move(script.blobs));
    session.run();
    std::vector<std::string> failures = player.failures();
    if (!player.finished()) {
        const TraceStep& s = player.steps().at(player.at());
        failures.push_back(fmt::format(
            "line {}: never finished: the simulation ran out of events at {} (nothing left to "
            "raise what it waits for)",
            s.line, sc_core::sc_time_stamp().to_string()));
    }
    const uint64_t end_ps = static_cast<uint64_t>(sc_core::sc_time_stamp().value());
    const uint64_t hz = cfg.kpu.timing.clock_hz;
    platform::RunReport rep;
    rep.passed = failures.empty();
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    uint64_t cycles = 0;
    rep.text =
        fmt::format("script {} on {} ({}): {} steps, {} done\n", request.script, cfg.platform.name,
                    source, steps, player.finished() ? steps : player.at());
    for (const kpu::LayerRecord& l : soc.kpu.layers()) {
        layers.push_back(layer_json(l, hz));
        cycles += l.cost.total_cycles;
        rep.text +=
            fmt::format("  KPU layer {}: {} MACs, {} cycles{}\n", l.index, l.cost.macs,
                        l.cost.total_cycles, l.skipped ? " (skipped: see the warning)" : "");
    }
    rep.text += fmt::format(
        "simulated time {:.3f} us, KPU {} cycles; {}\n", static_cast<double>(end_ps) / 1e6, cycles,
        failures.empty() ? "every check passed" : fmt::format("{} failed:", failures.size()));
    for (const std::string& f : failures) {
        rep.text += "  " + f + "\n";
    }
    nlohmann::ordered_json dumps = nlohmann::ordered_json::array();
    for (const auto& [name, bytes] : player.dumps()) {
        rep.files.push_back({name, bytes});
        dumps.push_back({{"file", name}, {"bytes", bytes.size()}});
    }
    rep.json = {{"tool", "npusim"},
                {"version", sim::npusim_version()},
                {"command", "run"},
                {"mode", "script"},
                {"platform", {{"kind", "k210"}, {"name", cfg.platform.name}, {"source", source}}},
                {"script", request.script},
                {"steps", steps},
                {"layers", layers},
                {"totals", {{"kpu_cycles", cycles}, {"end_ps", end_ps}}},
                {"failures", failures},
                {"dumps", dumps},
                {"passed", rep.passed},
                {"stats", soc.stats().to_json()}};
    return rep;
}

}  // namespace npu::k210
