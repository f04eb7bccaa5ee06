// The evaluator's im2col convolution (sim/onnx/conv_kernel.h): a case worked by hand, then 300
// seeded random geometries (groups, depthwise, strides, dilations, pads, output channels and
// pixel counts that are not multiples of the 4 x 8 register block) against the textbook loop nest
// with double accumulation.
#include <cmath>
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "sim/core/parallel.h"
#include "sim/core/simd.h"
#include "sim/onnx/conv_kernel.h"

namespace npu::test {
namespace {

TEST(ConvKernel, TwoByTwoOnesOverOneToNineWithBias) {
    onnx::ConvGeometry g;
    g.h = g.w = 3, g.kh = g.kw = 2, g.oh = g.ow = 2, g.m = 2;
    const std::vector<float> x{1, 2, 3, 4, 5, 6, 7, 8, 9};
    const std::vector<float> w{1, 1, 1, 1, 0, 0, 0, 2};  // channel 1: 2 * bottom-right
    const float bias[] = {0.5f, -1};
    std::vector<float> y(8);
    onnx::conv2d(g, x.data(), w.data(), bias, y.data());
    // 1+2+4+5 = 12, 2+3+5+6 = 16, 4+5+7+8 = 24, 5+6+8+9 = 28; then 2*{5,6,8,9} - 1.
    EXPECT_EQ(y, (std::vector<float>{12.5f, 16.5f, 24.5f, 28.5f, 9, 11, 15, 17}));
    // Pad 1 and stride 2 on the same input: windows at (-1,-1), (-1,1), (1,-1), (1,1).
    g.ph = g.pw = 1, g.sh = g.sw = 2, g.m = 1;
    onnx::conv2d(g, x.data(), w.data(), nullptr, y.data());
    EXPECT_EQ(std::vector<float>(y.begin(), y.begin() + 4), (std::vector<float>{1, 5, 11, 28}));
}

TEST(ConvKernel, MatchesTheNaiveLoopNestOnRandomGeometries) {
    std::mt19937 rng(21);
    auto pick = [&](int lo, int hi) {
        return std::uniform_int_distribution<int>(lo, hi)(rng);
    };
    std::uniform_real_distribution<float> u(-1, 1);
    int run = 0;
    while (run < 300) {
        onnx::ConvGeometry g;
        g.n = pick(1, 2);
        const int kind = pick(0, 2);  // dense, grouped, depthwise
        g.group = kind == 0 ? 1 : kind == 1 ? 2 : pick(1, 6);
        g.c = g.group * (kind == 2 ? 1 : pick(1, 6));
        g.m = g.group * (kind == 2 ? pick(1, 2) : pick(1, 9));
        g.h = pick(1, 17), g.w = pick(1, 17);
        g.kh = pick(1, 5), g.kw = pick(1, 5), g.sh = pick(1, 3), g.sw = pick(1, 3);
        g.dh = pick(1, 2), g.dw = pick(1, 2), g.ph = pick(0, 2), g.pw = pick(0, 2);
        const int64_t eh = (g.kh - 1) * g.dh + 1, ew = (g.kw - 1) * g.dw + 1;
        if (g.h + 2 * g.ph < eh || g.w + 2 * g.pw < ew) {
            continue;
        }
        g.oh = (g.h + 2 * g.ph - eh) / g.sh + 1, g.ow = (g.w + 2 * g.pw - ew) / g.sw + 1;
        std::vector<float> x(static_cast<size_t>(g.n * g.c * g.h * g.w));
        std::vector<float> w(static_cast<size_t>(g.m * (g.c / g.group) * g.kh * g.kw));
        std::vector<float> b(static_cast<size_t>(g.m));
        for (auto* v : {&x, &w, &b}) {
            for (float& e : *v) {
                e = u(rng);
            }
        }
        const size_t out = static_cast<size_t>(g.n * g.m * g.oh * g.ow);
        std::vector<float> fast(out, NAN), slow(out, NAN);
        onnx::conv2d(g, x.data(), w.data(), b.data(), fast.data());
        onnx::conv2d_naive(g, x.data(), w.data(), b.data(), slow.data());
        // float accumulation of at most 6*25 products of values in [-1, 1]
        for (size_t k = 0; k < out; ++k) {
            ASSERT_NEAR(fast[k], slow[k], 2e-5) << "case " << run << " element " << k;
        }
        ++run;
    }
}

// Four output channels go through the register-blocked path, one at a time through the direct
// path: the header promises the same bits.
TEST(ConvKernel, BlockedAndDirectPathsGiveTheSameBits) {
    onnx::ConvGeometry g;
    g.c = 5, g.h = 11, g.w = 9, g.kh = 3, g.kw = 2, g.sh = 2, g.dw = 2, g.ph = 1, g.pw = 2;
    g.oh = (11 + 2 - 3) / 2 + 1, g.ow = (9 + 4 - 3) / 1 + 1, g.m = 4;
    std::mt19937 rng(8);
    std::uniform_real_distribution<float> u(-1, 1);
    std::vector<float> x(5 * 11 * 9), w(4 * 5 * 3 * 2), b(4);
    for (auto* v : {&x, &w, &b}) {
        for (float& e : *v) {
            e = u(rng);
        }
    }
    const size_t plane = static_cast<size_t>(g.oh * g.ow);
    std::vector<float> blocked(4 * plane), direct(4 * plane);
    onnx::conv2d(g, x.data(), w.data(), b.data(), blocked.data());
    g.m = 1;
    for (size_t oc = 0; oc < 4; ++oc) {
        onnx::conv2d(g, x.data(), w.data() + oc * 30, b.data() + oc, direct.data() + oc * plane);
    }
    EXPECT_EQ(blocked, direct);
}

// The SSE2 and AVX2 products and any thread count give the same bits (the header's promise: one
// accumulation order per output element), on geometries that use every path: 1x1 read in place
// with a partial last block, several pixel tiles, 3x3 im2col, depthwise with strides.
TEST(ConvKernel, EverySimdPathAndThreadCountGivesTheSameBits) {
    if (!sim::host_supports(sim::SimdLevel::Avx2)) {
        GTEST_SKIP() << "this host has no AVX2: only one path to compare";
    }
    struct Case {
        int64_t c, m, group, h, w, k, s, p;
    };
    const Case cases[] = {{24, 40, 1, 23, 29, 1, 1, 0},  {16, 12, 1, 31, 17, 3, 1, 1},
                          {32, 32, 32, 19, 21, 3, 2, 1}, {32, 32, 32, 40, 30, 3, 1, 1},
                          {3, 16, 1, 45, 37, 3, 2, 1},   {8, 20, 2, 9, 11, 5, 1, 2}};
    std::mt19937 rng(4);
    std::uniform_real_distribution<float> u(-1, 1);
    for (const Case& k : cases) {
        onnx::ConvGeometry g;
        g.c = k.c, g.m = k.m, g.group = k.group, g.h = k.h, g.w = k.w, g.kh = g.kw = k.k;
        g.sh = g.sw = k.s, g.ph = g.pw = k.p;
        g.oh = (g.h + 2 * g.ph - g.kh) / g.sh + 1, g.ow = (g.w + 2 * g.pw - g.kw) / g.sw + 1;
        std::vector<float> x(static_cast<size_t>(g.c * g.h * g.w));
        std::vector<float> w(static_cast<size_t>(g.m * (g.c / g.group) * g.kh * g.kw));
        std::vector<float> b(static_cast<size_t>(g.m));
        for (auto* v : {&x, &w, &b}) {
            for (float& e : *v) {
                e = u(rng);
            }
        }
        auto run = [&](sim::SimdLevel level, int threads) {
            const sim::ScopedSimdLevel simd(level);
            const sim::ScopedThreads t(threads);
            std::vector<float> y(static_cast<size_t>(g.m * g.oh * g.ow), NAN);
            onnx::conv2d(g, x.data(), w.data(), b.data(), y.data());
            return y;
        };
        const std::vector<float> sse2 = run(sim::SimdLevel::Sse2, 1);
        EXPECT_EQ(sse2, run(sim::SimdLevel::Avx2, 1)) << "c " << k.c << " k " << k.k;
        EXPECT_EQ(sse2, run(sim::SimdLevel::Avx2, 2)) << "c " << k.c << " k " << k.k;
        EXPECT_EQ(sse2, run(sim::SimdLevel::Sse2, 2)) << "c " << k.c << " k " << k.k;
        std::vector<float> naive(sse2.size());
        onnx::conv2d_naive(g, x.data(), w.data(), b.data(), naive.data());
        for (size_t i = 0; i < naive.size(); ++i) {
            ASSERT_NEAR(sse2[i], naive[i], 1e-4) << "c " << k.c << " k " << k.k << " at " << i;
        }
    }
}

}  // namespace
}  // namespace npu::test
