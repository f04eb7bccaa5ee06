#include "platforms/dlp/dlp_sweep_report.h"

#include <algorithm>
#include <chrono>
#include <iterator>
#include <tuple>

#include <fmt/format.h>

#include "platforms/dlp/dlp_sweep.h"
#include "sim/core/json_text.h"
#include "sim/core/pareto.h"

namespace npu::dlp {

namespace {

using Json = nlohmann::ordered_json;

constexpr size_t kRowsShown = 30;

Json row_of(const DlpSweep& s, const DlpSweepPoint& p, size_t id) {
    Json r = {{"config", id}};
    for (size_t a = 0; a < s.axes.size(); ++a) {
        r[s.axes[a].key] = s.axes[a].shown[p.value[a]];
    }
    if (!p.error.empty()) {
        r["error"] = p.error;
        return r;
    }
    r["frame_cycles"] = p.frame_cycles;
    r["latency_ms"] = p.latency_ms();
    r["frames_per_second"] = p.frames_per_second;
    r["DSP"] = p.resources.dsp;
    r["BRAM"] = p.resources.bram;
    r["LUT"] = p.resources.lut;
    if (s.budget.given()) {
        r["meets_budget"] = p.meets;
    }
    r["pareto"] = p.pareto;
    return r;
}

sim::SweepPlot sweep_plot(const DlpSweep& s) {
    sim::SweepPlot p;
    for (const SweepAxis& a : s.axes) {
        p.parameters.push_back(a.key);
    }
    const sim::SweepPlot::Measure latency{"latency_ms", "latency of a frame (ms)"};
    const sim::SweepPlot::Measure dsp{"DSP", "DSP blocks"};
    const sim::SweepPlot::Measure bram{"BRAM", "block RAM (tiles or bits)"};
    p.measures = {latency, dsp, bram, {"frames_per_second", "frames/s"}};
    p.front_flag = "pareto", p.front_y = latency, p.front_x = {dsp, bram};
    return p;
}

// The chosen rows (at most kRowsShown), fastest first, then fewest DSPs and BRAM.
std::string rows_text(const DlpSweep& s, const std::vector<DlpSweepPoint>& points,
                      std::vector<size_t> chosen) {
    auto key = [&](size_t i) {
        const DlpSweepPoint& p = points[i];
        return std::make_tuple(p.latency_ms(), p.resources.dsp, p.resources.bram, i);
    };
    std::sort(chosen.begin(), chosen.end(), [&](size_t a, size_t b) { return key(a) < key(b); });
    std::string t;
    auto it = std::back_inserter(t);
    fmt::format_to(it, "{:>8} {:>12} {:>11} {:>10} {:>6} {:>10} {:>8}  {}\n", "config", "cycles",
                   "latency ms", "frames/s", "DSP", "BRAM", "LUT", "parameters");
    for (size_t n = 0; n < chosen.size() && n < kRowsShown; ++n) {
        const DlpSweepPoint& p = points[chosen[n]];
        std::string params;
        for (size_t a = 0; a < s.axes.size(); ++a) {
            params +=
                fmt::format("{}{}={}", a ? " " : "", s.axes[a].key, s.axes[a].shown[p.value[a]]);
        }
        fmt::format_to(it, "{:>8} {:>12} {:>11.4f} {:>10.1f} {:>6} {:>10} {:>8}  {}\n", chosen[n],
                       p.frame_cycles, p.latency_ms(), p.frames_per_second, p.resources.dsp,
                       p.resources.bram, p.resources.lut, params);
    }
    if (chosen.size() > kRowsShown) {
        fmt::format_to(it, "... and {} more (estimate.json)\n", chosen.size() - kRowsShown);
    }
    return t;
}

std::vector<size_t> where(const std::vector<DlpSweepPoint>& points, bool DlpSweepPoint::*flag) {
    std::vector<size_t> out;
    for (size_t i = 0; i < points.size(); ++i) {
        if (points[i].*flag) {
            out.push_back(i);
        }
    }
    return out;
}

std::string budget_text(const DlpSweep& s, const std::vector<DlpSweepPoint>& points) {
    const SweepBudget& b = s.budget;
    std::string limits = fmt::format("{} frames/s", b.frames_per_second);
    for (auto [name, v] : {std::pair{"DSP", b.dsp}, {"BRAM", b.bram}, {"LUT", b.lut}}) {
        limits += v ? fmt::format(", {} ≤ {}", name, v) : "";
    }
    const std::vector<size_t> ok = where(points, &DlpSweepPoint::meets);
    if (ok.empty()) {
        return fmt::format("\nthe budget ({}): no configuration meets it\n", limits);
    }
    return fmt::format("\nthe budget ({}): {} configurations meet it, fastest first:\n{}", limits,
                       ok.size(), rows_text(s, points, ok));
}

sim::RunRecord sweep_record(const DlpPlatformConfig& cfg, const std::string& source,
                            const std::string& model, const DlpSweep& s,
                            const std::vector<DlpSweepPoint>& points, uint64_t invalid) {
    sim::RunRecord rec;
    rec.command = "estimate", rec.mode = "sweep";
    rec.platform = {"dlp",
                    cfg.name,
                    source,
                    {{"clock_hz", static_cast<double>(cfg.dlp.target_frequency_hz), "Hz"}}};
    rec.program = {
        model, "DL processor network", {{"parameters", static_cast<double>(s.axes.size()), ""}}};
    rec.totals = {
        {"configurations", static_cast<double>(points.size()), ""},
        {"invalid", static_cast<double>(invalid), ""},
        {"pareto", static_cast<double>(where(points, &DlpSweepPoint::pareto).size()), ""},
        {"meets_budget", static_cast<double>(where(points, &DlpSweepPoint::meets).size()), ""}};
    rec.plot = sweep_plot(s);
    return rec;
}

}  // namespace

platform::EstimateReport sweep_report(const Network& n, const std::string& model,
                                      const platform::EstimateRequest& req,
                                      const DlpPlatformConfig& cfg, const std::string& source) {
    const DlpSweep s = read_dlp_sweep(req.layers, cfg.dlp, sim::kMaxSweepConfigurations);
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<DlpSweepPoint> points = sweep(n, cfg, s, req.layers);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const auto invalid = static_cast<uint64_t>(std::count_if(
        points.begin(), points.end(), [](const DlpSweepPoint& p) { return !p.error.empty(); }));
    const std::vector<size_t> front = where(points, &DlpSweepPoint::pareto);
    platform::EstimateReport rep;
    rep.text = fmt::format(
        "{} ({}) with {} on {} ({}, {} {}): {} processor configurations of {} parameters, {} "
        "cannot run it; dlhdl-style estimates and fitted resources, no simulation\n",
        model, n.name, req.layers, cfg.name, source, cfg.fpga.part, family_name(cfg.fpga.family),
        points.size(), s.axes.size(), invalid);
    if (s.budget.given()) {
        rep.text += budget_text(s, points);
    }
    rep.text += fmt::format(
        "\nthe front ({} configurations no other one matches or beats in latency, DSP and block "
        "RAM at once), fastest first:\n{}",
        front.size(), rows_text(s, points, front));
    rep.note = fmt::format("{} configurations costed in {:.0f} ms", points.size(), ms);
    rep.record = sweep_record(cfg, source, model, s, points, invalid);
    if (req.to_files) {
        Json rows = Json::array();
        for (size_t i = 0; i < points.size(); ++i) {
            rows.push_back(row_of(s, points[i], i));
        }
        const std::string text = sim::json_text(rows, 1) + "\n";
        rep.files.push_back({"estimate.json", {text.begin(), text.end()}});
        rep.record->rows = "estimate.json";
    }
    return rep;
}

}  // namespace npu::dlp
