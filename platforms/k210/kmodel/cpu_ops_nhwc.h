// nncase v0.2's `cpu` target ops (opcodes 0x1001–0x1005): NHWC convolutions and pooling.
// Bodies as runtime/cpu/cpu_ops_body.h lays them out, kernels as kernels/cpu/cpu_kernels.h
// computes them (kendryte/nncase f6dcc80; docs/k210_cpu_ops.md). in_shape is
// {N, H, W, C}; weights are [out_c][fh][fw][in_c] (depthwise: [c][fh][fw]); outputs NHWC, loop
// order batch, oy, ox, oc, then ky, kx, ic. Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "platforms/k210/kmodel/cpu_ops.h"

namespace npu::k210 {

// cpu_conv2d {memory_range in, out, shape in_shape, i32 out_channels, window2d, value_range
// fused_activation, f32 weights[oc · fh · fw · ic], f32 bias[oc]} and cpu_depthwise_conv2d
// (no out_channels; weights[c · fh · fw], bias[c]): v = bias, fma(x, w, v) over in-bounds taps,
// clamp.
// cpu_quantized_conv2d / cpu_quantized_depthwise_conv2d: the same geometry, then i32
// input_offset, filter_offset, output_mul, output_shift, output_offset, u8 weights, i32 bias
// (weights first, unlike the neutral quantized_conv2d): v = bias + Σ (x − input_offset)(w −
// filter_offset) in 32 bits (subtracted here, added in the neutral op), then
// clamp(mul_and_carry_shift(v, output_mul, output_shift) + output_offset, 0, 255).
struct NhwcConv {
    MemoryRange in, out;
    Shape4 in_shape{};  // N, H, W, C
    bool depthwise = false, quantized = false;
    int32_t out_channels = 0;  // = C when depthwise
    Window2d win;
    ValueRange act;                               // float
    std::vector<float> weights, bias;             // float
    int32_t input_offset = 0, filter_offset = 0;  // quantized
    int32_t output_mul = 0, output_shift = 0, output_offset = 0;
    std::vector<uint8_t> qweights;
    std::vector<int32_t> qbias;
    // The NCHW view {N, C, H, W} Window2d's output sizes are computed on.
    Shape4 nchw() const { return {in_shape[0], in_shape[3], in_shape[1], in_shape[2]}; }
};
NhwcConv read_nhwc_conv(sim::ByteReader& r, bool depthwise, bool quantized);
// Float or u8 by `p.quantized`; returns the multiply-accumulates done.
uint64_t nhwc_conv_f32(const float* in, const NhwcConv& p, float* out, bool fma = true);
uint64_t nhwc_conv_u8(const uint8_t* in, const NhwcConv& p, uint8_t* out);

// cpu_reduce_window2d: the body of reduce_window2d (cpu_ops.h) over an NHWC input. The runtime
// runs mean, min and max; sum is its kcr_error.
void nhwc_reduce_window2d_f32(const float* in, const V4ReduceWindow2d& p, float* out);

}  // namespace npu::k210
