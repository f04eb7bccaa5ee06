#include "platforms/dlp/dlp_fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <sstream>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/nnls.h"

namespace npu::dlp {

namespace {

constexpr unsigned kWidths[] = {128, 256, 512};
constexpr size_t kUnknowns = 5;  // conv set-up, adder set-up, fc set-up, start, burst latency

// One row's linear model: measured = base + features · [Sconv, Sadder, Sfc, Sstart, L].
struct RowModel {
    size_t layer = 0;
    double base = 0;  // compute + beats (+ tile overheads): layer_cost at zero set-up and latency
    double features[kUnknowns] = {};
    double measured = 0;
};

DlpTiming zero_setups(DlpTiming t) {
    t.conv_setup_cycles = t.adder_setup_cycles = t.fc_setup_cycles = t.start_cycles = 0;
    return t;
}

std::vector<RowModel> row_models(const Network& n, const Program& p, DlpConfig cfg,
                                 const DlpTiming& base, const std::vector<MeasuredLayer>& rows) {
    const DlpTiming t0 = zero_setups(base);
    std::vector<RowModel> out;
    for (const MeasuredLayer& m : rows) {
        size_t i = 0;
        while (i < n.layers.size() && n.layers[i].name != m.name) {
            ++i;
        }
        if (i == n.layers.size()) {
            throw sim::Error(fmt::format("measured row '{}' names no layer of {}", m.name, n.name));
        }
        const Layer& l = n.layers[i];
        RowModel r;
        r.layer = i;
        r.measured = static_cast<double>(m.cycles);
        cfg.ddr_burst_latency_cycles = 0;
        r.base =
            static_cast<double>(layer_cost(l, p.records[i].place, cfg, t0, i == 0).total_cycles);
        cfg.ddr_burst_latency_cycles = 1;
        const double bursts =
            static_cast<double>(layer_cost(l, p.records[i].place, cfg, t0, i == 0).total_cycles) -
            r.base;
        const std::string module = module_name(l.kind);
        r.features[0] = module == "conv_module" ? 1 : 0;
        r.features[1] = module == "adder_module" ? 1 : 0;
        r.features[2] = module == "fc_module" ? 1 : 0;
        r.features[3] = i == 0 ? 1 : 0;
        r.features[4] = bursts;
        out.push_back(r);
    }
    return out;
}

// The constants fitted on `rows` but `skip` (none when skip >= rows.size()), rounded to cycles.
std::array<uint64_t, kUnknowns> solve(const std::vector<RowModel>& rows, size_t skip) {
    const size_t m = rows.size() - (skip < rows.size() ? 1 : 0);
    Eigen::MatrixXd a(static_cast<Eigen::Index>(m), static_cast<Eigen::Index>(kUnknowns));
    Eigen::VectorXd b(static_cast<Eigen::Index>(m));
    Eigen::Index k = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
        if (r == skip) {
            continue;
        }
        for (size_t j = 0; j < kUnknowns; ++j) {
            a(k, static_cast<Eigen::Index>(j)) = rows[r].features[j];
        }
        b(k++) = rows[r].measured - rows[r].base;
    }
    const Eigen::VectorXd x = sim::nnls(a, b);
    std::array<uint64_t, kUnknowns> c{};
    for (size_t j = 0; j < kUnknowns; ++j) {
        c[j] = static_cast<uint64_t>(std::llround(x(static_cast<Eigen::Index>(j))));
    }
    return c;
}

DlpTiming with_setups(DlpTiming t, const std::array<uint64_t, kUnknowns>& c) {
    t.conv_setup_cycles = c[0], t.adder_setup_cycles = c[1], t.fc_setup_cycles = c[2];
    t.start_cycles = c[3];
    return t;
}

// A row's cycles by the cost function itself with the constants `c`.
uint64_t predict(const Network& n, const Program& p, DlpConfig cfg, const DlpTiming& base,
                 const std::array<uint64_t, kUnknowns>& c, size_t layer) {
    cfg.ddr_burst_latency_cycles = static_cast<unsigned>(c[4]);
    return layer_cost(n.layers[layer], p.records[layer].place, cfg, with_setups(base, c),
                      layer == 0)
        .total_cycles;
}

double percent(uint64_t got, double want) {
    return (static_cast<double>(got) - want) / want * 100.0;
}

}  // namespace

std::vector<MeasuredLayer> read_measured_layers(const std::string& text,
                                                const std::string& source) {
    std::vector<MeasuredLayer> rows;
    std::istringstream in(text);
    std::string line;
    for (size_t no = 1; std::getline(in, line); ++no) {
        if (line.empty() || line[0] == '#' || line == "layer,cycles") {
            continue;
        }
        const size_t comma = line.find(',');
        MeasuredLayer m;
        m.name = line.substr(0, comma);
        char* end = nullptr;
        const std::string number = comma == std::string::npos ? "" : line.substr(comma + 1);
        const unsigned long long v = std::strtoull(number.c_str(), &end, 10);
        if (m.name.empty() || number.empty() || *end != '\0' || v == 0 || v > (1ull << 40)) {
            throw sim::Error(fmt::format("{}:{}: expected layer,cycles (a positive number): {}",
                                         source, no, line.substr(0, 80)));
        }
        m.cycles = v;
        rows.push_back(m);
    }
    if (rows.size() < 2) {
        throw sim::Error(source + ": fewer than two measured layers");
    }
    return rows;
}

DlpFit fit_dlp_timing(const Network& n, const Program& p, DlpConfig cfg, const DlpTiming& base,
                      const std::vector<MeasuredLayer>& rows, unsigned width_bits) {
    cfg.axi_data_width_bits = width_bits;
    const std::vector<RowModel> models = row_models(n, p, cfg, base, rows);
    const auto all = solve(models, models.size());
    DlpFit f;
    f.width_bits = width_bits;
    f.timing = with_setups(base, all);
    f.burst_latency_cycles = static_cast<unsigned>(all[4]);
    double squares = 0;
    for (size_t r = 0; r < models.size(); ++r) {
        f.predicted.push_back(predict(n, p, cfg, base, all, models[r].layer));
        f.left_out.push_back(predict(n, p, cfg, base, solve(models, r), models[r].layer));
        const double e = percent(f.left_out.back(), models[r].measured);
        squares += e * e;
        f.max_abs_loo_percent = std::max(f.max_abs_loo_percent, std::fabs(e));
    }
    f.rms_loo_percent = std::sqrt(squares / static_cast<double>(models.size()));
    return f;
}

namespace {

std::string candidates_table(const std::vector<DlpFit>& fits, unsigned shipped_width) {
    std::string s =
        "| AXI width | conv set-up | adder set-up | fc set-up | start | burst latency | "
        "leave-one-out RMS | largest |\n|---|---|---|---|---|---|---|---|\n";
    for (const DlpFit& f : fits) {
        s += fmt::format("| {} bits{} | {} | {} | {} | {} | {} | {:.1f} % | {:.1f} % |\n",
                         f.width_bits, f.width_bits == shipped_width ? " (shipped)" : "",
                         f.timing.conv_setup_cycles, f.timing.adder_setup_cycles,
                         f.timing.fc_setup_cycles, f.timing.start_cycles, f.burst_latency_cycles,
                         f.rms_loo_percent, f.max_abs_loo_percent);
    }
    return s;
}

std::string rows_table(const Network& n, const DlpFit& f, const std::vector<MeasuredLayer>& rows) {
    std::string s =
        "| layer | module | dlhdl (cycles) | npusim | error | left out of the fit | error |\n"
        "|---|---|---|---|---|---|---|\n";
    uint64_t want = 0, got = 0, loo = 0;
    for (size_t r = 0; r < rows.size(); ++r) {
        const auto m = static_cast<double>(rows[r].cycles);
        const Layer* l = nullptr;
        for (const Layer& x : n.layers) {
            l = x.name == rows[r].name ? &x : l;
        }
        s += fmt::format("| {} | {} | {} | {} | {:+.1f} % | {} | {:+.1f} % |\n", rows[r].name,
                         module_name(l->kind), rows[r].cycles, f.predicted[r],
                         percent(f.predicted[r], m), f.left_out[r], percent(f.left_out[r], m));
        want += rows[r].cycles, got += f.predicted[r], loo += f.left_out[r];
    }
    s += fmt::format("| **Network** | | {} | {} | {:+.1f} % | {} | {:+.1f} % |\n", want, got,
                     percent(got, static_cast<double>(want)), loo,
                     percent(loo, static_cast<double>(want)));
    return s;
}

}  // namespace

DlpFitReport dlp_fit_report(const Network& n, const DlpConfig& shipped_cfg,
                            const DlpTiming& shipped, const std::vector<MeasuredLayer>& rows) {
    const Program p = compile(n, shipped_cfg, CompileOptions{});
    std::vector<DlpFit> fits;
    for (unsigned w : kWidths) {
        fits.push_back(fit_dlp_timing(n, p, shipped_cfg, shipped, rows, w));
    }
    const unsigned width = shipped_cfg.axi_bits();
    const DlpFit f = fit_dlp_timing(n, p, shipped_cfg, shipped, rows, width);
    DlpFitReport rep;
    rep.markdown =
        "Constants fitted at each AXI data width (cycles at the processor's clock):\n\n" +
        candidates_table(fits, width) +
        fmt::format(
            "\nEach row at {} bits, with the fitted constants and by the fit "
            "that did not see it:\n\n",
            width) +
        rows_table(n, f, rows);
    const std::pair<const char*, std::pair<uint64_t, uint64_t>> constants[] = {
        {"conv_setup_cycles", {shipped.conv_setup_cycles, f.timing.conv_setup_cycles}},
        {"adder_setup_cycles", {shipped.adder_setup_cycles, f.timing.adder_setup_cycles}},
        {"fc_setup_cycles", {shipped.fc_setup_cycles, f.timing.fc_setup_cycles}},
        {"start_cycles", {shipped.start_cycles, f.timing.start_cycles}},
        {"ddr.burst_latency_cycles",
         {shipped_cfg.ddr_burst_latency_cycles, f.burst_latency_cycles}}};
    for (const auto& [name, v] : constants) {
        if (v.first != v.second) {
            rep.shipped_match = false;
            rep.mismatch += fmt::format("{}: shipped {}, fitted {}\n", name, v.first, v.second);
        }
    }
    return rep;
}

}  // namespace npu::dlp
