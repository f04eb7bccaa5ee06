// An independent, deliberately naive K210 KPU layer: one output pixel at a time, straight from the
// formulas of ../shared/reference/k210_kpu.md §3, with its own table decoding, addressing, rounding
// and pooling. It shares nothing with models/k210_kpu/kpu_func.cpp but the LayerArgs struct, so
// the golden test compares two implementations, not one with itself.
#pragma once

#include <cstdint>
#include <vector>

#include "models/k210_kpu/kpu_layer_args.h"

namespace npu::test {

struct NaiveOptions {
    bool eight_bit = true;
    bool greater_equal = false;   // nncase v0.1 segment rule
    bool carry_rounding = false;  // nncase v0.1 CarryShift
};

// Runs the layer on `ram` (2 MiB) and returns the dense pooled output. `bn_words` has one 64-bit
// word per output channel; `act` is the 144-byte activation table; `weights` as the KPU fetches
// them.
std::vector<uint8_t> naive_layer(const kpu::LayerArgs& a, const uint8_t* weights,
                                 const std::vector<uint64_t>& bn_words, const uint8_t* act,
                                 const NaiveOptions& o, uint8_t* ram);

}  // namespace npu::test
