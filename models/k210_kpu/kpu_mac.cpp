#include "models/k210_kpu/kpu_mac.h"

#include <algorithm>
#include <cstring>

#include "sim/core/error.h"
#include "sim/core/simd.h"

namespace npu::kpu {

template <typename Wt>
PackedWeights pack_weights(const Wt* weights, int rows, int taps, int byte, bool ones_row) {
    PackedWeights p;
    p.rows = rows + (ones_row ? 1 : 0);
    p.pairs = (taps + 1) / 2;
    const int blocks = (p.rows + 3) / 4;
    p.data.assign(static_cast<size_t>(blocks) * static_cast<size_t>(p.pairs) * 4, 0u);
    auto tap = [&](int r, int t) -> uint32_t {
        if (t >= taps) {
            return 0;
        }
        if (r == rows) {
            return 1;  // the ones row
        }
        const uint32_t v =
            weights[static_cast<size_t>(r) * static_cast<size_t>(taps) + static_cast<size_t>(t)];
        return (v >> (8 * byte)) & 0xffu;
    };
    for (int r = 0; r < p.rows; ++r) {
        uint32_t* dst = p.data.data() + static_cast<ptrdiff_t>(r / 4) * p.pairs * 4 + r % 4;
        for (int q = 0; q < p.pairs; ++q) {
            dst[static_cast<size_t>(q) * 4] = tap(r, 2 * q) | tap(r, 2 * q + 1) << 16;
        }
    }
    return p;
}
template PackedWeights pack_weights<uint8_t>(const uint8_t*, int, int, int, bool);
template PackedWeights pack_weights<uint16_t>(const uint16_t*, int, int, int, bool);

void dense_gemm(const PackedWeights& w, const uint32_t* col, int col_stride, int cols, int32_t* out,
                size_t out_stride) {
    NPU_ASSERT(col_stride % kMacBlock == 0 && col_stride >= cols, "column stride {} for {} pixels",
               col_stride, cols);
    const mac_detail::GemmArgs g{w.data.data(), w.rows, w.pairs, col,
                                 col_stride,    cols,   out,     out_stride};
    if (sim::simd_level() == sim::SimdLevel::Avx2) {
        mac_detail::dense_gemm_avx2(g);
    } else {
        mac_detail::dense_gemm_sse2(g);
    }
}

void depthwise(const uint32_t* pairs, int stride, int k, int h, int w, const uint8_t* taps,
               int32_t* acc, int32_t* sums) {
    NPU_ASSERT(k == 1 || k == 3, "depthwise kernel {}", k);
    NPU_ASSERT(stride >= w + 2 + kMacBlock, "pair row stride {} for width {}", stride, w);
    mac_detail::DepthwiseTaps t{};
    for (int ky = 0; ky < k; ++ky) {
        const uint8_t* row = taps + ky * k;
        t.tap[ky][0] = k == 3 ? uint32_t{row[0]} | uint32_t{row[1]} << 16 : uint32_t{row[0]};
        t.tap[ky][1] = k == 3 ? uint32_t{row[2]} : 0u;
    }
    if (sim::simd_level() == sim::SimdLevel::Avx2) {
        mac_detail::depthwise_avx2(pairs, stride, k, h, w, t, acc, sums);
    } else {
        mac_detail::depthwise_sse2(pairs, stride, k, h, w, t, acc, sums);
    }
}

void pair_rows(const uint8_t* plane, int rows, int width, int stride, uint32_t* out) {
    if (sim::simd_level() == sim::SimdLevel::Avx2) {
        mac_detail::pair_rows_avx2(plane, rows, width, stride, out);
    } else {
        mac_detail::pair_rows_sse2(plane, rows, width, stride, out);
    }
}

size_t bn_in_range(const int64_t* v, size_t n, int32_t mul, uint32_t shift, int32_t add, int64_t* x,
                   int64_t& lo, int64_t& hi) {
    if (sim::simd_level() == sim::SimdLevel::Avx2) {
        return mac_detail::bn_in_range_avx2(v, n, mul, shift, add, x, lo, hi);
    }
    return 0;  // SSE2 has no signed 32 x 32 -> 64 multiply: the scalar loop does it all
}

void pre_bn(const PreBnArgs& a, size_t n, int64_t* v) {
    if (sim::simd_level() == sim::SimdLevel::Avx2) {
        mac_detail::pre_bn_avx2(a, n, v);
    } else {
        mac_detail::pre_bn_sse2(a, n, v);
    }
}

void column_tile(const uint8_t* xp, const ColTileShape& s, int p0, int cols, int col_stride,
                 uint32_t* col) {
    const int taps = s.channels * s.k * s.k, pairs = (taps + 1) / 2;
    // Where tap t reads for output pixel (y, x): xp + offset(t) + y * padded_w + x.
    auto offset = [&](int t) {
        const int ic = t / (s.k * s.k), ky = t / s.k % s.k, kx = t % s.k;
        return static_cast<size_t>(ic) * static_cast<size_t>(s.padded_plane) +
               static_cast<size_t>(ky * s.padded_w + kx);
    };
    for (int p = 0; p < pairs; ++p) {
        uint32_t* dst = col + static_cast<size_t>(p) * static_cast<size_t>(col_stride);
        const uint8_t* lo = xp + offset(2 * p);
        const uint8_t* hi = 2 * p + 1 < taps ? xp + offset(2 * p + 1) : nullptr;
        int y = p0 / s.w, x = p0 % s.w;
        for (int j = 0; j < cols;) {
            const int run = std::min(s.w - x, cols - j);
            const size_t at =
                static_cast<size_t>(y) * static_cast<size_t>(s.padded_w) + static_cast<size_t>(x);
            if (hi != nullptr) {
                for (size_t q = 0; q < static_cast<size_t>(run); ++q) {
                    dst[static_cast<size_t>(j) + q] = uint32_t{lo[at + q]} | uint32_t{hi[at + q]}
                                                                                 << 16;
                }
            } else {
                for (size_t q = 0; q < static_cast<size_t>(run); ++q) {
                    dst[static_cast<size_t>(j) + q] = lo[at + q];
                }
            }
            j += run, x = 0, ++y;
        }
        std::fill(dst + cols, dst + col_stride, 0u);
    }
}

}  // namespace npu::kpu
