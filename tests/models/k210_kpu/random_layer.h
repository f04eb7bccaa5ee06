// Random valid K210 KPU layers (fields, weights, BN and activation tables, input) for the golden
// test and the benchmark. Deterministic for a given generator state.
#pragma once

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "models/k210_kpu/kpu_func.h"

namespace npu::test {

struct RandomLayer {
    kpu::LayerArgs args;
    bool eight_bit = true;
    std::vector<uint8_t> weights;
    std::vector<uint64_t> bn_words;
    std::array<uint8_t, kpu::kActTableBytes> act{};
    std::vector<uint8_t> input;  // dense NCHW

    kpu::LayerParams params() const;
};

struct LayerLimits {
    int max_channels = 24;
    int max_width = 70;
    int max_height = 12;
    uint64_t max_macs = 400'000;
};

// Fields are filled the way nncase fills them (natural layout, 30 KiB-style weight chunks), input
// at line 0 and output right after it. Every other layer is "compiler-like" (zero points folded
// into arg_x/arg_w/arg_add, a BN scale and activation segments that keep most outputs inside
// (0, 255)); the rest draw every term over its full field range.
RandomLayer random_layer(std::mt19937_64& rng, bool eight_bit, const LayerLimits& lim = {});

// Sets the layout, chunk and DMA fields of `a` consistently from its sizes (as a compiler would).
void fill_derived_fields(kpu::LayerArgs& a, bool eight_bit);

}  // namespace npu::test
