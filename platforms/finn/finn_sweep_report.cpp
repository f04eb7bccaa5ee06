// `npusim estimate --model NET.onnx [--folding F.json] --layers SWEEP.json` on the FINN platform:
// the sweep file's PE/SIMD values per layer, every combination costed (models/finn/finn_sweep.h),
// the front printed and every configuration written as a row.
#include <algorithm>
#include <chrono>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/finn/finn_sweep.h"
#include "platforms/finn/finn_report.h"
#include "platforms/finn/finn_sweep_file.h"
#include "sim/core/address_map.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/json_text.h"

namespace npu::finn {

namespace {

using Json = nlohmann::ordered_json;

constexpr size_t kFrontRowsShown = 30;

std::string knob_name(const Design& d, const Knob& k) {
    return d.layers[k.layer].name + "." + k.attr;
}

Json row_of(const Design& d, const std::vector<Knob>& knobs, const SweepPoint& p, size_t id,
            uint64_t hz) {
    Json r = {{"config", id}};
    for (size_t k = 0; k < knobs.size(); ++k) {
        r[knob_name(d, knobs[k])] = p.values[k];
    }
    if (!p.error.empty()) {
        r["error"] = p.error;
        return r;
    }
    r["max_cycles"] = p.max_cycles;
    r["max_cycles_node_name"] = d.layers[p.max_cycles_layer].name;
    r["critical_path_cycles"] = p.critical_path_cycles;
    r["estimated_throughput_fps"] = static_cast<double>(hz) / static_cast<double>(p.max_cycles);
    r["formula_max_cycles"] = p.formula_max_cycles;
    r["formula_bottleneck"] = p.formula_bottleneck;
    r["formula_latency_cycles"] = p.formula_latency_cycles;
    r["LUT"] = p.resources.lut;
    r["BRAM_18K"] = p.resources.bram_18k;
    r["URAM"] = p.resources.uram;
    r["DSP"] = p.resources.dsp;
    r["pareto"] = p.pareto;
    return r;
}

sim::SweepPlot sweep_plot(const Design& d, const std::vector<Knob>& knobs) {
    sim::SweepPlot p;
    for (const Knob& k : knobs) {
        p.parameters.push_back(knob_name(d, k));
    }
    const sim::SweepPlot::Measure cycles{"max_cycles", "FINN max_cycles (cycles a frame)"};
    const sim::SweepPlot::Measure lut{"LUT", "LUTs (FINN's estimate)"};
    const sim::SweepPlot::Measure bram{"BRAM_18K", "BRAM_18K (FINN's estimate)"};
    p.measures = {cycles, lut, bram};
    p.front_flag = "pareto", p.front_y = cycles, p.front_x = {lut, bram};
    return p;
}

// The front, fewest cycles first (at most kFrontRowsShown rows).
std::string front_text(const Design& d, const std::vector<Knob>& knobs,
                       const std::vector<SweepPoint>& points, uint64_t hz) {
    std::vector<size_t> front;
    for (size_t i = 0; i < points.size(); ++i) {
        if (points[i].pareto) {
            front.push_back(i);
        }
    }
    std::stable_sort(front.begin(), front.end(), [&](size_t a, size_t b) {
        return points[a].max_cycles < points[b].max_cycles;
    });
    std::string s;
    auto it = std::back_inserter(s);
    fmt::format_to(it, "{:>8} {:>10} {:>12} {:>8} {:>8} {:>5} {:>5}  {}\n", "config", "max_cycles",
                   "frames/s", "LUT", "BRAM_18K", "URAM", "DSP", "folding");
    for (size_t n = 0; n < front.size() && n < kFrontRowsShown; ++n) {
        const SweepPoint& p = points[front[n]];
        std::vector<std::string> fold;
        for (size_t k = 0; k < knobs.size(); ++k) {
            fold.push_back(fmt::format("{}={}", knob_name(d, knobs[k]), p.values[k]));
        }
        fmt::format_to(it, "{:>8} {:>10} {:>12.0f} {:>8} {:>8} {:>5} {:>5}  {}\n", front[n],
                       p.max_cycles, static_cast<double>(hz) / static_cast<double>(p.max_cycles),
                       p.resources.lut, p.resources.bram_18k, p.resources.uram, p.resources.dsp,
                       fmt::join(fold, " "));
    }
    if (front.size() > kFrontRowsShown) {
        fmt::format_to(it, "... and {} more on the front (estimate.json, \"pareto\": true)\n",
                       front.size() - kFrontRowsShown);
    }
    return s;
}

}  // namespace

platform::EstimateReport sweep_report(const FinnModel& m, const platform::EstimateRequest& req,
                                      const FinnPlatformConfig& cfg, const std::string& source) {
    const std::vector<Knob> knobs = read_sweep(sim::read_file(req.layers), m.design, req.layers);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<SweepPoint> points;
    try {
        points = sweep(m.design, knobs, cfg.dsp58, sim::kMaxSweepConfigurations);
    } catch (const sim::Error& e) {
        throw sim::Error(fmt::format("{}: {}", req.layers, e.what()));
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const auto invalid = static_cast<uint64_t>(std::count_if(
        points.begin(), points.end(), [](const SweepPoint& p) { return !p.error.empty(); }));
    const auto pareto = static_cast<uint64_t>(
        std::count_if(points.begin(), points.end(), [](const SweepPoint& p) { return p.pareto; }));
    platform::EstimateReport rep;
    rep.text = fmt::format(
        "{} with {} on {} ({}) at {}: {} folding configurations of {} knobs, {} not a design; "
        "FINN's max_cycles and resource estimates, no simulation\n\nthe front ({} "
        "configurations no other one matches or beats in max_cycles, LUT and BRAM_18K at "
        "once), fewest cycles first:\n",
        req.model, req.layers, cfg.name, source, sim::format_frequency(cfg.clock_hz), points.size(),
        knobs.size(), invalid, pareto);
    rep.text += front_text(m.design, knobs, points, cfg.clock_hz);
    rep.note = fmt::format("{} configurations costed in {:.0f} ms", points.size(), ms);
    sim::RunRecord& rec = rep.record.emplace();
    rec.command = "estimate", rec.mode = "sweep";
    rec.platform = {
        "finn", cfg.name, source, {{"clock_hz", static_cast<double>(cfg.clock_hz), "Hz"}}};
    rec.program = {req.model, "FINN-ONNX", {{"knobs", static_cast<double>(knobs.size()), ""}}};
    rec.totals = {{"configurations", static_cast<double>(points.size()), ""},
                  {"invalid", static_cast<double>(invalid), ""},
                  {"pareto", static_cast<double>(pareto), ""}};
    rec.plot = sweep_plot(m.design, knobs);
    if (req.to_files) {
        Json rows = Json::array();
        for (size_t i = 0; i < points.size(); ++i) {
            rows.push_back(row_of(m.design, knobs, points[i], i, cfg.clock_hz));
        }
        const std::string text = sim::json_text(rows, 1) + "\n";
        rep.files.push_back({"estimate.json", {text.begin(), text.end()}});
        rec.rows = "estimate.json";
    }
    return rep;
}

}  // namespace npu::finn
