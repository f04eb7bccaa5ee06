// The convolution, batch normalisation and activation of one KPU layer over its padded input
// planes: the part of run_layer that does the arithmetic (kpu_func.h). Split over threads by pixel
// tiles (dense) or channels (depthwise); every output byte is computed the same way whatever the
// split. Formulas: docs/k210_kpu.md, "Datapath".
#pragma once

#include <cstdint>

#include "models/k210_kpu/kpu_func.h"

namespace npu::kpu {

// xp: in_channels planes of (H + 2p) x (W + 2p) bytes, the input surrounded by pad_value.
// act_out: out_channels planes of H x W, before pooling. Returns the 36-bit overflow count.
uint64_t conv_bn_act(const LayerArgs& a, const LayerParams& p, bool eight_bit, const Fidelity& f,
                     const uint8_t* xp, uint8_t* act_out);

}  // namespace npu::kpu
