// The register-blocked product of conv2d (conv_kernel.cpp): 4 output channels x 2 vectors of
// pixels per block, y = Σ_k w[k] · col[k] accumulated over k = 0, 1, ... in float, then + bias.
// Written once over a vector width and compiled for SSE2 (conv_gemm_sse2.cpp, 4 floats) and AVX2
// (conv_gemm_avx2.cpp, 8 floats, built with -mavx2 and no FMA contraction). Each output element
// sees the same operations in the same order on both, so they give the same bits; the width only
// decides how many outputs are computed side by side. Included only by those two files:
// everything here has internal linkage and calls no inline library code.
#pragma once

#include <cstdint>
#include <cstring>

#include "sim/onnx/conv_kernel.h"

namespace npu::onnx::gemm_detail {

// Packed weights: blocks of 4 rows, [block][k][4]; rows past the group's channels are zero.
struct GemmArgs {
    const float* packed;
    int64_t rows;  // output channels of the group
    int64_t kk;    // taps per output channel
    const float* col;
    int64_t col_stride;  // floats between col rows (taps); >= cols rounded up to 16
    int64_t cols;        // output pixels (readable up to cols rounded up to 16 in every row)
    const float* bias;   // per row, or nullptr
    float* y;            // row r's pixel j at y[r * y_stride + j]
    int64_t y_stride;
};

void gemm_sse2(const GemmArgs& a);
void gemm_avx2(const GemmArgs& a);

// One output plane of a group with few output channels (depthwise): y = Σ over (ic, ky, kx) in
// that order of w · x, accumulated in float from 0, then + bias, as gemm_body does per element.
struct DirectArgs {
    const ConvGeometry* g;
    const float* xg;  // the group's input planes
    const float* w;   // this output channel's gc * kh * kw weights
    float bias;
    float* y;  // the output plane
};
void direct_sse2(const DirectArgs& a);
void direct_avx2(const DirectArgs& a);

namespace {

// V: a GCC vector of kLanes floats.
template <typename V, int kLanes>
void gemm_body(const GemmArgs& a) {
    constexpr int64_t kRows = 4, kCols = 2 * kLanes;
    auto load = [](const float* p) {
        V v;
        std::memcpy(&v, p, sizeof v);
        return v;
    };
    const int64_t blocks = (a.rows + kRows - 1) / kRows;
    for (int64_t blk = 0; blk < blocks; ++blk) {
        const float* wp = a.packed + blk * a.kk * kRows;
        for (int64_t j = 0; j < a.cols; j += kCols) {
            V acc[kRows][2] = {};
            const float* cp = a.col + j;
            for (int64_t k = 0; k < a.kk; ++k) {
                const V c0 = load(cp + k * a.col_stride), c1 = load(cp + k * a.col_stride + kLanes);
                const float* wk = wp + k * kRows;
                for (int64_t r = 0; r < kRows; ++r) {
                    V w;
                    for (int q = 0; q < kLanes; ++q) {
                        w[q] = wk[r];
                    }
                    acc[r][0] += w * c0;
                    acc[r][1] += w * c1;
                }
            }
            for (int64_t r = 0; r < kRows && blk * kRows + r < a.rows; ++r) {
                const int64_t oc = blk * kRows + r;
                float out[static_cast<size_t>(kCols)];
                std::memcpy(out, &acc[r][0], sizeof(V));
                std::memcpy(out + kLanes, &acc[r][1], sizeof(V));
                const float bv = a.bias != nullptr ? a.bias[oc] : 0.0f;
                float* yrow = a.y + oc * a.y_stride + j;
                for (int64_t q = 0; q < kCols && j + q < a.cols; ++q) {
                    yrow[q] = out[q] + bv;
                }
            }
        }
    }
}

// Row by row, so that an output row stays in L1 while every tap adds into it; per tap, the output
// columns whose input column lies inside, [lo, hi), are a run (contiguous for stride 1, which the
// compiler vectorises).
[[maybe_unused]] void direct_body(const DirectArgs& a) {
    const ConvGeometry& g = *a.g;
    const int64_t gc = g.c / g.group;
    for (int64_t oy = 0; oy < g.oh; ++oy) {
        float* out = a.y + oy * g.ow;
        for (int64_t ox = 0; ox < g.ow; ++ox) {
            out[ox] = 0.0f;
        }
        const float* w = a.w;
        for (int64_t ic = 0; ic < gc; ++ic) {
            for (int64_t ky = 0; ky < g.kh; ++ky) {
                const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
                if (iy < 0 || iy >= g.h) {
                    w += g.kw;
                    continue;
                }
                const float* row = a.xg + (ic * g.h + iy) * g.w;
                for (int64_t kx = 0; kx < g.kw; ++kx, ++w) {
                    const int64_t off = kx * g.dw - g.pw;
                    const int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
                    const int64_t last = g.w - off <= 0 ? 0 : (g.w - off - 1) / g.sw + 1;
                    const int64_t hi = last < g.ow ? last : g.ow;
                    const float wv = *w;
                    if (g.sw == 1) {
                        for (int64_t ox = lo; ox < hi; ++ox) {
                            out[ox] += wv * row[ox + off];
                        }
                    } else {
                        for (int64_t ox = lo; ox < hi; ++ox) {
                            out[ox] += wv * row[ox * g.sw + off];
                        }
                    }
                }
            }
        }
        for (int64_t ox = 0; ox < g.ow; ++ox) {
            out[ox] += a.bias;
        }
    }
}

}  // namespace
}  // namespace npu::onnx::gemm_detail
