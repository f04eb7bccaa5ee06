// Per-layer time of the DL processor, pure and documented (docs/dlp.md "Timing"), with the
// structure of dlhdl's estimator: each layer a row (conv, pooling and global average pooling on
// the conv module, fc, the adder's add/multiply including the input normalization), its cycles
// the module's set-up, its compute (threads) and its DDR transfers (input, weights, bias, output
// over the AXI masters: the bus model of sim/core/bus_cost.h at the placement's addresses), one
// after another; the network's first layer also carries its start. The set-ups, the start and
// the DDR's burst latency are fitted to dlhdl's own estimator table (scripts/dlp-fit, leave-one-
// out errors in docs/dlp.md). The estimator and the timed module use these functions; the module
// issues exactly these transfers. Pure C++.
#pragma once

#include <cstdint>

#include "models/dlp/dlp_program.h"

namespace npu::dlp {

struct DlpTiming {
    // Fitted on ../shared/reference/dlhdl_published_figures.md §1 (scripts/dlp-fit):
    uint64_t conv_setup_cycles = 6975;   // a conv-module layer (conv, pool): set-up
    uint64_t adder_setup_cycles = 1629;  // an adder-module layer (add, multiply)
    uint64_t fc_setup_cycles = 24;       // an fc-module layer
    uint64_t start_cycles = 2167;        // the network's first layer (each frame's)
    uint64_t tile_overhead_cycles = 50;  // each tile past the first (assumed: no published tiles)
    uint64_t taps_per_pass = 9;          // a conv thread handles one 3x3 window per cycle
    bool overlap = false;  // transfers overlap compute (dlhdl's table: they add up, docs/dlp.md)
};

struct LayerCost {
    uint64_t compute_cycles = 0;
    uint64_t read_bytes = 0, weight_bytes = 0, write_bytes = 0;
    uint64_t read_cycles = 0;    // input (and adder second input) images
    uint64_t weight_cycles = 0;  // weights + bias
    uint64_t write_cycles = 0;   // output image
    uint64_t tiles = 1;
    uint64_t overhead_cycles = 0;  // module set-up (+ start) + (tiles − 1) · tile_overhead
    uint64_t total_cycles = 0;     // overhead + compute + transfers (or max of the two: overlap)
    uint64_t macs = 0;
};

// Compute cycles of a layer on the module (no transfers).
uint64_t compute_cycles(const Layer& l, const DlpConfig& cfg, const DlpTiming& t);
// The module's set-up cycles for a layer of this kind (the start added for the first layer).
uint64_t setup_cycles(LayerKind k, bool first_layer, const DlpTiming& t);
LayerCost layer_cost(const Layer& l, const LayerPlacement& p, const DlpConfig& cfg,
                     const DlpTiming& t, bool first_layer);
// Combines the terms (shared with the module, which measures the transfer terms on its ports).
uint64_t total_cycles(const LayerCost& c, const DlpTiming& t);

}  // namespace npu::dlp
