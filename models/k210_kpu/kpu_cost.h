// K210 KPU layer timing: a pure, documented cycle model shared by the timed module and estimates.
// Calibrated against the Sipeed measurements (../shared/reference/k210_kpu.md §5.2: 3x3 conv,
// 128 -> 128 channels, 16-bit weights, KPU at 300 MHz, 10 image sizes) and nncase v0.2's board
// profiles (../shared/reference/k210_board_timings.md §2: 8-bit layers at 400 MHz); every term
// and the calibration error are in docs/k210_kpu.md. Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "models/k210_kpu/kpu_layer_args.h"
#include "sim/core/bus_cost.h"

namespace npu::kpu {

struct KpuTiming {
    uint64_t clock_hz = 400'000'000;  // KPU clock (PLL1 / (ai_gclk_threshold + 1))
    // Calibration: docs/k210_kpu.md "Calibration" (the Sipeed table and nncase#95's board
    // profile, fitted together).
    uint64_t layer_overhead_cycles = 38'000;  // F: fixed per layer (board floor, nncase#95/#96)
    double cycles_per_lane_line = 1.084;      // a₁₆: per lane line, 16-bit weights (Sipeed fit)
    double cycles_per_lane_line_8bit = 0.78;  // a₈: per lane line, 8-bit weights (nncase#95 fit)
    uint32_t one_by_one_channels_per_pass = 8;  // 1x1 layers: input line groups per pass
    // The KPU's parameter-fetch AXI master: 64-bit beats, 16-beat bursts (dma_burst_size 15),
    // 12 cycles of latency per burst (Sipeed fit: small 16-bit layers are fetch-bound); its
    // cycles are converted to KPU cycles when the clocks differ.
    sim::BusConfig bus{8, 16, 12, 4096, 400'000'000};
};

// The parts of one layer's time, in KPU cycles.
struct LayerCost {
    uint64_t macs = 0;
    uint64_t weight_bytes = 0;  // fetched in load_time + 1 chunks
    uint64_t param_bytes = 0;   // BN table (OC · 8) + activation table (144)
    uint64_t lane_lines = 0;    // input lines the 64 lanes sweep (see compute_cycles)
    uint64_t fixed_cycles = 0;  // F
    uint64_t param_fetch_cycles = 0;
    uint64_t weight_fetch_cycles = 0;   // Σ over chunks, whether hidden or not
    uint64_t compute_cycles = 0;        // ceil(a · lane_lines), a by weight width
    uint64_t exposed_fetch_cycles = 0;  // weight fetch not hidden behind compute
    uint64_t total_cycles = 0;          // F + param fetch + compute + exposed fetch

    double utilization() const {  // MACs per cycle over the 576 multipliers (64 lanes × 9)
        return total_cycles == 0
                   ? 0.0
                   : static_cast<double>(macs) / (static_cast<double>(total_cycles) * 576.0);
    }
};

// Lines the lanes sweep: 3x3 normal: OC · ceil(IC/G) · H · R; 1x1 normal: OC ·
// ceil(ceil(IC/G) / channels_per_pass) · H · R; depthwise: ceil(IC/G) · H · R.
uint64_t lane_lines(const LayerArgs& a, const KpuTiming& t);

// Bytes of weight chunk i (para_size, the last one only what remains).
std::vector<uint64_t> weight_chunks(const LayerArgs& a, bool eight_bit);

// The chunk pipeline: chunk 0 is fetched before compute starts; chunk i+1 is fetched while chunk
// i computes, so each step costs max(compute_i, fetch_{i+1}). Fills exposed_fetch_cycles and
// total_cycles of `c` from its fixed, param-fetch and compute terms and the given fetch times.
void pipeline(LayerCost& c, const std::vector<uint64_t>& chunk_fetch_cycles,
              const std::vector<uint64_t>& chunk_compute_cycles);

// The whole model for one layer, with bus times from sim::transfer_cost on `t.bus`.
LayerCost layer_cost(const LayerArgs& a, bool eight_bit, const KpuTiming& t);
// Compute cycles of each weight chunk (compute_cycles split by the output channels it holds).
std::vector<uint64_t> chunk_compute(const LayerArgs& a, uint64_t compute_cycles);

}  // namespace npu::kpu
