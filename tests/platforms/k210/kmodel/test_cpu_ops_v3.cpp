// The kmodel v3 CPU layers of the Kendryte SDK's kpu.c added for vendor models: bodies laid out
// as kpu.h declares them, values worked by hand in the comments from kpu.c's code.
#include <cmath>

#include <gtest/gtest.h>

#include "platforms/k210/kmodel/cpu_ops_v3.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "sim/core/error.h"
#include "tests/platforms/k210/kmodel/node_harness.h"

namespace npu::test {
namespace {

constexpr uint32_t kMain = 1, kKpu = 2;

// A v3 layer over a 256-byte main memory.
struct Layer {
    k210::Kmodel m;
    MapMemory mem;
    Layer(uint32_t type, const Body& body)
        : m(one_node_model(type, body, 3, 256)) {
        mem.mem[kMain].assign(256, 0);
        mem.mem[kKpu].assign(1024, 0);
    }
    k210::CpuLayerWork run() { return k210::run_cpu_layer(m, 0, mem); }
};

// kpu_carry_shift: v >> (s − 1), then an odd value rounds away by (v >> 1) ± 1. For negatives
// that is one below the true rounding: −3 >> 0 = −3 (odd) -> (−3 >> 1) − 1 = −2 − 1 = −3
// (−1.5 would round to −2); −5 -> −3 − 1 = −4. Positives: 195 >> 1 = 97 (odd) -> 48 + 1 = 49.
TEST(V3Layers, CarryShiftAsKpuCComputesIt) {
    EXPECT_EQ(k210::kpu_carry_shift(-3, 1), -3);
    EXPECT_EQ(k210::kpu_carry_shift(-5, 1), -4);
    EXPECT_EQ(k210::kpu_carry_shift(195, 2), 49);
    EXPECT_EQ(k210::kpu_carry_shift(194, 2), 49);  // 97 (odd) -> 49
    EXPECT_EQ(k210::kpu_carry_shift(192, 2), 48);  // 96 (even) -> 48
    EXPECT_EQ(k210::kpu_carry_shift(7, 0), 7);
}

// a = 20, b = 30; a·2, b·3; equal shifts 1: (40 + 90) >> 1 = 65; ·3 = 195; carry_shift(195, 2)
// = 49; + 1 = 50. Unequal shifts (1, 2): 40 >> 1 + 90 >> 2 = 20 + 22 = 42, ·1, shift 0: 42.
// count 3 runs ALIGN_UP(3, 8) = 8 elements: the zeros after it become 0·… + 1 = 1.
TEST(V3Layers, QuantizedAddRunsWholeGroupsOfEight) {
    Body b;
    b.u32(0).u32(0).u32(8).u32(16).u32(3);
    b.i32(0).i32(2).i32(1).i32(0).i32(3).i32(1).i32(1).i32(3).i32(2);
    Layer l(2, b);
    l.mem.put<uint8_t>(kMain, 0, {20, 20, 20});
    l.mem.put<uint8_t>(kMain, 8, {30, 30, 30});
    EXPECT_EQ(l.run().elements, 8u);
    EXPECT_EQ(l.mem.get<uint8_t>(kMain, 16, 8), (std::vector<uint8_t>{50, 50, 50, 1, 1, 1, 1, 1}));

    Body u;
    u.u32(0).u32(0).u32(8).u32(16).u32(1);
    u.i32(0).i32(2).i32(1).i32(0).i32(3).i32(2).i32(0).i32(1).i32(0);
    Layer l2(2, u);
    l2.mem.put<uint8_t>(kMain, 0, {20});
    l2.mem.put<uint8_t>(kMain, 8, {30});
    l2.run();
    EXPECT_EQ(l2.mem.mem[kMain][16], 42);
}

Body pool_body(uint32_t in_w, uint32_t in_h, uint32_t out_w, uint32_t out_h, uint32_t k, uint32_t s,
               uint32_t pad, bool average) {
    Body b;
    b.u32(0).u32(0).u32(128);
    b.u32(in_w).u32(in_h).u32(1).u32(out_w).u32(out_h).u32(1);
    b.u32(k).u32(k).u32(s).u32(s).u32(pad).u32(pad);
    if (average) {
        b.u32(1);  // act relu: kpu_average_pool2d never applies it
    }
    return b;
}

// 4x4 u8 by 2x2 windows, stride 2: each quadrant's max.
TEST(V3Layers, QuantizedMaxPoolTakesEachWindowsMax) {
    Layer l(8, pool_body(4, 4, 2, 2, 2, 2, 0, false));
    l.mem.put<uint8_t>(kMain, 0, {1, 9, 2, 3, 4, 5, 6, 7, 8, 0, 10, 11, 12, 13, 15, 14});
    EXPECT_EQ(l.run().elements, 4u * 4u);
    EXPECT_EQ(l.mem.get<uint8_t>(kMain, 128, 4), (std::vector<uint8_t>{9, 7, 13, 15}));
}

// {−1, 2; 3, 4}, 2x2 windows, stride 1, padding 1: a 3x3 output of in-bounds means:
// (0,0) = −1 (one tap; the body's ReLU is not applied), (0,1) = (−1 + 2) / 2 = 0.5,
// (1,1) = 8 / 4 = 2, (2,2) = 4.
TEST(V3Layers, AveragePoolDividesByTheInBoundsTaps) {
    Layer l(9, pool_body(2, 2, 3, 3, 2, 1, 1, true));
    l.mem.put<float>(kMain, 0, {-1, 2, 3, 4});
    l.run();
    const std::vector<float> o = l.mem.get<float>(kMain, 128, 9);
    EXPECT_EQ(o[0], -1.0f);
    EXPECT_EQ(o[1], 0.5f);
    EXPECT_EQ(o[4], 2.0f);
    EXPECT_EQ(o[8], 4.0f);
}

TEST(V3Layers, PoolWhoseWindowStartsPastTheInputIsAClearError) {
    Layer l(8, pool_body(4, 4, 4, 1, 2, 2, 0, false));  // column 3 starts at 6 > 4
    try {
        l.run();
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "t.kmodel: QUANTIZED_MAX_POOL2D at byte 0x0: output column 3 starts its "
                     "window at 6, past the 4-wide input");
    }
}

TEST(V3Layers, RequantizeLooksUpItsTable) {
    Body b;
    b.u32(0).u32(0).u32(8).u32(3);
    for (int i = 0; i < 256; ++i) {
        b.u8(static_cast<uint8_t>(255 - i));
    }
    Layer l(13, b);
    l.mem.put<uint8_t>(kMain, 0, {0, 7, 255});
    l.run();
    EXPECT_EQ(l.mem.get<uint8_t>(kMain, 8, 3), (std::vector<uint8_t>{255, 248, 0}));
}

Body channels_body(uint32_t in, uint32_t out, uint32_t channels) {
    Body b;
    b.u32(0).u32(in).u32(out).u32(channels);
    return b;
}

// {3, 4}: Σx² = 25, 1/sqrtf(25) = 0.2f, so 3 · 0.2f and 4 · 0.2f; an all-zero input divides by
// sqrt(1e-10) instead and stays zero.
TEST(V3Layers, L2NormalizationScalesToUnitLength) {
    Layer l(14, channels_body(0, 16, 2));
    l.mem.put<float>(kMain, 0, {3, 4});
    EXPECT_EQ(l.run().elements, 4u);
    EXPECT_EQ(l.mem.get<float>(kMain, 16, 2), (std::vector<float>{3 * 0.2f, 4 * 0.2f}));
    Layer z(14, channels_body(0, 16, 2));
    z.run();
    EXPECT_EQ(z.mem.get<float>(kMain, 16, 2), (std::vector<float>{0, 0}));
}

TEST(V3Layers, LogisticOfZeroIsOneHalf) {
    Layer l(25, channels_body(0, 16, 3));
    l.mem.put<float>(kMain, 0, {0.0f, 100.0f, -100.0f});
    l.run();
    const std::vector<float> o = l.mem.get<float>(kMain, 16, 3);
    EXPECT_EQ(o[0], 0.5f);
    EXPECT_EQ(o[1], 1.0f);                              // 1 / (1 + e^−100) rounds to 1
    EXPECT_EQ(o[2], 1.0f / (1.0f + std::exp(100.0f)));  // ≈ 3.7e−44, a subnormal
}

// CHW (2 channels, 1 row, 2 columns) {a0, a1 | b0, b1} to HWC {a0, b0, a1, b1}.
TEST(V3Layers, TensorflowFlattenReordersChwToHwc) {
    Body b;
    b.u32(0).u32(0).u32(16).u32(2).u32(1).u32(2);
    Layer l(20, b);
    l.mem.put<float>(kMain, 0, {1, 2, 3, 4});
    l.run();
    EXPECT_EQ(l.mem.get<float>(kMain, 16, 4), (std::vector<float>{1, 3, 2, 4}));
}

// Found by fuzz_k210_run (a 26 s timeout): a shape with no elements whose other dimensions are
// 2^24 each. Nothing to reorder: done at once.
TEST(V3Layers, FlattenOfAnEmptyShapeIsInstant) {
    Body b;
    b.u32(0).u32(0).u32(16).u32(1u << 24).u32(1u << 24).u32(0);
    Layer l(20, b);
    EXPECT_EQ(l.run().elements, 0u);
}

Body resize_body(uint32_t out) {
    Body b;
    b.u32(0).u32(0).u32(out).u32(2).u32(2).u32(1).u32(4).u32(4).u32(0);
    return b;
}

TEST(V3Layers, ResizeNearestRepeatsPixels) {
    Layer f(22, resize_body(32));
    f.mem.put<float>(kMain, 0, {1, 2, 3, 4});
    f.run();
    EXPECT_EQ(f.mem.get<float>(kMain, 32, 16),
              (std::vector<float>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
    Layer q(23, resize_body(32));
    q.mem.put<uint8_t>(kMain, 0, {1, 2, 3, 4});
    q.run();
    EXPECT_EQ(q.mem.get<uint8_t>(kMain, 32, 4), (std::vector<uint8_t>{1, 1, 2, 2}));
}

// Two channels of two: q · scale_c + bias_c (one fmadd.s): 10·0.5 + 1 = 6, 20·0.5 + 1 = 11,
// 10·2 − 3 = 17, 30·2 − 3 = 57.
TEST(V3Layers, ChannelwiseDequantizeUsesEachChannelsParameters) {
    Body b;
    b.u32(0).u32(0).u32(16).u32(2).u32(2).f32(0.5f).f32(1.0f).f32(2.0f).f32(-3.0f);
    Layer l(24, b);
    l.mem.put<uint8_t>(kMain, 0, {10, 20, 10, 30});
    l.run();
    EXPECT_EQ(l.mem.get<float>(kMain, 16, 4), (std::vector<float>{6, 11, 17, 57}));
}

TEST(V3Layers, QuantizedConcatCopiesLikeConcat) {
    Body b;
    b.u32(0).u32(32).u32(2).u32(0).u32(2).u32(8).u32(3);
    Layer l(17, b);
    l.mem.put<uint8_t>(kMain, 0, {1, 2});
    l.mem.put<uint8_t>(kMain, 8, {3, 4, 5});
    l.run();
    EXPECT_EQ(l.mem.get<uint8_t>(kMain, 32, 5), (std::vector<uint8_t>{1, 2, 3, 4, 5}));
}

// K210_ADD_PADDING writes channel c of a 1x1 map at line·64 + (c / 4)·256 + (c % 4)·16 (a 4x4
// map of 16-byte rows, 4 channels per group); REMOVE_PADDING reads every 16th byte back.
TEST(V3Layers, KpuPaddingPlacesChannelsAsKpuCDoes) {
    Layer l(10241, channels_body(0, 2, 5));
    l.mem.put<uint8_t>(kMain, 0, {11, 12, 13, 14, 15});
    l.mem.mem[kKpu][128 + 1] = 99;  // a byte the layer does not write
    EXPECT_EQ(l.run().elements, 5u);
    const auto& kpu = l.mem.mem[kKpu];
    EXPECT_EQ(kpu[128], 11);
    EXPECT_EQ(kpu[128 + 16], 12);
    EXPECT_EQ(kpu[128 + 48], 14);
    EXPECT_EQ(kpu[128 + 256], 15);
    EXPECT_EQ(kpu[128 + 1], 99);

    Layer r(10242, channels_body(0, 200, 3));
    r.mem.put<uint8_t>(kMain, 0, {7});
    r.mem.mem[kMain][16] = 8;
    r.mem.mem[kMain][32] = 9;
    r.run();
    EXPECT_EQ(r.mem.get<uint8_t>(kMain, 200, 3), (std::vector<uint8_t>{7, 8, 9}));
}

}  // namespace
}  // namespace npu::test
