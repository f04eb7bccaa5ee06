// The MAC kernels for AVX2 (this file is compiled with -mavx2; called only on hosts that have it).
#include <immintrin.h>

#include "models/k210_kpu/kpu_mac_kernels.h"

namespace npu::kpu::mac_detail {
namespace {

struct Avx2 {
    using Reg = __m256i;
    static constexpr int kLanes = 8;
    static Reg zero() { return _mm256_setzero_si256(); }
    static Reg load(const uint32_t* p) {
        return _mm256_loadu_si256(reinterpret_cast<const Reg*>(p));
    }
    static Reg broadcast(uint32_t v) { return _mm256_set1_epi32(static_cast<int>(v)); }
    static Reg madd(Reg a, Reg b) { return _mm256_madd_epi16(a, b); }
    static Reg add(Reg a, Reg b) { return _mm256_add_epi32(a, b); }
    static void store(int32_t* p, Reg v) { _mm256_storeu_si256(reinterpret_cast<Reg*>(p), v); }
};

}  // namespace

void dense_gemm_avx2(const GemmArgs& g) {
    dense_gemm_body<Avx2>(g);
}

// Four pixels per vector: (arg_x · Σx) with the signed 32 x 32 -> 64 multiply, the arithmetic
// shift as a logical one of the product plus 2^62 (pre_bn_body explains it).
void pre_bn_avx2(const PreBnArgs& a, size_t n, int64_t* v) {
    const __m256i arg_x = _mm256_set1_epi64x(a.arg_x), constant = _mm256_set1_epi64x(a.constant);
    const __m256i bias = _mm256_set1_epi64x(int64_t{1} << 62);
    const __m256i unbias = _mm256_set1_epi64x((int64_t{1} << 62) >> a.shr_x);
    const __m128i shr = _mm_cvtsi32_si128(static_cast<int>(a.shr_x));
    auto load4 = [](const int32_t* p) {
        return _mm256_cvtepi32_epi64(_mm_loadu_si128(reinterpret_cast<const __m128i*>(p)));
    };
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m256i p = _mm256_mul_epi32(load4(a.sum_x + i), arg_x);
        p = _mm256_sub_epi64(_mm256_srl_epi64(_mm256_add_epi64(p, bias), shr), unbias);
        __m256i t = _mm256_add_epi64(_mm256_add_epi64(load4(a.acc + i), p), constant);
        if (a.acc_high != nullptr) {
            t = _mm256_add_epi64(t, _mm256_slli_epi64(load4(a.acc_high + i), 8));
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(v + i), t);
    }
    const PreBnArgs rest{a.acc + i,   a.acc_high != nullptr ? a.acc_high + i : nullptr,
                         a.sum_x + i, a.arg_x,
                         a.shr_x,     a.constant};
    pre_bn_body(rest, n - i, v + i);
}

// 16 pixels per step: bytes x and x + 1 widened to 16 bits and interleaved.
void pair_rows_avx2(const uint8_t* plane, int rows, int width, int stride, uint32_t* out) {
    for (int r = 0; r < rows; ++r) {
        const uint8_t* in = plane + static_cast<size_t>(r) * static_cast<size_t>(width);
        uint32_t* o = out + static_cast<size_t>(r) * static_cast<size_t>(stride);
        int x = 0;
        for (; x + 17 <= width; x += 16) {
            const __m256i lo =
                _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + x)));
            const __m256i hi =
                _mm256_cvtepu8_epi16(_mm_loadu_si128(reinterpret_cast<const __m128i*>(in + x + 1)));
            const __m256i a = _mm256_unpacklo_epi16(lo, hi), b = _mm256_unpackhi_epi16(lo, hi);
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + x),
                                _mm256_permute2x128_si256(a, b, 0x20));
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + x + 8),
                                _mm256_permute2x128_si256(a, b, 0x31));
        }
        pair_row_tail(in, width, stride, x, o);
    }
}

// Four values per vector; v in int32 makes v · mul exact in the signed 32 x 32 -> 64 multiply.
size_t bn_in_range_avx2(const int64_t* v, size_t n, int32_t mul, uint32_t shift, int32_t add,
                        int64_t* x, int64_t& lo, int64_t& hi) {
    const __m256i m = _mm256_set1_epi64x(mul), plus = _mm256_set1_epi64x(add);
    const __m256i bias = _mm256_set1_epi64x(int64_t{1} << 62);
    const __m256i unbias = _mm256_set1_epi64x((int64_t{1} << 62) >> shift);
    const __m128i sh = _mm_cvtsi32_si128(static_cast<int>(shift));
    const __m256i max32 = _mm256_set1_epi64x(INT32_MAX), min32 = _mm256_set1_epi64x(INT32_MIN);
    const __m256i max36 = _mm256_set1_epi64x((int64_t{1} << 35) - 1);
    const __m256i min36 = _mm256_set1_epi64x(-(int64_t{1} << 35));
    __m256i vlo = _mm256_set1_epi64x(lo), vhi = _mm256_set1_epi64x(hi);
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        const __m256i t = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(v + i));
        __m256i bad = _mm256_or_si256(_mm256_cmpgt_epi64(t, max32), _mm256_cmpgt_epi64(min32, t));
        const __m256i p = _mm256_mul_epi32(t, m);
        const __m256i r = _mm256_add_epi64(
            _mm256_sub_epi64(_mm256_srl_epi64(_mm256_add_epi64(p, bias), sh), unbias), plus);
        bad = _mm256_or_si256(
            bad, _mm256_or_si256(_mm256_cmpgt_epi64(r, max36), _mm256_cmpgt_epi64(min36, r)));
        if (!_mm256_testz_si256(bad, bad)) {
            break;
        }
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(x + i), r);
        vlo = _mm256_blendv_epi8(vlo, r, _mm256_cmpgt_epi64(vlo, r));
        vhi = _mm256_blendv_epi8(vhi, r, _mm256_cmpgt_epi64(r, vhi));
    }
    int64_t l[4], h[4];
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(l), vlo);
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(h), vhi);
    for (int k = 0; k < 4; ++k) {
        lo = l[k] < lo ? l[k] : lo;
        hi = h[k] > hi ? h[k] : hi;
    }
    return i;
}

void depthwise_avx2(const uint32_t* pairs, int stride, int k, int h, int w, const DepthwiseTaps& t,
                    int32_t* acc, int32_t* sums) {
    if (sums != nullptr) {
        depthwise_body<Avx2, true>(pairs, stride, k, h, w, t, acc, sums);
    } else {
        depthwise_body<Avx2, false>(pairs, stride, k, h, w, t, acc, sums);
    }
}

}  // namespace npu::kpu::mac_detail
