// K210 KPU layer timing: a pure cycle model with the datapath's structure, computed from the 12
// layer words and shared by the timed module, `npusim estimate` and the firmware path. Fitted
// jointly to a board's per-layer profile of face_detect_v3 (kendryte/nncase#77, 8-bit, 400 MHz)
// and the Sipeed table (16-bit, 300 MHz); terms, constants, fit and leave-one-out errors are in
// docs/k210_kpu.md "Timing". Pure C++.
#pragma once

#include <array>
#include <cstdint>
#include <utility>
#include <vector>

#include "models/k210_kpu/kpu_layer_args.h"
#include "sim/core/bus_cost.h"

namespace npu::kpu {

struct KpuTiming {
    uint64_t clock_hz = 400'000'000;  // KPU clock (PLL1 / (ai_gclk_threshold + 1))
    // Fitted constants (docs/k210_kpu.md "Timing": the fit, how well each is pinned, and the
    // rows each term explains). All in KPU cycles.
    uint64_t layer_fixed_cycles = 3'171;    // F: start, pipeline fill and drain, per layer
    double cycles_per_input_line = 1.027;   // a: one 64-byte input line into the lanes
    double cycles_per_pass = 3.069;         // s: per (output channel, input line group) pass
    double cycles_per_output_line = 1.072;  // w: one line out of the lanes (BN, act, pool, write)
    double fetch_cycles_per_byte = 0.3217;  // p: parameter fetch from main SRAM (3.1 B/cycle)
    double output_cycles_per_word = 38.38;  // d: a 64-bit word of send_data_out (DMA handshake)
    // The KPU's AXI master that moves the tables and weights (values, bus counters). Its time
    // is not charged: the fitted fetch rate p stands for it, so estimate and timed run agree.
    sim::BusConfig bus{8, 16, 12, 4096, 400'000'000};
};

// What the layer words say the datapath does (docs/k210_kpu.md "Timing").
struct LayerWork {
    uint64_t passes = 0;        // full: OC · ceil(IC/G); depthwise: ceil(C/G)
    uint64_t input_lines = 0;   // passes · channel_switch_addr
    uint64_t output_lines = 0;  // ceil(OC/G) · channel_switch_addr (before the pool)
    uint64_t output_words = 0;  // send_data_out: ceil((dma_total_byte + 1) / 8), else 0
};

// The parts of one layer's time, in KPU cycles.
struct LayerCost {
    uint64_t macs = 0;
    uint64_t weight_bytes = 0;  // fetched in load_time + 1 chunks
    uint64_t param_bytes = 0;   // BN table (OC · 8) + activation table (144)
    LayerWork work;
    uint64_t first_chunk_bytes = 0;     // weight chunk 0, fetched before compute
    uint64_t fixed_cycles = 0;          // F
    uint64_t param_fetch_cycles = 0;    // p · param_bytes
    uint64_t weight_fetch_cycles = 0;   // p · weight_bytes, whether hidden or not
    uint64_t compute_cycles = 0;        // a · input_lines + s · passes + w · output_lines
    uint64_t exposed_fetch_cycles = 0;  // weight fetch not hidden behind compute
    uint64_t output_cycles = 0;         // d · output_words
    uint64_t total_cycles = 0;          // F + param fetch + compute + exposed fetch + output

    // The parts total_cycles adds up to, in the order the model composes them, named as the trace
    // and the run record name them: fixed cost, exposed fetch (tables, weight chunk 0 and any
    // later chunk compute does not hide), compute, output stream.
    std::array<std::pair<const char*, uint64_t>, 4> parts() const {
        return {{{"fixed", fixed_cycles},
                 {"fetch", param_fetch_cycles + exposed_fetch_cycles},
                 {"compute", compute_cycles},
                 {"output stream", output_cycles}}};
    }
    double utilization() const {  // MACs per cycle over the 576 multipliers (64 lanes × 9)
        return total_cycles == 0
                   ? 0.0
                   : static_cast<double>(macs) / (static_cast<double>(total_cycles) * 576.0);
    }
};

LayerWork layer_work(const LayerArgs& a);

// Bytes of weight chunk i (para_size, the last one only what remains).
std::vector<uint64_t> weight_chunks(const LayerArgs& a, bool eight_bit);

// The chunk pipeline: chunk 0 is fetched before compute starts; chunk i+1 is fetched while chunk
// i computes, so each step costs max(compute_i, fetch_{i+1}). Fills exposed_fetch_cycles and
// total_cycles of `c` from its other terms and the given fetch times.
void pipeline(LayerCost& c, const std::vector<uint64_t>& chunk_fetch_cycles,
              const std::vector<uint64_t>& chunk_compute_cycles);

// The whole model for one layer.
LayerCost layer_cost(const LayerArgs& a, bool eight_bit, const KpuTiming& t);
// Compute cycles of each weight chunk (compute_cycles split by the output channels it holds).
std::vector<uint64_t> chunk_compute(const LayerArgs& a, uint64_t compute_cycles);

}  // namespace npu::kpu
