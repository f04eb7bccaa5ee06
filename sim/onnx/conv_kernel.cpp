#include "sim/onnx/conv_kernel.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace npu::onnx {
namespace {

using v4 = float __attribute__((vector_size(16)));

constexpr int64_t kRows = 4;    // output channels per register block
constexpr int64_t kCols = 8;    // output pixels per register block (two v4)
constexpr int64_t kTile = 256;  // output pixels per im2col tile (K x 256 floats stay in L2)

v4 load4(const float* p) {
    v4 v;
    std::memcpy(&v, p, sizeof v);
    return v;
}
void store4(float* p, v4 v) {
    std::memcpy(p, &v, sizeof v);
}

// col[k][j] for k = (ic, ky, kx) of one group and pixels p0 .. p0+cols-1 (zero outside the
// input and beyond `cols`, up to `stride`).
void im2col(const ConvGeometry& g, const float* xg, int64_t gc, int64_t p0, int64_t cols,
            int64_t stride, float* col) {
    int64_t k = 0;
    for (int64_t ic = 0; ic < gc; ++ic) {
        const float* plane = xg + ic * g.h * g.w;
        for (int64_t ky = 0; ky < g.kh; ++ky) {
            for (int64_t kx = 0; kx < g.kw; ++kx, ++k) {
                float* row = col + k * stride;
                int64_t oy = p0 / g.ow, ox = p0 % g.ow;
                for (int64_t j = 0; j < cols; ++j) {
                    const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
                    const int64_t ix = ox * g.sw - g.pw + kx * g.dw;
                    row[j] =
                        iy >= 0 && iy < g.h && ix >= 0 && ix < g.w ? plane[iy * g.w + ix] : 0.0f;
                    if (++ox == g.ow) {
                        ox = 0, ++oy;
                    }
                }
                std::fill(row + cols, row + stride, 0.0f);
            }
        }
    }
}

// Few output channels per group (depthwise): accumulate whole output planes directly, in the
// same order (ic, ky, kx) and precision as the blocked path, so the two agree bit for bit.
void conv2d_direct(const ConvGeometry& g, const float* x, const float* weights, const float* bias,
                   float* y) {
    const int64_t gc = g.c / g.group, gm = g.m / g.group, pixels = g.oh * g.ow;
    for (int64_t b = 0; b < g.n; ++b) {
        for (int64_t oc = 0; oc < g.m; ++oc) {
            float* plane = y + (b * g.m + oc) * pixels;
            std::fill(plane, plane + pixels, 0.0f);
            const float* xg = x + (b * g.c + oc / gm * gc) * g.h * g.w;
            const float* w = weights + oc * gc * g.kh * g.kw;
            for (int64_t ic = 0; ic < gc; ++ic) {
                for (int64_t ky = 0; ky < g.kh; ++ky) {
                    for (int64_t kx = 0; kx < g.kw; ++kx, ++w) {
                        // Output columns whose input column lies inside: ox in [lo, hi).
                        const int64_t off = kx * g.dw - g.pw;
                        const int64_t lo = off >= 0 ? 0 : (-off + g.sw - 1) / g.sw;
                        const int64_t hi =
                            std::min(g.ow, g.w - off <= 0 ? 0 : (g.w - off - 1) / g.sw + 1);
                        for (int64_t oy = 0; oy < g.oh; ++oy) {
                            const int64_t iy = oy * g.sh - g.ph + ky * g.dh;
                            if (iy < 0 || iy >= g.h) {
                                continue;
                            }
                            const float* row = xg + (ic * g.h + iy) * g.w;
                            float* out = plane + oy * g.ow;
                            for (int64_t ox = lo; ox < hi; ++ox) {
                                out[ox] += *w * row[ox * g.sw + off];
                            }
                        }
                    }
                }
            }
            const float bv = bias != nullptr ? bias[oc] : 0.0f;
            for (int64_t p = 0; p < pixels; ++p) {
                plane[p] += bv;
            }
        }
    }
}

}  // namespace

void conv2d(const ConvGeometry& g, const float* x, const float* weights, const float* bias,
            float* y) {
    const int64_t gc = g.c / g.group, gm = g.m / g.group, kk = gc * g.kh * g.kw;
    if (gm < kRows) {
        conv2d_direct(g, x, weights, bias, y);
        return;
    }
    const int64_t pixels = g.oh * g.ow, blocks = (gm + kRows - 1) / kRows;
    // Weights packed per group as [block][k][4 rows] (zero rows past gm).
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
    std::vector<float> col(static_cast<size_t>(kk * kTile));
    for (int64_t b = 0; b < g.n; ++b) {
        for (int64_t grp = 0; grp < g.group; ++grp) {
            const float* xg = x + (b * g.c + grp * gc) * g.h * g.w;
            for (int64_t p0 = 0; p0 < pixels; p0 += kTile) {
                const int64_t cols = std::min(kTile, pixels - p0);
                const int64_t padded = (cols + kCols - 1) / kCols * kCols;
                im2col(g, xg, gc, p0, cols, kTile, col.data());
                for (int64_t blk = 0; blk < blocks; ++blk) {
                    const float* wp = packed.data() + (grp * blocks + blk) * kk * kRows;
                    for (int64_t j = 0; j < padded; j += kCols) {
                        v4 acc[kRows][2] = {};
                        const float* cp = col.data() + j;
                        for (int64_t k = 0; k < kk; ++k) {
                            const v4 c0 = load4(cp + k * kTile), c1 = load4(cp + k * kTile + 4);
                            const float* wk = wp + k * kRows;
                            for (int64_t r = 0; r < kRows; ++r) {
                                const v4 w = {wk[r], wk[r], wk[r], wk[r]};
                                acc[r][0] += w * c0;
                                acc[r][1] += w * c1;
                            }
                        }
                        for (int64_t r = 0; r < kRows && blk * kRows + r < gm; ++r) {
                            const int64_t oc = grp * gm + blk * kRows + r;
                            float out[kCols];
                            store4(out, acc[r][0]);
                            store4(out + 4, acc[r][1]);
                            const float bv = bias != nullptr ? bias[oc] : 0.0f;
                            float* yrow = y + (b * g.m + oc) * pixels + p0 + j;
                            for (int64_t q = 0; q < kCols && j + q < cols; ++q) {
                                yrow[q] = out[q] + bv;
                            }
                        }
                    }
                }
            }
        }
    }
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
