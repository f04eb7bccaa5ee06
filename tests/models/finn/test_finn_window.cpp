// The sliding-window layers, the VVAU and LabelSelect as pure functions, and their cycle
// formulas, each against values worked by hand.
#include <gtest/gtest.h>

#include "models/finn/finn_cost.h"
#include "models/finn/finn_func.h"
#include "models/finn/finn_window.h"
#include "sim/core/error.h"

namespace npu::finn {
namespace {

SwgShape shape(uint64_t h, uint64_t w, uint64_t c, uint64_t kh, uint64_t kw) {
    SwgShape s;
    s.ifm_h = h, s.ifm_w = w, s.channels = c, s.kh = kh, s.kw = kw;
    return s;
}

TEST(FinnWindow, SlidingWindowOrderIsKernelRowKernelColumnChannel) {
    // 3x3 image, one channel, 2x2 kernel: four windows of pixel indices.
    const SwgShape s = shape(3, 3, 1, 2, 2);
    EXPECT_EQ(swg_sources(s),
              (std::vector<uint32_t>{0, 1, 3, 4, 1, 2, 4, 5, 3, 4, 6, 7, 4, 5, 7, 8}));
    // Values follow the indices.
    EXPECT_EQ(
        sliding_window(s, {10, 11, 12, 13, 14, 15, 16, 17, 18}),
        (std::vector<int64_t>{10, 11, 13, 14, 11, 12, 14, 15, 13, 14, 16, 17, 14, 15, 17, 18}));
}

TEST(FinnWindow, DepthwiseOrderPutsTheChannelFoldOutermost) {
    // 2x2 image, 2 channels (element (y·2 + x)·2 + c), one 2x2 window.
    SwgShape s = shape(2, 2, 2, 2, 2);
    EXPECT_EQ(swg_sources(s), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    s.depthwise = true;  // SIMD 1: channel 0's four positions, then channel 1's
    EXPECT_EQ(swg_sources(s), (std::vector<uint32_t>{0, 2, 4, 6, 1, 3, 5, 7}));
    s.simd = 2;  // one fold of both channels: (k, lane) is the plain order again
    EXPECT_EQ(swg_sources(s), (std::vector<uint32_t>{0, 1, 2, 3, 4, 5, 6, 7}));
}

TEST(FinnWindow, StrideAndDilation) {
    SwgShape s = shape(1, 5, 1, 1, 3);
    s.dil_w = 2;  // one window over pixels 0, 2, 4
    EXPECT_EQ(s.ofm_w(), 1u);
    EXPECT_EQ(swg_sources(s), (std::vector<uint32_t>{0, 2, 4}));
    s = shape(1, 7, 1, 1, 3);
    s.stride_w = 2;  // windows at 0, 2, 4
    EXPECT_EQ(swg_sources(s), (std::vector<uint32_t>{0, 1, 2, 2, 3, 4, 4, 5, 6}));
}

TEST(FinnWindow, BrokenShapesAreNamed) {
    SwgShape s = shape(4, 4, 6, 3, 3);
    s.simd = 4;
    ASSERT_FALSE(check(s).empty());
    EXPECT_EQ(check(s).front(),
              "IFMChannels % SIMD == 0: IFMChannels 6 is not a multiple of SIMD 4");
    s = shape(4, 4, 2, 3, 3);
    s.dil_h = 2;  // spans 5 rows of 4
    EXPECT_EQ(check(s).front(), "ConvKernelDim 3x3 with Dilation 2x1 spans more than IFMDim 4x4");
    EXPECT_THROW(swg_sources(s), sim::Error);
}

TEST(FinnWindow, MaxPool2dAnd1d) {
    PoolShape p;
    p.ifm_h = p.ifm_w = 4, p.channels = 1, p.k = 2;
    const std::vector<int64_t> x{1, 5, 2, 0, 3, -4, 7, 7, -1, -2, 0, 9, -3, -8, 4, 1};
    EXPECT_EQ(maxpool(p, x), (std::vector<int64_t>{5, 7, -1, 9}));
    // 1D, 2 channels, 1x5 pixels pooled by 2 (the fifth dropped).
    PoolShape q;
    q.ifm_h = 1, q.ifm_w = 5, q.channels = 2, q.k = 2;
    EXPECT_EQ(maxpool(q, {1, 8, 4, 2, -1, -5, -3, -6, 99, 99}),
              (std::vector<int64_t>{4, 8, -1, -5}));
    p.channels = 2, p.pe = 1;  // 2D streams whole pixels
    EXPECT_EQ(check(p).front(),
              "PE 1: a 2D StreamingMaxPool streams whole pixels, PE must be NumChannels 2");
}

TEST(FinnWindow, VvauMultipliesEachChannelByItsOwnKernel) {
    // 2 channels, 1x2 kernel; W c0 = {10, 20}, c1 = {1, -1}; pixel x(k, c): x(0,0) 1, x(0,1) 2,
    // x(1,0) 3, x(1,1) 4 → c0 = 1·10 + 3·20 = 70, c1 = 2 − 4 = −2.
    Vvau v;
    v.channels = 2, v.kh = 1, v.kw = 2, v.weights = {10, 20, 1, -1};
    v.pe = 2;  // order (k, c % PE): 1, 2, 3, 4
    EXPECT_EQ(vvau(v, {1, 2, 3, 4}), (std::vector<int64_t>{70, -2}));
    v.pe = 1;  // order (c, k): 1, 3, 2, 4
    EXPECT_EQ(vvau(v, {1, 3, 2, 4}), (std::vector<int64_t>{70, -2}));
    v.thresholds = {{0, 50, 100}};  // 70 reaches 2, -2 none
    EXPECT_EQ(vvau(v, {1, 3, 2, 4}), (std::vector<int64_t>{2, 0}));
    v.simd = 3;
    EXPECT_EQ(check(v).front(), "K_h·K_w % SIMD == 0: Kernel 1x2 = 2 is not a multiple of SIMD 3");
}

TEST(FinnWindow, LabelSelectTakesTheLargestLowerIndexFirst) {
    EXPECT_EQ(label_select({3, 9, 1, 9, 5}, 5, 3), (std::vector<int64_t>{1, 3, 4}));
    EXPECT_EQ(label_select({0, 0, 0, 1, 0, 0}, 3, 1), (std::vector<int64_t>{0, 0}));
    EXPECT_THROW(label_select({1, 2}, 2, 3), sim::Error);
}

TEST(FinnWindow, CycleFormulasWorkedByHand) {
    // 1D, 1x21, 4 channels, SIMD 1, 1x5 kernel: OFM 17; FINN 1 + 17·5·4 = 341.
    SwgShape s = shape(1, 21, 4, 1, 5);
    EXPECT_EQ(swg_cycles(s), 341u);
    s.depthwise = true;  // + (C/SIMD − 1)(K − 1) = 3·4
    EXPECT_EQ(swg_cycles(s), 353u);
    s.depthwise = false, s.dil_w = 2;  // OFM 13; the first window waits for word 8·4: + 16
    EXPECT_EQ(swg_cycles(s), 1u + 13 * 20 + 16);
    PoolShape p;  // 4x4 by 2: 16 reads + 4 writes = FINN's 4·4·(1 + 1/4)
    p.ifm_h = p.ifm_w = 4, p.channels = 3, p.k = 2;
    EXPECT_EQ(maxpool_cycles(p), 20u);
    p.ifm_h = 1, p.ifm_w = 9, p.channels = 4, p.pe = 2;  // OFM 4 · NF 2 · 3 + 1 dropped · 2
    EXPECT_EQ(maxpool_cycles(p), 26u);
    EXPECT_EQ(labelselect_cycles(10, 2, 3), 8u);
    EXPECT_EQ(dwc_cycles(3, 2), 3u);
}

}  // namespace
}  // namespace npu::finn
