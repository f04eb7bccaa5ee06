#include "sim/onnx/conv_kernel.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "sim/core/parallel.h"
#include "sim/core/simd.h"
#include "sim/onnx/conv_gemm.h"

namespace npu::onnx {
namespace {

constexpr int64_t kRows = 4;    // output channels per register block (conv_gemm.h)
constexpr int64_t kBlock = 16;  // pixels the widest product reads at a time
constexpr int64_t kTile = 256;  // output pixels per im2col tile (K x 256 floats stay in L2)

// col[k][j] for k = (ic, ky, kx) of one group and pixels p0 .. p0+cols-1 (zero outside the
// input and beyond `cols`, up to `stride`). Works in runs along one output row: the output
// columns whose input column lies inside, [lo, hi), are a copy (strided by sw); the rest zeros.
void im2col(const ConvGeometry& g, const float* xg, int64_t gc, int64_t p0, int64_t cols,
            int64_t stride, float* col) {
    int64_t k = 0;
    for (int64_t ic = 0; ic < gc; ++ic) {
        const float* plane = xg + ic * g.h * g.w;
        for (int64_t ky = 0; ky < g.kh; ++ky) {
            for (int64_t kx = 0; kx < g.kw; ++kx, ++k) {
                float* row = col + k * stride;
                const int64_t off = kx * g.dw - g.pw;
                const int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
                const int64_t hi = std::min(g.ow, g.w - off <= 0 ? 0 : (g.w - off - 1) / g.sw + 1);
                int64_t oy = p0 / g.ow, ox = p0 % g.ow;
                for (int64_t j = 0; j < cols;) {
                    const int64_t run = std::min(g.ow - ox, cols - j);  // to the row's end
                    const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
                    float* out = row + j;
                    if (iy < 0 || iy >= g.h) {
                        std::fill(out, out + run, 0.0f);
                    } else {
                        const float* in = plane + iy * g.w;  // in[off + o * sw] for o in [lo, hi)
                        for (int64_t q = 0; q < run; ++q) {
                            const int64_t o = ox + q;
                            out[q] = o >= lo && o < hi ? in[off + o * g.sw] : 0.0f;
                        }
                    }
                    j += run, ox = 0, ++oy;
                }
                std::fill(row + cols, row + stride, 0.0f);
            }
        }
    }
}

// Few output channels per group (depthwise): accumulate whole output planes directly, in the
// same order (ic, ky, kx) and precision as the blocked path, so the two agree bit for bit.
// Output planes [begin, end) of the n * m planes.
void conv2d_direct(const ConvGeometry& g, const float* x, const float* weights, const float* bias,
                   float* y, int64_t begin, int64_t end) {
    const int64_t gc = g.c / g.group, gm = g.m / g.group, pixels = g.oh * g.ow;
    for (int64_t plane_index = begin; plane_index < end; ++plane_index) {
        const int64_t b = plane_index / g.m, oc = plane_index % g.m;
        const gemm_detail::DirectArgs a{
            &g, x + (b * g.c + oc / gm * gc) * g.h * g.w, weights + oc * gc * g.kh * g.kw,
            bias != nullptr ? bias[oc] : 0.0f, y + (b * g.m + oc) * pixels};
        if (sim::simd_level() == sim::SimdLevel::Avx2) {
            gemm_detail::direct_avx2(a);
        } else {
            gemm_detail::direct_sse2(a);
        }
    }
}

// Weights packed per group as [block][k][4 rows] (zero rows past gm).
std::vector<float> pack(const ConvGeometry& g, const float* weights, int64_t kk) {
    const int64_t gm = g.m / g.group, blocks = (gm + kRows - 1) / kRows;
    std::vector<float> packed(static_cast<size_t>(g.group * blocks * kk * kRows), 0.0f);
    for (int64_t grp = 0; grp < g.group; ++grp) {
        for (int64_t o = 0; o < gm; ++o) {
            const float* src = weights + (grp * gm + o) * kk;
            float* dst = packed.data() + ((grp * blocks + o / kRows) * kk) * kRows + o % kRows;
            for (int64_t k = 0; k < kk; ++k) {
                dst[k * kRows] = src[k];
            }
        }
    }
    return packed;
}

void gemm(const gemm_detail::GemmArgs& a) {
    if (sim::simd_level() == sim::SimdLevel::Avx2) {
        gemm_detail::gemm_avx2(a);
    } else {
        gemm_detail::gemm_sse2(a);
    }
}

// A 1x1 convolution with stride 1 and no padding reads its input planes as they are: the column
// matrix is the input. Only the last, partial block of 16 pixels is copied (zero-padded), since
// the product reads whole blocks.
bool pointwise(const ConvGeometry& g) {
    return g.kh == 1 && g.kw == 1 && g.sh == 1 && g.sw == 1 && g.ph == 0 && g.pw == 0 &&
           g.oh == g.h && g.ow == g.w;
}

}  // namespace

namespace {

// A 1x1 convolution's product straight from the input planes: whole blocks of kBlock pixels in
// place, the rest copied into zero-padded rows (the product reads whole blocks).
void pointwise_tile(gemm_detail::GemmArgs a, const float* xg, int64_t pixels, int64_t p0,
                    float* scratch) {
    const int64_t cols = a.cols, whole = cols / kBlock * kBlock;
    a.col = xg + p0, a.col_stride = pixels, a.cols = whole;
    if (whole > 0) {
        gemm(a);
    }
    if (whole < cols) {
        for (int64_t k = 0; k < a.kk; ++k) {
            float* row = scratch + k * kBlock;
            std::fill(row, row + kBlock, 0.0f);
            std::copy(xg + k * pixels + p0 + whole, xg + k * pixels + p0 + cols, row);
        }
        a.col = scratch, a.col_stride = kBlock, a.cols = cols - whole;
        a.y += whole;
        gemm(a);
    }
}

}  // namespace

void conv2d(const ConvGeometry& g, const float* x, const float* weights, const float* bias,
            float* y) {
    const int64_t gc = g.c / g.group, gm = g.m / g.group, kk = gc * g.kh * g.kw;
    const int64_t pixels = g.oh * g.ow, blocks = (gm + kRows - 1) / kRows;
    if (gm < kRows) {
        sim::parallel_for(
            g.n * g.m, std::max<int64_t>(1, 16384 / std::max<int64_t>(1, pixels)),
            [&](int64_t begin, int64_t end) { conv2d_direct(g, x, weights, bias, y, begin, end); });
        return;
    }
    const std::vector<float> packed = pack(g, weights, kk);
    const bool in_place = pointwise(g);
    const int64_t tiles = (pixels + kTile - 1) / kTile;
    // One task per (image, group, tile of output pixels): each writes its own outputs.
    sim::parallel_for(g.n * g.group * tiles, 1, [&](int64_t begin, int64_t end) {
        std::vector<float> col(static_cast<size_t>(kk * kTile));
        for (int64_t task = begin; task < end; ++task) {
            const int64_t b = task / (g.group * tiles), grp = task / tiles % g.group;
            const int64_t p0 = task % tiles * kTile, cols = std::min(kTile, pixels - p0);
            const float* xg = x + (b * g.c + grp * gc) * g.h * g.w;
            const gemm_detail::GemmArgs a{packed.data() + grp * blocks * kk * kRows,
                                          gm,
                                          kk,
                                          col.data(),
                                          kTile,
                                          cols,
                                          bias != nullptr ? bias + grp * gm : nullptr,
                                          y + (b * g.m + grp * gm) * pixels + p0,
                                          pixels};
            if (in_place) {
                pointwise_tile(a, xg, pixels, p0, col.data());
            } else {
                im2col(g, xg, gc, p0, cols, kTile, col.data());
                gemm(a);
            }
        }
    });
}

void conv2d_naive(const ConvGeometry& g, const float* x, const float* weights, const float* bias,
                  float* y) {
    const int64_t gc = g.c / g.group, gm = g.m / g.group;
    for (int64_t b = 0; b < g.n; ++b) {
        for (int64_t oc = 0; oc < g.m; ++oc) {
            const int64_t grp = oc / gm;
            for (int64_t oy = 0; oy < g.oh; ++oy) {
                for (int64_t ox = 0; ox < g.ow; ++ox) {
                    double acc = bias != nullptr ? static_cast<double>(bias[oc]) : 0.0;
                    for (int64_t ic = 0; ic < gc; ++ic) {
                        for (int64_t ky = 0; ky < g.kh; ++ky) {
                            const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
                            for (int64_t kx = 0; kx < g.kw; ++kx) {
                                const int64_t ix = ox * g.sw - g.pw + kx * g.dw;
                                if (iy < 0 || iy >= g.h || ix < 0 || ix >= g.w) {
                                    continue;
                                }
                                acc += static_cast<double>(
                                           x[((b * g.c + grp * gc + ic) * g.h + iy) * g.w + ix]) *
                                       static_cast<double>(
                                           weights[((oc * gc + ic) * g.kh + ky) * g.kw + kx]);
                            }
                        }
                    }
                    y[((b * g.m + oc) * g.oh + oy) * g.ow + ox] = static_cast<float>(acc);
                }
            }
        }
    }
}

}  // namespace npu::onnx
