// The reference evaluator's 2-D convolution (1-D as H = 1), float32, NCHW, with groups, strides,
// dilations and begin padding (the end padding only shows in the output size). Two
// implementations of the same arithmetic contract:
//  - conv2d: im2col over tiles of output pixels, then a register-blocked product (4 output
//    channels x 8 pixels, GCC/Clang vector extensions, SSE2 baseline). Each output is the
//    sum over (ic, ky, kx) in that order, accumulated in float, plus the bias: the result is
//    the same on every x86-64 machine and every run. Groups with fewer than 4 output channels
//    (depthwise) accumulate whole output planes directly instead, in the same order and
//    precision, so both paths give the same bits.
//  - conv2d_naive: the textbook loop nest with double accumulation, kept as the independent
//    check of conv2d (tests/sim/onnx/test_conv_kernel.cpp) and as the benchmark's baseline.
#pragma once

#include <cstdint>

namespace npu::onnx {

struct ConvGeometry {
    int64_t n = 1, c = 1, h = 1, w = 1;  // input
    int64_t m = 1, group = 1;            // output channels, groups
    int64_t kh = 1, kw = 1, sh = 1, sw = 1, dh = 1, dw = 1, ph = 0, pw = 0;
    int64_t oh = 1, ow = 1;  // output size (the caller derives it from the pads)

    int64_t macs() const { return n * m * oh * ow * (c / group) * kh * kw; }
};

// x: n*c*h*w, weights: m*(c/group)*kh*kw, bias: m or nullptr, y: n*m*oh*ow.
void conv2d(const ConvGeometry& g, const float* x, const float* weights, const float* bias,
            float* y);
void conv2d_naive(const ConvGeometry& g, const float* x, const float* weights, const float* bias,
                  float* y);

}  // namespace npu::onnx
