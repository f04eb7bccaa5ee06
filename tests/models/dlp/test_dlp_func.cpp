// The DL processor's modules: hand-worked cases, the conv and fc datapaths against plain
// double-precision loops (single) and an independent integer reference (int8, exact) on random
// layers, pooling, the adder, the rescaling's rounding and saturation, and layer errors.
#include <cmath>
#include <random>

#include <gtest/gtest.h>

#include "models/dlp/dlp_func.h"
#include "models/dlp/dlp_network.h"
#include "sim/core/error.h"

namespace npu::test {
namespace {

using dlp::Activation;
using dlp::ConvLayer;

TEST(DlpFunc, ConvWorkedByHand) {
    // 1x3x3 input 1..9, a 3x3 kernel of ones, pad 1: centre 45, corner 1 + 2 + 4 + 5 = 12; bias 1.
    ConvLayer l;
    l.in_c = 1, l.in_h = 3, l.in_w = 3, l.out_c = 1;
    l.pad_top = l.pad_bottom = l.pad_left = l.pad_right = 1;
    const std::vector<float> in = {1, 2, 3, 4, 5, 6, 7, 8, 9}, w(9, 1.0f), b = {1};
    const std::vector<float> out = dlp::conv_single(l, in.data(), w.data(), b.data());
    ASSERT_EQ(out.size(), 9u);
    EXPECT_EQ(out[4], 46.0f);
    EXPECT_EQ(out[0], 13.0f);
    EXPECT_EQ(out[8], 5 + 6 + 8 + 9 + 1.0f);
    // stride 2 without padding on a 5x5 ramp: outputs at (0,0), (0,2), (2,0), (2,2)
    l.in_h = l.in_w = 5, l.stride_h = l.stride_w = 2;
    l.pad_top = l.pad_bottom = l.pad_left = l.pad_right = 0;
    std::vector<float> ramp(25);
    for (size_t i = 0; i < 25; ++i) {
        ramp[i] = static_cast<float>(i);
    }
    const std::vector<float> s = dlp::conv_single(l, ramp.data(), w.data(), b.data());
    ASSERT_EQ(s.size(), 4u);
    EXPECT_EQ(s[0], (0 + 1 + 2 + 5 + 6 + 7 + 10 + 11 + 12) + 1.0f);  // 54 + 1
    EXPECT_EQ(s[3], 9 * 18 + 1.0f);                                  // the window centred on 18
}

TEST(DlpFunc, PoolingAndActivationsWorkedByHand) {
    // 1x4x4 input, 1x1 identity conv, relu, 2x2 max pool and average pool.
    ConvLayer l;
    l.in_c = 1, l.in_h = 4, l.in_w = 4, l.out_c = 1, l.kernel_h = l.kernel_w = 1;
    l.activation = Activation::relu;
    l.pool = dlp::PoolType::max;
    const std::vector<float> in = {1, -2, 3, 4, 5, 6, -7, 8, -9, 10, 11, 12, 13, 14, 15, -16};
    const float w = 1, b = 0;
    EXPECT_EQ(dlp::conv_single(l, in.data(), &w, &b), (std::vector<float>{6, 8, 14, 15}));
    l.pool = dlp::PoolType::average;  // after relu: (1 + 0 + 5 + 6) / 4 = 3, (3 + 4 + 0 + 8) / 4
    EXPECT_EQ(dlp::conv_single(l, in.data(), &w, &b), (std::vector<float>{3, 3.75f, 9.25f, 9.5f}));
    l.pool = dlp::PoolType::none;
    l.activation = Activation::clipped_relu, l.clip_ceiling = 6;
    EXPECT_EQ(dlp::conv_single(l, in.data(), &w, &b)[7], 6.0f);  // 8 clipped
    l.activation = Activation::leaky_relu, l.leaky_slope = 0.5f;
    EXPECT_EQ(dlp::conv_single(l, in.data(), &w, &b)[1], -1.0f);  // −2 · 0.5
}

TEST(DlpFunc, RequantizeRoundsHalfAwayFromZeroAndSaturates) {
    EXPECT_EQ(dlp::requantize(5, 1), 3);    // 2.5
    EXPECT_EQ(dlp::requantize(-5, 1), -3);  // −2.5
    EXPECT_EQ(dlp::requantize(3, 1), 2);    // 1.5
    EXPECT_EQ(dlp::requantize(-4, 2), -1);  // −1
    EXPECT_EQ(dlp::requantize(300, 0), 127);
    EXPECT_EQ(dlp::requantize(-40, -2), -128);  // −160 saturates
    EXPECT_EQ(dlp::requantize(7, -2), 28);
}

struct RandomConv {
    ConvLayer l;
    std::vector<float> in, w, b;
};

RandomConv random_conv(std::mt19937& rng) {
    auto pick = [&](int64_t lo, int64_t hi) {
        return lo + static_cast<int64_t>(rng() % static_cast<uint64_t>(hi - lo + 1));
    };
    RandomConv r;
    ConvLayer& l = r.l;
    l.kernel_h = pick(1, 7), l.kernel_w = pick(1, 7);
    l.stride_h = pick(1, 3), l.stride_w = pick(1, 3);
    l.pad_top = pick(0, l.kernel_h / 2), l.pad_bottom = pick(0, l.kernel_h / 2);
    l.pad_left = pick(0, l.kernel_w / 2), l.pad_right = pick(0, l.kernel_w / 2);
    l.in_h = pick(l.kernel_h, 12), l.in_w = pick(l.kernel_w, 12);
    const int kind = static_cast<int>(rng() % 3);
    l.groups = kind == 0 ? 1 : (kind == 1 ? pick(1, 3) : 0);
    l.in_c = pick(1, 4) * (l.groups == 0 ? 1 : l.groups);
    if (l.groups == 0) {  // depthwise
        l.groups = l.in_c;
    }
    l.out_c = l.groups * pick(1, 3);
    l.activation = static_cast<Activation>(rng() % 4);
    l.pool = static_cast<dlp::PoolType>(rng() % 3);
    if (l.conv_h() < 2 || l.conv_w() < 2) {
        l.pool = dlp::PoolType::none;
    }
    std::uniform_real_distribution<float> u(-1, 1);
    r.in.resize(static_cast<size_t>(l.in_c * l.in_h * l.in_w));
    r.w.resize(static_cast<size_t>(l.out_c * (l.in_c / l.groups) * l.kernel_h * l.kernel_w));
    r.b.resize(static_cast<size_t>(l.out_c));
    for (auto* v : {&r.in, &r.w, &r.b}) {
        for (float& x : *v) {
            x = u(rng);
        }
    }
    return r;
}

// Plain loops in double: an explicitly zero-padded input, every output, every tap.
std::vector<double> conv_reference(const ConvLayer& l, const std::vector<float>& in,
                                   const std::vector<float>& w, const std::vector<float>& b) {
    const int64_t ph = l.in_h + l.pad_top + l.pad_bottom, pw = l.in_w + l.pad_left + l.pad_right;
    std::vector<double> padded(static_cast<size_t>(l.in_c * ph * pw), 0.0);
    for (int64_t c = 0; c < l.in_c; ++c) {
        for (int64_t y = 0; y < l.in_h; ++y) {
            for (int64_t x = 0; x < l.in_w; ++x) {
                padded[static_cast<size_t>((c * ph + y + l.pad_top) * pw + x + l.pad_left)] =
                    in[static_cast<size_t>((c * l.in_h + y) * l.in_w + x)];
            }
        }
    }
    const int64_t oh = (ph - l.kernel_h) / l.stride_h + 1, ow = (pw - l.kernel_w) / l.stride_w + 1;
    const int64_t gic = l.in_c / l.groups, goc = l.out_c / l.groups;
    std::vector<double> conv;
    for (int64_t oc = 0; oc < l.out_c; ++oc) {
        for (int64_t oy = 0; oy < oh; ++oy) {
            for (int64_t ox = 0; ox < ow; ++ox) {
                double a = b[static_cast<size_t>(oc)];
                for (int64_t ic = 0; ic < gic; ++ic) {
                    for (int64_t ky = 0; ky < l.kernel_h; ++ky) {
                        for (int64_t kx = 0; kx < l.kernel_w; ++kx) {
                            const int64_t c = (oc / goc) * gic + ic;
                            a += padded[static_cast<size_t>((c * ph + oy * l.stride_h + ky) * pw +
                                                            ox * l.stride_w + kx)] *
                                 static_cast<double>(w[static_cast<size_t>(
                                     ((oc * gic + ic) * l.kernel_h + ky) * l.kernel_w + kx)]);
                        }
                    }
                }
                if (l.activation == Activation::relu) {
                    a = std::max(a, 0.0);
                } else if (l.activation == Activation::leaky_relu) {
                    a = a > 0 ? a : a * static_cast<double>(l.leaky_slope);
                } else if (l.activation == Activation::clipped_relu) {
                    a = std::min(std::max(a, 0.0), static_cast<double>(l.clip_ceiling));
                }
                conv.push_back(a);
            }
        }
    }
    if (l.pool == dlp::PoolType::none) {
        return conv;
    }
    std::vector<double> out;
    for (int64_t c = 0; c < l.out_c; ++c) {
        for (int64_t py = 0; py < l.out_h(); ++py) {
            for (int64_t px = 0; px < l.out_w(); ++px) {
                double best = -1e300, sum = 0;
                int n = 0;
                for (int64_t y = py * l.pool_stride_h; y < py * l.pool_stride_h + l.pool_h; ++y) {
                    for (int64_t x = px * l.pool_stride_w; x < px * l.pool_stride_w + l.pool_w;
                         ++x) {
                        if (y < oh && x < ow) {
                            const double v = conv[static_cast<size_t>((c * oh + y) * ow + x)];
                            best = std::max(best, v), sum += v, ++n;
                        }
                    }
                }
                out.push_back(l.pool == dlp::PoolType::max ? best : sum / n);
            }
        }
    }
    return out;
}

TEST(DlpFunc, SingleConvMatchesPlainLoopsOnRandomLayers) {
    std::mt19937 rng(31);
    for (int t = 0; t < 300; ++t) {
        const RandomConv r = random_conv(rng);
        const std::vector<float> got = dlp::conv_single(r.l, r.in.data(), r.w.data(), r.b.data());
        const std::vector<double> want = conv_reference(r.l, r.in, r.w, r.b);
        ASSERT_EQ(got.size(), want.size()) << t;
        for (size_t i = 0; i < got.size(); ++i) {
            ASSERT_NEAR(got[i], want[i], 1e-5 * (1 + std::abs(want[i]))) << t << " " << i;
        }
    }
}

TEST(DlpFunc, Int8ConvMatchesAnIntegerReference) {
    // Quantize random layers to int8 (exponents −6 in, −7 weights, −5 out) and compare with the
    // reference integer arithmetic: exact int64 sums, round half away from zero via division.
    std::mt19937 rng(32);
    dlp::Int8Quant q;
    q.in_exp = -6, q.w_exp = -7, q.out_exp = -5;
    for (int t = 0; t < 200; ++t) {
        RandomConv r = random_conv(rng);
        if (r.l.activation == Activation::leaky_relu) {
            r.l.activation = Activation::relu;
        }
        r.l.pool = dlp::PoolType::none;
        std::vector<int8_t> in(r.in.size()), w(r.w.size());
        std::vector<int32_t> b(r.b.size());
        for (size_t i = 0; i < in.size(); ++i) {
            in[i] = static_cast<int8_t>(std::lround(r.in[i] * 64));
        }
        for (size_t i = 0; i < w.size(); ++i) {
            w[i] = static_cast<int8_t>(std::lround(r.w[i] * 127));
        }
        for (size_t i = 0; i < b.size(); ++i) {
            b[i] = static_cast<int32_t>(std::lround(r.b[i] * 8192));
        }
        const std::vector<int8_t> got = dlp::conv_int8(r.l, q, in.data(), w.data(), b.data());
        // Reference: the double reference on the integers is exact (sums < 2^53), then rescale.
        std::vector<float> fin(in.begin(), in.end()), fw(w.begin(), w.end()),
            fb(b.begin(), b.end());
        ConvLayer plain = r.l;
        plain.activation = Activation::none;
        const std::vector<double> acc = conv_reference(plain, fin, fw, fb);
        ASSERT_EQ(got.size(), acc.size());
        for (size_t i = 0; i < acc.size(); ++i) {
            const auto s = static_cast<int64_t>(acc[i]);  // at exponent −13; out −5: 2^-8
            const int64_t mag = (std::abs(s) + 128) / 256;
            int64_t v = std::clamp<int64_t>(s < 0 ? -mag : mag, -128, 127);
            if (r.l.activation == Activation::relu) {
                v = std::max<int64_t>(v, 0);
            } else if (r.l.activation == Activation::clipped_relu) {
                v = std::clamp<int64_t>(v, 0, 127);
            }
            ASSERT_EQ(got[i], v) << t << " " << i;
        }
    }
}

TEST(DlpFunc, FullyConnectedAndItsOutputs) {
    dlp::FcLayer l;
    l.in = 3, l.out = 2;
    const std::vector<float> x = {1, 2, 3}, w = {1, 0, -1, 0.5f, 0.5f, 0.5f}, b = {0, 1};
    EXPECT_EQ(dlp::fc_single(l, x.data(), w.data(), b.data()), (std::vector<float>{-2, 4}));
    l.output = dlp::FcLayer::Output::softmax;
    const std::vector<float> s = dlp::fc_single(l, x.data(), w.data(), b.data());
    EXPECT_FLOAT_EQ(s[0] + s[1], 1.0f);
    EXPECT_FLOAT_EQ(s[1], 1.0f / (1.0f + std::exp(-6.0f)));
    l.output = dlp::FcLayer::Output::sigmoid;
    EXPECT_FLOAT_EQ(dlp::fc_single(l, x.data(), w.data(), b.data())[0],
                    1.0f / (1.0f + std::exp(2.0f)));
    // int8: x at 2^-1, W at 2^-2, out at 2^-1: acc = 2 + 0 − 6 = −4 at 2^-3 -> −1 at 2^-1
    dlp::FcLayer li;
    li.in = 3, li.out = 1;
    dlp::Int8Quant q;
    q.in_exp = -1, q.w_exp = -2, q.out_exp = -1;
    const std::vector<int8_t> xi = {2, 4, 6}, wi = {1, 0, -1};
    const int32_t bi = 0;
    EXPECT_EQ(dlp::fc_int8(li, q, xi.data(), wi.data(), &bi), (std::vector<int8_t>{-1}));
}

TEST(DlpFunc, AdderAlignsExponents) {
    // a = 10 · 2^-2 = 2.5, b = 3 · 2^-1 = 1.5; sum 4.0 = 16 · 2^-2; product 3.75 = 15 · 2^-2.
    const int8_t a = 10, b = 3;
    EXPECT_EQ(dlp::adder_int8(dlp::AdderOp::add, &a, -2, &b, -1, -2, 1)[0], 16);
    EXPECT_EQ(dlp::adder_int8(dlp::AdderOp::multiply, &a, -2, &b, -1, -2, 1)[0], 15);
    // Negative values align too (once a left shift of a negative value, undefined in C++17):
    // −3 · 2^-1 + −5 · 2^-2 = −2.75 = −11 · 2^-2.
    const int8_t na = -3, nb = -5;
    EXPECT_EQ(dlp::adder_int8(dlp::AdderOp::add, &na, -1, &nb, -2, -2, 1)[0], -11);
    const float fa[] = {1.5f, -2}, fb[] = {2, 1};
    EXPECT_EQ(dlp::adder_single(dlp::AdderOp::add, fa, fb, 2, Activation::relu),
              (std::vector<float>{3.5f, 0}));
}

TEST(DlpFunc, LayersTheModuleCannotRunAreErrors) {
    ConvLayer l;
    l.kernel_h = 9, l.in_c = 3, l.groups = 2;
    try {
        dlp::check(l);
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "conv layer: kernel_h is 9, expected 1..7; groups is 2, expected a divisor of "
                     "in_c (3) and out_c (1)");
    }
}

// Pool padding is smaller than the window on every side, so no window is padding alone (an
// average of zero values once divided by zero: fuzz_dlp_run, a network YAML with pool_size 2,
// pool_padding 2).
TEST(DlpFunc, PoolPaddingAsWideAsTheWindowIsAnError) {
    ConvLayer l;
    l.in_c = l.out_c = 1, l.in_h = l.in_w = 8, l.kernel_h = l.kernel_w = 1;
    l.pool = dlp::PoolType::average, l.pool_stride_h = l.pool_stride_w = 4;
    l.pool_pad_top = l.pool_pad_left = 1;
    EXPECT_NO_THROW(dlp::check(l));  // 2x2 windows, padding 1
    l.pool_pad_left = 2;
    try {
        dlp::check(l);
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(), "conv layer: pool_pad_left is 2, expected 0..1");
    }
}

TEST(DlpFunc, BatchNormFoldsIntoWeightsAndBias) {
    // w = 2, b = 1, gamma 3, beta 0.5, mean 1, variance 3, epsilon 1: s = 3 / √4 = 1.5,
    // w' = 3, b' = (1 − 1) · 1.5 + 0.5 = 0.5. On x = 2: BN(2·2 + 1) = 1.5 · (5 − 1) + 0.5 = 6.5.
    dlp::Layer l;
    l.conv.in_c = 1, l.conv.in_h = 1, l.conv.in_w = 1, l.conv.out_c = 1;
    l.conv.kernel_h = l.conv.kernel_w = 1;
    l.weights = {2}, l.bias = {1};
    l.batch_norm = {{3}, {0.5f}, {1}, {3}, 1.0f};
    dlp::fold_batch_norm(l);
    EXPECT_EQ(l.weights[0], 3.0f);
    EXPECT_EQ(l.bias[0], 0.5f);
    const float x = 2;
    EXPECT_EQ(dlp::conv_single(l.conv, &x, l.weights.data(), l.bias.data())[0], 6.5f);
    EXPECT_TRUE(l.batch_norm.gamma.empty());
}

TEST(DlpFunc, FullyConnectedAndAdderMatchPlainLoopsOnRandomLayers) {
    std::mt19937 rng(33);
    std::uniform_real_distribution<float> u(-1, 1);
    for (int t = 0; t < 100; ++t) {
        dlp::FcLayer l;
        l.in = 1 + static_cast<int64_t>(rng() % 300), l.out = 1 + static_cast<int64_t>(rng() % 40);
        l.activation = static_cast<Activation>(rng() % 4);
        std::vector<float> x(static_cast<size_t>(l.in)), w(static_cast<size_t>(l.in * l.out)),
            b(static_cast<size_t>(l.out));
        for (auto* v : {&x, &w, &b}) {
            for (float& e : *v) {
                e = u(rng);
            }
        }
        const std::vector<float> y = dlp::fc_single(l, x.data(), w.data(), b.data());
        for (int64_t o = 0; o < l.out; ++o) {
            double a = b[static_cast<size_t>(o)];
            for (int64_t i = 0; i < l.in; ++i) {
                a += static_cast<double>(x[static_cast<size_t>(i)]) *
                     static_cast<double>(w[static_cast<size_t>(o * l.in + i)]);
            }
            if (l.activation == Activation::relu || l.activation == Activation::clipped_relu) {
                a = std::max(a, 0.0);
            } else if (l.activation == Activation::leaky_relu && a < 0) {
                a *= static_cast<double>(l.leaky_slope);
            }
            if (l.activation == Activation::clipped_relu) {
                a = std::min(a, static_cast<double>(l.clip_ceiling));
            }
            ASSERT_NEAR(y[static_cast<size_t>(o)], a, 1e-5 * (1 + std::abs(a))) << t;
        }
        const std::vector<float> s = dlp::adder_single(dlp::AdderOp::multiply, x.data(), x.data(),
                                                       x.size(), Activation::none);
        for (size_t i = 0; i < x.size(); ++i) {
            ASSERT_EQ(s[i], x[i] * x[i]);
        }
    }
}

}  // namespace
}  // namespace npu::test
