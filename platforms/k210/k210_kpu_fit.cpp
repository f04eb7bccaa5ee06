#include "platforms/k210/k210_kpu_fit.h"

#include <cmath>
#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "models/k210_kpu/kpu_fit.h"
#include "models/k210_kpu/kpu_layer_builder.h"
#include "platforms/k210/calibrate.h"
#include "platforms/k210/k210_calibrate.h"
#include "platforms/k210/kmodel/cpu_fit.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "sim/core/error.h"
#include "sim/core/files.h"

namespace npu::k210 {
namespace {

constexpr uint64_t kSipeedKpuHz = 300'000'000;
constexpr const char* kBegin = "<!-- kpu-fit:begin -->";
constexpr const char* kEnd = "<!-- kpu-fit:end -->";

std::string slurp(const std::string& path) {
    const std::vector<uint8_t> b = sim::read_file(path);
    return {b.begin(), b.end()};
}

// The Sipeed layer: 3x3, 128 -> 128, 16-bit weights, no pooling; the model compiler it came from
// loads 4096 kernels per chunk (32 output channels x 128 inputs): 4 chunks of 73,728 bytes
// (assumed: the post does not give the layer words).
kpu::LayerArgs sipeed_layer(int w, int h) {
    kpu::LayerArgs a = kpu::build_layer({128, h, w, 128, 3, false, 0, false});
    a.o_ch_num_coef = 31;
    a.para_size = 32 * 128 * 9 * 2;
    a.load_time = 3;
    return a;
}

std::vector<kpu::KpuRow> sipeed_rows(const std::string& path) {
    std::istringstream in(slurp(path));
    std::string line;
    std::vector<kpu::KpuRow> rows;
    for (size_t n = 1; std::getline(in, line); ++n) {
        int w = 0, h = 0;
        double ms = 0;
        char c1 = 0, c2 = 0;
        std::istringstream f(line);
        if (n == 1 || line.empty()) {
            continue;  // the header
        }
        if (!(f >> w >> c1 >> h >> c2 >> ms) || c1 != ',' || c2 != ',' || ms <= 0) {
            throw sim::Error(fmt::format("{}:{}: expected width,height,ms", path, n));
        }
        kpu::KpuRow r;
        r.name = fmt::format("Sipeed {}x{}", w, h);
        r.args = sipeed_layer(w, h);
        r.eight_bit = false;
        r.measured_cycles = ms * 1e-3 * static_cast<double>(kSipeedKpuHz);
        rows.push_back(r);
    }
    return rows;
}

// The face rows: each measured KPU layer with the part of its simulated interval that is not the
// KPU's (the runtime's CPU work, bus and DMA).
std::vector<kpu::KpuRow> face_rows(const std::vector<MeasuredRow>& measured,
                                   const std::vector<LayerFeatures>& f, bool eight_bit,
                                   uint64_t kpu_hz, std::vector<size_t>& layers) {
    const double hz = static_cast<double>(kpu_hz);
    std::vector<kpu::KpuRow> rows;
    for (const MeasuredRow& m : measured) {
        const LayerFeatures& l = f.at(m.layer);
        if (l.kpu_args.size() != 1) {
            continue;  // a CPU layer: not the KPU's fit
        }
        kpu::KpuRow r;
        r.name = fmt::format("nncase#77 layer {}", m.layer);
        r.args = l.kpu_args.front();
        r.eight_bit = eight_bit;
        r.measured_cycles = m.ms * 1e-3 * hz;
        r.other_cycles = l.wall_us * 1e-6 * hz - static_cast<double>(l.kpu_cycles);
        rows.push_back(r);
        layers.push_back(m.layer);
    }
    return rows;
}

std::string constant_text(size_t j, double v) {
    return j == 0 ? fmt::format("{}", std::llround(v)) : fmt::format("{:.4g}", v);
}

// The largest part of a row's predicted time, named.
std::string largest_term(const kpu::KpuRow& r, const kpu::KpuTiming& t) {
    const kpu::LayerCost c = kpu::layer_cost(r.args, r.eight_bit, t);
    const std::pair<const char*, double> parts[] = {
        {"fixed F", static_cast<double>(c.fixed_cycles)},
        {"fetch p", static_cast<double>(c.param_fetch_cycles + c.exposed_fetch_cycles)},
        {"input lines a", t.cycles_per_input_line * static_cast<double>(c.work.input_lines)},
        {"passes s", t.cycles_per_pass * static_cast<double>(c.work.passes)},
        {"output lines w", t.cycles_per_output_line * static_cast<double>(c.work.output_lines)},
        {"output stream d", static_cast<double>(c.output_cycles)},
        {"runtime", r.other_cycles}};
    const double total = kpu::predicted_cycles(r, t);
    auto best = std::begin(parts);
    for (auto p = std::begin(parts); p != std::end(parts); ++p) {
        best = p->second > best->second ? p : best;
    }
    return fmt::format("{} {:.0f} %", best->first, 100 * best->second / total);
}

std::string pct(double e) {
    return std::isnan(e) ? "n/a" : fmt::format("{:+.1f} %", 100 * e);
}

const char* const kConstantMeaning[] = {
    "per layer: start, pipeline fill and drain",
    "per 64-byte input line into the lanes",
    "per pass (output channel × input line group)",
    "per line out of the lanes (BN, activation, pool, write-back)",
    "per byte of tables and weight chunk 0 (later chunks overlap compute)",
    "per 64-bit word of a main-memory output (`send_data_out`, DMA channel 5)"};

}  // namespace

std::string with_fit_tables(const std::string& doc, const std::string& markdown) {
    return sim::replace_between(doc, kBegin, kEnd, markdown);
}

namespace {

// The constants' table; `match` says whether every shipped constant lies in its range.
std::string constants_table(const kpu::KpuTiming& shipped_t, const kpu::KpuFit& fit, bool& match) {
    const auto got = kpu::constants_of(fit.timing), shipped = kpu::constants_of(shipped_t);
    std::string s =
        "| constant | shipped | fitted | over the leave-one-out fits | what |\n"
        "|---|---|---|---|---|\n";
    match = true;
    for (size_t j = 0; j < kpu::kKpuConstants; ++j) {
        match = match && shipped[j] >= fit.loo_min[j] - 1e-9 && shipped[j] <= fit.loo_max[j] + 1e-9;
        s += fmt::format("| `{}` | {} | {} | {} – {} | {} |\n", kpu::kKpuConstantNames[j],
                         constant_text(j, shipped[j]), constant_text(j, got[j]),
                         constant_text(j, fit.loo_min[j]), constant_text(j, fit.loo_max[j]),
                         kConstantMeaning[j]);
    }
    return s;
}

// The rows' table (face rows: the timed run `after`; Sipeed rows: the cost function, both with
// the shipped constants), with the report's rows and the summary of nncase#77's sums.
std::string rows_table(const std::vector<kpu::KpuRow>& rows, const std::vector<size_t>& layers,
                       const std::vector<MeasuredRow>& measured,
                       const std::vector<LayerFeatures>& after, const kpu::KpuFit& fit,
                       const K210Config& cfg, KpuFitReport& rep) {
    std::string s =
        "\n| row | layer | board µs | npusim µs | error | leave-one-out | largest term |\n"
        "|---|---|---|---|---|---|---|\n";
    double worst = 0, worst_loo = 0;
    for (size_t i = 0; i < rows.size(); ++i) {
        const kpu::KpuRow& r = rows[i];
        const bool face = i < layers.size();
        const double hz = face ? static_cast<double>(cfg.kpu.timing.clock_hz) : kSipeedKpuHz;
        const double board_us = r.measured_cycles / hz * 1e6;
        const double sim_us = face ? after.at(layers[i]).wall_us
                                   : kpu::predicted_cycles(r, cfg.kpu.timing) / hz * 1e6;
        const double err = sim_us / board_us - 1, loo = fit.loo_error[i];
        rep.rows.push_back({r.name, face, board_us, sim_us, loo});
        worst = std::max(worst, std::abs(err));
        worst_loo = std::isnan(loo) ? worst_loo : std::max(worst_loo, std::abs(loo));
        s += fmt::format("| {} | {} | {:.1f} | {:.1f} | {} | {} | {} |\n", r.name,
                         kpu::shape_summary(r.args) + (r.eight_bit ? "" : ", 16-bit"), board_us,
                         sim_us, pct(err), pct(loo), largest_term(r, cfg.kpu.timing));
    }
    double board_kpu = 0, sim_kpu = 0, board_all = 0, sim_all = 0;
    for (const MeasuredRow& r : measured) {
        const bool kpu_row = after.at(r.layer).kpu_args.size() == 1;
        board_all += r.ms * 1e3, sim_all += after.at(r.layer).wall_us;
        board_kpu += kpu_row ? r.ms * 1e3 : 0, sim_kpu += kpu_row ? after.at(r.layer).wall_us : 0;
    }
    rep.board_kpu_ms = board_kpu / 1e3, rep.sim_kpu_ms = sim_kpu / 1e3;
    rep.board_model_ms = board_all / 1e3, rep.sim_model_ms = sim_all / 1e3;
    return s + fmt::format(
                   "\nnncase#77: KPU layers {:.3f} ms on the board, {:.3f} ms timed ({}); the "
                   "model {:.3f} ms, {:.3f} ms timed ({}).\nLargest error {:.1f} %, largest "
                   "leave-one-out error {:.1f} %.\n",
                   rep.board_kpu_ms, rep.sim_kpu_ms, pct(sim_kpu / board_kpu - 1),
                   rep.board_model_ms, rep.sim_model_ms, pct(sim_all / board_all - 1), 100 * worst,
                   100 * worst_loo);
}

}  // namespace

KpuFitReport kpu_fit_report(const KpuFitInputs& in, const K210Config& cfg) {
    KpuFitReport rep;
    const Kmodel m = load_kmodel(in.face_model);
    const std::vector<MeasuredRow> measured = parse_measured_csv(slurp(in.face_csv), in.face_csv);
    std::vector<std::string> types;
    for (const KmodelLayer& l : m.layers) {
        types.push_back(l.type_name);
    }
    check_measured_rows(measured, types, in.face_csv);
    // One timed run with the platform's constants gives each layer's runtime part and the
    // errors the table shows (what a user's run gets); the fit gives the constants' values and
    // their leave-one-out ranges. The runtime part moves by up to ~120 cycles with the KPU's
    // phase against the CPU's quantum (docs/k210_kpu.md), so the shipped constants are held to
    // the fit's leave-one-out ranges rather than to its last digit.
    const std::vector<LayerFeatures> after = timed_features(m, cfg, rep.error);
    if (!rep.error.empty()) {
        return rep;
    }
    std::vector<size_t> layers;  // of the face rows
    std::vector<kpu::KpuRow> rows =
        face_rows(measured, after, m.eight_bit, cfg.kpu.timing.clock_hz, layers);
    for (const kpu::KpuRow& r : sipeed_rows(in.sipeed_csv)) {
        rows.push_back(r);
    }
    const kpu::KpuFit fit = kpu::fit_kpu(rows, cfg.kpu.timing, true);
    rep.fitted = fit.timing;
    rep.markdown = constants_table(cfg.kpu.timing, fit, rep.shipped_match) +
                   rows_table(rows, layers, measured, after, fit, cfg, rep);
    return rep;
}

}  // namespace npu::k210
