// Compiler lowering of Conv (a KPU layer with BatchNormalization, activation and pooling fused,
// or nncase v0.2's float conv2d when the KPU cannot run it) and of pooling on the CPU
// (lowering.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "models/k210_kpu/kpu_cost.h"
#include "models/k210_kpu/kpu_layer_builder.h"
#include "platforms/k210/compiler/lowering.h"
#include "platforms/k210/kmodel/cpu_model.h"
#include "sim/core/error.h"
#include "sim/onnx/evaluator.h"

namespace npu::k210::lowering {

std::string Lowering::kpu_refusal(const onnx::Node& n, const onnx::Value& w, const Shape& in) {
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
    const bool same = (ap == "NOTSET" && pads == Shape{p, p, p, p}) || (ap == "VALID" && p == 0) ||
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

// A Conv's parameters and what fuses after it: a BatchNormalization folded into the weights and
// bias, then an activation (a LeakyRelu only when `leaky`), each the sole consumer of the one
// before. `names` and `kind` describe the fused layer; `out` is the last fused tensor, `pre` the
// one before the activation.
Lowering::Fused Lowering::fuse_after(const onnx::Node& n, const onnx::Value& wv, bool leaky) {
    Fused f;
    f.weights = wv.f;
    f.bias.assign(static_cast<size_t>(wv.shape[0]), 0.0f);
    if (has_init(n, 2)) {
        f.bias = init(n, 2, "bias").f;
    }
    f.names = {n.name};
    f.out = f.pre = n.outputs[0];
    f.next = sole_consumer(f.out, &f.next_index);
    if (f.next != nullptr && f.next->op_type == "BatchNormalization") {
        const onnx::Node& bn = *f.next;
        fold_batch_norm(f.weights, f.bias, init(bn, 1, "scale").f, init(bn, 2, "B").f,
                        init(bn, 3, "mean").f, init(bn, 4, "var").f,
                        bn.get_float("epsilon", 1e-5f));
        take(f, "bn");
        f.pre = f.out;  // the activation's input is the normalized tensor
    }
    Activation act;
    if (f.next != nullptr && activation_of(*f.next, act) &&
        (leaky || act.kind != Activation::Kind::LeakyRelu)) {
        f.act = act;
        take(f, act.name());
    }
    return f;
}

// The consumer `f.next` joins the fused layer as `what`; the next one is looked up.
void Lowering::take(Fused& f, const std::string& what) {
    const onnx::Node& c = *f.next;
    m_done.insert(f.next_index), f.names.push_back(c.name), f.kind.push_back(what);
    f.out = c.outputs[0];
    f.next = sole_consumer(f.out, &f.next_index);
}

void Lowering::conv(size_t index) {
    const onnx::Node& n = m_g.nodes[index];
    const Shape in_shape = tensor(n, 0).shape;
    if (in_shape.size() != 4) {
        fail(n,
             fmt::format("its input {} is not a 1 x C x H x W feature map", shape_str(in_shape)));
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
    const Where& x = to_kpu(n.inputs[0], n);
    const int k = static_cast<int>(wv.shape[2]);
    const bool depthwise = n.get_int("group", 1) != 1;
    const bool stride2 = n.get_ints("strides", {1, 1}) == Shape{2, 2};
    Fused f = fuse_after(n, wv, true);
    f.kind.insert(f.kind.begin(),
                  fmt::format("conv{}x{}{}{}", k, k, depthwise ? " dw" : "", stride2 ? " s2" : ""));
    const std::string act_out = f.out;
    uint32_t pool = stride2 ? 5 : 0;
    if (f.next != nullptr && !stride2) {
        const uint32_t p =
            pool_of(*f.next, static_cast<int>(in_shape[2]), static_cast<int>(in_shape[3]));
        if (p != 0) {
            pool = p;
            const std::string& op = f.next->op_type;
            take(f, op == "GlobalAveragePool" ? "global_avg_pool"
                    : op == "GlobalMaxPool"   ? "global_max_pool"
                                              : op);
        }
    }
    kpu_conv_layer(n, x, f, act_out, pool);
}

// The fused KPU layer: quantized parameters, layer arguments, its output in KPU RAM.
void Lowering::kpu_conv_layer(const onnx::Node& n, const Where& x, const Fused& f,
                              const std::string& act_out, uint32_t pool) {
    const onnx::Value& wv = init(n, 1, "weight tensor");
    const Shape& in_shape = x.shape;
    const int c = static_cast<int>(in_shape[1]), h = static_cast<int>(in_shape[2]),
              w = static_cast<int>(in_shape[3]);
    const int m = static_cast<int>(wv.shape[0]), k = static_cast<int>(wv.shape[2]);
    const bool depthwise = n.get_int("group", 1) != 1;
    for (const std::vector<float>* v : {&f.weights, &f.bias}) {
        const auto bad =
            std::find_if(v->begin(), v->end(), [](float e) { return !std::isfinite(e); });
        if (bad != v->end()) {
            fail(n, fmt::format("its {} (BatchNormalization folded in) hold {} at {}: the KPU "
                                "quantizes finite values only",
                                v == &f.weights ? "weights" : "biases", *bad, bad - v->begin()));
        }
    }
    const QuantParams out_q = qparams(act_out);
    const Range pre_range = m_ranges.at(f.pre);
    if (!std::isfinite(pre_range.lo) || !std::isfinite(pre_range.hi)) {
        fail(n, fmt::format("its output takes non-finite values on the calibration samples "
                            "({} .. {})",
                            pre_range.lo, pre_range.hi));
    }
    const QuantizedConv q = quantize_conv(f.weights, f.bias, m, k, depthwise, x.q, out_q, f.act,
                                          pre_range.lo, pre_range.hi);
    kpu::LayerArgs args;
    try {
        args = kpu::build_layer({c, h, w, m, k, depthwise, pool, true}, *x.kpu, 0);
    } catch (const sim::Error& e) {
        fail(n, std::string("cannot be a KPU layer: ") + e.what());
    }
    const kpu::FmapGeometry og = kpu::output_geometry(args);
    args.image_dst_addr = alloc_kpu(kpu::fmap_lines(og.channels, og.width, og.height), f.out,
                                    "the output of " + n.describe());
    args.arg_x = q.arg_x, args.arg_w = q.arg_w, args.arg_add = q.arg_add;
    args.shr_x = args.shr_w = 0;
    args.pad_value = q.pad_value;
    ConvLayerSpec spec;
    spec.args = args, spec.weights = q.weights, spec.bn = q.bn, spec.act = q.act;
    const int spec_index = static_cast<int>(m_spec.layers.size());
    m_spec.layers.push_back(spec);
    CompiledLayer& l = add_layer(fmt::format("{}", fmt::join(f.names, "+")), "KPU",
                                 fmt::format("{}", fmt::join(f.kind, " + ")));
    l.in_shape = in_shape;
    l.out_shape = {1, og.channels, og.height, og.width};
    l.in_q = x.q, l.out_q = out_q;
    l.weight_bytes = q.weights.size();
    const kpu::LayerCost cost = kpu::layer_cost(args, true, kpu::KpuTiming{});
    l.macs = cost.macs, l.est_cycles = cost.total_cycles;
    l.act_error_lsb = q.max_act_error_lsb;
    l.onnx_output = f.out;
    l.out_in_kpu = true, l.out_address = args.image_dst_addr, l.lsb = out_q;
    Where& y = m_t[f.out];
    y.shape = l.out_shape, y.q = out_q, y.kpu = args.image_dst_addr, y.conv = spec_index;
}

// The window of a Conv or pooling node with kernel `k` over `in`: its strides, dilations
// and pads (explicit, VALID, or SAME_* computed from the input size).
Window2d Lowering::window_of(const onnx::Node& n, const Shape& in, const Shape& k) const {
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
void Lowering::check_output_shape(const onnx::Node& n, const std::string& t, const Shape& s) const {
    if (m_shapes.count(t) == 0 || m_shapes.at(t) != s) {
        fail(n, fmt::format("its output would be {}, the reference computes {}", shape_str(s),
                            m_shapes.count(t) != 0 ? shape_str(m_shapes.at(t)) : "nothing"));
    }
}

ValueRange Lowering::fused_range(const Activation& a) {
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
void Lowering::cpu_conv(size_t index, const onnx::Value& wv, const Shape& in_shape,
                        const std::string& refusal) {
    const onnx::Node& n = m_g.nodes[index];
    if (wv.shape.size() != 4) {
        fail(n, "its weights are not 4-D (only 2-D convolutions are compiled)");
    }
    const Where& x = to_f32(n.inputs[0], "Conv on the CPU");
    const Shape k{wv.shape[2], wv.shape[3]};
    const int64_t m = wv.shape[0];
    Fused f = fuse_after(n, wv, false);
    f.kind.insert(f.kind.begin(), fmt::format("conv{}x{} (float)", k[0], k[1]));
    V4Conv2d c;
    const uint64_t n_in = static_cast<uint64_t>(numel(in_shape));
    c.in = main_f32(*x.f32, n_in);
    c.in_shape = shape4(in_shape);
    c.groups = static_cast<int32_t>(n.get_int("group", 1));
    c.out_channels = static_cast<int32_t>(m);
    c.win = window_of(n, in_shape, k);
    c.act = fused_range(f.act);
    c.weights = std::move(f.weights);
    c.bias = std::move(f.bias);
    const Shape out_shape{1, m, c.win.out_h(c.in_shape), c.win.out_w(c.in_shape)};
    check_output_shape(n, f.out, out_shape);
    const auto n_out = static_cast<uint64_t>(numel(out_shape));
    const uint32_t o = alloc_main(n_out * 4);
    c.out = main_f32(o, n_out);
    // What the run multiplies: the in-bounds taps only (padding adds none).
    const uint64_t macs = static_cast<uint64_t>(m) * static_cast<uint64_t>(in_shape[1] / c.groups) *
                          in_bounds_taps(c.win, c.in_shape);
    const uint64_t wbytes = (c.weights.size() + c.bias.size()) * 4;
    m_spec.layers.push_back(v4_node(c));
    CompiledLayer& l = add_layer(fmt::format("{}", fmt::join(f.names, "+")), "CPU",
                                 fmt::format("{}", fmt::join(f.kind, " + ")));
    l.why_cpu = refusal;
    l.in_shape = in_shape;
    l.out_shape = out_shape;
    l.weight_bytes = wbytes;
    l.macs = macs;
    float_output(l, f.out, o);
}

// MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool not fused into a KPU layer:
// nncase v0.2's float reduce_window2d.
void Lowering::cpu_pool(const onnx::Node& n) {
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
    CompiledLayer& l = add_layer(
        n.name, "CPU", fmt::format("reduce_window2d {} {}x{}", max ? "max" : "mean", k[0], k[1]));
    l.why_cpu = "pooling not fused into a KPU layer";
    l.in_shape = s;
    l.out_shape = out_shape;
    float_output(l, n.outputs[0], o);
}

bool Lowering::activation_of(const onnx::Node& n, Activation& a) const {
    if (n.op_type == "Relu") {
        a.kind = Activation::Kind::Relu;
        return true;
    }
    if (n.op_type == "LeakyRelu") {
        a.kind = Activation::Kind::LeakyRelu;
        a.alpha = n.get_float("alpha", 0.01f);
        return true;
    }
    if (n.op_type == "PRelu" && has_init(n, 1)) {  // one slope for every channel: a LeakyRelu
        const std::vector<float>& slope = init(n, 1, "slope").f;
        if (!slope.empty() &&
            std::all_of(slope.begin(), slope.end(), [&](float v) { return v == slope[0]; })) {
            a.kind = Activation::Kind::LeakyRelu;
            a.alpha = slope[0];
            return true;
        }
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
uint32_t Lowering::pool_of(const onnx::Node& n, int h, int w) {
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

}  // namespace npu::k210::lowering
