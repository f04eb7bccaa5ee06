// The KPU convolution's multiply-accumulate on the host: x (u8) · w (u8) products summed in int32
// with the SIMD instruction that multiplies pairs of 16-bit values and adds each pair (pmaddwd),
// so two taps go into every 32-bit lane per instruction. Taps are interleaved in pairs as the low
// and high halves of a uint32. Integer sums are exact in any order, so the SSE2 and AVX2 paths
// (sim/core/simd.h) give the same bits. 16-bit weights run as two 8-bit passes (docs/k210_kpu.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace npu::kpu {

// Pixels per column tile of dense_gemm must be a multiple of this (the widest pixel block).
constexpr int kMacBlock = 16;

// Weights packed for dense_gemm: rows in blocks of 4, per block [pairs][4] uint32, each the taps
// (2p, 2p + 1) of one row as (low, high) 16-bit halves; rows past `rows` are zero.
// `byte` picks the low (0) or high (1) byte of 16-bit weights; 8-bit weights use 0.
struct PackedWeights {
    int rows = 0, pairs = 0;
    std::vector<uint32_t> data;
};
// Row r < rows takes weights[r * taps + t]; `ones_row` appends a row of ones (its result is the
// sum of the inputs under the window, Σx).
template <typename Wt>
PackedWeights pack_weights(const Wt* weights, int rows, int taps, int byte, bool ones_row);

// out[r * out_stride + j] = Σ_p col[p * col_stride + j] · row r's taps, for r < w.rows and
// j < cols. col_stride >= cols rounded up to kMacBlock.
void dense_gemm(const PackedWeights& w, const uint32_t* col, int col_stride, int cols, int32_t* out,
                size_t out_stride);

// Depthwise k x k (k = 1 or 3) over pair rows P (P[r][x] = (in[r][x], in[r][x + 1]) of the padded
// plane, rows of `stride` >= w + 2 + kMacBlock entries): acc[y * w + x] = Σ in · tap and, if sums
// is not null, sums[y * w + x] = Σ in. taps: k rows of k weights (one byte each). acc and sums
// need h · w + kMacBlock entries (the last vector store runs past the end).
void depthwise(const uint32_t* pairs, int stride, int k, int h, int w, const uint8_t* taps,
               int32_t* acc, int32_t* sums);

// Pair rows of a padded plane of `rows` x `width` bytes: out[r * stride + x] = (in[r][x],
// in[r][x + 1]) as 16-bit halves (0 past the row's end), zeros up to `stride`.
void pair_rows(const uint8_t* plane, int rows, int width, int stride, uint32_t* out);

// The column tile of a dense k x k convolution (stride 1, "same" padding) for output pixels
// [p0, p0 + cols) of an h x w map: col[p * col_stride + j] holds taps 2p and 2p + 1 (tap
// t = (ic · k + ky) · k + kx) for pixel p0 + j, over `channels` padded planes of padded_w bytes
// per row and padded_plane bytes each; zeros from cols up to col_stride and in a missing odd tap.
struct ColTileShape {
    int channels, padded_w, padded_plane, k, w;
};
void column_tile(const uint8_t* xp, const ColTileShape& s, int p0, int cols, int col_stride,
                 uint32_t* col);

// The value each output pixel's batch normalisation starts from:
// v[i] = acc[i] + 256 · acc_high[i] (if not null) + ((arg_x · sum_x[i]) >> shr_x) + constant.
struct PreBnArgs {
    const int32_t* acc;
    const int32_t* acc_high;
    const int32_t* sum_x;
    int32_t arg_x;
    uint32_t shr_x;
    int64_t constant;
};
void pre_bn(const PreBnArgs& a, size_t n, int64_t* v);

// Batch normalisation x[i] = ((v[i] · mul) >> shift) + add over the leading values it can do
// with vector instructions: those where v fits in 32 bits and x in 36 (nothing to limit or
// count). Stops at the first group of values where that fails (or fewer than a group remain) and
// returns how many it did; lo and hi take the min and max of the x it wrote.
size_t bn_in_range(const int64_t* v, size_t n, int32_t mul, uint32_t shift, int32_t add, int64_t* x,
                   int64_t& lo, int64_t& hi);

// Internal: the per-instruction-set kernels the two functions above dispatch to.
namespace mac_detail {
struct DepthwiseTaps {
    uint32_t tap[3][2];  // per kernel row: (kx 0, kx 1) and (kx 2, 0) as 16-bit pairs
};
// Raw pointers only: the AVX2 object must not instantiate library code (kpu_mac_kernels.h).
struct GemmArgs {
    const uint32_t* weights;  // PackedWeights::data
    int rows, pairs;
    const uint32_t* col;
    int col_stride, cols;
    int32_t* out;
    size_t out_stride;
};
void dense_gemm_sse2(const GemmArgs& g);
void dense_gemm_avx2(const GemmArgs& g);
void pre_bn_sse2(const PreBnArgs& a, size_t n, int64_t* v);
void pre_bn_avx2(const PreBnArgs& a, size_t n, int64_t* v);
void pair_rows_sse2(const uint8_t* plane, int rows, int width, int stride, uint32_t* out);
void pair_rows_avx2(const uint8_t* plane, int rows, int width, int stride, uint32_t* out);
size_t bn_in_range_avx2(const int64_t* v, size_t n, int32_t mul, uint32_t shift, int32_t add,
                        int64_t* x, int64_t& lo, int64_t& hi);
void depthwise_sse2(const uint32_t* pairs, int stride, int k, int h, int w, const DepthwiseTaps& t,
                    int32_t* acc, int32_t* sums);
void depthwise_avx2(const uint32_t* pairs, int stride, int k, int h, int w, const DepthwiseTaps& t,
                    int32_t* acc, int32_t* sums);
}  // namespace mac_detail

}  // namespace npu::kpu
