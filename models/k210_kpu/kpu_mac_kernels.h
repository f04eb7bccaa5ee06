// The bodies of the MAC kernels, written once over a vector type V and compiled twice: for SSE2
// (kpu_mac_sse2.cpp) and for AVX2 (kpu_mac_avx2.cpp, built with -mavx2). Included only by those two
// files. Everything here has internal linkage and uses no inline library code, so the AVX2 object
// cannot lend an AVX2 copy of a shared function to the rest of the program.
#pragma once

#include <cstddef>

#include "models/k210_kpu/kpu_mac.h"

namespace npu::kpu::mac_detail {
namespace {

// dense_gemm: 4 rows x 2 vectors of pixels per register block, one pmaddwd per row per vector
// per tap pair.
template <typename V>
void dense_gemm_body(const GemmArgs& g) {
    constexpr int L = V::kLanes, B = 2 * L;
    const int blocks = (g.rows + 3) / 4, cols = g.cols;
    for (int j = 0; j < cols; j += B) {
        const int n = cols - j < B ? cols - j : B;
        for (int rb = 0; rb < blocks; ++rb) {
            const uint32_t* wb = g.weights + static_cast<ptrdiff_t>(rb) * g.pairs * 4;
            typename V::Reg acc[4][2];
            for (auto& r : acc) {
                r[0] = r[1] = V::zero();
            }
            const uint32_t* c = g.col + j;
            for (int p = 0; p < g.pairs; ++p, c += g.col_stride, wb += 4) {
                const typename V::Reg c0 = V::load(c), c1 = V::load(c + L);
                for (int r = 0; r < 4; ++r) {
                    const typename V::Reg wv = V::broadcast(wb[r]);
                    acc[r][0] = V::add(acc[r][0], V::madd(c0, wv));
                    acc[r][1] = V::add(acc[r][1], V::madd(c1, wv));
                }
            }
            const int rows = g.rows - rb * 4 < 4 ? g.rows - rb * 4 : 4;
            for (int r = 0; r < rows; ++r) {
                int32_t* o =
                    g.out + static_cast<size_t>(rb * 4 + r) * g.out_stride + static_cast<size_t>(j);
                if (n == B) {
                    V::store(o, acc[r][0]);
                    V::store(o + L, acc[r][1]);
                } else {
                    int32_t tmp[2 * kMacBlock];  // B <= kMacBlock
                    V::store(tmp, acc[r][0]);
                    V::store(tmp + L, acc[r][1]);
                    for (int q = 0; q < n; ++q) {
                        o[q] = tmp[q];
                    }
                }
            }
        }
    }
}

// depthwise: one vector of output pixels at a time; per kernel row one pmaddwd for kx (0, 1) and,
// for 3 x 3, one for (2, -) two pairs further on. The stores of a row's last vector run into the
// next row, which is written after it; the buffers have kMacBlock entries of room at the end.
template <typename V, bool kSums>
void depthwise_body(const uint32_t* pairs, int stride, int k, int h, int w, const DepthwiseTaps& t,
                    int32_t* acc, int32_t* sums) {
    constexpr int L = V::kLanes;
    typename V::Reg tap[3][2], one[2];
    for (int ky = 0; ky < k; ++ky) {
        tap[ky][0] = V::broadcast(t.tap[ky][0]);
        tap[ky][1] = V::broadcast(t.tap[ky][1]);
    }
    one[0] = V::broadcast(k == 3 ? 0x00010001u : 0x00000001u);
    one[1] = V::broadcast(0x00000001u);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; x += L) {
            typename V::Reg a = V::zero(), s = V::zero();
            for (int ky = 0; ky < k; ++ky) {
                const uint32_t* p = pairs + static_cast<ptrdiff_t>(y + ky) * stride + x;
                const typename V::Reg p0 = V::load(p);
                a = V::add(a, V::madd(p0, tap[ky][0]));
                if (kSums) {
                    s = V::add(s, V::madd(p0, one[0]));
                }
                if (k == 3) {
                    const typename V::Reg p2 = V::load(p + 2);
                    a = V::add(a, V::madd(p2, tap[ky][1]));
                    if (kSums) {
                        s = V::add(s, V::madd(p2, one[1]));
                    }
                }
            }
            V::store(acc + static_cast<ptrdiff_t>(y) * w + x, a);
            if (kSums) {
                V::store(sums + static_cast<ptrdiff_t>(y) * w + x, s);
            }
        }
    }
}

// Plain loops the compiler vectorises for the file's instruction set. The arithmetic shift of
// the signed product is a logical one of the product plus 2^62 (which 2^shr_x divides), minus
// 2^(62 - shr_x): vector units have logical 64-bit shifts only.
void pre_bn_body(const PreBnArgs& a, size_t n, int64_t* v) {
    const int64_t bias = int64_t{1} << 62, unbias = bias >> a.shr_x;
    const int64_t arg_x = a.arg_x;
    for (size_t i = 0; i < n; ++i) {
        const uint64_t p = static_cast<uint64_t>(arg_x * a.sum_x[i] + bias) >> a.shr_x;
        v[i] = int64_t{a.acc[i]} + (static_cast<int64_t>(p) - unbias) + a.constant;
    }
    if (a.acc_high != nullptr) {
        for (size_t i = 0; i < n; ++i) {
            v[i] += int64_t{a.acc_high[i]} * 256;
        }
    }
}

// One pair row from pixel `from` on: the part vector loops leave, and the zeros up to stride.
void pair_row_tail(const uint8_t* in, int width, int stride, int from, uint32_t* o) {
    for (int x = from; x + 1 < width; ++x) {
        o[x] = uint32_t{in[x]} | uint32_t{in[x + 1]} << 16;
    }
    if (from < width) {
        o[width - 1] = in[width - 1];
    }
    for (int x = width; x < stride; ++x) {
        o[x] = 0;
    }
}

}  // namespace
}  // namespace npu::kpu::mac_detail
