#include <cmath>
#include <cstring>

#include <gtest/gtest.h>

#include "sim/core/tensor.h"

namespace npu::sim {
namespace {

TEST(Tensor, ShapeSizeAndTypedAccess) {
    Tensor t(DType::i16, {1, 3, 2, 2});
    EXPECT_EQ(t.numel(), 12u);
    EXPECT_EQ(t.size_bytes(), 24u);
    t.data<int16_t>()[5] = -7;
    EXPECT_EQ(t.get_f64(5), -7.0);
    EXPECT_EQ(shape_str(t.shape()), "(1, 3, 2, 2)");
    EXPECT_EQ(shape_str({7}), "(7,)");
    EXPECT_EQ(shape_str({}), "()");
    EXPECT_EQ(Tensor(DType::f32, {}).numel(), 1u);  // a scalar
}

TEST(Tensor, Reshape) {
    Tensor t(DType::f32, {1, 1, 1, 6});
    t.reshape({1, 2, 3});
    EXPECT_EQ(t.shape(), (Shape{1, 2, 3}));
    try {
        t.reshape({4});
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "cannot reshape (1, 2, 3) to (4,): 6 elements, not 4");
    }
}

TEST(Tensor, SetSaturatesAndRounds) {
    Tensor t(DType::u8, {4});
    t.set_f64(0, 300);
    t.set_f64(1, -5);
    t.set_f64(2, 2.5);  // half away from zero
    t.set_f64(3, NAN);
    EXPECT_EQ(t.data<uint8_t>()[0], 255);
    EXPECT_EQ(t.data<uint8_t>()[1], 0);
    EXPECT_EQ(t.data<uint8_t>()[2], 3);
    EXPECT_EQ(t.data<uint8_t>()[3], 0);
}

TEST(Tensor, BadShapesAndNames) {
    EXPECT_THROW(Tensor(DType::u8, {2, -1}), Error);
    EXPECT_THROW(Tensor(DType::u8, {1 << 30, 1 << 30}), Error);
    EXPECT_EQ(parse_dtype("float16"), DType::f16);
    try {
        parse_dtype("f64");
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "unknown element type 'f64': expected u8, i8, i16, i32, f16 or f32");
    }
}

TEST(TensorDeathTest, WrongTypedAccessIsOurBug) {
    Tensor t(DType::u8, {2});
    EXPECT_DEATH(t.data<float>(), "tensor of u8 accessed as f32");
}

TEST(Half, DoubleToHalfRoundsOnceAtEveryMidpoint) {
    // Every finite half round-trips; the exact midpoint between two neighbours goes to the even
    // one, and a hair above or below it to the nearer one.
    EXPECT_EQ(double_to_half(65504.0), 0x7bff);
    for (uint32_t h = 0; h < 0x7bff; ++h) {
        const double v = half_to_float(static_cast<uint16_t>(h));
        ASSERT_EQ(double_to_half(v), h);
        ASSERT_EQ(double_to_half(-v), h | 0x8000u);
        const double next = half_to_float(static_cast<uint16_t>(h + 1));
        const double mid = (v + next) / 2;
        ASSERT_EQ(double_to_half(mid), (h & 1u) != 0 ? h + 1 : h) << h;
        ASSERT_EQ(double_to_half(mid + (next - v) * 1e-9), h + 1) << h;
        ASSERT_EQ(double_to_half(mid - (next - v) * 1e-9), h) << h;
    }
    // 2049 − 2^-30 lies just below a tie that float rounding would create: a float holds it as
    // 2049 exactly, whose half rounding goes to even 2048; the value itself rounds to 2048 too,
    // while 2049 + 2^-30 must round up to 2050.
    EXPECT_EQ(double_to_half(2049.0 + std::ldexp(1.0, -30)), float_to_half(2050.0f));
    EXPECT_EQ(float_to_half(static_cast<float>(2049.0 + std::ldexp(1.0, -30))),
              float_to_half(2048.0f));  // the double rounding a float intermediate would cause
    EXPECT_EQ(double_to_half(1e6), 0x7c00);
    EXPECT_EQ(double_to_half(std::ldexp(1.0, -26)), 0x0000);
}

// IEEE 754 binary16 values from the standard's tables.
TEST(Half, KnownValues) {
    EXPECT_EQ(float_to_half(1.0f), 0x3c00);
    EXPECT_EQ(float_to_half(-2.0f), 0xc000);
    EXPECT_EQ(float_to_half(65504.0f), 0x7bff);  // largest finite
    EXPECT_EQ(float_to_half(65520.0f), 0x7c00);  // rounds up to infinity
    EXPECT_EQ(float_to_half(0.1f), 0x2e66);
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -24)), 0x0001);  // smallest subnormal
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -25)), 0x0000);  // tie rounds to even (zero)
    EXPECT_EQ(float_to_half(std::ldexp(3.0f, -25)), 0x0002);  // 1.5 ulp: tie rounds to even (2)
    EXPECT_EQ(float_to_half(std::ldexp(1.0f, -14)), 0x0400);  // smallest normal
    EXPECT_EQ(float_to_half(1.0f + std::ldexp(1.0f, -11)), 0x3c00);      // tie -> even
    EXPECT_EQ(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)), 0x3c02);  // tie -> even
    EXPECT_EQ(float_to_half(-0.0f), 0x8000);
    EXPECT_EQ(float_to_half(INFINITY), 0x7c00);
    EXPECT_EQ(float_to_half(NAN) & 0x7c00, 0x7c00);
    EXPECT_NE(float_to_half(NAN) & 0x03ff, 0);
    EXPECT_EQ(half_to_float(0x3555), 0.333251953125f);
    EXPECT_EQ(half_to_float(0x0001), std::ldexp(1.0f, -24));
}

// Every half value survives half -> float -> half.
TEST(Half, ExhaustiveRoundTrip) {
    for (uint32_t h = 0; h < 0x10000; ++h) {
        const float f = half_to_float(static_cast<uint16_t>(h));
        if (std::isnan(f)) {
            ASSERT_TRUE((h & 0x7c00) == 0x7c00 && (h & 0x3ff) != 0) << std::hex << h;
            continue;
        }
        ASSERT_EQ(float_to_half(f), h) << std::hex << h;
    }
}

}  // namespace
}  // namespace npu::sim
