#include "platforms/k210/k210_script.h"

#include <fmt/format.h>

#include "models/k210_kpu/kpu_layer_args.h"
#include "platforms/k210/soc/k210_platform.h"
#include "platforms/k210/soc/trace_player.h"
#include "sim/core/version.h"
#include "sim/tlm/kernel.h"

namespace npu::k210 {

namespace {

// A KPU layer the script ran: its span and its time's parts (kpu::LayerCost::parts()).
sim::LayerRecord layer_record(const kpu::LayerRecord& l, uint64_t hz) {
    sim::LayerRecord r{l.index,
                       "KPU layer",
                       kpu::shape_summary(l.args),
                       l.cost.macs,
                       l.cost.weight_bytes + l.cost.param_bytes,
                       l.start_ps,
                       l.end_ps,
                       {},
                       {},
                       ""};
    std::vector<sim::Part> parts;
    for (const auto& [name, cycles] : l.cost.parts()) {
        parts.push_back({name, cycles});
    }
    r.engines.push_back({"KPU", l.end_ps - l.start_ps, "kpu", static_cast<double>(hz), parts});
    r.measures = {{"kpu_cycles", static_cast<double>(l.cost.total_cycles), "cycles"},
                  {"skipped", l.skipped ? 1.0 : 0.0, ""}};
    return r;
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
    uint64_t cycles = 0;
    rep.text =
        fmt::format("script {} on {} ({}): {} steps, {} done\n", request.script, cfg.platform.name,
                    source, steps, player.finished() ? steps : player.at());
    for (const kpu::LayerRecord& l : soc.kpu.layers()) {
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
    sim::RunRecord rec;
    rec.command = "run";
    rec.mode = "script";
    rec.platform = {
        "k210", cfg.platform.name, source, {{"kpu_clock_hz", static_cast<double>(hz), "Hz"}}};
    rec.program = {request.script, "register script", {{"steps", static_cast<double>(steps), ""}}};
    for (const kpu::LayerRecord& l : soc.kpu.layers()) {
        rec.layers.push_back(layer_record(l, hz));
    }
    for (const auto& [name, bytes] : player.dumps()) {
        rep.files.push_back({name, bytes});
        rec.dumps.push_back(
            {name, name, {static_cast<int64_t>(bytes.size())}, "uint8", "", "", std::nullopt});
    }
    rec.totals = {{"kpu_cycles", static_cast<double>(cycles), "cycles"},
                  {"end_ps", static_cast<double>(end_ps), "ps"}};
    rec.checks.push_back({"script steps failed", static_cast<double>(failures.size()), "<=", 0,
                          "steps", failures.empty(), std::nullopt, ""});
    rec.notes = failures;
    rec.stats = soc.stats().to_json();
    rep.record = std::move(rec);
    return rep;
}

}  // namespace npu::k210
