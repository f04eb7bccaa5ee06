// nncase v0.2's own CPU kernels (the Kendryte SDK's lib/nncase/v0, header-only templates), called
// as its runtime's ops call them (runtime/neutral/neutral_ops.cpp, runtime/k210/k210_ops.cpp), for
// the K210 CPU calibration (README.md). Built against the SDK given to scripts/k210-cpu-kernels,
// never copied: this file only instantiates them. Each entry point takes plain buffers and sizes
// from main.c, which times it.
#include <cmath>

#include <kernels/k210/k210_kernels.h>
#include <kernels/neutral/neutral_kernels.h>

#include "cpu_kernels.h"

using namespace nncase;

namespace {
const quant_param_t kQuant{3, 0.0235f};  // an 8-bit feature map's: zero point 3, scale 0.0235
runtime_shape_t nchw(const struct nk_shape* s) {
    return {1, s->c, s->h, s->w};
}
}  // namespace

extern "C" {

void nk_dequantize(const uint8_t* in, float* out, size_t n) {
    kernels::neutral::dequantize(in, out, n, kQuant);
}

void nk_quantize(const float* in, uint8_t* out, size_t n) {
    kernels::neutral::quantize(in, out, n, kQuant);
}

// An elementwise quantized add of two maps of one shape (nncase#97's bottleneck add), with the
// shifts and multipliers of a typical requantisation.
void nk_quantized_add(const uint8_t* a, const uint8_t* b, uint8_t* out, const struct nk_shape* s) {
    const runtime_shape_t shape = nchw(s);
    kernels::neutral::quantized_binary(a, b, out, shape, shape, shape, -3, 1717, 9, -5, 1519, 9,
                                       1283, 11, 4, [](auto x, auto y) { return x + y; });
}

void nk_binary_add(const float* a, const float* b, float* out, const struct nk_shape* s) {
    const runtime_shape_t shape = nchw(s);
    const value_range<float> none{std::numeric_limits<float>::lowest(),
                                  std::numeric_limits<float>::max()};
    kernels::neutral::binary(a, b, out, shape, shape, shape, none,
                             [](auto x, auto y) { return x + y; });
}

// NCHW -> NHWC, as nncase puts a KPU output into a detector head's layout.
void nk_transpose_f32(const float* in, float* out, const struct nk_shape* s) {
    kernels::neutral::transpose(in, out, nchw(s), runtime_shape_t{0, 2, 3, 1});
}

void nk_transpose_u8(const uint8_t* in, uint8_t* out, const struct nk_shape* s) {
    kernels::neutral::transpose(in, out, nchw(s), runtime_shape_t{0, 2, 3, 1});
}

// Two float maps of `s` joined along the channels (outer size 1: one copy per input).
void nk_concat(const float* a, const float* b, float* out, const struct nk_shape* s) {
    const uint8_t* inputs[2] = {reinterpret_cast<const uint8_t*>(a),
                                reinterpret_cast<const uint8_t*>(b)};
    const int32_t dims[2] = {s->c, s->c};
    kernels::neutral::concat(xtl::span<const uint8_t*>(inputs, 2), reinterpret_cast<uint8_t*>(out),
                             xtl::span<const int32_t>(dims, 2),
                             static_cast<size_t>(s->h) * s->w * sizeof(float), 1,
                             [](const uint8_t* p) { return p; });
}

// A u8 map padded by one on each side of H and W.
void nk_pad_u8(const uint8_t* in, uint8_t* out, const struct nk_shape* s) {
    const runtime_paddings_t p{padding{0, 0}, padding{0, 0}, padding{1, 1}, padding{1, 1}};
    kernels::neutral::pad(in, out, nchw(s), p, uint8_t{0});
}

void nk_memory_copy(const float* in, float* out, size_t n) {
    std::copy(in, in + n, out);  // runtime/neutral/neutral_ops.cpp memory_copy
}

// Nearest-neighbour upsampling of a u8 map to twice its height and width.
void nk_resize_nearest_u8(const uint8_t* in, uint8_t* out, const struct nk_shape* s) {
    kernels::neutral::resize_nearest_neighbor(in, out, nchw(s), s->h * 2, s->w * 2);
}

void nk_resize_bilinear_f32(const float* in, float* out, const struct nk_shape* s) {
    kernels::neutral::resize_bilinear(in, out, nchw(s), s->h * 2, s->w * 2, false);
}

void nk_softmax(const float* in, float* out, int32_t outer, size_t inner) {
    kernels::neutral::softmax(in, out, 1.f, outer, inner);
}

void nk_unary_exp(const float* in, float* out, size_t n) {
    kernels::neutral::unary(in, out, n, [](auto x) { return expf(x); });
}

void nk_table_lookup(const uint8_t* in, uint8_t* out, size_t n, const uint8_t* table) {
    kernels::neutral::table_lookup1d(in, out, n, table);
}

// A 2x2 max pool with stride 2 (reduce_window2d as neutral_ops.cpp calls it for reduce_max).
void nk_max_pool(const float* in, float* out, const struct nk_shape* s) {
    const value_range<float> none{std::numeric_limits<float>::lowest(),
                                  std::numeric_limits<float>::max()};
    kernels::neutral::reduce_window2d(
        in, out, std::numeric_limits<float>::lowest(), nchw(s), 2, 2, 2, 2, 1, 1, padding{0, 0},
        padding{0, 0}, none, [](auto a, auto b) { return std::max(a, b); },
        [](auto v, auto) { return v; });
}

// The mean over H and W of each channel (reduce_mean: the reduce, then the unary scaling).
void nk_reduce_mean(const float* in, float* out, const struct nk_shape* s) {
    kernels::neutral::reduce(in, out, 0.f, nchw(s), runtime_shape_t{1, s->c, 1, 1},
                             [](auto a, auto b) { return a + b; });
    const float mul = 1.f / static_cast<float>(s->h * s->w);
    kernels::neutral::unary(out, out, static_cast<size_t>(s->c), [mul](auto a) { return a * mul; });
}

// Every other column of a u8 map (a stride-2 slice in W).
void nk_strided_slice(const uint8_t* in, uint8_t* out, const struct nk_shape* s) {
    kernels::neutral::strided_slice(in, out, nchw(s), runtime_shape_t{0, 0, 0, 0},
                                    runtime_shape_t{1, s->c, s->h, s->w},
                                    runtime_shape_t{1, 1, 1, 2});
}

// A fully connected layer as nncase lowers one: a 1-row matmul with bias, no activation.
void nk_matmul(const float* in, const float* weights, const float* bias, float* out, int32_t cols,
               int32_t b_cols) {
    const value_range<float> none{std::numeric_limits<float>::lowest(),
                                  std::numeric_limits<float>::max()};
    kernels::neutral::matmul(in, weights, out, bias, 1, cols, b_cols, none);
}

// A float 3x3 convolution, stride 1, padding 1, of a 4-channel map to 4 channels (nncase's
// `conv2d` node, for what the KPU cannot run).
void nk_conv2d(const float* in, const float* weights, const float* bias, float* out, int32_t h,
               int32_t w) {
    const value_range<float> none{std::numeric_limits<float>::lowest(),
                                  std::numeric_limits<float>::max()};
    kernels::neutral::conv2d(in, out, weights, bias, runtime_shape_t{1, 4, h, w}, 1, 4, 3, 3, 1, 1,
                             1, 1, padding{1, 1}, padding{1, 1}, none);
}

// The K210 target's KPU row layout: up and down between main memory and the KPU's RAM.
void nk_kpu_upload(const uint8_t* in, uint8_t* kpu, const struct nk_shape* s) {
    kernels::k210::kpu_upload(in, kpu, nchw(s));
}

void nk_kpu_download(const uint8_t* kpu, uint8_t* out, const struct nk_shape* s) {
    kernels::k210::kpu_download(kpu, out, nchw(s));
}

}  // extern "C"
