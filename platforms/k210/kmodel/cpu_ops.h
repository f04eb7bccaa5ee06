// The CPU side of a K210 kmodel: the layer bodies the runtime executes on the RISC-V cores, read
// from the file, and their kernels as pure functions over buffers. Formats and formulas:
// ../shared/reference/k210_kpu.md §4 and docs/k210_cpu_ops.md. The arithmetic is
// that of the runtime built for the K210 (RV64GC with its single-precision FPU), not of a host
// build: float conversions round as `fcvt.w.s` does, a·b + c is one fused `fmadd.s` (GCC contracts
// it at -O2 in the GNU dialects the SDK and nncase use; `fma = false` gives the separate
// operations), integer division by zero gives −1. Pure C++.
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <vector>

#include "platforms/k210/kmodel/kmodel.h"
#include "sim/core/bytes.h"

namespace npu::k210 {

using Shape4 = std::array<int32_t, 4>;  // nncase runtime_shape_t, NCHW
struct Padding {
    int32_t before = 0, after = 0;
};

// ---------------------------------------------------------------- bodies (file formats)

// v3 DEQUANTIZE {flags, main_mem_in_address, main_mem_out_address, count, scale, bias}:
// x = q · scale + bias.
struct V3Dequantize {
    uint32_t in_address = 0, out_address = 0, count = 0;
    float scale = 0, bias = 0;
};
V3Dequantize read_v3_dequantize(sim::ByteReader& r);

// v4 quantize / dequantize {memory_range in, memory_range out, zero_point, scale}. nncase v0.2
// stores the inverse step: q = x · scale + zp, x = (q − zp) / scale.
struct V4QuantParam {
    MemoryRange in, out;
    int32_t zero_point = 0;
    float scale = 1;
};
V4QuantParam read_v4_quant_param(sim::ByteReader& r, const char* what);

// v4 kpu_upload {memory_range in (main), memory_range out (kpu), shape n, c, h, w}.
struct V4Upload {
    MemoryRange in, out;
    Shape4 shape{};
};
V4Upload read_v4_upload(sim::ByteReader& r);

// v4 memory_copy {memory_range in, memory_range out}.
struct V4MemoryCopy {
    MemoryRange in, out;
};
V4MemoryCopy read_v4_memory_copy(sim::ByteReader& r);

// v4 concat {memory_range out, u32 inner_size, u32 outer_size, u32 count, memory_range in[count],
// i32 dims[count]}: for each of outer_size blocks, input i contributes inner_size · dims[i] bytes.
struct V4Concat {
    MemoryRange out;
    uint32_t inner_size = 0, outer_size = 0;
    std::vector<MemoryRange> inputs;
    std::vector<int32_t> dims;
};
V4Concat read_v4_concat(sim::ByteReader& r);

// v4 pad {memory_range in, out, shape in_shape, padding paddings[4] {before, after},
// scalar pad_value {u32 type, 4 bytes}}: negative paddings crop.
struct V4Pad {
    MemoryRange in, out;
    Shape4 in_shape{};
    std::array<Padding, 4> paddings{};
    std::array<uint8_t, 4> pad_value{};  // the scalar's storage, read as the element type
};
V4Pad read_v4_pad(sim::ByteReader& r);

// v4 transpose {memory_range in, out, shape in_shape, shape perm}: out[o] = in[i] with
// i[perm[k]] = o[k].
struct V4Transpose {
    MemoryRange in, out;
    Shape4 in_shape{}, perm{};
};
V4Transpose read_v4_transpose(sim::ByteReader& r);

// v4 quantized_binary {memory_range a, b, out, u32 op, shape a, b, out, a_offset, a_mul, a_shift,
// b_offset, b_mul, b_shift, out_offset, out_mul, out_shift} (nncase's field order).
enum class BinaryOp : uint32_t { add = 0, sub, mul, div, min, max };
struct V4QuantizedBinary {
    MemoryRange a, b, out;
    BinaryOp op = BinaryOp::add;
    Shape4 a_shape{}, b_shape{}, out_shape{};
    int32_t a_offset = 0, a_mul = 0, a_shift = 0;
    int32_t b_offset = 0, b_mul = 0, b_shift = 0;
    int32_t out_offset = 0, out_mul = 0, out_shift = 0;
};
V4QuantizedBinary read_v4_quantized_binary(sim::ByteReader& r);

// The float neutral ops of nncase v0.2 (neutral_ops_body.h at kendryte/nncase f6dcc80; the
// kernels of neutral_kernels.h). `fused_activation` is a clamp to [min, max].
struct ValueRange {
    float min = -std::numeric_limits<float>::max();
    float max = std::numeric_limits<float>::max();
};

// binary {memory_range a, b, out, u32 op, shape a, b, out, value_range fused_activation}; f32,
// broadcasting as quantized_binary.
struct V4Binary {
    MemoryRange a, b, out;
    BinaryOp op = BinaryOp::add;
    Shape4 a_shape{}, b_shape{}, out_shape{};
    ValueRange act;
};
V4Binary read_v4_binary(sim::ByteReader& r);

// The window geometry conv2d and reduce_window2d share, in their bodies' field order: padding h,
// w {before, after}, i32 filter_h, filter_w, stride_h, stride_w, dilation_h, dilation_w.
struct Window2d {
    Padding pad_h, pad_w;
    int32_t filter_h = 1, filter_w = 1, stride_h = 1, stride_w = 1, dilation_h = 1, dilation_w = 1;
    // The output height and width over an NCHW input, nncase's get_windowed_output_size:
    // (size + before + after − ((filter − 1)·dilation + 1) + stride) / stride, in 64 bits
    // (below 1 when the window does not fit).
    int64_t out_h(const Shape4& in) const;
    int64_t out_w(const Shape4& in) const;
};
// Reads one, naming its fields "<op> filter_h" and so on: filters, strides and dilations
// 1..65535, paddings within ±2^24.
Window2d read_window2d(sim::ByteReader& r, const char* op);

// conv2d {memory_range in, out, shape in_shape, i32 groups, out_channels, window2d,
// value_range fused_activation,
// f32 weights[out_channels · in_c / groups · filter_h · filter_w] (OIHW), f32 bias[out_channels]}.
// The reader checks the geometry it needs to size the weights (groups divide both channel counts,
// filters, strides and dilations positive, paddings within ±2^24).
struct V4Conv2d {
    MemoryRange in, out;
    Shape4 in_shape{};
    int32_t groups = 1, out_channels = 0;
    Window2d win;
    ValueRange act;
    std::vector<float> weights, bias;
};
V4Conv2d read_v4_conv2d(sim::ByteReader& r);

// matmul {memory_range a, b, out, i32 a_rows, a_cols, b_cols, value_range fused_activation,
// f32 bias[b_cols]}: out[r][c] = Σ_i a[r][i] · b[i][c] + bias[c] (b is usually const memory).
struct V4Matmul {
    MemoryRange a, b, out;
    int32_t a_rows = 0, a_cols = 0, b_cols = 0;
    ValueRange act;
    std::vector<float> bias;
};
V4Matmul read_v4_matmul(sim::ByteReader& r);

// reduce_window2d {memory_range in, out, u32 reduce_op, shape in_shape, window2d, f32 init_value,
// value_range fused_activation}: pooling; mean divides by the number of in-bounds taps.
enum class ReduceOp : uint32_t { mean = 0, min, max, sum };
struct V4ReduceWindow2d {
    MemoryRange in, out;
    ReduceOp op = ReduceOp::mean;
    Shape4 in_shape{};
    Window2d win;
    float init_value = 0;
    ValueRange act;
};
V4ReduceWindow2d read_v4_reduce_window2d(sim::ByteReader& r);

// softmax {memory_range in, out, i32 inner_size, outer_size, f32 beta}: per block of inner_size,
// max, expf((x − max) · beta), their sum in order, divide.
struct V4Softmax {
    MemoryRange in, out;
    int32_t inner_size = 0, outer_size = 0;
    float beta = 1;
};
V4Softmax read_v4_softmax(sim::ByteReader& r);

// ---------------------------------------------------------------- kernels

// The RISC-V `fcvt.w.s` conversion: round to nearest, ties to even (`rne`) or away from zero
// (what roundf then the truncating `fcvt.w.s rtz` gives), saturating to int32; NaN gives
// INT32_MAX.
int32_t fcvt_w_s_rne(float v);
int32_t round_half_away_w_s(float v);

// nncase runtime::mul_and_carry_shift (v0.2.0-beta4) as the K210 build computes it: (v · mul) in
// 64 bits, plus the rounding half 2^(shift − 1) in 64 bits, arithmetic shift right, truncated to
// 32 bits; the shift is taken as uint8 (RV64 shifts use it mod 64).
int32_t mul_and_carry_shift(int32_t value, int32_t mul, int32_t shift);

void dequantize_v3(const uint8_t* q, size_t count, float scale, float bias, float* out,
                   bool fma = true);
// The SDK's (kpu.c) float CPU layers of kmodel v3, in its order of operations:
// QUANTIZE q = clamp(roundf((x − bias) · (1/scale)), 0, 255);
void quantize_v3(const float* x, size_t count, float scale, float bias, uint8_t* out);
// ADD out = a + b;
void add_v3(const float* a, const float* b, size_t count, float* out);
// GLOBAL_AVERAGE_POOL2D per channel: the sum in order, divided by the kernel size;
void global_average_pool_v3(const float* in, size_t channels, size_t kernel_size, float* out);
// SOFTMAX: max (starting from FLT_MIN, as the SDK does), expf(x − max), sum, divide;
void softmax_v3(const float* in, size_t channels, float* out);
// FULLY_CONNECTED: per output, Σ x[i] · w[o·in + i] in order (a fused fmadd.s with `fma`), plus
// bias[o], then the activation (0 linear, 1 ReLU, 2 ReLU6).
void fully_connected_v3(const float* in, const float* weights, const float* bias,
                        size_t in_channels, size_t out_channels, uint32_t act, float* out,
                        bool fma = true);

// x = q · (1/scale) + (−zp · (1/scale)), as riscv_dequantize.
void dequantize_v4(const uint8_t* q, size_t count, int32_t zero_point, float scale, float* out,
                   bool fma = true);
// q = clamp(cvt(x · scale + zp), 0, 255), as riscv_quantize: pairs convert with `rne`, an odd last
// element with roundf.
void quantize_v4(const float* x, size_t count, int32_t zero_point, float scale, uint8_t* out,
                 bool fma = true);

// Element size 1 (u8) or 4 (f32); shapes already validated against the buffers.
void pad(const uint8_t* in, size_t elem, const Shape4& in_shape,
         const std::array<Padding, 4>& paddings, const std::array<uint8_t, 4>& value, uint8_t* out);
void transpose(const uint8_t* in, size_t elem, const Shape4& in_shape, const Shape4& perm,
               uint8_t* out);
void quantized_binary(const uint8_t* a, const uint8_t* b, const V4QuantizedBinary& p, uint8_t* out);

// Σ over the output positions of the window taps that fall inside an NCHW input, for one
// channel (what a convolution multiplies: its MACs are N · OC · IC/groups · this).
uint64_t in_bounds_taps(const Window2d& w, const Shape4& in);
// The v4 float kernels in nncase's loop order (a fused fmadd.s with `fma`); shapes and ranges
// already validated against the buffers. Each returns the multiply-accumulates it did.
void binary_f32(const float* a, const float* b, const V4Binary& p, float* out);
uint64_t conv2d_f32(const float* in, const V4Conv2d& p, float* out, bool fma = true);
uint64_t matmul_f32(const float* a, const float* b, const V4Matmul& p, float* out, bool fma = true);
void reduce_window2d_f32(const float* in, const V4ReduceWindow2d& p, float* out);
void softmax_v4(const float* in, const V4Softmax& p, float* out);

Shape4 padded_shape(const Shape4& in, const std::array<Padding, 4>& paddings);
Shape4 transposed_shape(const Shape4& in, const Shape4& perm);
uint64_t shape_elements(const Shape4& s);  // 0 if any dimension is negative

}  // namespace npu::k210
