// The DL processor's modules as pure, bit-exact functions over CHW tensors: the conv module
// (2-D convolution with groups, stride, padding; activation; max/average pooling), the fc module
// (matrix-vector with bias, activation, optional softmax/sigmoid) and the adder module
// (element-wise add/multiply). Two arithmetics: single (float32, a fixed accumulation order) and
// int8 (int8 weights and activations, int32 bias and accumulation, power-of-two rescaling).
// The orders, roundings and saturations are design choices documented in docs/dlp.md ("Module
// arithmetic"); the sources do not state them. Pure C++.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace npu::dlp {

enum class Activation { none, relu, leaky_relu, clipped_relu };
enum class PoolType { none, max, average };

struct ConvLayer {
    int64_t in_c = 1, in_h = 1, in_w = 1;
    int64_t out_c = 1;
    int64_t kernel_h = 3, kernel_w = 3;  // 1..7
    int64_t stride_h = 1, stride_w = 1;
    int64_t pad_top = 0, pad_bottom = 0, pad_left = 0, pad_right = 0;
    int64_t groups = 1;  // in_c for depthwise
    Activation activation = Activation::none;
    float leaky_slope = 0.01f;  // single
    float clip_ceiling = 6.0f;  // single
    PoolType pool = PoolType::none;
    int64_t pool_h = 2, pool_w = 2, pool_stride_h = 2, pool_stride_w = 2;
    int64_t pool_pad_top = 0, pool_pad_bottom = 0, pool_pad_left = 0, pool_pad_right = 0;

    // 0 when the kernel does not fit the padded input.
    int64_t conv_h() const {
        const int64_t e = in_h + pad_top + pad_bottom;
        return e < kernel_h ? 0 : (e - kernel_h) / stride_h + 1;
    }
    int64_t conv_w() const {
        const int64_t e = in_w + pad_left + pad_right;
        return e < kernel_w ? 0 : (e - kernel_w) / stride_w + 1;
    }
    int64_t out_h() const;
    int64_t out_w() const;
    uint64_t macs() const;  // out_c · conv_h · conv_w · kernel_h · kernel_w · in_c / groups
};

// int8 quantization of a layer: every tensor is q · 2^exp. The accumulator (q_in · q_w, exponent
// in_exp + w_exp) is shifted to out_exp; bias is int32 at in_exp + w_exp. Leaky slope as
// leaky_mul · 2^-leaky_shift; the clip ceiling as an int8 value at out_exp.
struct Int8Quant {
    int32_t in_exp = 0, w_exp = 0, out_exp = 0;
    int32_t in2_exp = 0;                     // adder: the second operand's exponent
    int32_t leaky_mul = 1, leaky_shift = 7;  // slope 1/128 by default
    int8_t clip_ceiling = 127;
};

// Throws sim::Error naming the field when the layer is not one the conv module runs.
void check(const ConvLayer& l);

// single: weights [out_c][in_c / groups][kh][kw], bias [out_c]; input CHW; output CHW
// (out_c, out_h, out_w).
std::vector<float> conv_single(const ConvLayer& l, const float* in, const float* weights,
                               const float* bias);
std::vector<int8_t> conv_int8(const ConvLayer& l, const Int8Quant& q, const int8_t* in,
                              const int8_t* weights, const int32_t* bias);

// The conv module's pooling alone (a pooling layer: no convolution, as dlhdl runs max pooling,
// average pooling and global average pooling). `l` holds the pooling: in_c = out_c, the identity
// 1x1 geometry (kernel 1, stride 1, no padding, groups in_c), and pool windows 1..255 (the
// record's byte; a global pool is the whole map). Input and output CHW.
void check_pool(const ConvLayer& l);
std::vector<float> pool_single(const ConvLayer& l, const float* in);
// int8: max keeps the input's values; average rounds sum / count half away from zero; then the
// result moves from in_exp to out_exp as the conv module rescales (requantize).
std::vector<int8_t> pool_int8(const ConvLayer& l, const Int8Quant& q, const int8_t* in);
// The identity geometry of a pooling layer over (c, h, w).
ConvLayer pool_geometry(ConvLayer pool, int64_t c, int64_t h, int64_t w);

// y = W·x + b, W [out][in] row-major.
struct FcLayer {
    int64_t in = 1, out = 1;
    Activation activation = Activation::none;
    float leaky_slope = 0.01f, clip_ceiling = 6.0f;
    enum class Output { plain, softmax, sigmoid } output = Output::plain;  // single only
};
std::vector<float> fc_single(const FcLayer& l, const float* in, const float* weights,
                             const float* bias);
std::vector<int8_t> fc_int8(const FcLayer& l, const Int8Quant& q, const int8_t* in,
                            const int8_t* weights, const int32_t* bias);
// exp(v − max) / Σ, and 1 / (1 + exp(−v)), in place (the fc module's outputs; the host's
// software layers).
void softmax_single(std::vector<float>& y);
void sigmoid_single(std::vector<float>& y);

// The adder module: a + b or a · b element-wise, then the activation.
enum class AdderOp { add, multiply };
std::vector<float> adder_single(AdderOp op, const float* a, const float* b, size_t n,
                                Activation act = Activation::none);
// int8: a at a_exp, b at b_exp, the result at out_exp: add aligns both to the finer exponent in
// int32 then shifts to out_exp; multiply shifts the product (exponent a_exp + b_exp).
std::vector<int8_t> adder_int8(AdderOp op, const int8_t* a, int32_t a_exp, const int8_t* b,
                               int32_t b_exp, int32_t out_exp, size_t n,
                               Activation act = Activation::none);

// The smallest e with max_abs / 2^e <= 127 (0 for 0), clamped to the record's −31..31: the
// power-of-two exponent that holds a range in int8.
int32_t pow2_exponent(double max_abs);

// Shared rounding: v · 2^-shift rounded half away from zero (shift > 0), or v · 2^|shift|
// (shift <= 0), in 64 bits; then saturated to int8.
int8_t requantize(int64_t v, int32_t shift);

}  // namespace npu::dlp
