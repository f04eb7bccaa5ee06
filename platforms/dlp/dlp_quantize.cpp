#include "platforms/dlp/dlp_quantize.h"

#include <algorithm>
#include <cmath>
#include <functional>

#include <fmt/format.h>

#include "models/dlp/dlp_chain.h"
#include "models/dlp/dlp_func.h"
#include "sim/core/error.h"

namespace npu::dlp {

namespace {

double largest(const std::vector<float>& v) {
    double m = 0;
    for (float x : v) {
        m = std::max(m, std::fabs(static_cast<double>(x)));
    }
    return m;
}

int8_t to_int8(double v, int32_t exp) {
    return static_cast<int8_t>(std::clamp(std::round(std::ldexp(v, -exp)), -128.0, 127.0));
}

// A layer's int8 parameters from its float ones, at the exponents already chosen.
void quantize_parameters(Layer& l) {
    Int8Quant& q = l.quant;
    q.w_exp = pow2_exponent(largest(l.weights));
    l.weights_q.clear();
    for (float w : l.weights) {
        l.weights_q.push_back(to_int8(w, q.w_exp));
    }
    l.bias_q.clear();
    for (float b : l.bias) {
        const double v = std::round(std::ldexp(static_cast<double>(b), -(q.in_exp + q.w_exp)));
        l.bias_q.push_back(static_cast<int32_t>(std::clamp(v, -2147483648.0, 2147483647.0)));
    }
    if (l.input2 == kConstantOperand) {
        l.constant_q.clear();
        quantize_constant(l);
    }
    const float slope = l.kind == LayerKind::fc ? l.fc.leaky_slope : l.conv.leaky_slope;
    const float ceiling = l.kind == LayerKind::fc ? l.fc.clip_ceiling : l.conv.clip_ceiling;
    q.leaky_shift = 7;
    q.leaky_mul = static_cast<int32_t>(std::lround(slope * 128.0f));
    q.clip_ceiling = to_int8(ceiling, q.out_exp);
}

// Layers whose outputs must share one exponent get the largest range among them: a concat and
// its inputs (one image), a pool and its input (pooling keeps the scale). Index n.layers.size()
// stands for the network input.
void share_ranges(const Network& n, std::vector<double>& range) {
    std::vector<size_t> root(range.size());
    for (size_t i = 0; i < root.size(); ++i) {
        root[i] = i;
    }
    std::function<size_t(size_t)> find = [&](size_t i) {
        return root[i] == i ? i : root[i] = find(root[i]);
    };
    auto node = [&](int src) {
        return src < 0 ? n.layers.size() : static_cast<size_t>(src);
    };
    for (size_t i = 0; i < n.layers.size(); ++i) {
        const Layer& l = n.layers[i];
        std::vector<int> same = l.inputs;
        if (l.kind == LayerKind::pool) {
            same.push_back(l.input);
        }
        for (int src : same) {
            root[find(node(src))] = find(i);
        }
    }
    std::vector<double> top(range.size(), 0.0);
    for (size_t i = 0; i < range.size(); ++i) {
        top[find(i)] = std::max(top[find(i)], range[i]);
    }
    for (size_t i = 0; i < range.size(); ++i) {
        range[i] = top[find(i)];
    }
}

}  // namespace

void quantize_network(Network& n, const std::vector<std::vector<float>>& samples) {
    for (const Layer& l : n.layers) {  // a NaN or infinity has no int8 value
        for (const std::vector<float>* v : {&l.weights, &l.bias, &l.constant}) {
            for (float x : *v) {
                if (!std::isfinite(x)) {
                    throw sim::Error(fmt::format(
                        "{}: layer '{}' has a parameter that is not a finite number ({})", n.name,
                        l.name, x));
                }
            }
        }
    }
    std::vector<double> range(n.layers.size() + 1, 0.0);  // the layers', then the input's
    for (const std::vector<float>& x : samples) {
        range.back() = std::max(range.back(), largest(x));
        const std::vector<std::vector<float>> v = run_chain_single(n, x);
        for (size_t i = 0; i < v.size(); ++i) {
            range[i] = std::max(range[i], largest(v[i]));
        }
    }
    share_ranges(n, range);
    n.input_exp = pow2_exponent(range.back());
    for (size_t i = 0; i < n.layers.size(); ++i) {
        Layer& l = n.layers[i];
        l.quant.in_exp =
            l.input < 0 ? n.input_exp : n.layers[static_cast<size_t>(l.input)].quant.out_exp;
        if (is_adder(l.kind) && l.input2 != kConstantOperand) {
            l.quant.in2_exp =
                l.input2 < 0 ? n.input_exp : n.layers[static_cast<size_t>(l.input2)].quant.out_exp;
        }
        l.quant.out_exp = l.kind == LayerKind::pool ? l.quant.in_exp : pow2_exponent(range[i]);
        quantize_parameters(l);
    }
}

Network float_equivalent(const Network& n) {
    Network f = n;
    for (Layer& l : f.layers) {
        const Int8Quant& q = l.quant;
        l.weights.clear(), l.bias.clear(), l.constant.clear();
        for (int8_t w : l.weights_q) {
            l.weights.push_back(static_cast<float>(std::ldexp(w, q.w_exp)));
        }
        for (int32_t b : l.bias_q) {
            l.bias.push_back(static_cast<float>(std::ldexp(b, q.in_exp + q.w_exp)));
        }
        for (int8_t c : l.constant_q) {
            l.constant.push_back(static_cast<float>(std::ldexp(c, q.in2_exp)));
        }
        const auto slope = static_cast<float>(std::ldexp(q.leaky_mul, -q.leaky_shift));
        const auto ceiling = static_cast<float>(std::ldexp(q.clip_ceiling, q.out_exp));
        l.conv.leaky_slope = l.fc.leaky_slope = slope;
        l.conv.clip_ceiling = l.fc.clip_ceiling = ceiling;
        l.fc.output = FcLayer::Output::plain;
    }
    return f;
}

}  // namespace npu::dlp
