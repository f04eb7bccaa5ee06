// Per-layer time of the DL processor, pure and documented (docs/dlp.md "Timing"): the compute of
// the module (working hypotheses, every constant configurable), the transfers of input, weights,
// bias and output over the N-wide AXI masters (the bus model of sim/core/bus_cost.h at the
// placement's addresses), tiling when a layer exceeds the module buffers, and overlap of transfer
// and compute. The estimator and the timed module use these functions; the module issues exactly
// these transfers. Pure C++.
#pragma once

#include <cstdint>

#include "models/dlp/dlp_program.h"

namespace npu::dlp {

struct DlpTiming {
    uint64_t layer_overhead_cycles = 100;  // fetch and decode the record, set the module up
    uint64_t tile_overhead_cycles = 50;    // per tile of a layer larger than the module buffers
    uint64_t taps_per_pass = 9;            // a conv thread handles one 3x3 window per cycle
    bool overlap = true;                   // transfers overlap compute (else they add up)
};

struct LayerCost {
    uint64_t compute_cycles = 0;
    uint64_t read_bytes = 0, weight_bytes = 0, write_bytes = 0;
    uint64_t read_cycles = 0;    // input (and adder second input) images
    uint64_t weight_cycles = 0;  // weights + bias
    uint64_t write_cycles = 0;   // output image
    uint64_t tiles = 1;
    uint64_t overhead_cycles = 0;  // layer_overhead + tiles · tile_overhead
    uint64_t total_cycles = 0;     // overhead + max(compute, transfers) or their sum
    uint64_t macs = 0;
};

// Compute cycles of a layer on the module (no transfers).
uint64_t compute_cycles(const Layer& l, const DlpConfig& cfg, const DlpTiming& t);
LayerCost layer_cost(const Layer& l, const LayerPlacement& p, const DlpConfig& cfg,
                     const DlpTiming& t);
// Combines the terms (shared with the module, which measures the transfer terms on its ports).
uint64_t total_cycles(const LayerCost& c, const DlpTiming& t);

}  // namespace npu::dlp
