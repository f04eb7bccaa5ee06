// A folding sweep: every combination of the PE/SIMD values given for the layers of a design,
// each costed without simulation — FINN's estimate (its get_exp_cycles of the graph's own nodes,
// max_cycles and the critical path), npusim's formulas on the chain with the width converters
// the folding needs, and FINN's resource estimates — and the configurations no other beats in
// cycles, LUTs and BRAMs at once (the Pareto front). Pure C++; docs/finn.md, "Folding sweeps".
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "models/finn/finn_chain.h"

namespace npu::finn {

// One swept attribute ("PE" or "SIMD") of layer `layer` (an index into Design::layers).
struct Knob {
    size_t layer = 0;
    std::string attr;
    std::vector<uint64_t> values;
};

// The attributes a layer's folding has ({"PE", "SIMD"}, {"PE"}, {"SIMD"} or none) and every
// value of one that the layer's rules allow (the divisors of the dimension it folds), ascending.
std::vector<std::string> folding_attributes(const LayerOp& op);
std::vector<uint64_t> allowed_values(const LayerOp& op, const std::string& attr);

struct SweepPoint {
    std::vector<uint64_t> values;  // one per knob
    std::string error;             // why the configuration is not a design ("": it is)
    uint64_t max_cycles = 0, critical_path_cycles = 0;            // FINN's
    size_t max_cycles_layer = 0;                                  // index into Design::layers
    uint64_t formula_max_cycles = 0, formula_latency_cycles = 0;  // npusim's formulas
    std::string formula_bottleneck;
    Resources resources;  // FINN's, summed over the layers
    bool pareto = false;
};

// Every configuration, the first knob's values slowest. `d`'s own inserted converters are
// ignored: the ones each configuration needs are derived from its word widths. At most
// `limit` configurations, else sim::Error naming the count.
std::vector<SweepPoint> sweep(const Design& d, const std::vector<Knob>& knobs, bool dsp58,
                              uint64_t limit);

// Marks the valid points no other valid point matches or beats in max_cycles, LUTs and BRAMs at
// once with at least one better (the first of identical points stays on the front).
void mark_pareto(std::vector<SweepPoint>& points);

}  // namespace npu::finn
