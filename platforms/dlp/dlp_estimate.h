// The DL processor's performance estimate for a network, in the shape of the Deep Learning HDL
// Toolbox's estimatePerformance table: LastFrameLatency(cycles), LastFrameLatency(seconds),
// FramesNum, Total Latency, Frames/s for the network, per module and per layer, and the clock.
// The cycles are those of dlp::layer_cost at the compiled program's addresses, which the timed
// module also charges. Pure C++.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/dlp/dlp_cost.h"
#include "platforms/dlp/dlp_compiler.h"

namespace npu::dlp {

struct LayerEstimate {
    std::string name, module;
    LayerCost cost;
};

struct NetworkEstimate {
    std::vector<LayerEstimate> layers;
    uint64_t frame_cycles = 0;  // one frame: Σ layer total_cycles
    uint32_t frames = 1;
    uint64_t total_cycles = 0;  // frames · frame_cycles (frames run one after another)
    uint64_t clock_hz = 0;
    double frames_per_second() const;
};

NetworkEstimate estimate(const Network& n, const Program& p, const DlpConfig& cfg,
                         const DlpTiming& t);
std::string table(const NetworkEstimate& e);
nlohmann::ordered_json to_json(const NetworkEstimate& e);

}  // namespace npu::dlp
