// Fitting the KPU timing constants (kpu_cost.h) to measured layer times, with leave-one-out
// validation: each row is predicted by a fit that did not see it. The model is linear in its six
// constants except for later weight chunks not hidden behind compute, so the fit alternates
// "cost every row under the current constants" and a non-negative least-squares solve on relative
// errors until the constants settle. docs/k210_kpu.md "Timing". Pure C++.
#pragma once

#include <array>
#include <string>
#include <vector>

#include "models/k210_kpu/kpu_cost.h"

namespace npu::kpu {

// One measured KPU layer: the cycles the measurement charged to it, less the part that is not the
// KPU's (the runtime's CPU work, bus and DMA, as a timed run of the same flow gives them).
struct KpuRow {
    std::string name;  // "nncase#77 layer 14", "Sipeed 64x64"
    LayerArgs args;
    bool eight_bit = true;
    double measured_cycles = 0;  // KPU cycles measured (time × KPU clock)
    double other_cycles = 0;     // of those, not the KPU's (subtracted before fitting)
};

constexpr size_t kKpuConstants = 6;
// The constants in a fixed order: F, a, s, w, p, d (KpuTiming's members).
extern const std::array<const char*, kKpuConstants> kKpuConstantNames;
std::array<double, kKpuConstants> constants_of(const KpuTiming& t);
void set_constants(KpuTiming& t, const std::array<double, kKpuConstants>& v);

// Each row's units of the six constants under the chunk-pipeline regimes of `t` (the cost
// function's rounding to whole cycles is left out).
struct RowUnits {
    std::array<double, kKpuConstants> units{};
};
RowUnits row_units(const KpuRow& r, const KpuTiming& t);

struct KpuFit {
    KpuTiming timing;
    std::vector<double> fitted_error;  // (predicted − measured) / measured, per row
    std::vector<double> loo_error;     // the same from a fit without the row (NaN: not possible)
    // Per constant, the smallest and largest value over the leave-one-out fits.
    std::array<double, kKpuConstants> loo_min{}, loo_max{};
};

// Predicted KPU-layer cycles of a row (its KPU cost plus its other cycles).
double predicted_cycles(const KpuRow& r, const KpuTiming& t);

// Fits every constant from `base` (clock and bus are kept). A constant no row exercises keeps
// its base value. With `leave_one_out`, also the per-row LOO errors and the constants' ranges.
KpuFit fit_kpu(const std::vector<KpuRow>& rows, const KpuTiming& base, bool leave_one_out);

}  // namespace npu::kpu
