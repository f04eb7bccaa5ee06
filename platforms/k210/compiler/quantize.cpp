#include "platforms/k210/compiler/quantize.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::k210 {

namespace {

constexpr int64_t kXMin = -(int64_t{1} << 35), kXMax = (int64_t{1} << 35) - 1;
constexpr int kMaxActShift = 40;

// A piece of a piecewise-linear function: from `start` (real input) on, slope `slope`.
struct Piece {
    double start;
    double slope;
};

std::vector<Piece> pieces(const Activation& a) {
    const double inf = std::numeric_limits<double>::infinity();
    switch (a.kind) {
    case Activation::Kind::Linear: return {{-inf, 1}};
    case Activation::Kind::Relu: return {{-inf, 0}, {0, 1}};
    case Activation::Kind::LeakyRelu: return {{-inf, a.alpha}, {0, 1}};
    case Activation::Kind::Clip: return {{-inf, 0}, {a.lo, 1}, {a.hi, 0}};
    }
    return {};
}

int64_t clamp_x(double v) {
    if (!(v > static_cast<double>(kXMin))) {
        return kXMin;
    }
    return v >= static_cast<double>(kXMax) ? kXMax : static_cast<int64_t>(std::llround(v));
}

kpu::ActSegment constant(int64_t x_start, double value) {
    return {x_start, 0, 0, static_cast<uint8_t>(std::clamp(std::lround(value), 0L, 255L))};
}

}  // namespace

uint8_t QuantParams::quantize(double x) const {
    const double q = std::nearbyint(x / scale) + zero_point;
    return static_cast<uint8_t>(std::clamp(q, 0.0, 255.0));
}

QuantParams quant_params_u8(double lo, double hi) {
    lo = std::min(lo, 0.0), hi = std::max(hi, 0.0);
    QuantParams q;
    if (!(hi - lo > 0) || !std::isfinite(hi - lo)) {
        return q;
    }
    q.scale = (hi - lo) / 255;
    q.zero_point = static_cast<int32_t>(std::clamp(std::lround(-lo / q.scale), 0L, 255L));
    return q;
}

double Activation::apply(double x) const {
    switch (kind) {
    case Kind::Linear: return x;
    case Kind::Relu: return std::max(x, 0.0);
    case Kind::LeakyRelu: return x < 0 ? alpha * x : x;
    case Kind::Clip: return std::clamp(x, lo, hi);
    }
    return x;
}

std::string Activation::name() const {
    switch (kind) {
    case Kind::Linear: return "linear";
    case Kind::Relu: return "relu";
    case Kind::LeakyRelu: return fmt::format("leaky_relu({:.4g})", alpha);
    case Kind::Clip: return fmt::format("clip({:.4g}, {:.4g})", lo, hi);
    }
    return "?";
}

void fold_batch_norm(std::vector<float>& weights, std::vector<float>& bias,
                     const std::vector<float>& gamma, const std::vector<float>& beta,
                     const std::vector<float>& mean, const std::vector<float>& var, float eps) {
    const size_t oc = bias.size(), per = weights.size() / oc;
    for (size_t c = 0; c < oc; ++c) {
        const double f = static_cast<double>(gamma[c]) /
                         std::sqrt(static_cast<double>(var[c]) + static_cast<double>(eps));
        for (size_t i = 0; i < per; ++i) {
            weights[c * per + i] =
                static_cast<float>(static_cast<double>(weights[c * per + i]) * f);
        }
        bias[c] =
            static_cast<float>((static_cast<double>(bias[c]) - static_cast<double>(mean[c])) * f +
                               static_cast<double>(beta[c]));
    }
}

namespace {

// The KPU's 16-entry table from the pieces' segments: neighbours that say the same constant
// merged, segments that start no later than the one before dropped (never selected); `merged`
// gets the segments used.
kpu::ActTable table_of(const std::vector<kpu::ActSegment>& segs, const Activation& act,
                       std::vector<kpu::ActSegment>& merged) {
    for (const kpu::ActSegment& s : segs) {
        if (!merged.empty() && merged.back().y_mul == 0 && s.y_mul == 0 &&
            merged.back().bias == s.bias) {
            continue;
        }
        if (!merged.empty() && s.x_start <= merged.back().x_start) {
            merged.back() = s;
            continue;
        }
        merged.push_back(s);
    }
    if (merged.size() > 16) {
        throw sim::Error(fmt::format("activation {} needs {} segments, the KPU has 16", act.name(),
                                     merged.size()));
    }
    merged.front().x_start = kXMin;
    kpu::ActTable t;
    for (size_t i = 0; i < 16; ++i) {
        t[i] = i < merged.size() ? merged[i] : kpu::ActSegment{kXMax, 0, 0, 255};
    }
    return t;
}

// The largest error in output LSBs of table `t` against g over the BN outputs the range
// [pre_lo, pre_hi] gives (20,001 samples) and around each segment's start.
int worst_error(const kpu::ActTable& t, const std::vector<kpu::ActSegment>& merged,
                const std::function<double(double)>& g, double pre_lo, double pre_hi,
                double bn_scale) {
    int worst = 0;
    const double v_lo = std::floor(pre_lo / bn_scale), v_hi = std::ceil(pre_hi / bn_scale);
    auto check = [&](double v) {
        if (v < static_cast<double>(kXMin) || v > static_cast<double>(kXMax)) {
            return;
        }
        const auto vi = static_cast<int64_t>(v);
        const double ideal = std::clamp(std::nearbyint(g(static_cast<double>(vi))), 0.0, 255.0);
        const int got = kpu::activate(vi, t, kpu::Fidelity{});
        worst = std::max(worst, static_cast<int>(std::fabs(got - ideal)));
    };
    for (int s = 0; s <= 20000; ++s) {
        check(std::nearbyint(v_lo + (v_hi - v_lo) * s / 20000.0));
    }
    for (const kpu::ActSegment& s : merged) {
        for (int d = -2; d <= 2; ++d) {
            check(static_cast<double>(s.x_start + d));
        }
    }
    return worst;
}

}  // namespace

kpu::ActTable fit_activation(const Activation& act, double bn_scale, const QuantParams& out,
                             double pre_lo, double pre_hi, int* max_error_lsb) {
    // g(v): the ideal output in LSBs (before rounding) for the BN output v.
    auto g = [&](double v) {
        return act.apply(v * bn_scale) / out.scale + out.zero_point;
    };
    std::vector<kpu::ActSegment> segs;
    const std::vector<Piece> ps = pieces(act);
    for (size_t i = 0; i < ps.size(); ++i) {
        const double a = ps[i].start / bn_scale;  // -inf for the first piece
        const double b = i + 1 < ps.size() ? ps[i + 1].start / bn_scale
                                           : std::numeric_limits<double>::infinity();
        const double m = ps[i].slope * bn_scale / out.scale;  // LSB per unit of v
        if (m == 0) {
            segs.push_back(constant(clamp_x(a), g(std::isfinite(a) ? a : b - 1)));
            continue;
        }
        // The line through (ref, g(ref)): the piece's start, else its end, else 0.
        const double ref = std::isfinite(a) ? a : std::isfinite(b) ? b : 0.0;
        const double g_ref = g(ref);
        auto v_at = [&](double y) {
            return ref + (y - g_ref) / m;
        };  // where g = y
        // The part of [a, b) where g is inside 0..255, and the saturated parts around it.
        const double v0 = v_at(m > 0 ? 0.0 : 255.0), v1 = v_at(m > 0 ? 255.0 : 0.0);
        const double lo = std::max(a, v0), hi = std::min(b, v1);
        if (lo > a) {
            segs.push_back(constant(clamp_x(a), m > 0 ? 0 : 255));
        }
        if (hi > lo) {
            // Start the line where its value is an integer k, so that bias = k is exact.
            const double g_lo = g_ref + m * (lo - ref);
            const double k = m > 0 ? std::ceil(g_lo - 1e-9) : std::floor(g_lo + 1e-9);
            const int64_t x_start = clamp_x(v_at(k));
            int shift = 0;
            while (shift < kMaxActShift && std::fabs(m) * std::ldexp(1.0, shift + 1) <= 32767) {
                ++shift;
            }
            const double mul = std::nearbyint(m * std::ldexp(1.0, shift));
            if (std::fabs(mul) > 32767) {
                throw sim::Error(fmt::format(
                    "activation {}: a slope of {} output LSBs per BN unit does not fit y_mul",
                    act.name(), m));
            }
            segs.push_back({x_start, static_cast<int32_t>(mul), static_cast<uint32_t>(shift),
                            static_cast<uint8_t>(std::clamp(k, 0.0, 255.0))});
        }
        if (hi < b) {
            segs.push_back(constant(clamp_x(hi), m > 0 ? 255 : 0));
        }
    }
    std::vector<kpu::ActSegment> merged;
    const kpu::ActTable t = table_of(segs, act, merged);
    if (max_error_lsb != nullptr) {
        *max_error_lsb = worst_error(t, merged, g, pre_lo, pre_hi, bn_scale);
    }
    return t;
}

QuantizedConv quantize_conv(const std::vector<float>& weights, const std::vector<float>& bias,
                            int out_channels, int kernel, bool depthwise, const QuantParams& in,
                            const QuantParams& out, const Activation& act, double pre_lo,
                            double pre_hi) {
    (void)depthwise;  // the weight layout is the caller's; the arithmetic is the same
    QuantizedConv q;
    const auto oc = static_cast<size_t>(out_channels);
    const size_t per = weights.size() / oc;
    q.weight_scales.resize(oc);
    double max_ratio = 0;
    for (size_t c = 0; c < oc; ++c) {
        double m = 0;
        for (size_t i = 0; i < per; ++i) {
            m = std::max(m, std::fabs(static_cast<double>(weights[c * per + i])));
        }
        q.weight_scales[c] = m > 0 ? m / 127 : 1.0;
        for (size_t i = 0; i < per; ++i) {
            const double w = static_cast<double>(weights[c * per + i]) / q.weight_scales[c];
            q.weights.push_back(
                static_cast<uint8_t>(std::clamp(std::nearbyint(w) + 128, 0.0, 255.0)));
        }
        max_ratio = std::max(max_ratio, in.scale * q.weight_scales[c]);
    }
    // One BN unit: 1/128 of the largest input·weight scale, so every norm_mul (at shift 15)
    // stays below 2^22; coarser while a bias or the calibrated range would not fit.
    double s_bn = max_ratio / 128;
    const double range = std::max(std::fabs(pre_lo), std::fabs(pre_hi));
    for (int tries = 0;; ++tries) {
        bool fits = range / s_bn < std::ldexp(1.0, 34);
        for (size_t c = 0; c < oc && fits; ++c) {
            fits = std::fabs(static_cast<double>(bias[c]) / s_bn) < std::ldexp(1.0, 31);
        }
        if (fits) {
            break;
        }
        if (tries == 40) {
            throw sim::Error("a bias or pre-activation value is too large for the KPU BN stage");
        }
        s_bn *= 2;
    }
    q.bn_scale = s_bn;
    for (size_t c = 0; c < oc; ++c) {
        const double mul = std::nearbyint(in.scale * q.weight_scales[c] / s_bn * 32768.0);
        q.bn.push_back({static_cast<int32_t>(mul), 15,
                        static_cast<int32_t>(std::nearbyint(static_cast<double>(bias[c]) / s_bn))});
    }
    q.arg_x = -128;
    q.arg_w = -in.zero_point;
    q.arg_add = int64_t{kernel} * kernel * 128 * in.zero_point;
    q.pad_value = static_cast<uint8_t>(in.zero_point);
    q.act = fit_activation(act, s_bn, out, pre_lo, pre_hi, &q.max_act_error_lsb);
    return q;
}

}  // namespace npu::k210
