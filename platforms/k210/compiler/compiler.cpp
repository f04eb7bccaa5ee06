#include "platforms/k210/compiler/compiler.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <optional>
#include <set>

#include <fmt/format.h>

#include "models/k210_kpu/kpu_cost.h"
#include "models/k210_kpu/kpu_layer_builder.h"
#include "models/k210_kpu/kpu_layout.h"
#include "platforms/k210/kmodel/cpu_model.h"
#include "platforms/k210/kmodel/kmodel_writer.h"
#include "sim/core/error.h"
#include "sim/onnx/evaluator.h"

namespace npu::k210 {

namespace {

using Shape = std::vector<int64_t>;

struct Range {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
};

std::string shape_str(const Shape& s) {
    return fmt::format("{}", fmt::join(s, "x"));
}

// Thrown while compiling for v3 when a layer needs kmodel v4; compile_k210 then starts over in
// v4 (or, with v3 forced, reports it as the error).
struct NeedsV4 {
    std::string why;
};

int64_t numel(const Shape& s) {
    int64_t n = 1;
    for (int64_t d : s) {
        n *= d;
    }
    return n;
}

// Every tensor's calibrated range and shape: computed once, shared by a v3 attempt and the v4
// compilation that may follow it.
struct Calibration {
    bool done = false;
    std::map<std::string, Range> ranges;
    std::map<std::string, Shape> shapes;
};

class Compiler {
public:
    Compiler(const onnx::Graph& g, const CompileOptions& o, bool v4, Calibration& cal)
        : m_g(g)
        , m_o(o)
        , m_cal(cal)
        , m_ranges(cal.ranges)
        , m_shapes(cal.shapes)
        , m_v4(v4) {}

    CompiledModel run() {
        check_io();
        calibrate();
        fold_constants();
        index_consumers();
        start();
        for (size_t i = 0; i < m_g.nodes.size(); ++i) {
            if (m_done.count(i) == 0) {
                node(i);
            }
        }
        finish();
        return std::move(m_out);
    }

private:
    // Where a computed tensor is: in KPU RAM (row layout, from a line), in the working buffer as
    // dense uint8 and/or float32; `q` is the parameters of its uint8 copies.
    struct Where {
        Shape shape;
        QuantParams q;
        std::optional<uint32_t> kpu, u8, f32;
        int conv = -1;  // the K210_CONV spec that produced it (its DMA gives the u8 copy)
    };

    [[noreturn]] void fail(const std::string& why) const {
        throw sim::Error(fmt::format("{}: {}", m_o.model_name, why));
    }
    [[noreturn]] void fail(const onnx::Node& n, const std::string& why) const {
        fail(fmt::format("{}: {}", n.describe(), why));
    }
    // What only kmodel v4 has: in a v3 compilation, give up (compile_k210 decides what next).
    void needs_v4(const std::string& why) const {
        if (!m_v4) {
            throw NeedsV4{why};
        }
    }

    // Ranges in the working buffer (v4 nodes name their memory).
    static MemoryRange main_u8(uint32_t at, uint64_t n) {
        return {kMainMemory, kUint8, at, static_cast<uint32_t>(n)};
    }
    static MemoryRange main_f32(uint32_t at, uint64_t n) {
        return {kMainMemory, kFloat32, at, static_cast<uint32_t>(n * 4)};
    }
    static Shape4 shape4(const Shape& s) {
        Shape4 r{1, 1, 1, 1};
        const size_t k = std::min<size_t>(s.size(), 4);
        for (size_t i = 0; i < k; ++i) {  // right-aligned: (C) -> (1, 1, 1, C)
            r[4 - k + i] = static_cast<int32_t>(s[s.size() - k + i]);
        }
        for (size_t i = 0; i + 4 < s.size(); ++i) {
            r[0] *= static_cast<int32_t>(s[i]);
        }
        return r;
    }
    uint32_t add_constants(const std::vector<float>& v) {
        const auto at = static_cast<uint32_t>(m_constants.size());
        m_constants.resize(at + v.size() * 4);
        std::memcpy(m_constants.data() + at, v.data(), v.size() * 4);
        return at;
    }

    void check_io() {
        if (m_g.inputs.size() != 1 || m_g.outputs.size() != 1) {
            fail(fmt::format("{} inputs and {} outputs: the K210 compiler takes one of each",
                             m_g.inputs.size(), m_g.outputs.size()));
        }
        const onnx::ValueInfo& in = m_g.inputs[0];
        if (in.shape.size() != 4 || in.shape[0] != 1 ||
            std::any_of(in.shape.begin(), in.shape.end(), [](int64_t d) { return d < 1; })) {
            fail(fmt::format("input '{}' is {}: expected a static 1 x C x H x W image", in.name,
                             shape_str(in.shape)));
        }
        if (m_o.calibration.empty()) {
            fail("the calibration set is empty (give at least one input sample)");
        }
    }

    // Runs the float reference on every calibration sample (unless an earlier attempt did);
    // records each tensor's range and shape.
    void calibrate() {
        if (m_cal.done) {
            return;
        }
        onnx::EvalOptions eo;
        eo.on_value = [&](const std::string& name, const onnx::Value& v) {
            observe(name, v);
        };
        for (const auto& sample : m_o.calibration) {
            for (const auto& [name, v] : sample) {
                observe(name, v);
            }
            onnx::evaluate(m_g, sample, eo);
        }
        m_cal.done = true;
    }
    void observe(const std::string& name, const onnx::Value& v) {
        Range& r = m_ranges[name];
        for (float f : v.f) {
            r.lo = std::min(r.lo, static_cast<double>(f));
            r.hi = std::max(r.hi, static_cast<double>(f));
        }
        m_shapes[name] = v.shape;
    }

    // Exporters compute constants in the graph (PyTorch: Constant nodes for Clip bounds, Shape ->
    // Gather -> Concat for a Reshape's shape). A node whose inputs are all constant runs once
    // here, in the reference evaluator, and its outputs become initializers; Shape of a computed
    // tensor is its calibrated (static) shape.
    void fold_constants() {
        for (size_t i = 0; i < m_g.nodes.size(); ++i) {
            const onnx::Node& n = m_g.nodes[i];
            if (n.outputs.empty()) {
                continue;
            }
            if (n.op_type == "Shape" && n.inputs.size() == 1 && n.attributes.empty() &&
                m_shapes.count(n.inputs[0]) != 0) {
                const Shape& sh = m_shapes.at(n.inputs[0]);
                m_g.initializers[n.outputs[0]] =
                    onnx::Value::ints({static_cast<int64_t>(sh.size())}, sh);
                m_done.insert(i);
                continue;
            }
            if (is_identity(n)) {
                bypass(i);
                continue;
            }
            const bool all_const =
                std::all_of(n.inputs.begin(), n.inputs.end(), [&](const std::string& in) {
                    return in.empty() || m_g.initializers.count(in) != 0;
                });
            if (!all_const) {
                continue;
            }
            onnx::Graph one;
            one.opset = m_g.opset;
            one.nodes = {n};
            for (const std::string& in : n.inputs) {
                if (!in.empty()) {
                    one.initializers[in] = m_g.initializers.at(in);
                }
            }
            for (const std::string& out : n.outputs) {
                if (!out.empty()) {
                    one.outputs.push_back({out, 1, {}});
                }
            }
            const std::map<std::string, onnx::Value> values = onnx::evaluate(one, {});
            for (const auto& [name, v] : values) {
                m_g.initializers[name] = v;
            }
            m_done.insert(i);
        }
    }

    // Nodes that pass their input through: Identity, Dropout (inference), and a Pad of zeros
    // (PyTorch exports avg_pool2d as Pad + AveragePool).
    bool is_identity(const onnx::Node& n) const {
        if (n.inputs.empty() || n.inputs[0].empty() || n.outputs.size() != 1 ||
            n.outputs[0] == m_g.outputs[0].name) {
            return false;
        }
        if (n.op_type == "Identity" || n.op_type == "Dropout") {
            return true;
        }
        if (n.op_type != "Pad") {
            return false;
        }
        std::vector<int64_t> pads = n.get_ints("pads");  // opset < 11
        if (n.inputs.size() > 1 && m_g.initializers.count(n.inputs[1]) != 0) {
            pads = m_g.initializers.at(n.inputs[1]).i;
        }
        return !pads.empty() &&
               std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; });
    }
    // Node i's consumers read its input instead.
    void bypass(size_t i) {
        const std::string from = m_g.nodes[i].outputs[0], to = m_g.nodes[i].inputs[0];
        for (onnx::Node& c : m_g.nodes) {
            std::replace(c.inputs.begin(), c.inputs.end(), from, to);
        }
        m_done.insert(i);
    }

    void index_consumers() {
        for (size_t i = 0; i < m_g.nodes.size(); ++i) {
            if (m_done.count(i) != 0) {
                continue;  // folded or bypassed
            }
            for (const std::string& in : m_g.nodes[i].inputs) {
                if (!in.empty() && m_g.initializers.count(in) == 0) {
                    m_consumers[in].push_back(i);
                }
            }
        }
    }

    // The node that alone consumes tensor `t` (not a graph output), or nullptr.
    const onnx::Node* sole_consumer(const std::string& t, size_t* index = nullptr) const {
        auto it = m_consumers.find(t);
        if (it == m_consumers.end() || it->second.size() != 1 || t == m_g.outputs[0].name) {
            return nullptr;
        }
        if (index != nullptr) {
            *index = it->second[0];
        }
        return &m_g.nodes[it->second[0]];
    }

    const onnx::Value& init(const onnx::Node& n, size_t i, const char* what) const {
        if (i >= n.inputs.size() || m_g.initializers.count(n.inputs[i]) == 0) {
            fail(n, fmt::format("its {} is not a constant initializer", what));
        }
        return m_g.initializers.at(n.inputs[i]);
    }
    bool has_init(const onnx::Node& n, size_t i) const {
        return i < n.inputs.size() && !n.inputs[i].empty() &&
               m_g.initializers.count(n.inputs[i]) != 0;
    }

    QuantParams qparams(const std::string& t) const {
        auto it = m_ranges.find(t);
        if (it == m_ranges.end() || !(it->second.hi >= it->second.lo)) {
            fail(fmt::format("tensor '{}' has no calibrated range", t));
        }
        return quant_params_u8(it->second.lo, it->second.hi);
    }

    uint32_t alloc_main(uint64_t bytes) {
        const uint32_t at = m_main;
        const uint64_t next = (uint64_t{m_main} + bytes + 7) / 8 * 8;
        if (next > (6u << 20)) {
            fail(fmt::format("the working buffer would need {} bytes (the K210 has 6 MiB)", next));
        }
        m_main = static_cast<uint32_t>(next);
        return at;
    }
    uint32_t alloc_kpu(uint64_t lines, const std::string& what) {
        if (m_kpu_next + lines > m_kpu_top) {
            fail(fmt::format(
                "{} needs {} more 64-byte lines of KPU RAM; {} of the {} lines are taken (the "
                "model does not fit the 2 MiB KPU RAM)",
                what, lines, m_kpu_next + (kpu::kRamLines - m_kpu_top), kpu::kRamLines));
        }
        const auto at = static_cast<uint32_t>(m_kpu_next);
        m_kpu_next += lines;
        return at;
    }

    void start() {
        const onnx::ValueInfo& in = m_g.inputs[0];
        m_out.input_name = in.name;
        m_out.output_name = m_g.outputs[0].name;
        m_out.input_shape = in.shape;
        m_out.input_q = qparams(in.name);
        const int c = static_cast<int>(in.shape[1]), h = static_cast<int>(in.shape[2]),
                  w = static_cast<int>(in.shape[3]);
        const uint64_t lines = kpu::fmap_lines(c, w, h);
        if (lines > kpu::kRamLines) {
            fail(fmt::format("the input ({}) does not fit the 2 MiB KPU RAM", shape_str(in.shape)));
        }
        Where& x = m_t[in.name];
        x.shape = in.shape, x.q = m_out.input_q;
        if (m_v4) {
            // nncase's runtime takes the u8 image in memory and uploads it with a kpu_upload
            // node before the first KPU layer that reads it.
            x.u8 = alloc_main(static_cast<uint64_t>(numel(in.shape)));
            return;
        }
        m_kpu_top = kpu::kRamLines - lines;  // the input sits at the top, as the SDK places it
        x.kpu = static_cast<uint32_t>(m_kpu_top);
        auto it = m_consumers.find(in.name);
        if (it == m_consumers.end() || it->second.size() != 1 ||
            m_g.nodes[it->second[0]].op_type != "Conv") {
            needs_v4(
                "the input does not feed exactly one Conv (a kmodel v3 starts with a KPU layer "
                "that reads the uploaded image)");
        }
    }

    CompiledLayer& add_layer(const std::string& nodes, const std::string& target,
                             const std::string& kind) {
        CompiledLayer l;
        l.nodes = nodes, l.target = target, l.kind = kind;
        l.kmodel_layer = static_cast<int>(m_spec.layers.size()) - 1;  // called after the push
        m_out.layers.push_back(l);
        return m_out.layers.back();
    }

    uint64_t cpu_cycles(uint64_t elements, uint64_t macs) const {
        const CpuModel c;
        return c.layer_dispatch_cycles + static_cast<uint64_t>(std::ceil(
                                             c.cycles_per_element * static_cast<double>(elements) +
                                             c.cycles_per_mac * static_cast<double>(macs)));
    }

    // A computed tensor, or an error naming the node that wants it.
    Where& tensor(const onnx::Node& n, size_t input) {
        if (input >= n.inputs.size() || m_t.count(n.inputs[input]) == 0) {
            fail(n, fmt::format("its input {} is not computed by a compiled layer", input));
        }
        return m_t.at(n.inputs[input]);
    }

    // Tensor `t` as float32 in the working buffer (dense NCHW).
    Where& to_f32(const std::string& t, const std::string& why) {
        Where& w = m_t.at(t);
        if (w.f32) {
            return w;
        }
        to_main_u8(t);
        const uint64_t n = static_cast<uint64_t>(numel(w.shape));
        const uint32_t out = alloc_main(n * 4);
        if (m_v4) {
            m_spec.layers.push_back(v4_dequantize_node(main_u8(*w.u8, n), main_f32(out, n),
                                                       w.q.zero_point,
                                                       static_cast<float>(1.0 / w.q.scale)));
        } else {
            m_spec.layers.push_back(
                DequantizeSpec{*w.u8, out, static_cast<uint32_t>(n), static_cast<float>(w.q.scale),
                               static_cast<float>(-w.q.zero_point * w.q.scale)});
        }
        CompiledLayer& l = add_layer(t, "CPU", m_v4 ? "dequantize" : "DEQUANTIZE");
        l.why_cpu = why;
        l.in_shape = l.out_shape = w.shape;
        l.in_q = w.q;
        l.est_cycles = cpu_cycles(n, 0);
        l.onnx_output = t;
        l.out_float = true, l.out_address = out, l.lsb = w.q;
        w.f32 = out;
        return w;
    }
    // Tensor `t` as dense uint8 in the working buffer (a KPU output: by the layer's DMA).
    Where& to_main_u8(const std::string& t) {
        Where& w = m_t.at(t);
        if (w.u8) {
            return w;
        }
        if (w.conv >= 0) {
            auto& conv = std::get<ConvLayerSpec>(m_spec.layers[static_cast<size_t>(w.conv)]);
            conv.main_mem_out = true;
            conv.main_mem_out_address = alloc_main(static_cast<uint64_t>(numel(w.shape)));
            w.u8 = conv.main_mem_out_address;
            return w;
        }
        if (!w.f32) {
            fail(fmt::format("tensor '{}' (the input) has no uint8 copy in the working buffer", t));
        }
        w.q = qparams(t);
        const uint64_t count = static_cast<uint64_t>(numel(w.shape));
        const uint32_t out = alloc_main(count);
        push_quantize(*w.f32, out, count, w.q);
        CompiledLayer& l = add_layer(t, "CPU", m_v4 ? "quantize" : "QUANTIZE");
        l.why_cpu = "float tensor into a KPU layer";
        l.in_shape = l.out_shape = w.shape;
        l.out_q = l.lsb = w.q;
        l.est_cycles = cpu_cycles(count, 0);
        l.out_address = out;
        w.u8 = out;
        return w;
    }
    void push_quantize(uint32_t f32_at, uint32_t u8_at, uint64_t count, const QuantParams& q) {
        if (m_v4) {
            m_spec.layers.push_back(v4_quantize_node(main_f32(f32_at, count), main_u8(u8_at, count),
                                                     q.zero_point,
                                                     static_cast<float>(1.0 / q.scale)));
        } else {
            m_spec.layers.push_back(quantize_layer(f32_at, u8_at, static_cast<uint32_t>(count),
                                                   static_cast<float>(q.scale),
                                                   static_cast<float>(-q.zero_point * q.scale)));
        }
    }

    // Tensor `t` quantized in KPU RAM.
    Where& to_kpu(const std::string& t, const onnx::Node& n) {
        Where& w = m_t.at(t);
        if (w.kpu) {
            return w;
        }
        if (w.shape.size() != 4) {
            fail(n, fmt::format("its input {} is not a 1 x C x H x W feature map",
                                shape_str(w.shape)));
        }
        to_main_u8(t);
        const int c = static_cast<int>(w.shape[1]), h = static_cast<int>(w.shape[2]),
                  wd = static_cast<int>(w.shape[3]);
        const uint64_t lines = kpu::fmap_lines(c, wd, h);
        const uint32_t line = alloc_kpu(lines, "K210_UPLOAD of " + t);
        if (m_v4) {
            const auto count = static_cast<uint64_t>(numel(w.shape));
            m_spec.layers.push_back(
                v4_upload_node(main_u8(*w.u8, count),
                               {kKpuMemory, kUint8, static_cast<uint32_t>(line * kpu::kLineBytes),
                                static_cast<uint32_t>(lines * kpu::kLineBytes)},
                               {1, c, h, wd}));
        } else {
            m_spec.layers.push_back(upload_layer(*w.u8, line, static_cast<uint32_t>(wd),
                                                 static_cast<uint32_t>(h),
                                                 static_cast<uint32_t>(c)));
        }
        CompiledLayer& l = add_layer(t, "CPU", m_v4 ? "kpu_upload" : "K210_UPLOAD");
        l.why_cpu = "feature map into the KPU RAM layout";
        l.in_shape = l.out_shape = w.shape;
        l.est_cycles = cpu_cycles(static_cast<uint64_t>(numel(w.shape)), 0);
        l.out_in_kpu = true, l.out_address = line, l.lsb = w.q;
        w.kpu = line;
        return w;
    }

    static std::string kpu_refusal(const onnx::Node& n, const onnx::Value& w, const Shape& in) {
        if (w.shape.size() != 4) {
            return "its weights are not 4-D (1-D convolutions are not KPU layers)";
        }
        const int64_t kh = w.shape[2], kw = w.shape[3];
        if (kh != kw || (kh != 1 && kh != 3)) {
            return fmt::format("kernel {}x{} (the KPU has 1x1 and 3x3)", kh, kw);
        }
        const Shape dil = n.get_ints("dilations", {1, 1});
        if (std::any_of(dil.begin(), dil.end(), [](int64_t d) { return d != 1; })) {
            return "dilation (the KPU has none)";
        }
        const Shape st = n.get_ints("strides", {1, 1});
        const bool s1 = st == Shape{1, 1}, s2 = st == Shape{2, 2};
        if (!s1 && !(s2 && kh == 3)) {
            return fmt::format("strides {} (the KPU has 1, and 2 for 3x3 via pool type 5)",
                               shape_str(st));
        }
        const std::string ap = n.get_string("auto_pad", "NOTSET");
        const Shape pads = n.get_ints("pads", {0, 0, 0, 0});
        const int64_t p = kh / 2;
        const bool same = (ap == "NOTSET" && pads == Shape{p, p, p, p}) ||
                          (ap == "VALID" && p == 0) ||
                          ((ap == "SAME_UPPER" || ap == "SAME_LOWER") && s1);
        if (!same) {
            return fmt::format("padding {} (the KPU pads {} on every side)", shape_str(pads), p);
        }
        const int64_t c = in[1], h = in[2], wd = in[3];
        const int64_t g = n.get_int("group", 1);
        if (g != 1 && !(g == c && w.shape[0] == c)) {
            return fmt::format("{} groups (the KPU has dense and depthwise convolutions)", g);
        }
        if (h < 4 || wd < 4 || h > 255 || wd > 320) {
            return fmt::format("a {}x{} input (KPU layers here take 4x4 to 320x255)", wd, h);
        }
        if (s2 && (h % 2 != 0 || wd % 2 != 0)) {
            return fmt::format("stride 2 on an odd size {}x{}", wd, h);
        }
        return "";
    }

    void conv(size_t index) {
        const onnx::Node& n = m_g.nodes[index];
        const std::string src = n.inputs.empty() ? "" : n.inputs[0];
        const Shape in_shape = tensor(n, 0).shape;
        if (in_shape.size() != 4) {
            fail(n, fmt::format("its input {} is not a 1 x C x H x W feature map",
                                shape_str(in_shape)));
        }
        const onnx::Value& wv = init(n, 1, "weight tensor");
        const std::string refusal = kpu_refusal(n, wv, in_shape);
        if (!refusal.empty()) {
            needs_v4(
                fmt::format("{} cannot run on the KPU ({}): it needs a CPU convolution, "
                            "which kmodel v3 does not have",
                            n.describe(), refusal));
            cpu_conv(index, wv, in_shape, refusal);
            return;
        }
        const Where& x = to_kpu(src, n);
        const int c = static_cast<int>(in_shape[1]), h = static_cast<int>(in_shape[2]),
                  w = static_cast<int>(in_shape[3]);
        const int m = static_cast<int>(wv.shape[0]), k = static_cast<int>(wv.shape[2]);
        const bool depthwise = n.get_int("group", 1) != 1;
        const bool stride2 = n.get_ints("strides", {1, 1}) == Shape{2, 2};
        std::vector<float> weights = wv.f;
        std::vector<float> bias(static_cast<size_t>(m), 0.0f);
        if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
            bias = init(n, 2, "bias").f;
        }
        std::vector<std::string> names{n.name};
        std::vector<std::string> kind{
            fmt::format("conv{}x{}{}{}", k, k, depthwise ? " dw" : "", stride2 ? " s2" : "")};
        std::string t = n.outputs[0], pre = t;
        size_t next_index = 0;
        const onnx::Node* next = sole_consumer(t, &next_index);
        if (next != nullptr && next->op_type == "BatchNormalization") {
            fold_batch_norm(weights, bias, init(*next, 1, "scale").f, init(*next, 2, "B").f,
                            init(*next, 3, "mean").f, init(*next, 4, "var").f,
                            next->get_float("epsilon", 1e-5f));
            m_done.insert(next_index), names.push_back(next->name), kind.push_back("bn");
            t = pre = next->outputs[0];
            next = sole_consumer(t, &next_index);
        }
        Activation act;
        if (next != nullptr && activation_of(*next, act)) {
            m_done.insert(next_index), names.push_back(next->name), kind.push_back(act.name());
            t = next->outputs[0];
            next = sole_consumer(t, &next_index);
        }
        const std::string act_out = t;
        uint32_t pool = stride2 ? 5 : 0;
        if (next != nullptr && !stride2) {
            const uint32_t p = pool_of(*next, h, w);
            if (p != 0) {
                pool = p;
                m_done.insert(next_index), names.push_back(next->name);
                kind.push_back(next->op_type == "GlobalAveragePool" ? "global_avg_pool"
                               : next->op_type == "GlobalMaxPool"   ? "global_max_pool"
                                                                    : next->op_type);
                t = next->outputs[0];
            }
        }
        const QuantParams out_q = qparams(act_out);
        const Range pre_range = m_ranges.at(pre);
        const QuantizedConv q = quantize_conv(weights, bias, m, k, depthwise, x.q, out_q, act,
                                              pre_range.lo, pre_range.hi);
        kpu::LayerArgs args;
        try {
            args = kpu::build_layer({c, h, w, m, k, depthwise, pool, true}, *x.kpu, 0);
        } catch (const sim::Error& e) {
            fail(n, std::string("cannot be a KPU layer: ") + e.what());
        }
        const kpu::FmapGeometry og = kpu::output_geometry(args);
        args.image_dst_addr =
            alloc_kpu(kpu::fmap_lines(og.channels, og.width, og.height), "the output of " + n.name);
        args.arg_x = q.arg_x, args.arg_w = q.arg_w, args.arg_add = q.arg_add;
        args.shr_x = args.shr_w = 0;
        args.pad_value = q.pad_value;
        ConvLayerSpec spec;
        spec.args = args, spec.weights = q.weights, spec.bn = q.bn, spec.act = q.act;
        const int spec_index = static_cast<int>(m_spec.layers.size());
        m_spec.layers.push_back(spec);
        CompiledLayer& l = add_layer(fmt::format("{}", fmt::join(names, "+")), "KPU",
                                     fmt::format("{}", fmt::join(kind, " + ")));
        l.in_shape = in_shape;
        l.out_shape = {1, og.channels, og.height, og.width};
        l.in_q = x.q, l.out_q = out_q;
        l.weight_bytes = q.weights.size();
        const kpu::LayerCost cost = kpu::layer_cost(args, true, kpu::KpuTiming{});
        l.macs = cost.macs, l.est_cycles = cost.total_cycles;
        l.act_error_lsb = q.max_act_error_lsb;
        l.onnx_output = t;
        l.out_in_kpu = true, l.out_address = args.image_dst_addr, l.lsb = out_q;
        Where& y = m_t[t];
        y.shape = l.out_shape, y.q = out_q, y.kpu = args.image_dst_addr, y.conv = spec_index;
    }

    // The window of a Conv or pooling node with kernel `k` over `in`: its strides, dilations
    // and pads (explicit, VALID, or SAME_* computed from the input size).
    Window2d window_of(const onnx::Node& n, const Shape& in, const Shape& k) const {
        const Shape st = n.get_ints("strides", {1, 1}), dil = n.get_ints("dilations", {1, 1});
        if (k.size() != 2 || st.size() != 2 || dil.size() != 2) {
            fail(n, "kernel_shape, strides and dilations must have 2 values");
        }
        Window2d w;
        Padding* pad[2] = {&w.pad_h, &w.pad_w};
        const std::string ap = n.get_string("auto_pad", "NOTSET");
        if (ap == "SAME_UPPER" || ap == "SAME_LOWER") {
            for (size_t a = 0; a < 2; ++a) {
                const int64_t size = in[2 + a];
                const int64_t out = (size + st[a] - 1) / st[a];
                const int64_t total =
                    std::max<int64_t>(0, (out - 1) * st[a] + (k[a] - 1) * dil[a] + 1 - size);
                const int64_t small = total / 2, big = total - small;
                pad[a]->before = static_cast<int32_t>(ap == "SAME_UPPER" ? small : big);
                pad[a]->after = static_cast<int32_t>(ap == "SAME_UPPER" ? big : small);
            }
        } else if (ap == "NOTSET") {
            const Shape pads = n.get_ints("pads", {0, 0, 0, 0});
            if (pads.size() != 4) {
                fail(n, fmt::format("pads {} are not 2-D", shape_str(pads)));
            }
            w.pad_h = {static_cast<int32_t>(pads[0]), static_cast<int32_t>(pads[2])};
            w.pad_w = {static_cast<int32_t>(pads[1]), static_cast<int32_t>(pads[3])};
        } else if (ap != "VALID") {
            fail(n, "auto_pad '" + ap + "' is not NOTSET, VALID, SAME_UPPER or SAME_LOWER");
        }
        w.filter_h = static_cast<int32_t>(k[0]), w.filter_w = static_cast<int32_t>(k[1]);
        w.stride_h = static_cast<int32_t>(st[0]), w.stride_w = static_cast<int32_t>(st[1]);
        w.dilation_h = static_cast<int32_t>(dil[0]), w.dilation_w = static_cast<int32_t>(dil[1]);
        return w;
    }

    // A CPU window node's output shape must be the reference's.
    void check_output_shape(const onnx::Node& n, const std::string& t, const Shape& s) const {
        if (m_shapes.count(t) == 0 || m_shapes.at(t) != s) {
            fail(n, fmt::format("its output would be {}, the reference computes {}", shape_str(s),
                                m_shapes.count(t) != 0 ? shape_str(m_shapes.at(t)) : "nothing"));
        }
    }

    static ValueRange fused_range(const Activation& a) {
        ValueRange r;
        if (a.kind == Activation::Kind::Relu) {
            r.min = 0;
        } else if (a.kind == Activation::Kind::Clip) {
            r.min = std::max(static_cast<float>(a.lo), r.min);
            r.max = std::min(static_cast<float>(a.hi), r.max);
        }
        return r;
    }

    // A convolution the KPU cannot run: nncase v0.2's float conv2d on the CPU, with a
    // BatchNormalization folded in and a Relu or Clip as its fused activation.
    void cpu_conv(size_t index, const onnx::Value& wv, const Shape& in_shape,
                  const std::string& refusal) {
        const onnx::Node& n = m_g.nodes[index];
        if (wv.shape.size() != 4) {
            fail(n, "its weights are not 4-D (only 2-D convolutions are compiled)");
        }
        const Where& x = to_f32(n.inputs[0], "Conv on the CPU");
        const Shape k{wv.shape[2], wv.shape[3]};
        const int64_t m = wv.shape[0];
        std::vector<float> weights = wv.f;
        std::vector<float> bias(static_cast<size_t>(m), 0.0f);
        if (has_init(n, 2)) {
            bias = init(n, 2, "bias").f;
        }
        std::vector<std::string> names{n.name};
        std::vector<std::string> kind{fmt::format("conv{}x{} (float)", k[0], k[1])};
        std::string t = n.outputs[0];
        size_t next_index = 0;
        const onnx::Node* next = sole_consumer(t, &next_index);
        if (next != nullptr && next->op_type == "BatchNormalization") {
            fold_batch_norm(weights, bias, init(*next, 1, "scale").f, init(*next, 2, "B").f,
                            init(*next, 3, "mean").f, init(*next, 4, "var").f,
                            next->get_float("epsilon", 1e-5f));
            m_done.insert(next_index), names.push_back(next->name), kind.push_back("bn");
            t = next->outputs[0];
            next = sole_consumer(t, &next_index);
        }
        Activation act;
        if (next != nullptr && activation_of(*next, act) &&
            act.kind != Activation::Kind::LeakyRelu) {
            m_done.insert(next_index), names.push_back(next->name), kind.push_back(act.name());
            t = next->outputs[0];
        } else {
            act = Activation{};
        }
        V4Conv2d c;
        const uint64_t n_in = static_cast<uint64_t>(numel(in_shape));
        c.in = main_f32(*x.f32, n_in);
        c.in_shape = shape4(in_shape);
        c.groups = static_cast<int32_t>(n.get_int("group", 1));
        c.out_channels = static_cast<int32_t>(m);
        c.win = window_of(n, in_shape, k);
        c.act = fused_range(act);
        c.weights = std::move(weights);
        c.bias = std::move(bias);
        const Shape out_shape{1, m, c.win.out_h(c.in_shape), c.win.out_w(c.in_shape)};
        check_output_shape(n, t, out_shape);
        const auto n_out = static_cast<uint64_t>(numel(out_shape));
        const uint32_t o = alloc_main(n_out * 4);
        c.out = main_f32(o, n_out);
        // What the run multiplies: the in-bounds taps only (padding adds none).
        const uint64_t macs = static_cast<uint64_t>(m) *
                              static_cast<uint64_t>(in_shape[1] / c.groups) *
                              in_bounds_taps(c.win, c.in_shape);
        const uint64_t wbytes = (c.weights.size() + c.bias.size()) * 4;
        m_spec.layers.push_back(v4_node(c));
        CompiledLayer& l = add_layer(fmt::format("{}", fmt::join(names, "+")), "CPU",
                                     fmt::format("{}", fmt::join(kind, " + ")));
        l.why_cpu = refusal;
        l.in_shape = in_shape;
        l.out_shape = out_shape;
        l.weight_bytes = wbytes;
        l.macs = macs;
        l.est_cycles = cpu_cycles(n_out, macs);
        float_output(l, t, o);
    }

    // MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool not fused into a KPU layer:
    // nncase v0.2's float reduce_window2d.
    void cpu_pool(const onnx::Node& n) {
        const Shape s = tensor(n, 0).shape;
        if (s.size() != 4) {
            fail(n, fmt::format("its input {} is not a 1 x C x H x W feature map", shape_str(s)));
        }
        const bool global = n.op_type.rfind("Global", 0) == 0;
        const bool max = n.op_type.find("Max") != std::string::npos;
        const Shape k = global ? Shape{s[2], s[3]} : n.get_ints("kernel_shape");
        Window2d win;
        if (global) {
            win.filter_h = static_cast<int32_t>(s[2]), win.filter_w = static_cast<int32_t>(s[3]);
        } else {
            win = window_of(n, s, k);
        }
        if (n.get_int("ceil_mode", 0) != 0 || n.outputs.size() > 1 ||
            (!max && n.get_int("count_include_pad", 0) != 0)) {
            fail(n,
                 "ceil_mode, a second output (indices) and count_include_pad are not "
                 "supported by the K210 CPU pooling");
        }
        const Where& x = to_f32(n.inputs[0], n.op_type);
        V4ReduceWindow2d w;
        const uint64_t n_in = static_cast<uint64_t>(numel(s));
        w.in = main_f32(*x.f32, n_in);
        w.op = max ? ReduceOp::max : ReduceOp::mean;
        w.in_shape = shape4(s);
        w.win = win;
        w.init_value = max ? std::numeric_limits<float>::lowest() : 0.0f;
        const Shape out_shape{s[0], s[1], win.out_h(w.in_shape), win.out_w(w.in_shape)};
        check_output_shape(n, n.outputs[0], out_shape);
        const auto n_out = static_cast<uint64_t>(numel(out_shape));
        const uint32_t o = alloc_main(n_out * 4);
        w.out = main_f32(o, n_out);
        m_spec.layers.push_back(v4_node(w));
        CompiledLayer& l =
            add_layer(n.name, "CPU",
                      fmt::format("reduce_window2d {} {}x{}", max ? "max" : "mean", k[0], k[1]));
        l.why_cpu = "pooling not fused into a KPU layer";
        l.in_shape = s;
        l.out_shape = out_shape;
        l.est_cycles = cpu_cycles(n_out * static_cast<uint64_t>(k[0] * k[1]), 0);
        float_output(l, n.outputs[0], o);
    }

    bool activation_of(const onnx::Node& n, Activation& a) const {
        if (n.op_type == "Relu") {
            a.kind = Activation::Kind::Relu;
            return true;
        }
        if (n.op_type == "LeakyRelu") {
            a.kind = Activation::Kind::LeakyRelu;
            a.alpha = n.get_float("alpha", 0.01f);
            return true;
        }
        if (n.op_type == "Clip") {
            a.kind = Activation::Kind::Clip;
            a.lo = n.get_float("min", -std::numeric_limits<float>::infinity());
            a.hi = n.get_float("max", std::numeric_limits<float>::infinity());
            if (has_init(n, 1)) {
                a.lo = init(n, 1, "min").f.at(0);
            }
            if (has_init(n, 2)) {
                a.hi = init(n, 2, "max").f.at(0);
            }
            return true;
        }
        return false;
    }

    // The KPU pool type of pooling node `n` after an h x w layer, or 0 if it does not fit.
    static uint32_t pool_of(const onnx::Node& n, int h, int w) {
        const bool max = n.op_type == "MaxPool" || n.op_type == "GlobalMaxPool";
        if (n.op_type == "GlobalAveragePool" || n.op_type == "GlobalMaxPool") {
            if (h == 4 && w == 4) {
                return max ? 3 : 4;
            }
            return h == 2 && w == 2 ? (max ? 1 : 2) : 0;
        }
        if (n.op_type != "MaxPool" && n.op_type != "AveragePool") {
            return 0;
        }
        const Shape k = n.get_ints("kernel_shape");
        const Shape st = n.get_ints("strides", {1, 1});
        const Shape pads = n.get_ints("pads", {0, 0, 0, 0});
        if (k.size() != 2 || k[0] != k[1] || st != k || pads != Shape{0, 0, 0, 0} ||
            n.get_int("ceil_mode", 0) != 0 || n.get_string("auto_pad", "NOTSET") != "NOTSET" ||
            n.outputs.size() > 1) {
            return 0;
        }
        if (k[0] == 2) {
            return max ? 1 : 2;
        }
        return k[0] == 4 ? (max ? 3 : 4) : 0;
    }

    void node(size_t index) {
        const onnx::Node& n = m_g.nodes[index];
        m_done.insert(index);
        const std::string& op = n.op_type;
        if (op == "Conv") {
            conv(index);
            return;
        }
        const std::string out = n.outputs.at(0);
        if (op == "Flatten" || op == "Reshape" || op == "Squeeze" || op == "Unsqueeze" ||
            op == "Identity" || op == "Dropout") {
            // Dense NCHW in the working buffer: reshaping moves nothing.
            const Where& w = to_main_u8_or_f32(n);
            Where& y = m_t[out];
            y.shape = m_shapes.at(out), y.q = w.q, y.u8 = w.u8, y.f32 = w.f32;
            return;
        }
        if (op == "MaxPool" || op == "AveragePool" || op == "GlobalMaxPool" ||
            (op == "GlobalAveragePool" && m_v4)) {
            needs_v4(n.describe() +
                     " is not fused into a KPU layer: the CPU pooling of kmodel v4 runs it");
            cpu_pool(n);
            return;
        }
        if (op == "GlobalAveragePool") {
            const Shape s = tensor(n, 0).shape;
            const Where& w = to_f32(n.inputs[0], "GlobalAveragePool on a " + shape_str(s) +
                                                     " map (the KPU pools 2x2 and 4x4 maps)");
            const auto c = static_cast<uint32_t>(s.at(1));
            const auto kernel = static_cast<uint32_t>(numel(s) / s[1]);
            const uint32_t o = alloc_main(uint64_t{c} * 4);
            m_spec.layers.push_back(global_average_pool_layer(*w.f32, o, kernel, c));
            CompiledLayer& l = add_layer(n.name, "CPU", "GLOBAL_AVERAGE_POOL2D");
            l.why_cpu = "the KPU pools 2x2 and 4x4 maps in a layer";
            l.in_shape = s;
            l.out_shape = {1, static_cast<int64_t>(c), 1, 1};
            l.est_cycles = cpu_cycles(uint64_t{kernel} * c, 0);
            float_output(l, out, o);
            return;
        }
        if (op == "Gemm") {
            gemm(n);
            return;
        }
        if (op == "Softmax") {
            const Shape s = tensor(n, 0).shape;
            const Where& w = to_f32(n.inputs[0], "Softmax");
            if (std::count_if(s.begin(), s.end(), [](int64_t d) { return d > 1; }) > 1) {
                fail(n, fmt::format("softmax over {} (the SDK's SOFTMAX takes one vector)",
                                    shape_str(s)));
            }
            const int64_t count = numel(s);
            const uint32_t o = alloc_main(static_cast<uint64_t>(count) * 4);
            if (m_v4) {
                V4Softmax sm;
                sm.in = main_f32(*w.f32, static_cast<uint64_t>(count));
                sm.out = main_f32(o, static_cast<uint64_t>(count));
                sm.inner_size = static_cast<int32_t>(count), sm.outer_size = 1, sm.beta = 1;
                m_spec.layers.push_back(v4_node(sm));
            } else {
                m_spec.layers.push_back(softmax_layer(*w.f32, o, static_cast<uint32_t>(count)));
            }
            CompiledLayer& l = add_layer(n.name, "CPU", m_v4 ? "softmax" : "SOFTMAX");
            l.why_cpu = "the KPU has no softmax";
            l.in_shape = l.out_shape = s;
            l.est_cycles = cpu_cycles(static_cast<uint64_t>(count) * 3, 0);
            float_output(l, out, o);
            return;
        }
        if (op == "Add") {
            add(n);
            return;
        }
        if (op == "Concat") {
            concat(n);
            return;
        }
        fail(n, fmt::format("{} has no K210 mapping in this compiler (KPU: Conv with "
                            "BatchNormalization, Relu, LeakyRelu, Clip, MaxPool, AveragePool, "
                            "GlobalAveragePool fused; CPU: Add (+ Relu), Concat, Gemm, "
                            "GlobalAveragePool, Softmax, Flatten, Reshape)",
                            op));
    }

    // A CPU layer's float output `t` at working-buffer byte `at`.
    void float_output(CompiledLayer& l, const std::string& t, uint32_t at) {
        l.onnx_output = t;
        l.out_float = true, l.out_address = at, l.lsb = qparams(t);
        Where& y = m_t[t];
        y.shape = l.out_shape, y.f32 = at, y.q = qparams(t);
    }

    const Where& to_main_u8_or_f32(const onnx::Node& n) {
        const Where& w = tensor(n, 0);
        return w.u8 || w.f32 ? w : to_main_u8(n.inputs[0]);
    }

    // Add of two same-shaped tensors: the SDK's float ADD. A Relu that alone follows is the
    // clamp at 0 of the QUANTIZE that brings the sum back to uint8 (zero point 0).
    void add(const onnx::Node& n) {
        const Shape s = tensor(n, 0).shape;
        if (n.inputs.size() != 2 || tensor(n, 1).shape != s) {
            fail(n,
                 fmt::format("an Add of {} and {} (the SDK's ADD takes two tensors of one shape)",
                             shape_str(s), shape_str(tensor(n, 1).shape)));
        }
        const uint32_t a = *to_f32(n.inputs[0], "Add: the SDK's float ADD").f32;
        const uint32_t b = *to_f32(n.inputs[1], "Add: the SDK's float ADD").f32;
        const auto count = static_cast<uint64_t>(numel(s));
        const uint32_t o = alloc_main(count * 4);
        if (m_v4) {
            V4Binary bn;
            bn.a = main_f32(a, count), bn.b = main_f32(b, count), bn.out = main_f32(o, count);
            bn.op = BinaryOp::add;
            bn.a_shape = bn.b_shape = bn.out_shape = shape4(s);
            m_spec.layers.push_back(v4_node(bn));
        } else {
            m_spec.layers.push_back(k210::add_layer(a, b, o, static_cast<uint32_t>(count)));
        }
        CompiledLayer& l = add_layer(n.name, "CPU", m_v4 ? "binary add" : "ADD");
        l.why_cpu = "the KPU has no elementwise add";
        l.in_shape = l.out_shape = s;
        l.est_cycles = cpu_cycles(count, 0);
        float_output(l, n.outputs[0], o);
        size_t next_index = 0;
        const onnx::Node* next = sole_consumer(n.outputs[0], &next_index);
        Activation act;
        if (next != nullptr && next->op_type == "Relu") {
            m_done.insert(next_index);
            const std::string r = next->outputs[0];
            const QuantParams q = qparams(r);  // range from 0: zero point 0, negatives clamp
            const uint32_t u = alloc_main(count);
            push_quantize(o, u, count, q);
            CompiledLayer& lq =
                add_layer(next->name, "CPU", m_v4 ? "quantize (= relu)" : "QUANTIZE (= relu)");
            lq.why_cpu = "relu after a CPU add: the clamp of the quantization";
            lq.in_shape = lq.out_shape = s;
            lq.out_q = lq.lsb = q;
            lq.est_cycles = cpu_cycles(count, 0);
            lq.onnx_output = r;
            lq.out_address = u;
            Where& y = m_t[r];
            y.shape = s, y.q = q, y.u8 = u;
        }
    }

    // Concat along channels of 1 x C x H x W maps (or along any axis with only 1s before it):
    // the SDK's CONCAT copies the inputs' bytes one after another, here of float copies.
    void concat(const onnx::Node& n) {
        const Shape s0 = tensor(n, 0).shape;
        const int64_t axis = n.get_int("axis", 1) < 0
                                 ? n.get_int("axis", 1) + static_cast<int64_t>(s0.size())
                                 : n.get_int("axis", 1);
        for (int64_t a = 0; a < axis; ++a) {
            if (s0.at(static_cast<size_t>(a)) != 1) {
                fail(n, fmt::format("a concat along axis {} of {} is not a plain byte "
                                    "concatenation (dimensions before the axis must be 1)",
                                    axis, shape_str(s0)));
            }
        }
        std::vector<std::pair<uint32_t, uint32_t>> ranges;
        for (size_t i = 0; i < n.inputs.size(); ++i) {
            const Shape si = tensor(n, i).shape;
            const Where& w = to_f32(n.inputs[i], "Concat: the SDK's CONCAT");
            ranges.emplace_back(*w.f32, static_cast<uint32_t>(numel(si) * 4));
        }
        const Shape out_shape = m_shapes.at(n.outputs[0]);
        const auto bytes = static_cast<uint64_t>(numel(out_shape)) * 4;
        const uint32_t o = alloc_main(bytes);
        if (m_v4) {
            V4Concat cc;
            cc.out = {kMainMemory, kFloat32, o, static_cast<uint32_t>(bytes)};
            int64_t inner = 4;
            for (size_t a = static_cast<size_t>(axis) + 1; a < s0.size(); ++a) {
                inner *= s0[a];
            }
            cc.inner_size = static_cast<uint32_t>(inner), cc.outer_size = 1;
            for (size_t i = 0; i < n.inputs.size(); ++i) {
                cc.inputs.push_back({kMainMemory, kFloat32, ranges[i].first, ranges[i].second});
                cc.dims.push_back(
                    static_cast<int32_t>(tensor(n, i).shape.at(static_cast<size_t>(axis))));
            }
            m_spec.layers.push_back(v4_node(cc));
        } else {
            m_spec.layers.push_back(concat_layer(o, ranges));
        }
        CompiledLayer& l = add_layer(n.name, "CPU", m_v4 ? "concat" : "CONCAT");
        l.why_cpu = "the KPU has no concatenation";
        l.in_shape = s0;
        l.out_shape = out_shape;
        l.est_cycles = cpu_cycles(bytes / 4, 0);
        float_output(l, n.outputs[0], o);
    }

    void gemm(const onnx::Node& n) {
        const Shape s = tensor(n, 0).shape;
        const Where& x =
            to_f32(n.inputs[0], "Gemm (the K210 runs fully connected layers on the CPU)");
        const onnx::Value& b = init(n, 1, "B");
        if (b.shape.size() != 2 ||
            numel(s) != (n.get_int("transB", 0) != 0 ? b.shape[1] : b.shape[0]) ||
            n.get_int("transA", 0) != 0) {
            fail(n, fmt::format("A {} and B {} are not a vector times a matrix", shape_str(s),
                                shape_str(b.shape)));
        }
        const bool tb = n.get_int("transB", 0) != 0;
        const auto in = static_cast<size_t>(tb ? b.shape[1] : b.shape[0]);
        const auto out = static_cast<size_t>(tb ? b.shape[0] : b.shape[1]);
        const float alpha = n.get_float("alpha", 1.0f), beta = n.get_float("beta", 1.0f);
        std::vector<float> w(in * out), bias(out, 0.0f);
        for (size_t o = 0; o < out; ++o) {
            for (size_t i = 0; i < in; ++i) {
                w[o * in + i] = alpha * (tb ? b.f[o * in + i] : b.f[i * out + o]);
            }
        }
        if (has_init(n, 2)) {
            const onnx::Value& cv = init(n, 2, "C");
            for (size_t o = 0; o < out; ++o) {
                bias[o] = beta * cv.f[cv.f.size() == 1 ? 0 : o];
            }
        }
        std::vector<std::string> names{n.name};
        std::string t = n.outputs[0];
        uint32_t act = 0;
        size_t next_index = 0;
        const onnx::Node* next = sole_consumer(t, &next_index);
        Activation a;
        if (next != nullptr && activation_of(*next, a) &&
            (a.kind == Activation::Kind::Relu ||
             (a.kind == Activation::Kind::Clip && a.lo == 0 && a.hi == 6))) {
            act = a.kind == Activation::Kind::Relu ? 1 : 2;
            m_done.insert(next_index), names.push_back(next->name);
            t = next->outputs[0];
        }
        const uint32_t o = alloc_main(out * 4);
        if (m_v4) {
            V4Matmul mm;
            std::vector<float> b_in_out(in * out);  // matmul's B is [in][out]
            for (size_t oo = 0; oo < out; ++oo) {
                for (size_t i = 0; i < in; ++i) {
                    b_in_out[i * out + oo] = w[oo * in + i];
                }
            }
            mm.a = main_f32(*x.f32, in);
            mm.b = {kConstMemory, kFloat32, add_constants(b_in_out),
                    static_cast<uint32_t>(in * out * 4)};
            mm.out = main_f32(o, out);
            mm.a_rows = 1, mm.a_cols = static_cast<int32_t>(in);
            mm.b_cols = static_cast<int32_t>(out);
            if (act != 0) {
                mm.act.min = 0;
            }
            if (act == 2) {
                mm.act.max = 6;
            }
            mm.bias = bias;
            m_spec.layers.push_back(v4_node(mm));
        } else {
            m_spec.layers.push_back(fully_connected_layer(
                *x.f32, o, static_cast<uint32_t>(in), static_cast<uint32_t>(out), act, w, bias));
        }
        const char* fc = m_v4 ? "matmul" : "FULLY_CONNECTED";
        CompiledLayer& l =
            add_layer(fmt::format("{}", fmt::join(names, "+")), "CPU",
                      act == 0 ? fc : fmt::format("{} + {}", fc, act == 1 ? "relu" : "relu6"));
        l.why_cpu = m_v4 ? "fully connected: nncase's float matmul"
                         : "fully connected: the SDK's float layer";
        l.in_shape = s;
        l.out_shape = {1, static_cast<int64_t>(out)};
        l.weight_bytes = (in * out + out) * 4;
        l.macs = in * out;
        l.est_cycles = cpu_cycles(out, in * out);
        float_output(l, t, o);
    }

    void finish() {
        const std::string& t = m_g.outputs[0].name;
        if (m_t.count(t) == 0) {
            fail(fmt::format("the graph output '{}' is not computed by a compiled layer", t));
        }
        const Where& w = to_f32(t, "the model output is float");
        const auto bytes = static_cast<uint32_t>(numel(w.shape) * 4);
        if (m_v4) {
            V4ModelSpec v4;
            v4.main_mem = std::max<uint32_t>(m_main, 8);
            KmodelIo in;
            in.range = main_u8(*m_t.at(m_out.input_name).u8,
                               static_cast<uint64_t>(numel(m_out.input_shape)));
            for (size_t i = 0; i < 4; ++i) {
                in.shape[i] = static_cast<int32_t>(m_out.input_shape[i]);
            }
            v4.inputs = {in};
            v4.outputs = {{kMainMemory, kFloat32, *w.f32, bytes}};
            v4.constants = m_constants;
            for (auto& layer : m_spec.layers) {
                if (auto* c = std::get_if<ConvLayerSpec>(&layer)) {
                    v4.nodes.emplace_back(std::move(*c));
                } else {
                    v4.nodes.emplace_back(std::move(std::get<RawLayerSpec>(layer)));
                }
            }
            m_out.kmodel = write_kmodel_v4(v4);
        } else {
            m_spec.outputs = {{*w.f32, bytes}};
            m_spec.eight_bit = true;
            m_spec.main_mem_usage = std::max<uint32_t>(m_main, 8);
            m_spec.max_start_address = static_cast<uint32_t>(m_kpu_top);
            m_out.kmodel = write_kmodel_v3(m_spec);
        }
        m_out.kmodel_version = m_v4 ? 4 : 3;
        m_out.kpu_lines = static_cast<uint32_t>(m_kpu_next + (kpu::kRamLines - m_kpu_top));
        m_out.main_mem_bytes = m_main;
    }

    onnx::Graph m_g;  // a copy: constant nodes are folded into its initializers
    const CompileOptions& m_o;
    Calibration& m_cal;
    std::map<std::string, Range>& m_ranges;
    std::map<std::string, Shape>& m_shapes;
    std::map<std::string, std::vector<size_t>> m_consumers;
    std::set<size_t> m_done;
    bool m_v4 = false;
    V3ModelSpec m_spec;                // the layers (v4: ConvLayerSpec and RawLayerSpec nodes)
    std::vector<uint8_t> m_constants;  // v4
    CompiledModel m_out;
    // Every computed tensor and its copies.
    std::map<std::string, Where> m_t;
    uint64_t m_kpu_next = 0, m_kpu_top = kpu::kRamLines;
    uint32_t m_main = 0;
};

}  // namespace

CompiledModel compile_k210(const onnx::Graph& g, const CompileOptions& opts) {
    if (opts.kmodel_version != 0 && opts.kmodel_version != 3 && opts.kmodel_version != 4) {
        throw sim::Error(fmt::format("{}: kmodel version {} (expected 3 or 4)", opts.model_name,
                                     opts.kmodel_version));
    }
    Calibration cal;
    if (opts.kmodel_version == 4) {
        CompiledModel m = Compiler(g, opts, true, cal).run();
        m.version_why = "asked for";
        return m;
    }
    try {
        CompiledModel m = Compiler(g, opts, false, cal).run();
        m.version_why = opts.kmodel_version == 3 ? "asked for"
                                                 : "every layer maps to kmodel v3, which the "
                                                   "Kendryte SDK runs without nncase";
        return m;
    } catch (const NeedsV4& v4) {
        if (opts.kmodel_version == 3) {
            throw sim::Error(
                fmt::format("{}: {}; compile for kmodel v4 instead", opts.model_name, v4.why));
        }
        CompiledModel m = Compiler(g, opts, true, cal).run();
        m.version_why = v4.why;
        return m;
    }
}

std::string compile_report(const CompiledModel& m) {
    std::string s = fmt::format(
        "kmodel v{} ({}), {} bytes; input '{}' {} quantized as q = round(x / {:.6g}) + {}; KPU "
        "RAM {} of 32768 lines; working buffer {} bytes\n",
        m.kmodel_version, m.version_why, m.kmodel.size(), m.input_name, shape_str(m.input_shape),
        m.input_q.scale, m.input_q.zero_point, m.kpu_lines, m.main_mem_bytes);
    s += fmt::format("{:>3}  {:<4} {:<44} {:<12} {:<12} {:<18} {:>9} {:>10} {:>9}  {}\n", "#", "on",
                     "layer", "in", "out", "out q (scale, zp)", "weights", "est.cyc", "act.err",
                     "nodes / why CPU");
    for (const CompiledLayer& l : m.layers) {
        // The uint8 parameters of the output (for float outputs: of its calibrated range, the
        // LSB regress measures errors in).
        const std::string q = fmt::format("{:.4g}, {}", l.lsb.scale, l.lsb.zero_point);
        s += fmt::format("{:>3}  {:<4} {:<44} {:<12} {:<12} {:<18} {:>9} {:>10} {:>9}  {}{}\n",
                         l.kmodel_layer, l.target, l.kind, shape_str(l.in_shape),
                         shape_str(l.out_shape), q, l.weight_bytes, l.est_cycles,
                         l.target == "KPU" ? fmt::format("{} LSB", l.act_error_lsb) : "-", l.nodes,
                         l.why_cpu.empty() ? "" : " (" + l.why_cpu + ")");
    }
    return s;
}

nlohmann::ordered_json compile_report_json(const CompiledModel& m) {
    auto q = [](const QuantParams& p) {
        return nlohmann::ordered_json{{"scale", p.scale}, {"zero_point", p.zero_point}};
    };
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const CompiledLayer& l : m.layers) {
        layers.push_back({{"kmodel_layer", l.kmodel_layer},
                          {"target", l.target},
                          {"kind", l.kind},
                          {"nodes", l.nodes},
                          {"why_cpu", l.why_cpu},
                          {"in_shape", l.in_shape},
                          {"out_shape", l.out_shape},
                          {"in_q", q(l.in_q)},
                          {"out_q", q(l.out_q)},
                          {"weight_bytes", l.weight_bytes},
                          {"macs", l.macs},
                          {"est_cycles", l.est_cycles},
                          {"act_error_lsb", l.act_error_lsb},
                          {"onnx_output", l.onnx_output},
                          {"out_memory", l.out_in_kpu ? "kpu" : "main"},
                          {"out_address", l.out_address},
                          {"out_dtype", l.out_float ? "f32" : "u8"},
                          {"lsb", q(l.lsb)}});
    }
    return {{"format", "npusim k210 compile report 1"},
            {"kmodel_version", m.kmodel_version},
            {"kmodel_version_why", m.version_why},
            {"kmodel_bytes", m.kmodel.size()},
            {"input", {{"name", m.input_name}, {"shape", m.input_shape}, {"quant", q(m.input_q)}}},
            {"output", m.output_name},
            {"kpu_lines", m.kpu_lines},
            {"main_mem_bytes", m.main_mem_bytes},
            {"layers", layers}};
}

CompiledModel read_compile_report(const nlohmann::ordered_json& j, const std::string& name) {
    try {
        if (j.at("format") != "npusim k210 compile report 1") {
            throw sim::Error(name + ": not an npusim k210 compile report");
        }
        auto q = [](const nlohmann::ordered_json& v) {
            return QuantParams{v.at("scale").get<double>(), v.at("zero_point").get<int32_t>()};
        };
        CompiledModel m;
        m.input_name = j.at("input").at("name").get<std::string>();
        m.input_shape = j.at("input").at("shape").get<std::vector<int64_t>>();
        m.input_q = q(j.at("input").at("quant"));
        m.output_name = j.at("output").get<std::string>();
        m.kmodel_version = j.at("kmodel_version").get<int>();
        m.version_why = j.value("kmodel_version_why", std::string());
        m.kpu_lines = j.at("kpu_lines").get<uint32_t>();
        m.main_mem_bytes = j.at("main_mem_bytes").get<uint32_t>();
        for (const auto& l : j.at("layers")) {
            CompiledLayer c;
            c.kmodel_layer = l.at("kmodel_layer").get<int>();
            c.target = l.at("target").get<std::string>();
            c.kind = l.at("kind").get<std::string>();
            c.nodes = l.at("nodes").get<std::string>();
            c.why_cpu = l.at("why_cpu").get<std::string>();
            c.in_shape = l.at("in_shape").get<std::vector<int64_t>>();
            c.out_shape = l.at("out_shape").get<std::vector<int64_t>>();
            c.in_q = q(l.at("in_q"));
            c.out_q = q(l.at("out_q"));
            c.weight_bytes = l.at("weight_bytes").get<uint64_t>();
            c.macs = l.at("macs").get<uint64_t>();
            c.est_cycles = l.at("est_cycles").get<uint64_t>();
            c.act_error_lsb = l.at("act_error_lsb").get<int>();
            c.onnx_output = l.at("onnx_output").get<std::string>();
            c.out_in_kpu = l.at("out_memory") == "kpu";
            c.out_address = l.at("out_address").get<uint32_t>();
            c.out_float = l.at("out_dtype") == "f32";
            c.lsb = q(l.at("lsb"));
            m.layers.push_back(c);
        }
        if (m.input_shape.size() != 4 || !(m.input_q.scale > 0)) {
            throw sim::Error(name + ": the input is not a 1 x C x H x W image with a scale > 0");
        }
        return m;
    } catch (const nlohmann::json::exception& e) {
        throw sim::Error(fmt::format("{}: not a valid compile report ({})", name, e.what()));
    }
}

}  // namespace npu::k210
