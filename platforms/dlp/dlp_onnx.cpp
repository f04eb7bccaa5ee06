#include "platforms/dlp/dlp_onnx.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::dlp {

namespace {

constexpr int kNone = -3;  // a tensor no layer produces (a constant, or not yet seen)

// Spatial padding of one axis: explicit ONNX pads, or auto_pad's SAME_UPPER/SAME_LOWER/VALID.
struct Pads {
    int64_t top = 0, bottom = 0, left = 0, right = 0;
};

class Builder {
public:
    Builder(const onnx::Graph& g, std::string source, const DlpPlatformConfig& cfg)
        : m_g(g)
        , m_source(std::move(source))
        , m_cfg(cfg) {}

    NetworkFile build(const OnnxNetworkOptions& opts);

private:
    [[noreturn]] void fail(const onnx::Node& n, const std::string& why) const {
        throw sim::Error(fmt::format("{}: {}: {}", m_source, n.describe(), why));
    }
    const onnx::Value* constant(const std::string& t) const {
        auto it = m_g.initializers.find(t);
        return it == m_g.initializers.end() || it->second.is_int() ? nullptr : &it->second;
    }
    int producer(const std::string& t) const {
        auto it = m_producer.find(t);
        return it == m_producer.end() ? kNone : it->second;
    }
    // The layer or network input (-1) a node's data input comes from.
    int source_of(const onnx::Node& n, const std::string& t) const;
    // The layer producing `t`, which only `n` reads: what BN and activations fuse into.
    Layer& fusable(const onnx::Node& n, const std::string& t);
    void add_layer(const onnx::Node& n, Layer l);
    void node(const onnx::Node& n);
    void conv(const onnx::Node& n);
    void batch_norm(const onnx::Node& n);
    void activation(const onnx::Node& n);
    void pool(const onnx::Node& n);
    void gemm(const onnx::Node& n, bool matmul);
    void add_or_mul(const onnx::Node& n);
    void concat(const onnx::Node& n);
    bool normalization(const onnx::Node& n);
    void software(const onnx::Node& n);
    NetworkFile finish(const OnnxNetworkOptions& opts);
    Pads pads(const onnx::Node& n, const ActShape& in, int64_t kh, int64_t kw, int64_t sh,
              int64_t sw) const;

    const onnx::Graph& m_g;
    std::string m_source;
    const DlpPlatformConfig& m_cfg;
    Network m_net;
    std::map<std::string, int> m_producer;  // tensor -> layer (-1: the network input)
    std::map<std::string, int> m_uses;      // readers of each tensor (graph outputs count)
    std::string m_input;                    // the network input's (normalized) tensor
    bool m_input_read = false;              // a layer read it: its normalization is over
    std::vector<double> m_scale, m_shift;   // the input's normalization: y = scale · x + shift
    std::string m_software_out;             // the last software layer's output
};

int Builder::source_of(const onnx::Node& n, const std::string& t) const {
    if (!m_software_out.empty() && !m_net.software.empty()) {
        for (const SoftwareLayer& s : m_net.software) {
            if (s.onnx_tensor == t) {
                fail(n, fmt::format("reads '{}', the output of {} that dlhdl runs in software on "
                                    "the host: only the end of a network may run there",
                                    t, s.op));
            }
        }
    }
    const int p = producer(t);
    if (p == kNone) {
        fail(n, fmt::format("reads '{}', which is no activation the processor computes "
                            "(a constant or an unsupported branch)",
                            t));
    }
    return p;
}

Layer& Builder::fusable(const onnx::Node& n, const std::string& t) {
    const int p = producer(t);
    if (p < 0 || m_uses[t] != 1) {
        fail(n, fmt::format("follows '{}', which is not the single use of a layer's output: "
                            "dlhdl fuses it only into the layer before",
                            t));
    }
    return m_net.layers[static_cast<size_t>(p)];
}

void Builder::add_layer(const onnx::Node& n, Layer l) {
    l.name = n.name.empty() ? n.outputs.at(0) : n.name;
    l.onnx_tensor = n.outputs.at(0);
    for (const Layer& x : m_net.layers) {
        if (x.name == l.name) {
            l.name += fmt::format("_{}", m_net.layers.size());
        }
    }
    m_net.layers.push_back(std::move(l));
    try {  // the shapes as far as the layers go (pools and auto_pad read them), in place
        check_network(m_net, m_cfg.dlp);
    } catch (const sim::Error& e) {
        const std::string what = e.what();
        const size_t colon = what.find("): ");
        fail(n, colon == std::string::npos ? what : what.substr(colon + 3));
    }
    m_producer[n.outputs.at(0)] = static_cast<int>(m_net.layers.size()) - 1;
}

Pads Builder::pads(const onnx::Node& n, const ActShape& in, int64_t kh, int64_t kw, int64_t sh,
                   int64_t sw) const {
    Pads p;
    const std::string a = n.get_string("auto_pad", "NOTSET");
    if (a == "NOTSET") {
        const std::vector<int64_t> v = n.get_ints("pads", {0, 0, 0, 0});
        if (v.size() != 4) {
            fail(n, "pads must have 4 values (2-D)");
        }
        p.top = v[0], p.left = v[1], p.bottom = v[2], p.right = v[3];
    } else if (a == "SAME_UPPER" || a == "SAME_LOWER") {
        auto same = [&](int64_t size, int64_t k, int64_t s, int64_t& begin, int64_t& end) {
            const int64_t total = std::max<int64_t>((size + s - 1) / s * s - s + k - size, 0);
            begin = a == "SAME_UPPER" ? total / 2 : total - total / 2;
            end = total - begin;
        };
        same(in.h, kh, sh, p.top, p.bottom);
        same(in.w, kw, sw, p.left, p.right);
    } else if (a != "VALID") {
        fail(n, fmt::format("auto_pad {} is not one ONNX defines", a));
    }
    return p;
}

void Builder::conv(const onnx::Node& n) {
    Layer l;
    l.kind = LayerKind::conv;
    l.input = source_of(n, n.inputs.at(0));
    const onnx::Value* w = n.inputs.size() > 1 ? constant(n.inputs[1]) : nullptr;
    if (w == nullptr || w->shape.size() != 4) {
        fail(n, "needs its weights as a 4-D initializer (O x I/group x kh x kw)");
    }
    for (int64_t d : n.get_ints("dilations", {1, 1})) {
        if (d != 1) {
            fail(n, "dilation other than 1: the DL processor's conv module has none");
        }
    }
    ConvLayer& c = l.conv;
    c.out_c = w->shape[0], c.kernel_h = w->shape[2], c.kernel_w = w->shape[3];
    const std::vector<int64_t> s = n.get_ints("strides", {1, 1});
    c.stride_h = s.at(0), c.stride_w = s.at(1);
    c.groups = n.get_int("group", 1);
    const ActShape in = l.input < 0 ? m_net.input : m_net.layers[static_cast<size_t>(l.input)].out;
    const Pads p = pads(n, in, c.kernel_h, c.kernel_w, c.stride_h, c.stride_w);
    c.pad_top = p.top, c.pad_bottom = p.bottom, c.pad_left = p.left, c.pad_right = p.right;
    l.weights = w->f;
    const onnx::Value* b =
        n.inputs.size() > 2 && !n.inputs[2].empty() ? constant(n.inputs[2]) : nullptr;
    l.bias = b != nullptr ? b->f : std::vector<float>(static_cast<size_t>(c.out_c), 0.0f);
    add_layer(n, std::move(l));
}

void Builder::batch_norm(const onnx::Node& n) {
    Layer& l = fusable(n, n.inputs.at(0));
    if (l.kind != LayerKind::conv || l.conv.activation != Activation::none) {
        fail(n, "folds only into a convolution before its activation");
    }
    BatchNorm& bn = l.batch_norm;
    std::vector<float>* dst[] = {&bn.gamma, &bn.beta, &bn.mean, &bn.variance};
    for (size_t k = 0; k < 4; ++k) {
        const onnx::Value* v = n.inputs.size() > k + 1 ? constant(n.inputs[k + 1]) : nullptr;
        if (v == nullptr || v->numel() != static_cast<size_t>(l.conv.out_c)) {
            fail(n, "needs scale, B, mean and var as initializers of one value per channel");
        }
        *dst[k] = v->f;
    }
    bn.epsilon = n.get_float("epsilon", 1e-5f);
    fold_batch_norm(l);
    m_producer[n.outputs.at(0)] = m_producer[n.inputs.at(0)];
    l.onnx_tensor = n.outputs.at(0);
}

void Builder::activation(const onnx::Node& n) {
    Layer& l = fusable(n, n.inputs.at(0));
    Activation a = Activation::relu;
    float slope = 0.01f, ceiling = 0;
    if (n.op_type == "LeakyRelu") {
        a = Activation::leaky_relu, slope = n.get_float("alpha", 0.01f);
    } else if (n.op_type == "Clip") {
        float lo = n.get_float("min", -INFINITY), hi = n.get_float("max", INFINITY);
        for (size_t k = 1; k < 3 && k < n.inputs.size(); ++k) {
            if (n.inputs[k].empty()) {
                continue;
            }
            const onnx::Value* v = constant(n.inputs[k]);
            if (v == nullptr || v->numel() != 1) {
                fail(n, "needs its min and max as constants");
            }
            (k == 1 ? lo : hi) = v->f[0];
        }
        if (lo != 0) {
            fail(n, fmt::format("clips at {} below: dlhdl's clipped ReLU starts at 0", lo));
        }
        a = std::isfinite(hi) ? Activation::clipped_relu : Activation::relu;
        ceiling = hi;
    }
    Activation& act = l.kind == LayerKind::fc ? l.fc.activation : l.conv.activation;
    if (act != Activation::none || l.kind == LayerKind::pool || l.kind == LayerKind::concat ||
        (is_adder(l.kind) && a != Activation::relu)) {
        fail(n, fmt::format("cannot fuse into {} '{}' (dlhdl fuses ReLU, leaky and clipped ReLU "
                            "into a conv or fc, ReLU into an adder)",
                            kind_name(l.kind), l.name));
    }
    act = a;
    (l.kind == LayerKind::fc ? l.fc.leaky_slope : l.conv.leaky_slope) = slope;
    (l.kind == LayerKind::fc ? l.fc.clip_ceiling : l.conv.clip_ceiling) = ceiling;
    m_producer[n.outputs.at(0)] = m_producer[n.inputs.at(0)];
    l.onnx_tensor = n.outputs.at(0);
}

void Builder::pool(const onnx::Node& n) {
    Layer l;
    l.kind = LayerKind::pool;
    l.input = source_of(n, n.inputs.at(0));
    if (n.op_type == "GlobalAveragePool") {
        l.global_pool = true;
        l.conv.pool = PoolType::average;
        add_layer(n, std::move(l));
        return;
    }
    ConvLayer& c = l.conv;
    c.pool = n.op_type == "MaxPool" ? PoolType::max : PoolType::average;
    const std::vector<int64_t> k = n.get_ints("kernel_shape");
    if (k.size() != 2) {
        fail(n, "needs a 2-D kernel_shape");
    }
    for (int64_t d : n.get_ints("dilations", {1, 1})) {
        if (d != 1) {
            fail(n, "dilation other than 1: the conv module's pooling has none");
        }
    }
    const std::vector<int64_t> s = n.get_ints("strides", {1, 1});
    c.pool_h = k[0], c.pool_w = k[1], c.pool_stride_h = s.at(0), c.pool_stride_w = s.at(1);
    const ActShape in = l.input < 0 ? m_net.input : m_net.layers[static_cast<size_t>(l.input)].out;
    const Pads p = pads(n, in, c.pool_h, c.pool_w, c.pool_stride_h, c.pool_stride_w);
    c.pool_pad_top = p.top, c.pool_pad_bottom = p.bottom;
    c.pool_pad_left = p.left, c.pool_pad_right = p.right;
    if (c.pool == PoolType::average && n.get_int("count_include_pad", 0) != 0 &&
        p.top + p.bottom + p.left + p.right != 0) {
        fail(n, "count_include_pad with padding: the conv module averages the window's inputs");
    }
    if (n.get_int("ceil_mode", 0) != 0) {
        auto floor_size = [](int64_t e, int64_t kk, int64_t ss) {
            return (e - kk) / ss + 1;
        };
        auto ceil_size = [](int64_t e, int64_t kk, int64_t ss) {
            return (e - kk + ss - 1) / ss + 1;
        };
        const int64_t eh = in.h + p.top + p.bottom, ew = in.w + p.left + p.right;
        if (floor_size(eh, c.pool_h, c.pool_stride_h) != ceil_size(eh, c.pool_h, c.pool_stride_h) ||
            floor_size(ew, c.pool_w, c.pool_stride_w) != ceil_size(ew, c.pool_w, c.pool_stride_w)) {
            fail(n, "ceil_mode adds a partial window the conv module does not compute");
        }
    }
    add_layer(n, std::move(l));
}

void Builder::gemm(const onnx::Node& n, bool matmul) {
    Layer l;
    l.kind = LayerKind::fc;
    l.input = source_of(n, n.inputs.at(0));
    const onnx::Value* w = n.inputs.size() > 1 ? constant(n.inputs[1]) : nullptr;
    if (w == nullptr || w->shape.size() != 2 || (!matmul && n.get_int("transA", 0) != 0)) {
        fail(n, "needs its weights as a 2-D initializer and the activation as A");
    }
    const bool out_in = !matmul && n.get_int("transB", 0) != 0;  // W stored [out][in]
    const int64_t in = out_in ? w->shape[1] : w->shape[0], out = out_in ? w->shape[0] : w->shape[1];
    const float alpha = matmul ? 1.0f : n.get_float("alpha", 1.0f);
    const float beta = matmul ? 1.0f : n.get_float("beta", 1.0f);
    l.fc.out = out;
    l.weights.resize(static_cast<size_t>(in * out));
    for (int64_t o = 0; o < out; ++o) {
        for (int64_t i = 0; i < in; ++i) {
            const float v = out_in ? w->f[static_cast<size_t>(o * in + i)]
                                   : w->f[static_cast<size_t>(i * out + o)];
            l.weights[static_cast<size_t>(o * in + i)] = alpha * v;
        }
    }
    l.bias.assign(static_cast<size_t>(out), 0.0f);
    const onnx::Value* c =
        n.inputs.size() > 2 && !n.inputs[2].empty() ? constant(n.inputs[2]) : nullptr;
    if (c != nullptr && c->numel() != static_cast<size_t>(out) && c->numel() != 1) {
        fail(n, fmt::format("its bias C has {} values, expected {} or 1", c->numel(), out));
    }
    for (size_t o = 0; c != nullptr && o < l.bias.size(); ++o) {
        l.bias[o] = beta * c->f[c->numel() == 1 ? 0 : o];
    }
    add_layer(n, std::move(l));
}

// y = scale · x + shift at the network input, while no layer has read it: the input's
// normalization. Returns false when `n` is no such node.
bool Builder::normalization(const onnx::Node& n) {
    if (m_input_read || n.inputs.size() != 2 || n.inputs[0] != m_input) {
        return false;
    }
    const onnx::Value* c = constant(n.inputs[1]);
    const auto z = static_cast<size_t>(m_net.input.z);
    if (c == nullptr || (c->numel() != 1 && c->numel() != z)) {
        return false;
    }
    for (size_t k = 0; k < z; ++k) {
        const double v = c->f[c->numel() == 1 ? 0 : k];
        if (n.op_type == "Sub") {
            m_shift[k] -= v;
        } else if (n.op_type == "Add") {
            m_shift[k] += v;
        } else if (n.op_type == "Mul") {
            m_scale[k] *= v, m_shift[k] *= v;
        } else if (v == 0) {
            fail(n, "divides the input by 0");
        } else {
            m_scale[k] /= v, m_shift[k] /= v;
        }
    }
    m_input = n.outputs.at(0);
    m_producer[m_input] = -1;
    return true;
}

void Builder::add_or_mul(const onnx::Node& n) {
    Layer l;
    l.kind = n.op_type == "Add" ? LayerKind::add : LayerKind::multiply;
    const onnx::Value* c0 = constant(n.inputs.at(0));
    const onnx::Value* c1 = constant(n.inputs.at(1));
    if (c0 != nullptr && c1 != nullptr) {
        fail(n, "has two constant operands (fold it before export)");
    }
    l.input = source_of(n, n.inputs[c0 != nullptr ? 1 : 0]);
    const onnx::Value* c = c0 != nullptr ? c0 : c1;
    if (c == nullptr) {
        l.input2 = source_of(n, n.inputs[1]);
        add_layer(n, std::move(l));
        return;
    }
    const Layer* fc = l.input >= 0 ? &m_net.layers[static_cast<size_t>(l.input)] : nullptr;
    if (fc != nullptr && fc->kind == LayerKind::fc && l.kind == LayerKind::add &&
        m_uses[n.inputs[c0 != nullptr ? 1 : 0]] == 1 &&
        (c->numel() == static_cast<size_t>(fc->fc.out) || c->numel() == 1) &&
        fc->fc.activation == Activation::none) {  // MatMul + Add: the fc's bias
        Layer& f = m_net.layers[static_cast<size_t>(l.input)];
        for (size_t o = 0; o < f.bias.size(); ++o) {
            f.bias[o] += c->f[c->numel() == 1 ? 0 : o];
        }
        m_producer[n.outputs.at(0)] = l.input;
        f.onnx_tensor = n.outputs.at(0);
        return;
    }
    const ActShape in = l.input < 0 ? m_net.input : m_net.layers[static_cast<size_t>(l.input)].out;
    if (c->numel() != 1 && c->numel() != static_cast<size_t>(in.z)) {
        fail(n, fmt::format("its constant has {} values: the adder takes one per channel ({}) "
                            "or one for all",
                            c->numel(), in.z));
    }
    l.input2 = kConstantOperand;
    l.constant = c->f;
    add_layer(n, std::move(l));
}

// Along the channels of 4-D activations, as the conv module's layout allows (check_network).
void Builder::concat(const onnx::Node& n) {
    const int64_t axis = n.get_int("axis", 0);
    if (axis != 1 && axis != -3) {
        fail(n, fmt::format("concatenates along axis {}: the DL processor joins channels "
                            "(axis 1) only",
                            axis));
    }
    Layer l;
    l.kind = LayerKind::concat;
    for (const std::string& t : n.inputs) {
        const int src = source_of(n, t);
        if (src < 0) {
            fail(n, fmt::format("reads the network input '{}': a concatenation holds layers' "
                                "outputs (no layer writes the input into it)",
                                t));
        }
        l.inputs.push_back(src);
    }
    if (l.inputs.empty()) {
        fail(n, "has no inputs");
    }
    l.input = l.inputs[0];
    add_layer(n, std::move(l));
}

void Builder::software(const onnx::Node& n) {
    const std::string& t = n.inputs.at(0);
    const bool after_layers =
        producer(t) >= 0 && producer(t) + 1 == static_cast<int>(m_net.layers.size());
    if (!(after_layers && m_net.software.empty()) && t != m_software_out) {
        fail(n,
             "dlhdl runs it in software on the host, after the processor: only at the end of "
             "the network");
    }
    if (n.op_type == "Softmax" && n.get_int("axis", -1) != -1 && n.get_int("axis", -1) != 1) {
        fail(n, "softmax over an axis other than the channels");
    }
    m_net.software.push_back({n.name.empty() ? n.outputs.at(0) : n.name,
                              n.op_type == "Softmax" ? "softmax" : "sigmoid", n.outputs.at(0)});
    m_software_out = n.outputs.at(0);
}

void Builder::node(const onnx::Node& n) {
    const std::string& op = n.op_type;
    if (op == "Identity" || op == "Dropout" || op == "Flatten" || op == "Reshape") {
        // Pass-through: an fc layer flattens its producer's image in channel, row, column
        // order, as ONNX's Flatten and Reshape to (1, -1) of NCHW do.
        if ((op == "Flatten" && n.get_int("axis", 1) != 1)) {
            fail(n, "flattens at an axis other than 1");
        }
        m_producer[n.outputs.at(0)] = source_of(n, n.inputs.at(0));
        if (m_producer[n.outputs.at(0)] == -1) {
            m_input = n.outputs.at(0);
        }
        return;
    }
    if ((op == "Sub" || op == "Div" || op == "Mul" || op == "Add") && normalization(n)) {
        return;
    }
    m_input_read = true;
    if (op == "Conv") {
        conv(n);
    } else if (op == "BatchNormalization") {
        batch_norm(n);
    } else if (op == "Relu" || op == "LeakyRelu" || op == "Clip") {
        activation(n);
    } else if (op == "MaxPool" || op == "AveragePool" || op == "GlobalAveragePool") {
        pool(n);
    } else if (op == "Gemm" || op == "MatMul") {
        gemm(n, op == "MatMul");
    } else if (op == "Add" || op == "Mul") {
        add_or_mul(n);
    } else if (op == "Concat") {
        concat(n);
    } else if (op == "Softmax" || op == "Sigmoid") {
        software(n);
    } else {
        fail(n, fmt::format("{} has no module on the DL processor (it runs Conv, "
                            "BatchNormalization, Relu, LeakyRelu, Clip, MaxPool, AveragePool, "
                            "GlobalAveragePool, Gemm, MatMul, Add, Mul, Concat, Flatten, Reshape; "
                            "Softmax and Sigmoid at the end on the host)",
                            op));
    }
}

NetworkFile Builder::build(const OnnxNetworkOptions& opts) {
    if (m_g.inputs.size() != 1 || m_g.outputs.size() != 1) {
        throw sim::Error(
            fmt::format("{}: {} inputs and {} outputs: the DL processor runs a "
                        "network of one input and one output",
                        m_source, m_g.inputs.size(), m_g.outputs.size()));
    }
    const std::vector<int64_t>& s = m_g.inputs[0].shape;
    if (s.size() != 4 || (s[0] != 1 && s[0] != -1) || s[1] < 1 || s[2] < 1 || s[3] < 1) {
        throw sim::Error(fmt::format("{}: input '{}' is not an image of 1 x C x H x W", m_source,
                                     m_g.inputs[0].name));
    }
    m_net.name = m_g.name.empty() ? "onnx" : m_g.name;
    m_net.input = {s[1], s[2], s[3]};
    m_input = m_g.inputs[0].name;
    m_producer[m_input] = -1;
    m_scale.assign(static_cast<size_t>(s[1]), 1.0);
    m_shift.assign(static_cast<size_t>(s[1]), 0.0);
    for (const onnx::Node& n : m_g.nodes) {
        for (const std::string& t : n.inputs) {
            ++m_uses[t];
        }
    }
    ++m_uses[m_g.outputs[0].name];
    for (const onnx::Node& n : m_g.nodes) {
        node(n);
    }
    return finish(opts);
}

NetworkFile Builder::finish(const OnnxNetworkOptions& opts) {
    const std::string& out = m_g.outputs[0].name;
    if (m_net.layers.empty()) {
        throw sim::Error(m_source + ": no layer the DL processor runs");
    }
    const bool in_software = !m_net.software.empty() && out == m_software_out;
    if (!in_software &&
        (producer(out) + 1 != static_cast<int>(m_net.layers.size()) || !m_net.software.empty())) {
        throw sim::Error(
            fmt::format("{}: the output '{}' is not the last layer's: the DL "
                        "processor runs one chain to one output",
                        m_source, out));
    }
    bool scaled = false, shifted = false;
    for (size_t k = 0; k < m_scale.size(); ++k) {
        scaled = scaled || m_scale[k] != 1.0;
        shifted = shifted || m_shift[k] != 0.0;
    }
    std::vector<float> mean = opts.mean, std = opts.std;
    if ((scaled || shifted) && (!mean.empty() || !std.empty())) {
        throw sim::Error(m_source +
                         ": the model normalizes its input itself; --mean/--std "
                         "would normalize it twice");
    }
    if (scaled || shifted) {
        mean.clear(), std.clear();
        for (size_t k = 0; k < m_scale.size(); ++k) {
            if (m_scale[k] == 0) {
                throw sim::Error(m_source + ": the input's normalization multiplies by 0");
            }
            if (shifted) {
                mean.push_back(static_cast<float>(-m_shift[k] / m_scale[k]));
            }
            if (scaled) {
                std.push_back(static_cast<float>(1.0 / m_scale[k]));
            }
        }
    }
    add_input_normalization(m_net, mean, std);
    if (scaled || shifted) {  // the normalized input is a tensor of the graph
        m_net.layers[(shifted && scaled) ? 1 : 0].onnx_tensor = m_input;
    }
    check_network(m_net, m_cfg.dlp);
    NetworkFile f;
    f.network = std::move(m_net);
    return f;
}

}  // namespace

const std::vector<std::string>& dlp_onnx_ops() {
    static const std::vector<std::string> ops = {"Conv",        "BatchNormalization",
                                                 "Relu",        "LeakyRelu",
                                                 "Clip",        "MaxPool",
                                                 "AveragePool", "GlobalAveragePool",
                                                 "Gemm",        "MatMul",
                                                 "Add",         "Mul",
                                                 "Concat",      "Sub",
                                                 "Div",         "Flatten",
                                                 "Reshape",     "Identity",
                                                 "Dropout",     "Softmax",
                                                 "Sigmoid"};
    return ops;
}

NetworkFile network_from_onnx(const onnx::Graph& g, const std::string& source,
                              const DlpPlatformConfig& cfg, const OnnxNetworkOptions& opts) {
    return Builder(g, source, cfg).build(opts);
}

}  // namespace npu::dlp
