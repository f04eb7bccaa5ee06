#include "models/dlp/dlp_network.h"

#include <algorithm>
#include <cmath>
#include <random>

#include <fmt/format.h>

#include "models/dlp/dlp_tiles.h"
#include "sim/core/error.h"

namespace npu::dlp {

const char* kind_name(LayerKind k) {
    switch (k) {
    case LayerKind::conv: return "conv";
    case LayerKind::fc: return "fc";
    case LayerKind::add: return "add";
    case LayerKind::multiply: return "multiply";
    case LayerKind::pool: return "pool";
    case LayerKind::concat: return "concat";
    }
    return "?";
}

const char* module_name(LayerKind k) {
    switch (k) {
    case LayerKind::conv:
    case LayerKind::pool: return "conv_module";
    case LayerKind::fc: return "fc_module";
    case LayerKind::concat: return "none";
    default: return "adder_module";
    }
}

bool is_adder(LayerKind k) {
    return k == LayerKind::add || k == LayerKind::multiply;
}

ActShape input_shape(const Network& n, const Layer& l) {
    if (l.kind == LayerKind::concat) {
        return l.out;
    }
    return l.input < 0 ? n.input : n.layers[static_cast<size_t>(l.input)].out;
}

size_t weight_count(const Layer& l) {
    if (l.kind == LayerKind::conv) {
        return static_cast<size_t>(l.conv.out_c * (l.conv.in_c / l.conv.groups) * l.conv.kernel_h *
                                   l.conv.kernel_w);
    }
    return l.kind == LayerKind::fc ? static_cast<size_t>(l.fc.in * l.fc.out) : 0;
}

size_t bias_count(const Layer& l) {
    if (l.kind == LayerKind::conv) {
        return static_cast<size_t>(l.conv.out_c);
    }
    return l.kind == LayerKind::fc ? static_cast<size_t>(l.fc.out) : 0;
}

namespace {

// Each layer kind's checks; each fills in what the layer's input decides (sizes, exponents,
// the output shape) and returns the problem, or "".
std::string check_conv_layer(const Network& n, Layer& l, const ActShape& in) {
    if (l.input >= 0 && n.layers[static_cast<size_t>(l.input)].kind == LayerKind::fc) {
        return "a conv layer cannot read an fc output";
    }
    l.conv.in_c = in.z, l.conv.in_h = in.h, l.conv.in_w = in.w;
    if (l.conv.groups == 0) {  // depthwise
        l.conv.groups = in.z;
    }
    try {
        check(l.conv);
    } catch (const sim::Error& e) {
        return e.what();
    }
    l.out = {l.conv.out_c, l.conv.out_h(), l.conv.out_w()};
    return "";
}

std::string check_fc_layer(Layer& l, const ActShape& in, const DlpConfig& cfg) {
    l.fc.in = in.z * in.h * in.w;
    if (l.fc.out < 1 || l.fc.out > (int64_t{1} << 20)) {
        return fmt::format("out_features is {}, expected 1..2^20", l.fc.out);
    }
    // Beyond the fc module's memories it runs in chunks (dlp_tiles.h).
    if (cfg.data_type == DataType::int8 && l.fc.output != FcLayer::Output::plain) {
        return "softmax and sigmoid outputs need processor_data_type single";
    }
    l.out = {l.fc.out, 1, 1};
    return "";
}

std::string check_pool_layer(const Network& n, Layer& l, const ActShape& in) {
    if (l.input >= 0 && n.layers[static_cast<size_t>(l.input)].kind == LayerKind::fc) {
        return "a pool layer cannot read an fc output";
    }
    if (l.global_pool) {
        l.conv.pool_h = in.h, l.conv.pool_w = in.w;
        l.conv.pool_stride_h = in.h, l.conv.pool_stride_w = in.w;
        l.conv.pool_pad_top = l.conv.pool_pad_bottom = 0;
        l.conv.pool_pad_left = l.conv.pool_pad_right = 0;
    }
    l.conv = pool_geometry(l.conv, in.z, in.h, in.w);
    l.quant.out_exp = l.quant.in_exp;  // pooling keeps the scale
    try {
        check_pool(l.conv);
    } catch (const sim::Error& e) {
        return e.what();
    }
    l.out = {l.conv.out_c, l.conv.out_h(), l.conv.out_w()};
    return "";
}

// An adder's constant operand: one value per channel (or one for all), single or int8.
std::string check_constant(Layer& l, const ActShape& in) {
    for (std::vector<float>* v : {&l.constant}) {
        if (v->size() == 1) {
            v->assign(static_cast<size_t>(in.z), v->front());
        }
    }
    if (l.constant_q.size() == 1) {
        l.constant_q.assign(static_cast<size_t>(in.z), l.constant_q.front());
    }
    const size_t given = std::max(l.constant.size(), l.constant_q.size());
    if (given != static_cast<size_t>(in.z)) {
        return fmt::format("the constant operand has {} values, expected {} (one per channel)",
                           given, in.z);
    }
    return "";
}

std::string check_adder_layer(const Network& n, Layer& l, const ActShape& in) {
    if (l.input2 == kConstantOperand) {
        l.out = in;
        return check_constant(l, in);
    }
    if (l.input2 < -1 || l.input2 == l.input) {
        return "an adder layer needs two different inputs";
    }
    const ActShape b = l.input2 < 0 ? n.input : n.layers[static_cast<size_t>(l.input2)].out;
    if (b.z != in.z || b.h != in.h || b.w != in.w) {
        return fmt::format("operands {}x{}x{} and {}x{}x{} differ", in.z, in.h, in.w, b.z, b.h,
                           b.w);
    }
    l.quant.in2_exp =
        l.input2 < 0 ? n.input_exp : n.layers[static_cast<size_t>(l.input2)].quant.out_exp;
    l.out = in;
    return "";
}

// A depth concatenation (see check_network's contract); `held` marks the layers a concat holds.
std::string check_concat_layer(const Network& n, Layer& l, const DlpConfig& cfg, size_t i,
                               std::vector<bool>& held) {
    if (l.inputs.empty() || l.inputs[0] != l.input) {
        return "a concat needs its inputs, the first as its input";
    }
    const auto c = static_cast<int64_t>(cfg.threads_c());
    l.out = {0, 0, 0};
    for (size_t k = 0; k < l.inputs.size(); ++k) {
        const int src = l.inputs[k];
        if (src < 0 || src >= static_cast<int>(i)) {
            return src == -1 ? "a concat cannot hold the network input (no layer writes it)"
                             : fmt::format("reads layer {}, expected an earlier layer", src);
        }
        const Layer& p = n.layers[static_cast<size_t>(src)];
        if (p.kind == LayerKind::fc) {
            return fmt::format("input '{}' is an fc output: a concat holds conv-format images",
                               p.name);
        }
        if (held[static_cast<size_t>(src)]) {
            return fmt::format(
                "input '{}' is already written into another concat (or twice into "
                "this one)",
                p.name);
        }
        held[static_cast<size_t>(src)] = true;
        if (k > 0 && (p.out.h != l.out.h || p.out.w != l.out.w)) {
            return fmt::format(
                "input '{}' is {}x{}, the first {}x{}: a concat joins maps of one "
                "size",
                p.name, p.out.h, p.out.w, l.out.h, l.out.w);
        }
        if (k + 1 < l.inputs.size() && p.out.z % c != 0) {
            return fmt::format(
                "input '{}' has {} channels, not a multiple of the conv module's {} "
                "threads: only the last input of a concat may",
                p.name, p.out.z, c);
        }
        if (k > 0 && p.quant.out_exp != l.quant.in_exp && cfg.data_type == DataType::int8) {
            return fmt::format(
                "input '{}' is at exponent {}, the first at {}: a concat's inputs "
                "share one exponent",
                p.name, p.quant.out_exp, l.quant.in_exp);
        }
        l.out = {l.out.z + p.out.z, p.out.h, p.out.w};
    }
    l.quant.out_exp = l.quant.in_exp;
    return "";
}

std::string check_batch_norm(const Layer& l, const DlpConfig& cfg) {
    const BatchNorm& bn = l.batch_norm;
    if (bn.gamma.empty()) {
        return "";
    }
    const auto c = static_cast<size_t>(l.conv.out_c);
    if (l.kind != LayerKind::conv) {
        return "batch_norm follows conv layers only";
    }
    if (cfg.data_type != DataType::single) {
        return "batch_norm needs processor_data_type single (fold it before quantizing)";
    }
    if (bn.gamma.size() != c || bn.beta.size() != c || bn.mean.size() != c ||
        bn.variance.size() != c) {
        return fmt::format("batch_norm needs {} values each of gamma, beta, mean and variance", c);
    }
    for (float v : bn.variance) {
        if (!(v + bn.epsilon > 0)) {
            return "batch_norm variance + epsilon must be > 0";
        }
    }
    return "";
}

// The layers a layer reads: earlier ones or the network input (-1); "" or the problem.
std::string check_sources(const Layer& l, size_t i) {
    if (l.kind != LayerKind::concat && !l.inputs.empty()) {
        return "only a concat takes a list of inputs";
    }
    for (int src : {l.input, l.input2}) {
        if (src == kConstantOperand && src == l.input2 && is_adder(l.kind)) {
            continue;
        }
        if (src >= static_cast<int>(i) || src < -1) {
            return fmt::format("reads layer {}, expected the input (-1) or an earlier layer", src);
        }
    }
    return "";
}

// Parameters given in a file against the layer's counts; "" or the problem.
std::string check_given(const Layer& l) {
    for (const size_t given : {l.weights.size(), l.weights_q.size()}) {
        if (given != 0 && given != weight_count(l)) {
            return fmt::format("{} weights given, the layer has {}", given, weight_count(l));
        }
    }
    for (const size_t given : {l.bias.size(), l.bias_q.size()}) {
        if (given != 0 && given != bias_count(l)) {
            return fmt::format("{} biases given, the layer has {}", given, bias_count(l));
        }
    }
    return "";
}

}  // namespace

void check_network(Network& n, const DlpConfig& cfg) {
    if (n.layers.empty()) {
        throw sim::Error(n.name + ": the network has no layers");
    }
    auto fail = [&](size_t i, const std::string& why) {
        throw sim::Error(fmt::format("{}: layer {} ({}): {}", n.name, i, n.layers[i].name, why));
    };
    std::vector<bool> held(n.layers.size(), false);
    for (size_t i = 0; i < n.layers.size(); ++i) {
        Layer& l = n.layers[i];
        if (const std::string why = check_sources(l, i); !why.empty()) {
            fail(i, why);
        }
        l.quant.in_exp =
            l.input < 0 ? n.input_exp : n.layers[static_cast<size_t>(l.input)].quant.out_exp;
        if (l.kind == LayerKind::concat) {
            const std::string why = check_concat_layer(n, l, cfg, i, held);
            if (!why.empty()) {
                fail(i, why);
            }
            continue;
        }
        const ActShape in = input_shape(n, l);
        std::string why = l.kind == LayerKind::conv   ? check_conv_layer(n, l, in)
                          : l.kind == LayerKind::fc   ? check_fc_layer(l, in, cfg)
                          : l.kind == LayerKind::pool ? check_pool_layer(n, l, in)
                                                      : check_adder_layer(n, l, in);
        if (why.empty()) {
            why = check_batch_norm(l, cfg);
        }
        if (why.empty() && (l.kind == LayerKind::conv || l.kind == LayerKind::pool)) {
            try {  // tiles of whole rows must fit the conv module's memories
                layer_plan(l, LayerPlacement{}, cfg);
            } catch (const sim::Error& e) {
                why = e.what();
            }
        }
        if (why.empty()) {
            why = check_given(l);
        }
        if (!why.empty()) {
            fail(i, why);
        }
    }
}

void fold_batch_norm(Layer& l) {
    BatchNorm& bn = l.batch_norm;
    if (bn.gamma.empty()) {
        return;
    }
    const size_t oc = bn.gamma.size(), per = l.weights.size() / oc;
    for (size_t c = 0; c < oc; ++c) {
        const float s = bn.gamma[c] / std::sqrt(bn.variance[c] + bn.epsilon);
        for (size_t k = 0; k < per; ++k) {
            l.weights[c * per + k] *= s;
        }
        l.bias[c] = (l.bias[c] - bn.mean[c]) * s + bn.beta[c];
    }
    bn = BatchNorm{};
}

void add_input_normalization(Network& n, const std::vector<float>& mean,
                             const std::vector<float>& std) {
    std::vector<Layer> front;
    auto adder = [&](const char* name, LayerKind kind, std::vector<float> values) {
        Layer l;
        l.name = name, l.kind = kind, l.input = front.empty() ? -1 : 0;
        l.input2 = kConstantOperand;
        l.constant = std::move(values);
        l.quant.out_exp = n.input_exp;  // int8: the file's input exponent, after normalization
        front.push_back(std::move(l));
    };
    if (!mean.empty()) {
        std::vector<float> neg;
        for (float m : mean) {
            neg.push_back(-m);
        }
        adder("imageinput_norm_add", LayerKind::add, neg);
    }
    if (!std.empty()) {
        std::vector<float> inv;
        for (float s : std) {
            if (!(s > 0) || !std::isfinite(s)) {
                throw sim::Error(
                    fmt::format("{}: the input's std {} is not a positive number", n.name, s));
            }
            inv.push_back(1.0f / s);
        }
        adder("imageinput_norm", LayerKind::multiply, inv);
    }
    const int shift = static_cast<int>(front.size());
    for (Layer& l : n.layers) {
        std::vector<int*> sources = {&l.input, &l.input2};
        for (int& k : l.inputs) {
            sources.push_back(&k);
        }
        for (int* src : sources) {
            if (*src >= 0) {
                *src += shift;
            } else if (*src == -1 && shift > 0) {
                *src = shift - 1;
            }
        }
    }
    n.layers.insert(n.layers.begin(), front.begin(), front.end());
}

void quantize_constant(Layer& l) {
    if (l.input2 != kConstantOperand || !l.constant_q.empty()) {
        return;
    }
    float top = 0;
    for (float v : l.constant) {
        top = std::max(top, std::fabs(v));
    }
    const int32_t e = pow2_exponent(top);
    l.quant.in2_exp = e;
    for (float v : l.constant) {
        l.constant_q.push_back(requantize(
            static_cast<int64_t>(std::lround(std::ldexp(static_cast<double>(v), -e))), 0));
    }
}

void fill_parameters(Network& n, const DlpConfig& cfg, uint32_t seed) {
    std::mt19937 rng(seed);
    for (Layer& l : n.layers) {
        if (cfg.data_type == DataType::int8) {
            quantize_constant(l);
        }
        const size_t nw = weight_count(l), nb = bias_count(l);
        if (nw == 0) {
            continue;
        }
        const size_t fan_in = nw / nb;
        const float r = 1.0f / std::sqrt(static_cast<float>(fan_in));
        std::uniform_real_distribution<float> u(-r, r);
        if (cfg.data_type == DataType::single) {
            if (l.weights.empty()) {
                l.weights.resize(nw);
                for (float& w : l.weights) {
                    w = u(rng);
                }
            }
            if (l.bias.empty()) {
                l.bias.resize(nb);
                for (float& b : l.bias) {
                    b = u(rng);
                }
            }
            fold_batch_norm(l);
        } else {
            if (l.weights_q.empty()) {
                l.weights_q.resize(nw);
                for (int8_t& w : l.weights_q) {
                    w = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
                }
            }
            if (l.bias_q.empty()) {
                l.bias_q.assign(nb, 0);
            }
        }
    }
}

std::vector<float> run_software(const Network& n, std::vector<float> v) {
    for (const SoftwareLayer& s : n.software) {
        s.op == "softmax" ? softmax_single(v) : sigmoid_single(v);
    }
    return v;
}

}  // namespace npu::dlp
