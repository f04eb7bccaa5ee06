// Filling a K210 layer argument the way a compiler does (nncase v0.2, ../shared/reference/
// k210_kpu.md §2 "How nncase fills the words"): natural row layouts, weight chunks of at most
// 30 KiB (8-bit) or 60 KiB (16-bit) of whole output channels, the DMA byte counts. Zero points,
// table addresses and interrupt flags are left for the caller. Pure C++.
#pragma once

#include <cstdint>

#include "models/k210_kpu/kpu_layer_args.h"

namespace npu::kpu {

struct LayerShape {
    int in_channels = 1, in_height = 1, in_width = 1;
    int out_channels = 1;
    int kernel = 3;  // 1 or 3
    bool depthwise = false;
    uint32_t pool_type = 0;
    bool eight_bit = true;
};

// Throws sim::Error naming the value when the shape cannot be a KPU layer (sizes outside the
// fields, kernel not 1 or 3, pool type not 0..9, a depthwise layer with IC != OC, an output
// smaller than 1x1 after pooling).
LayerArgs build_layer(const LayerShape& s, uint32_t src_line = 0, uint32_t dst_line = 0);

}  // namespace npu::kpu
