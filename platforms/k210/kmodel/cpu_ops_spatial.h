// The spatial and quantized nodes of nncase v0.2 (kmodel v4): resize_image, strided_slice,
// conv2d_transpose, quantized_conv2d, quantized_matmul. Bodies as neutral_ops_body.h lays them
// out (kendryte/nncase f6dcc80, the opcode table of v0.2.0-beta4), kernels as
// neutral_kernels.h computes them on the K210 (docs/k210_cpu_ops.md). Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "platforms/k210/kmodel/cpu_ops.h"

namespace npu::k210 {

// resize_image {memory_range in, out, shape in_shape, i32 out_h, out_w, u32 mode, u8
// align_corners (+ 3 bytes of struct padding)}: u8 or f32 NCHW, per channel.
// scale = in / out as floats ((in − 1) / (out − 1) with align_corners and out > 1);
// nearest: src = min(floorf(o · scale), in − 1); bilinear: y = o · scale, y0 = floor, y1 =
// min(y0 + 1, in − 1), weights (1 − dy)(1 − dx), dy(1 − dx), (1 − dy)dx, dy·dx, the sum
// v0·a0 + v1·a1 + v2·a2 + v3·a3 as GCC contracts it (fma(v3, a3, fma(v2, a2, fma(v0, a0,
// v1·a1)))), truncated to u8 for u8 data.
enum class ResizeMode : uint32_t { bilinear = 0, nearest = 1 };
struct V4ResizeImage {
    MemoryRange in, out;
    Shape4 in_shape{};
    int32_t out_h = 1, out_w = 1;
    ResizeMode mode = ResizeMode::bilinear;
    bool align_corners = false;
};
V4ResizeImage read_v4_resize_image(sim::ByteReader& r);
// `elem` 1 (u8) or 4 (f32).
void resize_image(const uint8_t* in, size_t elem, const V4ResizeImage& p, uint8_t* out,
                  bool fma = true);

// strided_slice {memory_range in, out, shape in_shape, begin, end, strides, i32 begin_mask,
// end_mask, ellipsis_mask, new_axis_mask, shrink_axis_mask}: the runtime walks begin..end by
// stride in each dimension (the masks are resolved by the compiler and ignored).
struct V4StridedSlice {
    MemoryRange in, out;
    Shape4 in_shape{}, begin{}, end{}, strides{};
};
V4StridedSlice read_v4_strided_slice(sim::ByteReader& r);
// How many indices dimension k visits (0 if none).
int64_t slice_count(const V4StridedSlice& p, size_t k);
void strided_slice(const uint8_t* in, size_t elem, const V4StridedSlice& p, uint8_t* out);

// conv2d_transpose {memory_range in, out, shape in_shape, out_shape, i32 groups, window2d,
// value_range fused_activation, f32 weights[out_c · in_c / groups · fh · fw], f32 bias[out_c]}:
// the output zeroed, each input value scattered with fma(in, w, out) over the taps that land in
// the output; then the activation when it is not the full float range. The bias is read and
// never added: nncase v0.2's kernel computes `value = bias[...]` and leaves it unused.
struct V4Conv2dTranspose {
    MemoryRange in, out;
    Shape4 in_shape{}, out_shape{};
    int32_t groups = 1;
    Window2d win;
    ValueRange act;
    std::vector<float> weights, bias;
};
V4Conv2dTranspose read_v4_conv2d_transpose(sim::ByteReader& r);
// Returns the multiply-accumulates done.
uint64_t conv2d_transpose_f32(const float* in, const V4Conv2dTranspose& p, float* out,
                              bool fma = true);

// quantized_conv2d {memory_range in, out, shape in_shape, i32 groups, out_channels, window2d,
// i32 input_offset, filter_offset, output_mul, output_shift, output_offset,
// i32 bias[out_channels], u8 weights[oc · ic/groups · fh · fw]}: NCHW as conv2d,
// v = bias + Σ (x + input_offset)(w + filter_offset) in 32 bits, then
// clamp(mul_and_carry_shift(v, output_mul, output_shift) + output_offset, 0, 255).
struct V4QuantizedConv2d {
    MemoryRange in, out;
    Shape4 in_shape{};
    int32_t groups = 1, out_channels = 0;
    Window2d win;
    int32_t input_offset = 0, filter_offset = 0, output_mul = 0, output_shift = 0,
            output_offset = 0;
    std::vector<int32_t> bias;
    std::vector<uint8_t> weights;
};
V4QuantizedConv2d read_v4_quantized_conv2d(sim::ByteReader& r);
uint64_t quantized_conv2d(const uint8_t* in, const V4QuantizedConv2d& p, uint8_t* out);

// quantized_matmul {memory_range a, b, out, i32 a_rows, a_cols, b_cols, input_a_offset,
// input_b_offset, output_mul, output_shift, output_offset, i32 bias[b_cols]}.
struct V4QuantizedMatmul {
    MemoryRange a, b, out;
    int32_t a_rows = 0, a_cols = 0, b_cols = 0;
    int32_t a_offset = 0, b_offset = 0, output_mul = 0, output_shift = 0, output_offset = 0;
    std::vector<int32_t> bias;
};
V4QuantizedMatmul read_v4_quantized_matmul(sim::ByteReader& r);
uint64_t quantized_matmul(const uint8_t* a, const uint8_t* b, const V4QuantizedMatmul& p,
                          uint8_t* out);

// n little-endian int32 that must fit in what follows.
std::vector<int32_t> read_i32s(sim::ByteReader& r, uint64_t n, const char* what);

}  // namespace npu::k210
