// nncase v0.2's `cpu` target nodes (0x1001–0x1005, NHWC): bodies laid out as cpu_ops_body.h
// deserializes them, values worked by hand in the comments (kernels/cpu/cpu_kernels.h).
#include <limits>

#include <gtest/gtest.h>

#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "sim/core/error.h"
#include "tests/platforms/k210/kmodel/node_harness.h"

namespace npu::test {
namespace {

constexpr uint32_t kMain = 1, kF32 = 0, kU8 = 1;
constexpr float kLowest = std::numeric_limits<float>::lowest();
constexpr float kMax = std::numeric_limits<float>::max();

// NHWC (1, 2, 2, 2): pixels (0,0) = {1, 2}, (0,1) = {3, 4}, (1,0) = {5, 6}, (1,1) = {7, 8}.
const std::vector<float> kPixels = {1, 2, 3, 4, 5, 6, 7, 8};

// Two output channels of a 2x2 window, weights [oc][ky][kx][ic]: oc 0 picks channel 0 on the
// left column and channel 1 on the right: 1 + 4 + 5 + 8 = 18, + 0.5; oc 1 sums all: 36 − 1.
// MACs: 2 channels · 4 taps · 2 input channels = 16.
TEST(V4CpuTarget, ConvIsNhwcWithOhwiWeights) {
    Body b;
    b.range(kMain, kF32, 0, 32).range(kMain, kF32, 64, 8).shape(1, 2, 2, 2).i32(2);
    b.window(2, 2, 1, 0).f32(kLowest).f32(kMax);
    for (float w : {1.0f, 0.0f, 0.0f, 1.0f, 1.0f, 0.0f, 0.0f, 1.0f}) {
        b.f32(w);
    }
    for (int i = 0; i < 8; ++i) {
        b.f32(1);
    }
    b.f32(0.5f).f32(-1.0f);
    FloatNode n(0x1001, b.bytes, kPixels);
    const k210::CpuLayerWork w = k210::run_cpu_layer(n.m, 0, n.mem);
    EXPECT_EQ(w.macs, 16u);
    EXPECT_EQ(w.elements, 2u);
    EXPECT_EQ(n.out(64, 2), (std::vector<float>{18.5f, 35.0f}));
}

// 1x1 depthwise over (1, 1, 2, 2) = {1, 2}, {3, 4}: channel 0 · 2 + 1, channel 1 · 3 − 1.
TEST(V4CpuTarget, DepthwiseConvScalesEachChannel) {
    Body b;
    b.range(kMain, kF32, 0, 16).range(kMain, kF32, 64, 16).shape(1, 1, 2, 2);
    b.window(1, 1, 1, 0).f32(kLowest).f32(kMax).f32(2).f32(3).f32(1).f32(-1);
    FloatNode n(0x1002, b.bytes, {1, 2, 3, 4});
    EXPECT_EQ(k210::run_cpu_layer(n.m, 0, n.mem).macs, 4u);
    EXPECT_EQ(n.out(64, 4), (std::vector<float>{3, 5, 7, 11}));
}

Body reduce_body(uint32_t op) {
    Body b;
    b.range(kMain, kF32, 0, 32).range(kMain, kF32, 64, 8).u32(op).shape(1, 2, 2, 2);
    b.window(2, 2, 1, 0).f32(op == 2 ? kLowest : 0.0f).f32(kLowest).f32(kMax);
    return b;
}

// One 2x2 window per channel: max {7, 8}; mean (1 + 3 + 5 + 7) / 4 = 4 and 5.
TEST(V4CpuTarget, ReduceWindowRunsPerChannel) {
    FloatNode mx(0x1003, reduce_body(2).bytes, kPixels);
    k210::run_cpu_layer(mx.m, 0, mx.mem);
    EXPECT_EQ(mx.out(64, 2), (std::vector<float>{7, 8}));
    FloatNode mean(0x1003, reduce_body(0).bytes, kPixels);
    k210::run_cpu_layer(mean.m, 0, mean.mem);
    EXPECT_EQ(mean.out(64, 2), (std::vector<float>{4, 5}));
    FloatNode sum(0x1003, reduce_body(3).bytes, kPixels);
    try {
        k210::run_cpu_layer(sum.m, 0, sum.mem);
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "t.kmodel: cpu_reduce_window2d at byte 0x0: reduce_op 3 (sum): nncase's "
                     "cpu_reduce_window2d runs mean, min and max only (the runtime returns an "
                     "error)");
    }
}

// The cpu target subtracts its offsets (the neutral quantized_conv2d adds them), and its
// weights come before the bias: (10 − 10)(1 − 1) + (20 − 10)(2 − 1) = 10, + bias 6 = 16.
TEST(V4CpuTarget, QuantizedConvSubtractsItsOffsets) {
    Body b;
    b.range(kMain, kU8, 0, 2).range(kMain, kU8, 8, 1).shape(1, 1, 1, 2).i32(1).window(1, 1, 1, 0);
    b.i32(10).i32(1).i32(1).i32(0).i32(0);  // input, filter offsets; mul, shift; output offset
    b.u8(1).u8(2).i32(6);
    MapMemory mem;
    mem.put<uint8_t>(kMain, 0, {10, 20});
    k210::run_cpu_layer(one_node_model(0x1004, b), 0, mem);
    EXPECT_EQ(mem.mem[kMain][8], 16);
}

// (1, 1, 2, 2) u8 {10, 20}, {30, 40}; weights {3, 5} − 1; bias {0, 1}; (v + 1) >> 1:
// 10·2 = 20 -> 10, 20·4 + 1 = 81 -> 41, 30·2 = 60 -> 30, 40·4 + 1 = 161 -> 81.
TEST(V4CpuTarget, QuantizedDepthwiseConvWorkedByHand) {
    Body b;
    b.range(kMain, kU8, 0, 4).range(kMain, kU8, 8, 4).shape(1, 1, 2, 2).window(1, 1, 1, 0);
    b.i32(0).i32(1).i32(1).i32(1).i32(0);
    b.u8(3).u8(5).i32(0).i32(1);
    MapMemory mem;
    mem.put<uint8_t>(kMain, 0, {10, 20, 30, 40});
    k210::run_cpu_layer(one_node_model(0x1005, b), 0, mem);
    EXPECT_EQ(mem.get<uint8_t>(kMain, 8, 4), (std::vector<uint8_t>{10, 41, 30, 81}));
}

}  // namespace
}  // namespace npu::test
