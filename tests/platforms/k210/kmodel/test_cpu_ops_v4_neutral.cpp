// The nncase v0.2 neutral nodes added for real vendor models (reduce, unary, nnil_unary_method,
// table_lookup1d, resize_image, strided_slice, conv2d_transpose, quantized_conv2d,
// quantized_matmul): each body laid out field by field as neutral_ops_body.h serializes it, run
// through the runtime's dispatch, and compared with values worked by hand in the comments.
#include <cmath>
#include <limits>

#include <gtest/gtest.h>

#include "platforms/k210/kmodel/cpu_ops_elementwise.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "sim/core/error.h"
#include "tests/platforms/k210/kmodel/node_harness.h"

namespace npu::test {
namespace {

constexpr uint32_t kMain = 1, kF32 = 0, kU8 = 1;

std::string error_of(const k210::Kmodel& m, MapMemory& mem) {
    try {
        k210::run_cpu_layer(m, 0, mem);
    } catch (const sim::Error& e) {
        return e.what();
    }
    return "no error";
}

// reduce over (1, 2, 2, 3) = 1..12 to (1, 2, 1, 1): channel sums 21 and 57. The mean multiplies
// every float of the output range (here 3, one more than the shape holds) by 3 / 12 = 0.25:
// 5.25, 14.25, and the untouched third float 6 becomes 1.5 (the runtime's quirk, kept).
TEST(V4Neutral, ReduceMeanScalesTheWholeOutputRange) {
    Body b;
    b.range(kMain, kF32, 0, 48).range(kMain, kF32, 64, 12).u32(0);  // mean
    b.shape(1, 2, 2, 3).shape(1, 2, 1, 1).f32(0.0f);
    std::vector<float> in(12);
    for (int i = 0; i < 12; ++i) {
        in[static_cast<size_t>(i)] = static_cast<float>(i + 1);
    }
    FloatNode n(0x07, b.bytes, in);
    n.mem.put<float>(kMain, 72, {6.0f});
    EXPECT_EQ(k210::run_cpu_layer(n.m, 0, n.mem).elements, 12u + 3u);
    EXPECT_EQ(n.out(64, 3), (std::vector<float>{5.25f, 14.25f, 1.5f}));
}

TEST(V4Neutral, ReduceMaxAndMinFoldFromTheInitValue) {
    for (const auto& [op, init, want] : {std::tuple{2u, -100.0f, std::vector<float>{4, 8}},
                                         std::tuple{1u, 5.0f, std::vector<float>{1, 5}}}) {
        // (1, 1, 2, 4) = 1..8 reduced over W to (1, 1, 2, 1): max from −100 gives 4 and 8;
        // min from 5 gives 1 and 5.
        Body b;
        b.range(kMain, kF32, 0, 32).range(kMain, kF32, 64, 8).u32(op);
        b.shape(1, 1, 2, 4).shape(1, 1, 2, 1).f32(init);
        FloatNode n(0x07, b.bytes, {1, 2, 3, 4, 5, 6, 7, 8});
        k210::run_cpu_layer(n.m, 0, n.mem);
        EXPECT_EQ(n.out(64, 2), want) << "reduce_op " << op;
    }
}

TEST(V4Neutral, ReduceToAShapeThatIsNotAReductionIsAClearError) {
    Body b;
    b.range(kMain, kF32, 0, 32).range(kMain, kF32, 64, 8).u32(3);
    b.shape(1, 1, 2, 4).shape(1, 1, 2, 2).f32(0);
    FloatNode n(0x07, b.bytes, {});
    EXPECT_EQ(error_of(n.m, n.mem),
              "t.kmodel: at byte 0x34 (reduce out_shape): (1, 1, 2, 2) is not in_shape (1, 1, 2, "
              "4) with some dimensions reduced to 1");
}

TEST(V4Neutral, EveryUnaryOp) {
    // abs, ceil, cos, exp, floor, log, neg, rsqrt, sin, square: values exact in float.
    const float x[] = {-2.0f, 1.25f, 0.0f, 0.0f, -1.5f, 1.0f, 3.0f, 4.0f, 0.0f, 3.0f};
    const float want[] = {2.0f, 2.0f, 1.0f, 1.0f, -2.0f, 0.0f, -3.0f, 0.5f, 0.0f, 9.0f};
    for (uint32_t op = 0; op < 10; ++op) {
        Body b;
        b.range(kMain, kF32, 0, 4).range(kMain, kF32, 16, 4).u32(op);
        FloatNode n(0x0E, b.bytes, {x[op]});
        EXPECT_EQ(k210::run_cpu_layer(n.m, 0, n.mem).elements, 1u);
        EXPECT_EQ(n.out(16, 1)[0], want[op]) << "unary_op " << op;
    }
    Body bad;
    bad.range(kMain, kF32, 0, 4).range(kMain, kF32, 16, 4).u32(10);
    FloatNode n(0x0E, bad.bytes, {});
    EXPECT_EQ(error_of(n.m, n.mem),
              "t.kmodel: at byte 0x20 (unary unary_op): is 10, expected 0..9 (abs, ceil, cos, "
              "exp, floor, log, neg, rsqrt, sin, square)");
}

// nnil (runtime/nnil.h): lda_0 dup mul ldc_r4 2 add ret = x² + 2; a ReLU6 by clamp.
TEST(V4Neutral, NnilProgramsRunPerElement) {
    Body b;
    b.range(kMain, kF32, 0, 12).range(kMain, kF32, 16, 12);
    b.u8(0x03).u8(0x01).u8(0x42).u8(0x06).f32(2.0f).u8(0x40).u8(0xA0);
    b.u8(0x00).u8(0x00);  // the body's padding: never run, after ret
    FloatNode n(0x14, b.bytes, {1.0f, -3.0f, 0.5f});
    EXPECT_EQ(k210::run_cpu_layer(n.m, 0, n.mem).elements, 3u * 6u);  // 3 floats, 6 ops
    EXPECT_EQ(n.out(16, 3), (std::vector<float>{3.0f, 11.0f, 2.25f}));

    Body relu6;
    relu6.range(kMain, kF32, 0, 12).range(kMain, kF32, 16, 12);
    relu6.u8(0x03).u8(0x04).u8(0x06).f32(6.0f).u8(0x80).u8(0xA0);
    FloatNode r(0x14, relu6.bytes, {-1.0f, 3.0f, 7.0f});
    k210::run_cpu_layer(r.m, 0, r.mem);
    EXPECT_EQ(r.out(16, 3), (std::vector<float>{0.0f, 3.0f, 6.0f}));
}

TEST(V4Neutral, NnilProgramsThatCannotRunAreClearErrors) {
    const auto run = [](std::vector<uint8_t> ops) {
        Body b;
        b.range(kMain, kF32, 0, 4).range(kMain, kF32, 16, 4);
        for (uint8_t o : ops) {
            b.u8(o);
        }
        FloatNode n(0x14, b.bytes, {1.0f});
        return error_of(n.m, n.mem);
    };
    EXPECT_EQ(run({0x03, 0x40, 0xA0}),
              "t.kmodel: at byte 0x21 (nnil add): pops 2 from a stack of 1");
    EXPECT_EQ(run({0x03, 0x99}),
              "t.kmodel: at byte 0x21 (nnil opcode): 0x99 is not an nnil opcode");
    EXPECT_EQ(run({0x03, 0x26}), "t.kmodel: at byte 0x22 (nnil program): ends without ret");
    std::vector<uint8_t> deep(65, 0x03);
    deep.push_back(0xA0);
    EXPECT_EQ(run(deep), "t.kmodel: at byte 0x60 (nnil lda_0): overflows the 64-float stack");
}

TEST(V4Neutral, TableLookupMapsEveryByte) {
    Body b;
    b.range(kMain, kU8, 0, 4).range(0, kU8, 0, 64).range(kMain, kU8, 8, 4);
    MapMemory mem;
    for (int i = 0; i < 64; ++i) {
        mem.mem[0][static_cast<size_t>(i)] = static_cast<uint8_t>(200 - i);
    }
    mem.put<uint8_t>(kMain, 0, {0, 1, 63, 10});
    const k210::Kmodel m = one_node_model(0x12, b);
    k210::Kmodel mc = m;
    mc.constants_bytes = 64;
    EXPECT_EQ(k210::run_cpu_layer(mc, 0, mem).elements, 4u);
    EXPECT_EQ(mem.get<uint8_t>(kMain, 8, 4), (std::vector<uint8_t>{200, 199, 137, 190}));
    mem.put<uint8_t>(kMain, 0, {64});
    EXPECT_EQ(error_of(mc, mem),
              "t.kmodel: table_lookup1d at byte 0x0: input 0 is 64, past the "
              "64-entry table");
}

Body resize_body(uint32_t type, uint32_t in_bytes, uint32_t out_bytes, int32_t h, int32_t w,
                 int32_t oh, int32_t ow, uint32_t mode, uint8_t align) {
    Body b;
    b.range(kMain, type, 0, in_bytes).range(kMain, type, 128, out_bytes);
    b.shape(1, 1, h, w).i32(oh).i32(ow).u32(mode).u8(align).u8(0).u8(0).u8(0);
    return b;
}

// 2x2 -> 4x4 u8, scale 0.5: rows and columns 0, 0, 1, 1 (nearest).
TEST(V4Neutral, ResizeNearestRepeatsPixels) {
    const Body b = resize_body(kU8, 4, 16, 2, 2, 4, 4, 1, 0);
    EXPECT_EQ(b.bytes.size(), 64u);  // sizeof(resize_image_options), tail padding included
    MapMemory mem;
    mem.mem[kMain].assign(256, 0);
    mem.put<uint8_t>(kMain, 0, {1, 2, 3, 4});
    k210::Kmodel m = one_node_model(0x0A, b, 4, 256);
    EXPECT_EQ(k210::run_cpu_layer(m, 0, mem).elements, 16u);
    EXPECT_EQ(mem.get<uint8_t>(kMain, 128, 16),
              (std::vector<uint8_t>{1, 1, 2, 2, 1, 1, 2, 2, 3, 3, 4, 4, 3, 3, 4, 4}));
}

// Bilinear 2x2 -> 4x4 over {0, 100; 200, 255}: y = x = 0, 0.5, 1, 1.5 with the neighbour clamped
// at the edge. (0, 1) = ½·0 + ½·100 = 50; (1, 1) = ¼(0 + 100 + 200 + 255) = 138.75 -> 138
// (truncated); (1, 0) = 100; (3, 3) = 255; (2, 1) = ½(200 + 255) = 227.5 -> 227.
TEST(V4Neutral, ResizeBilinearU8TruncatesAsTheRuntimeConverts) {
    const Body b = resize_body(kU8, 4, 16, 2, 2, 4, 4, 0, 0);
    MapMemory mem;
    mem.mem[kMain].assign(256, 0);
    mem.put<uint8_t>(kMain, 0, {0, 100, 200, 255});
    k210::Kmodel m = one_node_model(0x0A, b, 4, 256);
    k210::run_cpu_layer(m, 0, mem);
    const std::vector<uint8_t> o = mem.get<uint8_t>(kMain, 128, 16);
    EXPECT_EQ(o[1], 50);
    EXPECT_EQ(o[5], 138);
    EXPECT_EQ(o[4], 100);
    EXPECT_EQ(o[15], 255);
    EXPECT_EQ(o[9], 227);
}

// align_corners 2x2 -> 3x3 f32: scale (2 − 1) / (3 − 1) = 0.5, so the middle is the mean of
// all four and the corners are the inputs.
TEST(V4Neutral, ResizeBilinearAlignCornersKeepsTheCorners) {
    const Body b = resize_body(kF32, 16, 36, 2, 2, 3, 3, 0, 1);
    FloatNode n(0x0A, b.bytes, {1.0f, 3.0f, 5.0f, 7.0f});
    k210::run_cpu_layer(n.m, 0, n.mem);
    EXPECT_EQ(n.out(128, 9),
              (std::vector<float>{1.0f, 2.0f, 3.0f, 3.0f, 4.0f, 5.0f, 5.0f, 6.0f, 7.0f}));
    Body bad = resize_body(kF32, 16, 36, 2, 2, 3, 3, 0, 2);
    FloatNode m(0x0A, bad.bytes, {});
    EXPECT_EQ(error_of(m.m, m.mem),
              "t.kmodel: at byte 0x3c (resize_image align_corners): is 2, expected a bool (0 or "
              "1)");
}

// 4x4 u8 0..15, rows 1..4 by 2 (1, 3), columns 3 down to 0 by −2 (3, 1): 7, 5, 15, 13.
TEST(V4Neutral, StridedSliceWalksBothDirections) {
    Body b;
    b.range(kMain, kU8, 0, 16).range(kMain, kU8, 32, 4);
    b.shape(1, 1, 4, 4).shape(0, 0, 1, 3).shape(1, 1, 4, -1).shape(1, 1, 2, -2);
    b.i32(0).i32(0).i32(0).i32(0).i32(0);
    MapMemory mem;
    for (int i = 0; i < 16; ++i) {
        mem.mem[kMain][static_cast<size_t>(i)] = static_cast<uint8_t>(i);
    }
    const k210::Kmodel m = one_node_model(0x0D, b);
    EXPECT_EQ(k210::run_cpu_layer(m, 0, mem).elements, 4u);
    EXPECT_EQ(mem.get<uint8_t>(kMain, 32, 4), (std::vector<uint8_t>{7, 5, 15, 13}));
}

// Found by fuzz_k210_run (a 30 s timeout): one dimension visiting nothing while the others span
// 2^32 indices each. The slice is empty; nothing is read or written, at once.
TEST(V4Neutral, StridedSliceWithAnEmptyDimensionDoesNothing) {
    Body b;
    b.range(kMain, kU8, 0, 16).range(kMain, kU8, 32, 4);
    b.shape(1, 1, 4, 4)
        .shape(INT32_MIN, INT32_MIN, INT32_MIN, 2)
        .shape(INT32_MAX, INT32_MAX, INT32_MAX, 2);
    b.shape(1, 1, 1, 1).i32(0).i32(0).i32(0).i32(0).i32(0);
    MapMemory mem;
    mem.mem[kMain][32] = 7;
    EXPECT_EQ(k210::run_cpu_layer(one_node_model(0x0D, b), 0, mem).elements, 0u);
    EXPECT_EQ(mem.mem[kMain][32], 7);
}

TEST(V4Neutral, StridedSliceOutsideTheInputIsAClearError) {
    Body b;
    b.range(kMain, kU8, 0, 16).range(kMain, kU8, 32, 4);
    b.shape(1, 1, 4, 4).shape(0, 0, 0, 2).shape(1, 1, 1, 6).shape(1, 1, 1, 2);
    b.i32(0).i32(0).i32(0).i32(0).i32(0);
    MapMemory mem;
    EXPECT_EQ(error_of(one_node_model(0x0D, b), mem),
              "t.kmodel: strided_slice at byte 0x0: dimension 3 slices 2..6 by 2: indices 2 to 4 "
              "leave 0..3");
}

// A stride-2 transpose of {1, 2; 3, 4} by the 2x2 filter {1, 10; 100, 1000}: each input tiles
// its own 2x2 block of the 4x4 output. The bias 0.5 is not added (nncase v0.2 leaves it
// unused); the activation [0, 2500] clamps 3000 and 4000 to 2500.
TEST(V4Neutral, Conv2dTransposeScattersAndIgnoresTheBias) {
    Body b;
    b.range(kMain, kF32, 0, 16).range(kMain, kF32, 64, 64);
    b.shape(1, 1, 2, 2).shape(1, 1, 4, 4).i32(1);  // groups
    b.i32(0).i32(0).i32(0).i32(0).i32(2).i32(2).i32(2).i32(2).i32(1).i32(1);
    b.f32(0.0f).f32(2500.0f);
    b.f32(1).f32(10).f32(100).f32(1000).f32(0.5f);
    FloatNode n(0x13, b.bytes, {1, 2, 3, 4});
    const k210::CpuLayerWork w = k210::run_cpu_layer(n.m, 0, n.mem);
    EXPECT_EQ(w.macs, 16u);
    EXPECT_EQ(n.out(64, 16), (std::vector<float>{1, 10, 2, 20, 100, 1000, 200, 2000, 3, 30, 4, 40,
                                                 300, 2500, 400, 2500}));
}

// quantized_conv2d, one 2x2 window: (10 − 10)(1 + 1) + (20 − 10)(2 + 1) + (30 − 10)(3 + 1) +
// (40 − 10)(4 + 1) = 0 + 30 + 80 + 150 = 260, + bias 5 = 265; (265 · 1 + 1) >> 1 = 133; + 3 = 136.
TEST(V4Neutral, QuantizedConv2dAddsItsOffsets) {
    Body b;
    b.range(kMain, kU8, 0, 4).range(kMain, kU8, 16, 1);
    b.shape(1, 1, 2, 2).i32(1).i32(1).window(2, 2, 1, 0);
    b.i32(-10).i32(1).i32(1).i32(1).i32(3);  // input, filter offsets; mul, shift; output offset
    b.i32(5);                                // bias
    b.u8(1).u8(2).u8(3).u8(4);               // weights
    MapMemory mem;
    mem.put<uint8_t>(kMain, 0, {10, 20, 30, 40});
    const k210::CpuLayerWork w = k210::run_cpu_layer(one_node_model(0x0F, b), 0, mem);
    EXPECT_EQ(w.macs, 4u);
    EXPECT_EQ(mem.mem[kMain][16], 136);
}

// a (1x2) {1, 2} + 1, b (2x2) {3, 4; 5, 6} − 1: columns 2·2 + 3·4 = 16 and 2·3 + 3·5 = 21; bias
// 0 and 100; (v · 3 + 2) >> 2: 50 >> 2 = 12, 365 >> 2 = 91.
TEST(V4Neutral, QuantizedMatmulWorkedByHand) {
    Body b;
    b.range(kMain, kU8, 0, 2).range(kMain, kU8, 4, 4).range(kMain, kU8, 16, 2);
    b.i32(1).i32(2).i32(2).i32(1).i32(-1).i32(3).i32(2).i32(0).i32(0).i32(100);
    MapMemory mem;
    mem.put<uint8_t>(kMain, 0, {1, 2, 0, 0, 3, 4, 5, 6});
    const k210::CpuLayerWork w = k210::run_cpu_layer(one_node_model(0x10, b), 0, mem);
    EXPECT_EQ(w.macs, 4u);
    EXPECT_EQ(mem.get<uint8_t>(kMain, 16, 2), (std::vector<uint8_t>{12, 91}));
}

}  // namespace
}  // namespace npu::test
