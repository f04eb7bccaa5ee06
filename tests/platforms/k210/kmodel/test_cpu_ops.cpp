// The K210 runtime's CPU layers: kernels against values worked by hand from the nncase v0.2
// kernel definitions (../shared/reference/k210_kpu.md §4, docs/k210_platform.md), the RISC-V
// conversion and rounding rules, and the node bodies read from bytes laid out as nncase writes
// them.
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include <gtest/gtest.h>

#include "platforms/k210/kmodel/cpu_ops.h"
#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "platforms/k210/kmodel/kmodel_writer.h"
#include "sim/core/error.h"
#include "tests/platforms/k210/kmodel/node_harness.h"

namespace npu::test {
namespace {

using k210::Shape4;

TEST(CpuOps, FloatToIntConversionsRoundAndSaturateAsRiscV) {
    EXPECT_EQ(k210::fcvt_w_s_rne(2.5f), 2);
    EXPECT_EQ(k210::fcvt_w_s_rne(3.5f), 4);
    EXPECT_EQ(k210::fcvt_w_s_rne(-2.5f), -2);
    EXPECT_EQ(k210::fcvt_w_s_rne(2.4999998f), 2);
    EXPECT_EQ(k210::fcvt_w_s_rne(std::nanf("")), std::numeric_limits<int32_t>::max());
    EXPECT_EQ(k210::fcvt_w_s_rne(3e9f), std::numeric_limits<int32_t>::max());
    EXPECT_EQ(k210::fcvt_w_s_rne(-3e9f), std::numeric_limits<int32_t>::min());
    EXPECT_EQ(k210::round_half_away_w_s(2.5f), 3);
    EXPECT_EQ(k210::round_half_away_w_s(-2.5f), -3);
    EXPECT_EQ(k210::round_half_away_w_s(std::nanf("")), std::numeric_limits<int32_t>::max());
}

TEST(CpuOps, QuantizeRoundsPairsToEvenAndAnOddLastElementAwayFromZero) {
    // riscv_quantize: fcvt.w.s rne for each pair, roundf for the odd last one.
    const float x[] = {0.5f, 1.5f, 2.5f, -1.0f, 300.0f, std::nanf(""), 2.5f};
    uint8_t q[7] = {};
    k210::quantize_v4(x, 7, 0, 1.0f, q);
    EXPECT_EQ(q[0], 0);    // 0.5 -> 0 (even)
    EXPECT_EQ(q[1], 2);    // 1.5 -> 2
    EXPECT_EQ(q[2], 2);    // 2.5 -> 2, in a pair
    EXPECT_EQ(q[3], 0);    // clamped
    EXPECT_EQ(q[4], 255);  // clamped
    EXPECT_EQ(q[5], 255);  // NaN converts to INT32_MAX, clamped
    EXPECT_EQ(q[6], 3);    // 2.5 -> 3: the odd last element goes through roundf
    // zero point and scale: q = x * scale + zp = 1.25 * 4 + 7 = 12
    const float y = 1.25f;
    k210::quantize_v4(&y, 1, 7, 4.0f, q);
    EXPECT_EQ(q[0], 12);
}

TEST(CpuOps, FusedMultiplyAddChangesWhatRoundsWhereTheChipFusesIt) {
    // 20.1f * 5 = 100.500001907... exactly; as a float product it is 100.5, and 100.5 − 100 = 0.5
    // rounds to even (0). Fused, 0.500001907 survives and rounds to 1.
    const float x[] = {20.1f, 20.1f};
    uint8_t fused[2] = {}, separate[2] = {};
    k210::quantize_v4(x, 2, -100, 5.0f, fused, true);
    k210::quantize_v4(x, 2, -100, 5.0f, separate, false);
    EXPECT_EQ(fused[0], 1);
    EXPECT_EQ(separate[0], 0);
}

// Found by fuzz_k210_run (UBSan: −INT32_MIN): riscv_dequantize's −zero_point is a 32-bit negw,
// which leaves INT32_MIN as it is: q = 3, scale 1 gives 3 + (−2^31) = −2147483645, as a float
// −2147483648 (the nearest float).
TEST(CpuOps, DequantizeOfTheMostNegativeZeroPointWrapsAsRv64) {
    const uint8_t q = 3;
    float x = 0;
    k210::dequantize_v4(&q, 1, std::numeric_limits<int32_t>::min(), 1.0f, &x);
    EXPECT_EQ(x, -2147483648.0f);
}

TEST(CpuOps, DequantizeUsesTheInverseStep) {
    // v4: x = q * (1/scale) + (−zp/scale): q 10, zp 5, scale 2 -> 2.5; q 0 -> −2.5.
    const uint8_t q[] = {10, 0, 255};
    float x[3] = {};
    k210::dequantize_v4(q, 3, 5, 2.0f, x);
    EXPECT_EQ(x[0], 2.5f);
    EXPECT_EQ(x[1], -2.5f);
    EXPECT_EQ(x[2], 125.0f);
    // v3: x = q * scale + bias.
    k210::dequantize_v3(q, 3, 0.5f, -1.0f, x);
    EXPECT_EQ(x[0], 4.0f);
    EXPECT_EQ(x[1], -1.0f);
    EXPECT_EQ(x[2], 126.5f);
}

TEST(CpuOps, MulAndCarryShiftRoundsHalfUpAndWrapsAsRv64) {
    EXPECT_EQ(k210::mul_and_carry_shift(7, 3, 2), 5);    // (21 + 2) >> 2
    EXPECT_EQ(k210::mul_and_carry_shift(-7, 3, 2), -5);  // (−21 + 2) >> 2 = floor(−4.75)
    EXPECT_EQ(k210::mul_and_carry_shift(5, 3, 0), 15);
    EXPECT_EQ(k210::mul_and_carry_shift(6, 1, 2), 2);    // 1.5 rounds up
    EXPECT_EQ(k210::mul_and_carry_shift(-6, 1, 2), -1);  // −1.5 rounds up too (not away)
    EXPECT_EQ(k210::mul_and_carry_shift(7, 3, 258), 5);  // the shift is taken as uint8: 2
    // (2^30 · 4 + 1) >> 1 = 2^31, truncated to 32 bits
    EXPECT_EQ(k210::mul_and_carry_shift(1 << 30, 4, 1), std::numeric_limits<int32_t>::min());
}

// Every shift 0..63 against exact 128-bit arithmetic: round(v · m / 2^s) with ties up, i.e.
// floor((v · m + 2^(s−1)) / 2^s), truncated to 32 bits. The values keep v · m + 2^(s−1) inside
// 64 bits, where the RV64 computation is exact. At s = 32 nncase before v0.2.0-beta4 built the
// half as a 32-bit shift (1 << 31 = −2^31) and came out one lower: 8.073 · 2^32 gave 7, not 8.
TEST(CpuOps, MulAndCarryShiftEveryShiftMatches128BitArithmetic) {
    __extension__ typedef __int128 i128;
    const int32_t values[] = {1, -1, 12345, -12345, 0x7fffffff, -0x7fffffff - 1, 34671};
    const int32_t muls[] = {1, 3, -7, 1 << 20, 0x7fffffff, 1073741823};
    for (int s = 0; s < 64; ++s) {
        for (const int32_t v : values) {
            for (const int32_t m : muls) {
                const i128 p = static_cast<i128>(v) * m;
                const i128 half = s == 0 ? 0 : static_cast<i128>(1) << (s - 1);
                i128 q = p + half;
                // floor division by 2^s (an arithmetic shift of a 128-bit value)
                q = q >= 0 ? q >> s : -((-q + ((static_cast<i128>(1) << s) - 1)) >> s);
                EXPECT_EQ(k210::mul_and_carry_shift(v, m, s),
                          static_cast<int32_t>(static_cast<uint32_t>(static_cast<uint64_t>(q))))
                    << v << " * " << m << " >> " << s;
            }
        }
    }
    // The example: 8.073 at shift 32 (8.073 · 2^32 ≈ 34673 · 1000000) rounds to 8.
    EXPECT_EQ(k210::mul_and_carry_shift(34673, 1000000, 32), 8);
}

TEST(CpuOps, PadAddsAndCropsPerDimension) {
    const uint8_t in[] = {1, 2, 3, 4};  // 1x1x2x2
    std::array<k210::Padding, 4> p{};
    p[2] = {1, 0};
    p[3] = {0, 1};
    const Shape4 s{1, 1, 2, 2};
    EXPECT_EQ(k210::padded_shape(s, p), (Shape4{1, 1, 3, 3}));
    uint8_t out[9] = {};
    k210::pad(in, 1, s, p, {9, 0, 0, 0}, out);
    const uint8_t want[] = {9, 9, 9, 1, 2, 9, 3, 4, 9};
    EXPECT_EQ(0, std::memcmp(out, want, 9));
    // A negative padding crops: drop the first column.
    p = {};
    p[3] = {-1, 0};
    uint8_t cropped[2] = {};
    k210::pad(in, 1, s, p, {0, 0, 0, 0}, cropped);
    EXPECT_EQ(cropped[0], 2);
    EXPECT_EQ(cropped[1], 4);
    // f32 elements, the pad value read from the scalar's four bytes.
    const float fin[] = {1.5f};
    float fout[3] = {};
    p = {};
    p[3] = {1, 1};
    std::array<uint8_t, 4> v{};
    const float minus_one = -1.0f;
    std::memcpy(v.data(), &minus_one, 4);
    k210::pad(reinterpret_cast<const uint8_t*>(fin), 4, {1, 1, 1, 1}, p, v,
              reinterpret_cast<uint8_t*>(fout));
    EXPECT_EQ(fout[0], -1.0f);
    EXPECT_EQ(fout[1], 1.5f);
    EXPECT_EQ(fout[2], -1.0f);
}

TEST(CpuOps, TransposeNchwToNhwc) {
    uint8_t in[12];
    for (uint8_t i = 0; i < 12; ++i) {
        in[i] = i;  // 1x2x2x3: c h w
    }
    const Shape4 perm{0, 2, 3, 1};
    EXPECT_EQ(k210::transposed_shape({1, 2, 2, 3}, perm), (Shape4{1, 2, 3, 2}));
    uint8_t out[12] = {};
    k210::transpose(in, 1, {1, 2, 2, 3}, perm, out);
    const uint8_t want[] = {0, 6, 1, 7, 2, 8, 3, 9, 4, 10, 5, 11};
    EXPECT_EQ(0, std::memcmp(out, want, 12));
}

TEST(CpuOps, QuantizedBinaryBroadcastsAndRescales) {
    k210::V4QuantizedBinary p;
    p.op = k210::BinaryOp::add;
    p.a_shape = {1, 2, 1, 2};
    p.b_shape = {1, 1, 1, 1};
    p.out_shape = {1, 2, 1, 2};
    p.a_offset = -10, p.a_mul = 1, p.a_shift = 0;
    p.b_offset = 0, p.b_mul = 2, p.b_shift = 1;  // 5 · 2 = 10, (10 + 1) >> 1 = 5
    p.out_offset = 100, p.out_mul = 1, p.out_shift = 0;
    const uint8_t a[] = {10, 20, 30, 40}, b[] = {5};
    uint8_t out[4] = {};
    k210::quantized_binary(a, b, p, out);
    const uint8_t want[] = {105, 115, 125, 135};  // (a − 10) + 5 + 100
    EXPECT_EQ(0, std::memcmp(out, want, 4));
    // div: (a + b / 2) / b; by zero the RISC-V divw gives −1, clamped to 0 (+ offset 7 = 6).
    p.op = k210::BinaryOp::div;
    p.a_shape = p.b_shape = p.out_shape = {1, 1, 1, 2};
    p.a_offset = p.b_offset = 0, p.a_mul = p.b_mul = 1, p.a_shift = p.b_shift = 0;
    p.out_offset = 7;
    const uint8_t na[] = {7, 7}, nb[] = {2, 0};
    k210::quantized_binary(na, nb, p, out);
    EXPECT_EQ(out[0], 11);  // (7 + 1) / 2 = 4, + 7
    EXPECT_EQ(out[1], 6);   // −1 + 7
}

// ---------------------------------------------------------------- nodes from bytes

TEST(CpuOps, ConcatNodeInterleavesItsInputsPerOuterBlock) {
    Body b;
    b.range(1, 1, 32, 10).u32(1).u32(2).u32(2);  // out, inner 1, outer 2, two inputs
    b.range(1, 1, 0, 4).range(1, 1, 8, 6).u32(2).u32(3);
    const k210::Kmodel m = one_node_model(k210::op::kV4Concat, b);
    MapMemory mem;
    const uint8_t in0[] = {1, 2, 3, 4}, in1[] = {5, 6, 7, 8, 9, 10};
    std::memcpy(mem.mem[1].data(), in0, 4);
    std::memcpy(mem.mem[1].data() + 8, in1, 6);
    EXPECT_EQ(k210::run_cpu_layer(m, 0, mem).elements, 10u);
    const uint8_t want[] = {1, 2, 5, 6, 7, 3, 4, 8, 9, 10};
    EXPECT_EQ(0, std::memcmp(mem.mem[1].data() + 32, want, 10));
}

// Inputs of concat dimension 0 under an outer size of 2^32 - 1: nothing to copy, at once (the
// loop over the outer size once ran 2^32 empty steps: fuzz_k210_run).
TEST(CpuOps, ConcatOfEmptyInputsIsInstant) {
    Body b;
    b.range(1, 1, 32, 0).u32(1).u32(0xffffffffu).u32(2);  // out, inner 1, outer 2^32 - 1, two
    b.range(1, 1, 0, 0).range(1, 1, 8, 0).u32(0).u32(0);
    const k210::Kmodel m = one_node_model(k210::op::kV4Concat, b);
    MapMemory mem;
    EXPECT_EQ(k210::run_cpu_layer(m, 0, mem).elements, 0u);
}

TEST(CpuOps, NodeWhoseRangeLeavesItsMemoryIsAClearError) {
    Body b;
    b.range(1, 1, 60, 10).u32(1).u32(1).u32(1).range(1, 1, 0, 10).u32(10);
    const k210::Kmodel m = one_node_model(k210::op::kV4Concat, b);
    MapMemory mem;
    try {
        k210::run_cpu_layer(m, 0, mem);
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "t.kmodel: concat at byte 0x0: the output range main+0x3c (10 bytes) runs "
                     "past the 64-byte main memory");
    }
}

TEST(CpuOps, TransposeWithABadPermutationIsAClearError) {
    Body b;
    b.range(1, 1, 0, 4).range(1, 1, 8, 4).u32(1).u32(1).u32(2).u32(2).u32(0).u32(1).u32(1).u32(3);
    const k210::Kmodel m = one_node_model(k210::op::kV4Transpose, b);
    MapMemory mem;
    try {
        k210::run_cpu_layer(m, 0, mem);
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "t.kmodel: transpose at byte 0x0: perm (0, 1, 1, 3) is not a permutation "
                     "of 0..3");
    }
}

TEST(CpuOps, UnsupportedNodeNamesItsIndexAndOpcode) {
    Body b;
    b.u32(0);
    const k210::Kmodel m = one_node_model(0x15, b);
    MapMemory mem;
    EXPECT_FALSE(k210::layer_supported(4, 0x15));
    try {
        k210::run_cpu_layer(m, 0, mem);
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "t.kmodel: node 0 is unknown (opcode 0x15): nncase v0.2.0-beta4's K210 "
                     "runtime has no such opcode, nor does the simulator");
    }
}

TEST(CpuOps, QuantizeNodeReadsItsBodyAndWritesU8) {
    Body b;
    b.range(1, 0, 0, 8).range(1, 1, 16, 2).u32(3);  // f32 in, u8 out, zero point 3
    const float scale = 2.0f;
    uint32_t bits = 0;
    std::memcpy(&bits, &scale, 4);
    b.u32(bits);
    const k210::Kmodel m = one_node_model(k210::op::kV4Quantize, b);
    MapMemory mem;
    const float x[] = {1.25f, -0.75f};  // 2.5 + 3 = 5.5 -> 6 (even), −1.5 + 3 = 1.5 -> 2
    std::memcpy(mem.mem[1].data(), x, 8);
    EXPECT_EQ(k210::run_cpu_layer(m, 0, mem).elements, 2u);
    EXPECT_EQ(mem.mem[1][16], 6);
    EXPECT_EQ(mem.mem[1][17], 2);
}

// ---------------------------------------------------------------- v4 float nodes

// Found by fuzz_kmodel (UBSan: memcpy from a null pointer): a quantize whose float range holds
// under 4 bytes converts nothing.
TEST(CpuOps, QuantizeOfARangeUnderFourBytesConvertsNothing) {
    Body b;
    b.range(1, 0, 0, 2).range(1, 1, 16, 2).u32(0).u32(fbits(1.0f));
    const k210::Kmodel m = one_node_model(k210::op::kV4Quantize, b);
    MapMemory mem;
    mem.mem[1][16] = 77;
    EXPECT_EQ(k210::run_cpu_layer(m, 0, mem).elements, 0u);
    EXPECT_EQ(mem.mem[1][16], 77);
}

// conv2d laid out field by field as nncase's conv2d_options::serialize writes it: 1x1x3x3 input
// 1..9, one 2x2 filter of ones, bias 0.5, stride 1, no padding: each output is the sum of a 2x2
// window plus 0.5; the fused activation clamps to [0, 20].
TEST(CpuOps, Conv2dNodeWorkedByHand) {
    Body b;
    b.range(1, 0, 0, 36).range(1, 0, 128, 16);
    b.u32(1).u32(1).u32(3).u32(3);                // in_shape
    b.u32(1).u32(1);                              // groups, out_channels
    b.u32(0).u32(0).u32(0).u32(0);                // padding_h, padding_w
    b.u32(2).u32(2).u32(1).u32(1).u32(1).u32(1);  // filter, stride, dilation
    b.u32(fbits(0)).u32(fbits(20));               // fused_activation
    for (int i = 0; i < 4; ++i) {
        b.u32(fbits(1));
    }
    b.u32(fbits(0.5f));
    FloatNode n(k210::op::kV4Conv2d, b.bytes, {1, 2, 3, 4, 5, 6, 7, 8, 9});
    const k210::CpuLayerWork w = k210::run_cpu_layer(n.m, 0, n.mem);
    EXPECT_EQ(w.elements, 4u);
    EXPECT_EQ(w.macs, 16u);
    EXPECT_EQ(n.out(128, 4), (std::vector<float>{12.5f, 16.5f, 20.0f, 20.0f}));  // 24.5, 28.5 clamp

    // Our writer lays the node out byte for byte the same.
    k210::V4Conv2d c;
    c.in = {1, 0, 0, 36}, c.out = {1, 0, 128, 16};
    c.in_shape = {1, 1, 3, 3};
    c.out_channels = 1, c.win.filter_h = c.win.filter_w = 2;
    c.act.min = 0, c.act.max = 20;
    c.weights = {1, 1, 1, 1}, c.bias = {0.5f};
    EXPECT_EQ(k210::v4_node(c).body, b.bytes);
    EXPECT_EQ(k210::v4_node(c).type, k210::op::kV4Conv2d);
}

// Padding 1 on every side, stride 2, dilation 1, two groups of one channel: out-of-bounds taps
// are skipped (zero padding). Channel 0 (1..9) with a 3x3 filter of ones: the four corners of
// the 2x2 output sum 1+2+4+5 = 12, 2+3+5+6 = 16, 4+5+7+8 = 24, 5+6+8+9 = 28; channel 1 is
// channel 0 times 10 with a filter of twos: 20x.
TEST(CpuOps, Conv2dPaddingStrideAndGroupsWorkedByHand) {
    k210::V4Conv2d c;
    c.in = {1, 0, 0, 72}, c.out = {1, 0, 128, 32};
    c.in_shape = {1, 2, 3, 3};
    c.groups = 2, c.out_channels = 2;
    c.win.pad_h = {1, 1}, c.win.pad_w = {1, 1};
    c.win.filter_h = c.win.filter_w = 3, c.win.stride_h = c.win.stride_w = 2;
    c.weights.assign(9, 1.0f);
    c.weights.resize(18, 2.0f);
    c.bias = {0, 0};
    std::vector<float> in{1, 2, 3, 4, 5, 6, 7, 8, 9};
    for (int i = 0; i < 9; ++i) {
        in.push_back(10.0f * in[static_cast<size_t>(i)]);
    }
    FloatNode n(k210::op::kV4Conv2d, k210::v4_node(c).body, in);
    EXPECT_EQ(k210::run_cpu_layer(n.m, 0, n.mem).macs, 2u * 4u * 4u);  // 4 in-bounds taps each
    EXPECT_EQ(n.out(128, 8), (std::vector<float>{12, 16, 24, 28, 240, 320, 480, 560}));
}

// Max 2x2 stride 1 with one padding row and column after; mean 2x2 stride 2 with the same
// padding divides by the in-bounds taps only.
TEST(CpuOps, ReduceWindow2dMaxAndMeanWorkedByHand) {
    k210::V4ReduceWindow2d w;
    w.in = {1, 0, 0, 36}, w.out = {1, 0, 128, 64};
    w.op = k210::ReduceOp::max;
    w.in_shape = {1, 1, 3, 3};
    w.win.pad_h = {0, 1}, w.win.pad_w = {0, 1};
    w.win.filter_h = w.win.filter_w = 2;
    w.init_value = std::numeric_limits<float>::lowest();
    const std::vector<float> in{1, 2, 3, 4, 5, 6, 7, 8, 9};
    FloatNode mx(k210::op::kV4ReduceWindow2d, k210::v4_node(w).body, in);
    k210::run_cpu_layer(mx.m, 0, mx.mem);
    EXPECT_EQ(mx.out(128, 9), (std::vector<float>{5, 6, 6, 8, 9, 9, 8, 9, 9}));

    w.op = k210::ReduceOp::mean;
    w.win.stride_h = w.win.stride_w = 2;
    w.init_value = 0;
    FloatNode mean(k210::op::kV4ReduceWindow2d, k210::v4_node(w).body, in);
    k210::run_cpu_layer(mean.m, 0, mean.mem);
    EXPECT_EQ(mean.out(128, 4), (std::vector<float>{3, 4.5f, 7.5f, 9}));
}

// [1 2] x [[1 2 3] [4 5 6]] = [9 12 15]; bias (0.5, −20, 0); fused ReLU: (9.5, 0, 15). B is read
// from const memory.
TEST(CpuOps, MatmulNodeWorkedByHand) {
    k210::V4Matmul mm;
    mm.a = {1, 0, 0, 8}, mm.b = {0, 0, 0, 24}, mm.out = {1, 0, 64, 12};
    mm.a_rows = 1, mm.a_cols = 2, mm.b_cols = 3;
    mm.act.min = 0;
    mm.bias = {0.5f, -20, 0};
    FloatNode n(k210::op::kV4Matmul, k210::v4_node(mm).body, {1, 2});
    n.m.constants_bytes = 24;
    const float b[] = {1, 2, 3, 4, 5, 6};
    std::memcpy(n.mem.mem[0].data(), b, 24);
    EXPECT_EQ(k210::run_cpu_layer(n.m, 0, n.mem).macs, 6u);
    EXPECT_EQ(n.out(64, 3), (std::vector<float>{9.5f, 0, 15}));
}

// Softmax of (1, 2, 3) and of (0, 0) (two blocks, beta 1): e^(x − max) / Σ.
TEST(CpuOps, SoftmaxNodeNormalisesEachBlock) {
    k210::V4Softmax sm;
    sm.in = {1, 0, 0, 24}, sm.out = {1, 0, 64, 24};
    sm.inner_size = 3, sm.outer_size = 2, sm.beta = 1;
    FloatNode n(k210::op::kV4Softmax, k210::v4_node(sm).body, {1, 2, 3, 0, 0, 0});
    k210::run_cpu_layer(n.m, 0, n.mem);
    const std::vector<float> y = n.out(64, 6);
    const double e2 = std::exp(-2.0), e1 = std::exp(-1.0), s = e2 + e1 + 1;
    EXPECT_NEAR(y[0], e2 / s, 1e-7);
    EXPECT_NEAR(y[1], e1 / s, 1e-7);
    EXPECT_NEAR(y[2], 1 / s, 1e-7);
    for (size_t i = 3; i < 6; ++i) {
        EXPECT_NEAR(y[i], 1.0 / 3, 1e-7);
    }
}

// (1, 1, 2, 1) + (1, 1, 1, 3) broadcasts to (1, 1, 2, 3); the fused activation clamps at 12.
TEST(CpuOps, BinaryNodeBroadcastsAndClamps) {
    k210::V4Binary bn;
    bn.a = {1, 0, 0, 8}, bn.b = {1, 0, 8, 12}, bn.out = {1, 0, 64, 24};
    bn.a_shape = {1, 1, 2, 1}, bn.b_shape = {1, 1, 1, 3}, bn.out_shape = {1, 1, 2, 3};
    bn.act.max = 12;
    FloatNode n(k210::op::kV4Binary, k210::v4_node(bn).body, {0, 10, 1, 2, 3});
    k210::run_cpu_layer(n.m, 0, n.mem);
    EXPECT_EQ(n.out(64, 6), (std::vector<float>{1, 2, 3, 11, 12, 12}));
}

// A conv2d whose groups do not divide its channels, and one whose filter leaves no output.
TEST(CpuOps, Conv2dNodeWithImpossibleGeometryIsAClearError) {
    k210::V4Conv2d c;
    c.in = {1, 0, 0, 36}, c.out = {1, 0, 128, 16};
    c.in_shape = {1, 3, 2, 2};
    c.groups = 2, c.out_channels = 2;
    c.weights.assign(2, 1.0f), c.bias = {0, 0};
    FloatNode bad(k210::op::kV4Conv2d, k210::v4_node(c).body, {});
    try {
        k210::run_cpu_layer(bad.m, 0, bad.mem);
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "t.kmodel: at byte 0x30 (conv2d groups): groups 2 and out_channels 2 with 3 "
                     "input channels: expected groups ≥ 1 dividing both channel counts");
    }
    c.in_shape = {1, 1, 2, 2};
    c.groups = 1, c.out_channels = 1;
    c.win.filter_h = c.win.filter_w = 3;
    c.weights.assign(9, 1.0f), c.bias = {0};
    FloatNode none(k210::op::kV4Conv2d, k210::v4_node(c).body, {});
    try {
        k210::run_cpu_layer(none.m, 0, none.mem);
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "t.kmodel: conv2d at byte 0x0: a 3x3 filter (dilation 1x1, stride 1x1) "
                     "leaves no output on the 2x2 input with its padding");
    }
}

}  // namespace
}  // namespace npu::test
