// Compiled with -ffp-contract=off (CMakeLists.txt): the single-precision accumulation is a
// separate multiply and add per term, in the documented order.
#include "models/dlp/dlp_func.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::dlp {

namespace {

// Windows of k at stride s over the padded extent; 0 when one window does not fit (the division
// truncates toward zero, so a negative numerator must not reach it).
int64_t pool_size(int64_t in, int64_t k, int64_t s, int64_t pa, int64_t pb) {
    return in + pa + pb < k ? 0 : (in + pa + pb - k) / s + 1;
}

float activate(float v, Activation a, float slope, float ceiling) {
    switch (a) {
    case Activation::relu: return v > 0 ? v : 0.0f;
    case Activation::leaky_relu: return v > 0 ? v : v * slope;
    case Activation::clipped_relu: return std::min(std::max(v, 0.0f), ceiling);
    case Activation::none: break;
    }
    return v;
}

int8_t activate_int8(int8_t v, Activation a, const Int8Quant& q) {
    switch (a) {
    case Activation::relu: return v > 0 ? v : int8_t{0};
    case Activation::leaky_relu:
        return v >= 0 ? v : requantize(int64_t{v} * q.leaky_mul, q.leaky_shift);
    case Activation::clipped_relu: return std::min(std::max(v, int8_t{0}), q.clip_ceiling);
    case Activation::none: break;
    }
    return v;
}

// Rounds sum / count half away from zero.
int64_t div_round(int64_t sum, int64_t count) {
    return sum >= 0 ? (2 * sum + count) / (2 * count) : -((-2 * sum + count) / (2 * count));
}

int64_t saturate32(int64_t v) {
    return std::clamp<int64_t>(v, std::numeric_limits<int32_t>::min(),
                               std::numeric_limits<int32_t>::max());
}

// Pooling of an activated conv output (c, h, w) -> (c, out_h, out_w). Max ignores padding;
// average divides by the window's in-bounds count.
template <typename T, typename Avg>
std::vector<T> pool(const ConvLayer& l, const std::vector<T>& in, Avg&& average) {
    if (l.pool == PoolType::none) {
        return in;
    }
    const int64_t h = l.conv_h(), w = l.conv_w(), oh = l.out_h(), ow = l.out_w();
    std::vector<T> out(static_cast<size_t>(l.out_c * oh * ow));
    for (int64_t c = 0; c < l.out_c; ++c) {
        for (int64_t oy = 0; oy < oh; ++oy) {
            for (int64_t ox = 0; ox < ow; ++ox) {
                double sum = 0;
                int64_t isum = 0, count = 0;
                T best = std::numeric_limits<T>::lowest();
                for (int64_t ky = 0; ky < l.pool_h; ++ky) {
                    for (int64_t kx = 0; kx < l.pool_w; ++kx) {
                        const int64_t y = oy * l.pool_stride_h - l.pool_pad_top + ky;
                        const int64_t x = ox * l.pool_stride_w - l.pool_pad_left + kx;
                        if (y < 0 || y >= h || x < 0 || x >= w) {
                            continue;
                        }
                        const T v = in[static_cast<size_t>((c * h + y) * w + x)];
                        best = std::max(best, v);
                        sum += static_cast<double>(v);
                        isum += static_cast<int64_t>(v);
                        ++count;
                    }
                }
                out[static_cast<size_t>((c * oh + oy) * ow + ox)] =
                    l.pool == PoolType::max ? best : average(sum, isum, count);
            }
        }
    }
    return out;
}

}  // namespace

int64_t ConvLayer::out_h() const {
    return pool == PoolType::none
               ? conv_h()
               : pool_size(conv_h(), pool_h, pool_stride_h, pool_pad_top, pool_pad_bottom);
}

int64_t ConvLayer::out_w() const {
    return pool == PoolType::none
               ? conv_w()
               : pool_size(conv_w(), pool_w, pool_stride_w, pool_pad_left, pool_pad_right);
}

uint64_t ConvLayer::macs() const {
    return static_cast<uint64_t>(out_c * conv_h() * conv_w() * kernel_h * kernel_w *
                                 (in_c / groups));
}

namespace {

// A layer's problems, all at once: "<what>: first; second; ...".
struct Problems {
    std::vector<std::string> p;
    void range(const char* name, int64_t v, int64_t lo, int64_t hi) {
        if (v < lo || v > hi) {
            p.push_back(fmt::format("{} is {}, expected {}..{}", name, v, lo, hi));
        }
    }
    bool empty() const { return p.empty(); }
    void push_back(std::string s) { p.push_back(std::move(s)); }
    void throw_if_any(const char* what) const {
        if (p.empty()) {
            return;
        }
        std::string msg = std::string(what) + ": " + p.front();
        for (size_t i = 1; i < p.size(); ++i) {
            msg += "; " + p[i];
        }
        throw sim::Error(msg);
    }
};

void check_input(Problems& p, const ConvLayer& l) {
    p.range("in_c", l.in_c, 1, 1 << 16);
    p.range("in_h", l.in_h, 1, 1 << 14);
    p.range("in_w", l.in_w, 1, 1 << 14);
}

// The pooling window, stride (1..largest) and padding: smaller than the window, so every window
// holds an input (average pooling divides by the in-bounds count; fuzz_dlp_run once found a
// window of padding alone).
void check_pool_window(Problems& p, const ConvLayer& l, int64_t largest) {
    p.range("pool_h", l.pool_h, 1, largest);
    p.range("pool_w", l.pool_w, 1, largest);
    p.range("pool_stride_h", l.pool_stride_h, 1, largest);
    p.range("pool_stride_w", l.pool_stride_w, 1, largest);
    p.range("pool_pad_top", l.pool_pad_top, 0, l.pool_h - 1);
    p.range("pool_pad_bottom", l.pool_pad_bottom, 0, l.pool_h - 1);
    p.range("pool_pad_left", l.pool_pad_left, 0, l.pool_w - 1);
    p.range("pool_pad_right", l.pool_pad_right, 0, l.pool_w - 1);
}

}  // namespace

void check(const ConvLayer& l) {
    Problems p;
    auto range = [&](const char* name, int64_t v, int64_t lo, int64_t hi) {
        p.range(name, v, lo, hi);
    };
    check_input(p, l);
    range("out_c", l.out_c, 1, 1 << 16);
    range("kernel_h", l.kernel_h, 1, 7);
    range("kernel_w", l.kernel_w, 1, 7);
    range("stride_h", l.stride_h, 1, 7);
    range("stride_w", l.stride_w, 1, 7);
    for (const auto& [n, v] : {std::pair<const char*, int64_t>{"pad_top", l.pad_top},
                               {"pad_bottom", l.pad_bottom},
                               {"pad_left", l.pad_left},
                               {"pad_right", l.pad_right}}) {
        range(n, v, 0, 7);
    }
    if (l.groups < 1 || l.in_c % l.groups != 0 || l.out_c % l.groups != 0) {
        p.push_back(fmt::format("groups is {}, expected a divisor of in_c ({}) and out_c ({})",
                                l.groups, l.in_c, l.out_c));
    }
    if (p.empty() && (l.conv_h() < 1 || l.conv_w() < 1)) {
        p.push_back(fmt::format("the {}x{} kernel does not fit the padded {}x{} input", l.kernel_h,
                                l.kernel_w, l.in_h + l.pad_top + l.pad_bottom,
                                l.in_w + l.pad_left + l.pad_right));
    }
    if (p.empty() && l.pool != PoolType::none) {
        check_pool_window(p, l, 8);
        if (p.empty() && (l.out_h() < 1 || l.out_w() < 1)) {
            p.push_back("the pooling window does not fit the convolution output");
        }
    }
    p.throw_if_any("conv layer");
}

int32_t pow2_exponent(double max_abs) {
    if (!(max_abs > 0) || !std::isfinite(max_abs)) {
        return 0;
    }
    return std::clamp(static_cast<int32_t>(std::ceil(std::log2(max_abs / 127.0))), -31, 31);
}

int8_t requantize(int64_t v, int32_t shift) {
    int64_t r = v;
    if (shift > 0) {
        const int64_t half = int64_t{1} << (shift - 1);
        r = v >= 0 ? (v + half) >> shift : -((-v + half) >> shift);
    } else if (shift < 0) {
        r = v * (int64_t{1} << std::min(-shift, 30));
    }
    return static_cast<int8_t>(std::clamp<int64_t>(r, -128, 127));
}

// The convolution core, shared by both arithmetics: f(oc, oy, ox, each(ic, iy, ix, weight index)).
template <typename Acc>
void convolve(const ConvLayer& l, Acc&& acc) {
    const int64_t oh = l.conv_h(), ow = l.conv_w();
    const int64_t gic = l.in_c / l.groups, goc = l.out_c / l.groups;
    for (int64_t oc = 0; oc < l.out_c; ++oc) {
        const int64_t g = oc / goc;
        for (int64_t oy = 0; oy < oh; ++oy) {
            for (int64_t ox = 0; ox < ow; ++ox) {
                acc(oc, (oc * oh + oy) * ow + ox, [&](auto&& term) {
                    for (int64_t ic = 0; ic < gic; ++ic) {
                        for (int64_t ky = 0; ky < l.kernel_h; ++ky) {
                            const int64_t iy = oy * l.stride_h - l.pad_top + ky;
                            if (iy < 0 || iy >= l.in_h) {
                                continue;
                            }
                            for (int64_t kx = 0; kx < l.kernel_w; ++kx) {
                                const int64_t ix = ox * l.stride_w - l.pad_left + kx;
                                if (ix < 0 || ix >= l.in_w) {
                                    continue;
                                }
                                term(((g * gic + ic) * l.in_h + iy) * l.in_w + ix,
                                     ((oc * gic + ic) * l.kernel_h + ky) * l.kernel_w + kx);
                            }
                        }
                    }
                });
            }
        }
    }
}

std::vector<float> conv_single(const ConvLayer& l, const float* in, const float* weights,
                               const float* bias) {
    check(l);
    std::vector<float> out(static_cast<size_t>(l.out_c * l.conv_h() * l.conv_w()));
    convolve(l, [&](int64_t oc, int64_t o, auto&& each) {
        float a = 0.0f;
        each([&](int64_t i, int64_t w) { a = a + in[i] * weights[w]; });
        a = a + bias[oc];
        out[static_cast<size_t>(o)] = activate(a, l.activation, l.leaky_slope, l.clip_ceiling);
    });
    return pool(l, out, [](double sum, int64_t, int64_t count) {
        return static_cast<float>(sum) / static_cast<float>(count);
    });
}

std::vector<int8_t> conv_int8(const ConvLayer& l, const Int8Quant& q, const int8_t* in,
                              const int8_t* weights, const int32_t* bias) {
    check(l);
    std::vector<int8_t> out(static_cast<size_t>(l.out_c * l.conv_h() * l.conv_w()));
    const int32_t shift = q.out_exp - (q.in_exp + q.w_exp);
    convolve(l, [&](int64_t oc, int64_t o, auto&& each) {
        int64_t a = bias[oc];
        each([&](int64_t i, int64_t w) { a += int64_t{in[i]} * weights[w]; });
        out[static_cast<size_t>(o)] =
            activate_int8(requantize(saturate32(a), shift), l.activation, q);
    });
    return pool(l, out, [](double, int64_t sum, int64_t count) {
        return static_cast<int8_t>(div_round(sum, count));
    });
}

ConvLayer pool_geometry(ConvLayer l, int64_t c, int64_t h, int64_t w) {
    l.in_c = c, l.in_h = h, l.in_w = w, l.out_c = c;
    l.kernel_h = l.kernel_w = 1, l.stride_h = l.stride_w = 1;
    l.pad_top = l.pad_bottom = l.pad_left = l.pad_right = 0;
    l.groups = c;
    l.activation = Activation::none;
    return l;
}

void check_pool(const ConvLayer& l) {
    if (l.pool == PoolType::none) {
        throw sim::Error("pool layer: pool is none, expected max or average");
    }
    const ConvLayer g = pool_geometry(l, l.in_c, l.in_h, l.in_w);
    if (g.kernel_h != l.kernel_h || g.kernel_w != l.kernel_w || g.stride_h != l.stride_h ||
        g.stride_w != l.stride_w || g.groups != l.groups || g.out_c != l.out_c ||
        l.pad_top + l.pad_bottom + l.pad_left + l.pad_right != 0) {
        throw sim::Error("pool layer: the geometry is not the identity 1x1 of a pooling layer");
    }
    Problems p;
    check_input(p, l);
    check_pool_window(p, l, 255);  // the record's byte
    if (p.empty() && (l.out_h() < 1 || l.out_w() < 1)) {
        p.push_back(fmt::format("the {}x{} window does not fit the {}x{} input", l.pool_h, l.pool_w,
                                l.in_h, l.in_w));
    }
    p.throw_if_any("pool layer");
}

std::vector<float> pool_single(const ConvLayer& l, const float* in) {
    check_pool(l);
    const std::vector<float> x(in, in + l.in_c * l.in_h * l.in_w);
    return pool(l, x, [](double sum, int64_t, int64_t count) {
        return static_cast<float>(sum) / static_cast<float>(count);
    });
}

std::vector<int8_t> pool_int8(const ConvLayer& l, const Int8Quant& q, const int8_t* in) {
    check_pool(l);
    const std::vector<int8_t> x(in, in + l.in_c * l.in_h * l.in_w);
    std::vector<int8_t> out = pool(l, x, [](double, int64_t sum, int64_t count) {
        return static_cast<int8_t>(div_round(sum, count));
    });
    const int32_t shift = q.out_exp - q.in_exp;
    if (shift != 0) {
        for (int8_t& v : out) {
            v = requantize(v, shift);
        }
    }
    return out;
}

std::vector<float> fc_single(const FcLayer& l, const float* in, const float* weights,
                             const float* bias) {
    std::vector<float> y(static_cast<size_t>(l.out));
    for (int64_t o = 0; o < l.out; ++o) {
        float a = 0.0f;
        for (int64_t i = 0; i < l.in; ++i) {
            a = a + in[i] * weights[o * l.in + i];
        }
        a = a + bias[o];
        y[static_cast<size_t>(o)] = activate(a, l.activation, l.leaky_slope, l.clip_ceiling);
    }
    if (l.output == FcLayer::Output::softmax) {
        softmax_single(y);
    } else if (l.output == FcLayer::Output::sigmoid) {
        sigmoid_single(y);
    }
    return y;
}

void softmax_single(std::vector<float>& y) {
    if (y.empty()) {
        return;
    }
    const float m = *std::max_element(y.begin(), y.end());
    float sum = 0.0f;
    for (float& v : y) {
        v = std::exp(v - m);
        sum = sum + v;
    }
    for (float& v : y) {
        v = v / sum;
    }
}

void sigmoid_single(std::vector<float>& y) {
    for (float& v : y) {
        v = 1.0f / (1.0f + std::exp(-v));
    }
}

std::vector<int8_t> fc_int8(const FcLayer& l, const Int8Quant& q, const int8_t* in,
                            const int8_t* weights, const int32_t* bias) {
    if (l.output != FcLayer::Output::plain) {
        throw sim::Error("fc layer: softmax and sigmoid outputs need the single data type");
    }
    std::vector<int8_t> y(static_cast<size_t>(l.out));
    const int32_t shift = q.out_exp - (q.in_exp + q.w_exp);
    for (int64_t o = 0; o < l.out; ++o) {
        int64_t a = bias[o];
        for (int64_t i = 0; i < l.in; ++i) {
            a += int64_t{in[i]} * weights[o * l.in + i];
        }
        y[static_cast<size_t>(o)] =
            activate_int8(requantize(saturate32(a), shift), l.activation, q);
    }
    return y;
}

std::vector<float> adder_single(AdderOp op, const float* a, const float* b, size_t n,
                                Activation act) {
    std::vector<float> y(n);
    for (size_t i = 0; i < n; ++i) {
        y[i] = activate(op == AdderOp::add ? a[i] + b[i] : a[i] * b[i], act, 0.01f, 6.0f);
    }
    return y;
}

std::vector<int8_t> adder_int8(AdderOp op, const int8_t* a, int32_t a_exp, const int8_t* b,
                               int32_t b_exp, int32_t out_exp, size_t n, Activation act) {
    if (act != Activation::none && act != Activation::relu) {
        throw sim::Error("adder module: int8 supports no activation or relu");
    }
    std::vector<int8_t> y(n);
    const int32_t e = std::min(a_exp, b_exp);
    for (size_t i = 0; i < n; ++i) {
        int8_t v = 0;
        if (op == AdderOp::add) {
            // Aligned to the finer exponent by multiplying (a left shift of a negative value is
            // undefined in C++17: fuzz_dlp_run, UBSan).
            const int64_t s = int64_t{a[i]} * (int64_t{1} << std::min(a_exp - e, 30)) +
                              int64_t{b[i]} * (int64_t{1} << std::min(b_exp - e, 30));
            v = requantize(s, out_exp - e);
        } else {
            v = requantize(int64_t{a[i]} * b[i], out_exp - (a_exp + b_exp));
        }
        y[i] = act == Activation::relu && v < 0 ? int8_t{0} : v;
    }
    return y;
}

}  // namespace npu::dlp
