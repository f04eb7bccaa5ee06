// K210Face::calibrate: the measured CSV checked against the model, then rounds of (timed run ->
// each layer's features -> fit_constants), a last timed run with the fitted constants, and the
// table of measured / before / after per row (calibrate.h, docs/k210_platform.md).
#include "platforms/k210/k210_calibrate.h"

#include <algorithm>
#include <cmath>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "platforms/k210/k210_face.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "platforms/k210/soc/driver.h"
#include "platforms/k210/soc/k210_platform.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/trace.h"
#include "sim/tlm/kernel.h"

namespace npu::k210 {

std::vector<LayerFeatures> timed_features(const Kmodel& m, const K210Config& cfg,
                                          std::string& error) {
    sim::Session session({nullptr, false, true});
    K210Platform soc("k210", cfg, session.trace());
    K210Driver driver("driver", soc, session.trace());
    driver.load(m, sim::Tensor(model_input_dtype(m), model_input_shape(m)));
    session.run();
    const RunResult& r = driver.result();
    std::vector<LayerFeatures> out;
    if (!r.done || !r.error.empty()) {
        error = r.error.empty() ? "the timed run did not finish" : r.error;
        return out;
    }
    const double kpu_us = 1e6 / static_cast<double>(cfg.kpu.timing.clock_hz);
    const double cpu_us = 1e6 / static_cast<double>(cfg.cpu.clock_hz);
    for (const LayerRun& l : r.layers) {
        LayerFeatures f;
        f.type = l.type;
        f.wall_us = static_cast<double>(l.end_ps - l.start_ps) / 1e6;
        uint64_t kpu_cycles = 0;
        for (int b = 0; l.kpu_layer >= 0 && b < l.kpu_layers; ++b) {
            const kpu::LayerCost& c =
                soc.kpu.layers().at(static_cast<size_t>(l.kpu_layer + b)).cost;
            add_kpu_features(f, c, cfg.kpu.timing);
            f.kpu_args.push_back(soc.kpu.layers().at(static_cast<size_t>(l.kpu_layer + b)).args);
            kpu_cycles += c.total_cycles;
        }
        f.kpu_cycles = kpu_cycles;
        f.readback_bytes = l.readback_bytes;
        f.cpu_elements = l.cpu_elements, f.cpu_macs = l.cpu_macs;
        f.cpu_kept = l.cpu_overhead_cycles;
        f.bus_dma_us = std::max(0.0, f.wall_us - static_cast<double>(kpu_cycles) * kpu_us -
                                         static_cast<double>(l.cpu_cycles) * cpu_us);
        out.push_back(f);
    }
    return out;
}

CalibrationRun calibrate_model(const Kmodel& m, const std::vector<MeasuredRow>& rows,
                               const K210Config& base, const std::string& csv_name) {
    CalibrationRun run;
    K210Config cfg = base;
    try {
        for (int round = 0; round < 3; ++round) {  // the exposed fetch and bus shift a little
            const std::vector<LayerFeatures> f = timed_features(m, cfg, run.error);
            if (!run.error.empty()) {
                return run;
            }
            if (round == 0) {
                run.before = f;
            }
            run.fit = fit_constants(rows, f, cfg, m.eight_bit, csv_name);
            cfg = run.fit.config;
        }
    } catch (const sim::Error& e) {
        run.error = e.what();  // returned, not thrown, after a simulation (RunReport::error)
        return run;
    }
    run.after = timed_features(m, cfg, run.error);
    return run;
}

namespace {

double err_pct(double model_us, double ms) {
    return (model_us / (ms * 1e3) - 1) * 100;
}

// The record of a calibration: per measured row the board's time and the timed run's before and
// after the fit (ms), with their errors; the largest errors as totals; the fit's notes.
sim::RunRecord calibration_record(const Kmodel& m, const std::vector<MeasuredRow>& rows,
                                  const CalibrationRun& run, const K210Config& cfg,
                                  const std::string& source, const std::string& model) {
    sim::RunRecord rec;
    rec.command = "calibrate", rec.mode = "fit";
    rec.platform = {"k210",
                    cfg.platform.name,
                    source,
                    {{"kpu_clock_hz", static_cast<double>(cfg.kpu.timing.clock_hz), "Hz"},
                     {"cpu_clock_hz", static_cast<double>(cfg.cpu.clock_hz), "Hz"}}};
    rec.program = {model, fmt::format("kmodel v{}", m.version), {}};
    double worst_before = 0, worst_after = 0;
    for (const MeasuredRow& r : rows) {
        const double b = run.before[r.layer].wall_us, a = run.after[r.layer].wall_us;
        worst_before = std::max(worst_before, std::abs(err_pct(b, r.ms)));
        worst_after = std::max(worst_after, std::abs(err_pct(a, r.ms)));
        sim::LayerRecord l{r.layer, r.type, "", 0, 0, std::nullopt, std::nullopt, {}, {}, ""};
        l.measures = {{"board_ms", r.ms, "ms"},
                      {"before_ms", b / 1e3, "ms"},
                      {"before_error", err_pct(b, r.ms), "%"},
                      {"after_ms", a / 1e3, "ms"},
                      {"after_error", err_pct(a, r.ms), "%"}};
        rec.layers.push_back(std::move(l));
    }
    rec.totals = {{"rows", static_cast<double>(rows.size()), ""},
                  {"largest_error_before", worst_before, "%"},
                  {"largest_error_after", worst_after, "%"}};
    rec.notes = run.fit.notes;
    rec.notes.push_back("fitted: " + fmt::format("{}", fmt::join(run.fit.keys, ", ")));
    return rec;
}

}  // namespace

platform::RunReport K210Face::calibrate(const platform::CalibrateRequest& request) const {
    const Kmodel m = load_kmodel(request.model);
    const std::vector<uint8_t> bytes = sim::read_file(request.measured);
    const std::vector<MeasuredRow> rows =
        parse_measured_csv(std::string(bytes.begin(), bytes.end()), request.measured);
    // Checked before anything is simulated: every row names a layer of the model, of its type.
    std::vector<std::string> types;
    for (const KmodelLayer& l : m.layers) {
        types.push_back(l.type_name);
    }
    check_measured_rows(rows, types, request.measured);

    platform::RunReport rep;
    const CalibrationRun run = calibrate_model(m, rows, m_cfg, request.measured);
    if (!run.error.empty()) {
        rep.error = run.error;
        return rep;
    }
    const Fit& fit = run.fit;
    const std::vector<LayerFeatures>&before = run.before, &after = run.after;
    rep.record = calibration_record(m, rows, run, m_cfg, source(), request.model);
    auto it = std::back_inserter(rep.text);
    fmt::format_to(it, "{} (kmodel v{}) against {} ({} rows) on {} ({})\n\n", m.name, m.version,
                   request.measured, rows.size(), m_cfg.platform.name, source());
    fmt::format_to(it, "{:>5}  {:<16} {:>11} {:>11} {:>8} {:>11} {:>8}\n", "layer", "type",
                   "board ms", "before ms", "error", "after ms", "error");
    std::string csv = "layer,type,board_ms,before_ms,after_ms\n";
    for (const MeasuredRow& r : rows) {
        const double b = before[r.layer].wall_us, a = after[r.layer].wall_us;
        fmt::format_to(it, "{:>5}  {:<16} {:>11.4f} {:>11.4f} {:>+7.1f}% {:>11.4f} {:>+7.1f}%\n",
                       r.layer, r.type, r.ms, b / 1e3, err_pct(b, r.ms), a / 1e3, err_pct(a, r.ms));
        csv += fmt::format("{},{},{},{:.6f},{:.6f}\n", r.layer, r.type, r.ms, b / 1e3, a / 1e3);
    }
    fmt::format_to(it, "\nlargest error: {:.1f} % before, {:.1f} % after (timed runs)\n",
                   rep.record->total("largest_error_before")->value,
                   rep.record->total("largest_error_after")->value);
    for (const std::string& n : fit.notes) {
        fmt::format_to(it, "note: {}\n", n);
    }
    const std::string yaml = calibration_yaml(
        fit, fmt::format("# npusim calibrate: {} against {} ({} rows). Include it from a k210\n"
                         "# platform YAML with `calibration: <this file>`.\n",
                         m.name, request.measured, rows.size()));
    if (request.to_files) {
        rep.files.push_back({"calibration.yaml", {yaml.begin(), yaml.end()}});
        rep.files.push_back({"calibrate.csv", {csv.begin(), csv.end()}});
    } else {
        rep.text += "\n" + yaml;
    }
    return rep;
}

}  // namespace npu::k210
