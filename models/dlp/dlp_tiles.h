// How a layer moves through the DL processor's memories, as the transfers its AXI masters issue:
// a conv-module layer (conv, pool) whose images exceed the conv module's input or output memory
// runs in tiles ("legs") of whole rows of the external format's slow spatial axis, each tile
// reading its input rows with the kernel's halo (re-read by the next tile) and writing its output
// rows, one piece per channel block; the weights and bias are read once. An fc layer beyond the fc
// module's memories runs in chunks: its input re-read for each chunk of outputs. Layers that fit
// move their images whole, one transfer each. The cost function (dlp_cost) charges exactly these
// transfers and the timed module (dlp.cpp) issues them. docs/dlp.md "Tiles". Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "models/dlp/dlp_program.h"

namespace npu::dlp {

struct Transfer {
    enum class Buffer { input, input2, weights, bias, output } buffer;
    uint64_t offset = 0;  // within the buffer (its placement address + offset)
    uint64_t bytes = 0;
};

struct LayerPlan {
    uint64_t tiles = 1;
    uint64_t rows_per_tile = 0;       // conv module: output rows of the slow axis a tile computes
    std::vector<Transfer> transfers;  // in the order the masters issue them
};

// The plan of a layer with its placement's sizes (derive_sizes or the compiler's); throws
// sim::Error when not even one row fits the conv module's memories (check_network calls it).
LayerPlan layer_plan(const Layer& l, const LayerPlacement& p, const DlpConfig& cfg);

// The address of a transfer (the buffer's address in `p` + its offset).
uint64_t transfer_addr(const Transfer& t, const LayerPlacement& p);

}  // namespace npu::dlp
