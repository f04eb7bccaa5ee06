// int8 as dlquantizer chooses it: power-of-two exponents from ranges, worked by hand; a
// calibrated network's float equivalent; the exponent of a range.
#include <cmath>

#include <gtest/gtest.h>

#include "models/dlp/dlp_chain.h"
#include "models/dlp/dlp_func.h"
#include "platforms/dlp/dlp_quantize.h"
#include "sim/core/error.h"

namespace npu::test {
namespace {

using namespace dlp;

TEST(DlpQuantize, TheExponentHoldsTheRangeIn127) {
    EXPECT_EQ(pow2_exponent(1.0), -6);     // 1 / 2^-6 = 64; 2^-7 would give 128
    EXPECT_EQ(pow2_exponent(127.0), 0);    // exactly 127
    EXPECT_EQ(pow2_exponent(127.5), 1);    // 63.75 at 2^1
    EXPECT_EQ(pow2_exponent(0.25), -8);    // 64 at 2^-8
    EXPECT_EQ(pow2_exponent(0.0), 0);      // nothing to hold
    EXPECT_EQ(pow2_exponent(1e-30), -31);  // clamped to the record's range
}

TEST(DlpQuantize, ExponentsWeightsAndBiasFromRangesWorkedByHand) {
    // One 1x1 conv of 2 -> 1 channels on a 1x2 map: w = [0.5, -0.25], b = 0.1, ReLU; one
    // calibration sample.
    Network n;
    n.name = "q";
    n.input = {2, 1, 2};
    Layer l;
    l.name = "c";
    l.kind = LayerKind::conv;
    l.conv.out_c = 1, l.conv.kernel_h = l.conv.kernel_w = 1;
    l.conv.activation = Activation::relu;
    l.weights = {0.5f, -0.25f};
    l.bias = {0.1f};
    n.layers.push_back(l);
    DlpConfig cfg;
    check_network(n, cfg);
    // Sample CHW: channel 0 = [1, 0.5], channel 1 = [-0.5, 1]. Outputs: 0.5·1 − 0.25·(−0.5) + 0.1
    // = 0.725; 0.5·0.5 − 0.25·1 + 0.1 = 0.1. Range: input 1 -> 2^-6; output 0.725 -> 2^-7
    // (92.8); weights 0.5 -> 2^-7 (64, −32); bias 0.1 at 2^(−6 − 7) = 819.2 -> 819.
    quantize_network(n, {{1.0f, 0.5f, -0.5f, 1.0f}});
    const Layer& q = n.layers[0];
    EXPECT_EQ(n.input_exp, -6);
    EXPECT_EQ(q.quant.in_exp, -6);
    EXPECT_EQ(q.quant.out_exp, -7);
    EXPECT_EQ(q.quant.w_exp, -7);
    EXPECT_EQ(q.weights_q, (std::vector<int8_t>{64, -32}));
    EXPECT_EQ(q.bias_q, (std::vector<int32_t>{819}));
    // The int8 run: x = [64, 32, -32, 64]; acc = 819 + 64·64 − 32·(−32) = 5939 at 2^-13 and
    // 819 + 64·32 − 32·64 = 819; to 2^-7: 5939 / 64 = 92.8 -> 93, 819 / 64 = 12.8 -> 13.
    const auto y = run_chain_int8(n, {64, 32, -32, 64});
    EXPECT_EQ(y[0], (std::vector<int8_t>{93, 13}));
    // The float equivalent: w = 64·2^-7 = 0.5, −0.25; b = 819·2^-13.
    const Network f = float_equivalent(n);
    EXPECT_EQ(f.layers[0].weights, (std::vector<float>{0.5f, -0.25f}));
    EXPECT_FLOAT_EQ(f.layers[0].bias[0], 819.0f / 8192.0f);
}

TEST(DlpQuantize, WithoutSamplesOnlyTheWeightsDecide) {
    Network n;
    n.input = {1, 1, 1};
    Layer l;
    l.kind = LayerKind::fc;
    l.fc.out = 1;
    l.weights = {2.0f};
    l.bias = {0.0f};
    n.layers.push_back(l);
    DlpConfig cfg;
    check_network(n, cfg);
    quantize_network(n, {});
    EXPECT_EQ(n.input_exp, 0);
    EXPECT_EQ(n.layers[0].quant.out_exp, 0);
    EXPECT_EQ(n.layers[0].quant.w_exp, -5);  // 2 / 2^-5 = 64
    EXPECT_EQ(n.layers[0].weights_q, std::vector<int8_t>{64});
}

// A parameter with no int8 value (a NaN from a damaged model) is one error, not a conversion
// of NaN to an integer (undefined behaviour).
TEST(DlpQuantize, ANonFiniteParameterIsOneError) {
    Network n;
    n.name = "q";
    n.input = {1, 1, 1};
    Layer l;
    l.name = "f";
    l.kind = LayerKind::fc;
    l.fc.out = 1;
    l.weights = {std::nanf("")};
    l.bias = {0.0f};
    n.layers.push_back(l);
    DlpConfig cfg;
    check_network(n, cfg);
    try {
        quantize_network(n, {});
        FAIL() << "no error";
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(), "q: layer 'f' has a parameter that is not a finite number (nan)");
    }
}

}  // namespace
}  // namespace npu::test
