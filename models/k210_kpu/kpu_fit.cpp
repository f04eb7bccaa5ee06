#include "models/k210_kpu/kpu_fit.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "sim/core/nnls.h"

namespace npu::kpu {

const std::array<const char*, kKpuConstants> kKpuConstantNames = {
    "layer_fixed_cycles",     "cycles_per_input_line", "cycles_per_pass",
    "cycles_per_output_line", "fetch_cycles_per_byte", "output_cycles_per_word"};

std::array<double, kKpuConstants> constants_of(const KpuTiming& t) {
    return {static_cast<double>(t.layer_fixed_cycles),
            t.cycles_per_input_line,
            t.cycles_per_pass,
            t.cycles_per_output_line,
            t.fetch_cycles_per_byte,
            t.output_cycles_per_word};
}

void set_constants(KpuTiming& t, const std::array<double, kKpuConstants>& v) {
    t.layer_fixed_cycles = static_cast<uint64_t>(std::llround(v[0]));
    t.cycles_per_input_line = v[1], t.cycles_per_pass = v[2], t.cycles_per_output_line = v[3];
    t.fetch_cycles_per_byte = v[4], t.output_cycles_per_word = v[5];
}

RowUnits row_units(const KpuRow& r, const KpuTiming& t) {
    // Linear in the constants once each step of the chunk pipeline is known to be compute- or
    // fetch-bound under `t`: a compute-bound step adds its share of the compute units, a
    // fetch-bound one the bytes of the chunk it waits for.
    const LayerCost c = layer_cost(r.args, r.eight_bit, t);
    RowUnits u;
    u.units = {1.0,
               0.0,
               0.0,
               0.0,
               static_cast<double>(c.param_bytes + c.first_chunk_bytes),
               static_cast<double>(c.work.output_words)};
    const std::array<double, 3> compute = {static_cast<double>(c.work.input_lines),
                                           static_cast<double>(c.work.passes),
                                           static_cast<double>(c.work.output_lines)};
    const std::vector<uint64_t> bytes = weight_chunks(r.args, r.eight_bit);
    const std::vector<uint64_t> parts = chunk_compute(r.args, c.compute_cycles);
    const size_t n = std::max(bytes.size(), parts.size());
    for (size_t i = 0; i < n; ++i) {
        const double comp = i < parts.size() ? static_cast<double>(parts[i]) : 0.0;
        const double next_bytes = i + 1 < bytes.size() ? static_cast<double>(bytes[i + 1]) : 0.0;
        if (comp >= std::ceil(t.fetch_cycles_per_byte * next_bytes - 1e-9)) {
            const double share =
                c.compute_cycles == 0 ? 0.0 : comp / static_cast<double>(c.compute_cycles);
            for (size_t j = 0; j < compute.size(); ++j) {
                u.units[1 + j] += share * compute[j];
            }
        } else {
            u.units[4] += next_bytes;
        }
    }
    // The cost function's rounding (under one cycle a term) is left out, so that the same
    // regimes give the same solution and the alternation stops.
    return u;
}

double predicted_cycles(const KpuRow& r, const KpuTiming& t) {
    return static_cast<double>(layer_cost(r.args, r.eight_bit, t).total_cycles) + r.other_cycles;
}

namespace {

// One solve under the regimes of `t`: min Σ ((units·x + other − measured) / measured)²,
// x ≥ 0, over the constants some row exercises.
KpuTiming solve_once(const std::vector<KpuRow>& rows, const KpuTiming& t) {
    std::vector<RowUnits> u;
    for (const KpuRow& r : rows) {
        u.push_back(row_units(r, t));
    }
    std::vector<size_t> cols;
    for (size_t j = 0; j < kKpuConstants; ++j) {
        if (std::any_of(u.begin(), u.end(), [j](const RowUnits& x) { return x.units[j] != 0; })) {
            cols.push_back(j);
        }
    }
    const auto n = static_cast<Eigen::Index>(rows.size());
    Eigen::MatrixXd a(n, static_cast<Eigen::Index>(cols.size()));
    Eigen::VectorXd b(n);
    for (Eigen::Index i = 0; i < n; ++i) {
        const KpuRow& r = rows[static_cast<size_t>(i)];
        const RowUnits& x = u[static_cast<size_t>(i)];
        for (size_t j = 0; j < cols.size(); ++j) {
            a(i, static_cast<Eigen::Index>(j)) = x.units[cols[j]] / r.measured_cycles;
        }
        b(i) = (r.measured_cycles - r.other_cycles) / r.measured_cycles;
    }
    const Eigen::VectorXd sol = sim::nnls(a, b);
    std::array<double, kKpuConstants> k = constants_of(t);
    for (size_t j = 0; j < cols.size(); ++j) {
        k[cols[j]] = sol(static_cast<Eigen::Index>(j));
    }
    KpuTiming out = t;
    set_constants(out, k);
    return out;
}

KpuTiming fit_only(const std::vector<KpuRow>& rows, const KpuTiming& base) {
    KpuTiming t = base;
    for (int round = 0; round < 30; ++round) {  // the pipeline's regimes settle in a few rounds
        const KpuTiming next = solve_once(rows, t);
        const bool same = constants_of(next) == constants_of(t);
        t = next;
        if (same) {
            break;
        }
    }
    return t;
}

double rel_error(const KpuRow& r, const KpuTiming& t) {
    return predicted_cycles(r, t) / r.measured_cycles - 1;
}

}  // namespace

KpuFit fit_kpu(const std::vector<KpuRow>& rows, const KpuTiming& base, bool leave_one_out) {
    KpuFit f;
    f.timing = fit_only(rows, base);
    for (const KpuRow& r : rows) {
        f.fitted_error.push_back(rel_error(r, f.timing));
    }
    if (!leave_one_out) {
        return f;
    }
    f.loo_min = f.loo_max = constants_of(f.timing);
    for (size_t i = 0; i < rows.size(); ++i) {
        std::vector<KpuRow> others = rows;
        others.erase(others.begin() + static_cast<std::ptrdiff_t>(i));
        const KpuTiming t = fit_only(others, f.timing);
        // A row whose units no other row has (the only main-memory output layer) cannot be
        // predicted without itself.
        const RowUnits mine = row_units(rows[i], t);
        bool alone = false;
        for (size_t j = 0; j < kKpuConstants; ++j) {
            alone = alone || (mine.units[j] != 0 &&
                              std::none_of(others.begin(), others.end(), [&](const KpuRow& o) {
                                  return row_units(o, t).units[j] != 0;
                              }));
        }
        f.loo_error.push_back(alone ? std::numeric_limits<double>::quiet_NaN()
                                    : rel_error(rows[i], t));
        const std::array<double, kKpuConstants> k = constants_of(t);
        for (size_t j = 0; j < kKpuConstants && !alone; ++j) {
            f.loo_min[j] = std::min(f.loo_min[j], k[j]);
            f.loo_max[j] = std::max(f.loo_max[j], k[j]);
        }
    }
    return f;
}

}  // namespace npu::kpu
