// The MAC kernels for SSE2, the x86-64 baseline every host has.
#include <emmintrin.h>

#include "models/k210_kpu/kpu_mac_kernels.h"

namespace npu::kpu::mac_detail {
namespace {

struct Sse2 {
    using Reg = __m128i;
    static constexpr int kLanes = 4;
    static Reg zero() { return _mm_setzero_si128(); }
    static Reg load(const uint32_t* p) { return _mm_loadu_si128(reinterpret_cast<const Reg*>(p)); }
    static Reg broadcast(uint32_t v) { return _mm_set1_epi32(static_cast<int>(v)); }
    static Reg madd(Reg a, Reg b) { return _mm_madd_epi16(a, b); }
    static Reg add(Reg a, Reg b) { return _mm_add_epi32(a, b); }
    static void store(int32_t* p, Reg v) { _mm_storeu_si128(reinterpret_cast<Reg*>(p), v); }
};

}  // namespace

void dense_gemm_sse2(const GemmArgs& g) {
    dense_gemm_body<Sse2>(g);
}

void pre_bn_sse2(const PreBnArgs& a, size_t n, int64_t* v) {
    pre_bn_body(a, n, v);
}

// 8 pixels per step: bytes x and x + 1 widened to 16 bits and interleaved.
void pair_rows_sse2(const uint8_t* plane, int rows, int width, int stride, uint32_t* out) {
    const __m128i zero = _mm_setzero_si128();
    for (int r = 0; r < rows; ++r) {
        const uint8_t* in = plane + static_cast<size_t>(r) * static_cast<size_t>(width);
        uint32_t* o = out + static_cast<size_t>(r) * static_cast<size_t>(stride);
        int x = 0;
        for (; x + 9 <= width; x += 8) {
            const __m128i lo =
                _mm_unpacklo_epi8(_mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + x)), zero);
            const __m128i hi = _mm_unpacklo_epi8(
                _mm_loadl_epi64(reinterpret_cast<const __m128i*>(in + x + 1)), zero);
            _mm_storeu_si128(reinterpret_cast<__m128i*>(o + x), _mm_unpacklo_epi16(lo, hi));
            _mm_storeu_si128(reinterpret_cast<__m128i*>(o + x + 4), _mm_unpackhi_epi16(lo, hi));
        }
        pair_row_tail(in, width, stride, x, o);
    }
}

void depthwise_sse2(const uint32_t* pairs, int stride, int k, int h, int w, const DepthwiseTaps& t,
                    int32_t* acc, int32_t* sums) {
    if (sums != nullptr) {
        depthwise_body<Sse2, true>(pairs, stride, k, h, w, t, acc, sums);
    } else {
        depthwise_body<Sse2, false>(pairs, stride, k, h, w, t, acc, sums);
    }
}

}  // namespace npu::kpu::mac_detail
