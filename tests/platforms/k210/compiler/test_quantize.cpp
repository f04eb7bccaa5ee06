// The K210 compiler's quantization arithmetic (platforms/k210/quantize.h): values worked by hand,
// and the activation tables checked through the KPU's own activate() over the whole calibrated
// range.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "platforms/k210/compiler/quantize.h"

namespace npu::test {
namespace {

using k210::Activation;

TEST(Quantize, AsymmetricUint8ParametersWorkedByHand) {
    const k210::QuantParams a = k210::quant_params_u8(0, 1);
    EXPECT_DOUBLE_EQ(a.scale, 1.0 / 255);
    EXPECT_EQ(a.zero_point, 0);
    // [-1, 3]: scale 4/255, zero point round(1 / (4/255)) = round(63.75) = 64.
    const k210::QuantParams b = k210::quant_params_u8(-1, 3);
    EXPECT_DOUBLE_EQ(b.scale, 4.0 / 255);
    EXPECT_EQ(b.zero_point, 64);
    EXPECT_EQ(b.quantize(0), 64);
    EXPECT_EQ(b.quantize(3), 255);   // 64 + 191.25
    EXPECT_EQ(b.quantize(-2), 0);    // saturates
    EXPECT_EQ(b.quantize(0.1), 70);  // 64 + round(6.375)
    // A range that does not contain 0 is widened to: [2, 4] -> [0, 4].
    EXPECT_EQ(k210::quant_params_u8(2, 4).zero_point, 0);
    EXPECT_DOUBLE_EQ(k210::quant_params_u8(2, 4).scale, 4.0 / 255);
}

TEST(Quantize, BatchNormFoldsIntoWeightsAndBias) {
    // gamma 2, var 0, eps 0.25: factor 2 / sqrt(0.25) = 4; bias (0.5 - 0) * 4 + beta 1 = 3.
    std::vector<float> w{1, 2, -1, 0.5f}, b{0.5f, 0};
    k210::fold_batch_norm(w, b, {2, 1}, {1, -1}, {0, 1}, {0, 3}, 0.25f);
    // Channel 1: factor 1 / sqrt(3.25); bias (0 - 1) · factor - 1.
    const float f1 = static_cast<float>(1 / std::sqrt(3.25));
    EXPECT_EQ(w[0], 4);
    EXPECT_EQ(w[1], 8);
    EXPECT_FLOAT_EQ(w[2], -f1);
    EXPECT_FLOAT_EQ(w[3], 0.5f * f1);
    EXPECT_EQ(b[0], 3);
    EXPECT_FLOAT_EQ(b[1], -f1 - 1);
}

// Every activation over its range, for BN scales from fine to coarse: the table's output is
// within 1 LSB of round(f(v) / s_out + z_out) everywhere, and exact for ReLU at v <= 0.
TEST(Quantize, ActivationTablesStayWithinOneLsb) {
    Activation relu{Activation::Kind::Relu}, leaky{Activation::Kind::LeakyRelu, 0.1},
        relu6{Activation::Kind::Clip, 0, 0, 6}, linear{Activation::Kind::Linear};
    struct Case {
        Activation act;
        double lo, hi;
    };
    const Case cases[] = {{relu, -3, 5}, {leaky, -4, 4}, {relu6, -2, 9}, {linear, -2.5, 1.5}};
    for (const Case& c : cases) {
        for (double bn_scale : {1e-7, 1e-5, 1e-3}) {
            const k210::QuantParams out =
                k210::quant_params_u8(c.act.apply(c.lo), c.act.apply(c.hi));
            int err = -1;
            const kpu::ActTable t = k210::fit_activation(c.act, bn_scale, out, c.lo, c.hi, &err);
            EXPECT_LE(err, 1) << c.act.name() << " bn_scale " << bn_scale;
            EXPECT_EQ(t[0].x_start, -(int64_t{1} << 35));
            if (c.act.kind == Activation::Kind::Relu) {
                EXPECT_EQ(kpu::activate(-1000, t, {}), 0);
                EXPECT_EQ(kpu::activate(0, t, {}), 0);
            }
        }
    }
}

// ReLU with output scale 1/255 and BN unit 1e-5: one output LSB per 392.16 BN units; the
// table is the constant 0 below 0, one line from 0 with bias 0, the constant 255 from 1.0.
TEST(Quantize, ReluTableWorkedByHand) {
    const k210::QuantParams out{1.0 / 255, 0};
    const kpu::ActTable t =
        k210::fit_activation({Activation::Kind::Relu}, 1e-5, out, -1, 1, nullptr);
    EXPECT_EQ(t[0].y_mul, 0);
    EXPECT_EQ(t[0].bias, 0);
    EXPECT_EQ(t[1].x_start, 0);
    EXPECT_EQ(t[1].bias, 0);
    // slope 255e-5 LSB per unit = y_mul / 2^shift with y_mul in 16384..32767
    EXPECT_NEAR(t[1].y_mul / std::ldexp(1.0, static_cast<int>(t[1].shift)), 255e-5,
                255e-5 * 0.5 / 16384);  // half a y_mul step
    EXPECT_GE(t[1].y_mul, 16384);
    EXPECT_EQ(kpu::activate(100001, t, {}), 255);  // 1.0 -> 255
    EXPECT_EQ(kpu::activate(50000, t, {}), 128);   // 0.5 -> 127.5 -> 128 (half to even)
    EXPECT_EQ(kpu::activate(49804, t, {}), 127);   // 127.0002
    // From 1.0 (v = 100000, output 255) on, a constant 255; unused segments never match.
    EXPECT_EQ(t[2].x_start, 100000);
    EXPECT_EQ(t[2].y_mul, 0);
    EXPECT_EQ(t[2].bias, 255);
    EXPECT_EQ(t[3].x_start, (int64_t{1} << 35) - 1);
}

// The BN stage reproduces the input x weight scale per channel to 2^-20 relative, and the
// zero points fold into arg_x / arg_w / arg_add as Σ(x - Zx)(w - 128).
TEST(Quantize, ConvFoldsScalesAndZeroPoints) {
    std::mt19937 rng(4);
    std::normal_distribution<float> n(0, 0.3f);
    std::vector<float> w(4 * 3 * 9), b{0.1f, -0.2f, 0, 1.5f};
    for (float& v : w) {
        v = n(rng);
    }
    const k210::QuantParams in = k210::quant_params_u8(-1, 2), out = k210::quant_params_u8(0, 4);
    const k210::QuantizedConv q =
        k210::quantize_conv(w, b, 4, 3, false, in, out, {Activation::Kind::Relu}, -3, 4);
    EXPECT_EQ(q.arg_x, -128);
    EXPECT_EQ(q.arg_w, -in.zero_point);
    EXPECT_EQ(q.arg_add, 9 * 128 * in.zero_point);
    EXPECT_EQ(q.pad_value, in.zero_point);
    for (size_t c = 0; c < 4; ++c) {
        const double want = in.scale * q.weight_scales[c] / q.bn_scale;
        EXPECT_NEAR(q.bn[c].mul / 32768.0, want, want * std::ldexp(1.0, -20));
        EXPECT_LT(std::abs(q.bn[c].mul), 1 << 23);
        EXPECT_NEAR(q.bn[c].add * q.bn_scale, b[c], q.bn_scale);
    }
    EXPECT_LE(q.max_act_error_lsb, 1);
}

}  // namespace
}  // namespace npu::test
