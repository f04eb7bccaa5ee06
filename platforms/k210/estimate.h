// npusim estimate for the K210: layer configurations (YAML, any value a number, a list or a
// {from, to, step} range) expanded into every combination, each costed by kpu::layer_cost() -
// the function the timed KPU module uses, so estimate and simulation cannot disagree about a
// formula. No data moves. Keys: docs/k210_platform.md "estimate". Pure C++.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/k210_kpu/kpu_cost.h"
#include "models/k210_kpu/kpu_layer_builder.h"
#include "sim/core/config.h"

namespace npu::k210 {

// One `layers:` entry: the values each dimension sweeps over.
struct Sweep {
    std::string name;
    std::vector<int> in_channels, height, width, out_channels, kernel;
    std::vector<int> depthwise;    // 0 / 1
    std::vector<int> pool;         // pool_type 0..9
    std::vector<int> weight_bits;  // 8 / 16
    size_t combinations() const;
};

// Reads `layers:` from a document; problems are recorded (call finish()). A sweep of more than
// `max_combinations` is a problem too.
std::vector<Sweep> read_sweeps(const sim::ConfigNode& root, size_t max_combinations = 10'000'000);

struct EstimateRow {
    std::string name;
    kpu::LayerShape shape;
    std::string error;  // not a valid KPU layer: why (cost is empty)
    kpu::LayerCost cost;
};

// Every combination of every sweep, in order (the last key varies fastest).
std::vector<EstimateRow> estimate(const std::vector<Sweep>& sweeps, const kpu::KpuTiming& timing);

std::string to_csv(const std::vector<EstimateRow>& rows, uint64_t clock_hz);
nlohmann::ordered_json to_json(const std::vector<EstimateRow>& rows, uint64_t clock_hz);

}  // namespace npu::k210
