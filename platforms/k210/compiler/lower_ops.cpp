// Compiler lowering: the table of ONNX ops the compiler maps, and the ops other than Conv
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

const std::vector<Lowering::OpLowering>& Lowering::op_lowerings() {
    static const std::vector<OpLowering> ops = {
        {"Conv", &Lowering::lower_conv},  // KPU, BN + activation + pooling fused; or CPU conv2d
        {"Flatten", &Lowering::lower_reshape},
        {"Reshape", &Lowering::lower_reshape},
        {"Squeeze", &Lowering::lower_reshape},
        {"Unsqueeze", &Lowering::lower_reshape},
        {"Identity", &Lowering::lower_reshape},
        {"Dropout", &Lowering::lower_reshape},
        {"MaxPool", &Lowering::lower_pool},  // not fused into a KPU layer: CPU, kmodel v4
        {"AveragePool", &Lowering::lower_pool},
        {"GlobalMaxPool", &Lowering::lower_pool},
        {"GlobalAveragePool", &Lowering::lower_global_average_pool},
        {"Gemm", &Lowering::lower_gemm},
        {"Softmax", &Lowering::lower_softmax},
        {"Concat", &Lowering::lower_concat},
        {"Transpose", &Lowering::lower_transpose},
        // kmodel v4's float CPU nodes (lower_float.cpp)
        {"Slice", &Lowering::lower_slice},
        {"Split", &Lowering::lower_split},
        {"Resize", &Lowering::lower_resize},
        {"Upsample", &Lowering::lower_resize},
        {"Pad", &Lowering::lower_pad},
        {"ReduceMean", &Lowering::lower_reduce},
        {"ReduceMax", &Lowering::lower_reduce},
        {"ReduceMin", &Lowering::lower_reduce},
        {"ReduceSum", &Lowering::lower_reduce},
        // Add of two computed tensors of one shape: the SDK's ADD (v3) or nncase's binary
        {"Add", &Lowering::lower_binary},
        {"Sub", &Lowering::lower_binary},
        {"Mul", &Lowering::lower_binary},
        {"Div", &Lowering::lower_binary},
        {"Min", &Lowering::lower_binary},
        {"Max", &Lowering::lower_binary},
        {"Exp", &Lowering::lower_unary},  // nncase's unary
        {"Log", &Lowering::lower_unary},
        {"Neg", &Lowering::lower_unary},
        {"Abs", &Lowering::lower_unary},
        {"Floor", &Lowering::lower_unary},
        {"Ceil", &Lowering::lower_unary},
        {"Cos", &Lowering::lower_unary},
        {"Sin", &Lowering::lower_unary},
        {"Relu", &Lowering::lower_unary},  // not fused into a KPU layer: an nnil program
        {"Clip", &Lowering::lower_unary},
        {"LeakyRelu", &Lowering::lower_unary},
        {"Sigmoid", &Lowering::lower_unary},
        {"Tanh", &Lowering::lower_unary},
        {"HardSigmoid", &Lowering::lower_unary},
        {"HardSwish", &Lowering::lower_unary},
        {"Reciprocal", &Lowering::lower_unary},
        {"Softplus", &Lowering::lower_unary},
        {"Elu", &Lowering::lower_unary},
        {"PRelu", &Lowering::lower_prelu},  // one slope: as LeakyRelu; else four binaries
    };
    return ops;
}

void Lowering::node(size_t index) {
    const onnx::Node& n = m_g.nodes[index];
    m_done.insert(index);
    for (const OpLowering& l : op_lowerings()) {
        if (n.op_type == l.op) {
            (this->*l.lower)(index);
            return;
        }
    }
    if (n.op_type == "TopK" || n.op_type == "NonZero" || n.op_type == "NonMaxSuppression") {
        fail(n, fmt::format("{}'s output size depends on the data: neither nncase v0.2 nor the "
                            "Kendryte SDK has a kernel for it. Compile the model up to the "
                            "tensors it reads (the scores and boxes) and run it on the host or in "
                            "the firmware, as the SDK demos run their region layer",
                            n.op_type));
    }
    std::string mapped;
    for (const OpLowering& l : op_lowerings()) {
        mapped += (mapped.empty() ? "" : ", ") + std::string(l.op);
    }

    fail(n, fmt::format("{} has no K210 mapping in this compiler (mapped: {}; fused into a KPU "
                        "Conv: BatchNormalization, Relu, LeakyRelu, Clip and 2x2/4x4/global "
                        "pooling)",
                        n.op_type, mapped));
}

void Lowering::lower_conv(size_t index) {
    conv(index);
}

// Dense NCHW in the working buffer: reshaping moves nothing.
void Lowering::lower_reshape(size_t index) {
    const onnx::Node& n = m_g.nodes[index];
    const std::string out = n.outputs.at(0);
    const Where& w = to_main_u8_or_f32(n);
    Where& y = m_t[out];
    y.shape = m_shapes.at(out), y.q = w.q, y.u8 = w.u8, y.f32 = w.f32;
}

void Lowering::lower_pool(size_t index) {
    const onnx::Node& n = m_g.nodes[index];
    needs_v4(n.describe() + " is not fused into a KPU layer: the CPU pooling of kmodel v4 runs it");
    cpu_pool(n);
}

// v3: the SDK's GLOBAL_AVERAGE_POOL2D; v4: nncase's reduce_window2d.
void Lowering::lower_global_average_pool(size_t index) {
    const onnx::Node& n = m_g.nodes[index];
    if (m_v4) {
        lower_pool(index);
        return;
    }
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
    float_output(l, n.outputs.at(0), o);
}

// ONNX Softmax over `axis` (opset 13: that axis alone, default −1; before: every axis from it
// on, default 1) as blocks of `inner` values: the last axes. v3's SOFTMAX takes one vector;
// nncase's softmax any number of blocks (kmodel v4).
void Lowering::lower_softmax(size_t index) {
    const onnx::Node& n = m_g.nodes[index];
    const Shape s = tensor(n, 0).shape;
    const auto rank = static_cast<int64_t>(s.size());
    int64_t axis = n.get_int("axis", m_g.opset >= 13 ? -1 : 1);
    axis = axis < 0 ? axis + rank : axis;
    if (axis < 0 || axis >= rank) {
        fail(n, fmt::format("softmax axis {} of a rank-{} tensor", n.get_int("axis", 0), rank));
    }
    int64_t inner = 1;
    for (int64_t a = axis; a < rank; ++a) {
        inner *= s[static_cast<size_t>(a)];
    }
    if (m_g.opset >= 13 && inner != s[static_cast<size_t>(axis)]) {
        fail(n, fmt::format("softmax over axis {} of {}, not the last (transpose it last first)",
                            axis, shape_str(s)));
    }
    const int64_t count = numel(s);
    const int64_t outer = count / inner;
    const Where& w = to_f32(n.inputs[0], "Softmax");
    if (outer > 1) {
        needs_v4(fmt::format("{} takes {} softmaxes of {} (the SDK's SOFTMAX takes one vector)",
                             n.describe(), outer, inner));
    }
    const uint32_t o = alloc_main(static_cast<uint64_t>(count) * 4);
    if (m_v4) {
        V4Softmax sm;
        sm.in = main_f32(*w.f32, static_cast<uint64_t>(count));
        sm.out = main_f32(o, static_cast<uint64_t>(count));
        sm.inner_size = static_cast<int32_t>(inner), sm.outer_size = static_cast<int32_t>(outer);
        sm.beta = 1;
        m_spec.layers.push_back(v4_node(sm));
    } else {
        m_spec.layers.push_back(softmax_layer(*w.f32, o, static_cast<uint32_t>(count)));
    }
    CompiledLayer& l = add_layer(n.name, "CPU", m_v4 ? "softmax" : "SOFTMAX");
    l.why_cpu = "the KPU has no softmax";
    l.in_shape = l.out_shape = s;
    float_output(l, n.outputs.at(0), o);
}

void Lowering::lower_concat(size_t index) {
    concat(m_g.nodes[index]);
}

void Lowering::lower_transpose(size_t index) {
    const onnx::Node& n = m_g.nodes[index];
    const Shape s = tensor(n, 0).shape;
    const size_t rank = s.size();
    std::vector<int64_t> perm = n.get_ints("perm");
    if (perm.empty()) {  // ONNX's default: the axes reversed
        for (size_t a = rank; a-- > 0;) {
            perm.push_back(static_cast<int64_t>(a));
        }
    }
    if (rank > 4 || perm.size() != rank) {
        fail(n,
             fmt::format("a Transpose {} of {} (at most 4 axes)", shape_str(perm), shape_str(s)));
    }
    Shape4 p4{0, 1, 2, 3};  // right-aligned as shape4(): leading axes of 1 stay in place
    for (size_t i = 0; i < rank; ++i) {
        p4[4 - rank + i] = static_cast<int32_t>(perm[i] + static_cast<int64_t>(4 - rank));
    }
    const Shape4 in4 = shape4(s);
    const bool nchw_to_nhwc = in4[0] == 1 && p4 == Shape4{0, 2, 3, 1};
    if (!nchw_to_nhwc) {
        needs_v4(n.describe() + " is not NCHW -> NHWC of one map (v3's TENSORFLOW_FLATTEN)");
    }
    const Where& w = to_f32(n.inputs[0], "Transpose");
    const auto count = static_cast<uint64_t>(numel(s));
    const uint32_t o = alloc_main(count * 4);
    if (m_v4) {
        V4Transpose t;
        t.in = main_f32(*w.f32, count);
        t.out = main_f32(o, count);
        t.in_shape = in4;
        t.perm = p4;
        m_spec.layers.push_back(v4_node(t));
    } else {
        m_spec.layers.push_back(tf_flatten_layer(*w.f32, o, static_cast<uint32_t>(in4[3]),
                                                 static_cast<uint32_t>(in4[2]),
                                                 static_cast<uint32_t>(in4[1])));
    }
    CompiledLayer& l = add_layer(n.name, "CPU", m_v4 ? "transpose" : "TENSORFLOW_FLATTEN");
    l.why_cpu = "the KPU does not transpose";
    l.in_shape = s;
    l.out_shape = m_shapes.at(n.outputs.at(0));
    float_output(l, n.outputs.at(0), o);
}

void Lowering::lower_gemm(size_t index) {
    gemm(m_g.nodes[index]);
}

// Add of two same-shaped tensors: the SDK's float ADD. A Relu that alone follows is the
// clamp at 0 of the QUANTIZE that brings the sum back to uint8 (zero point 0).
void Lowering::add(const onnx::Node& n) {
    const Shape s = tensor(n, 0).shape;
    if (n.inputs.size() != 2 || tensor(n, 1).shape != s) {
        fail(n, fmt::format("an Add of {} and {} (the SDK's ADD takes two tensors of one shape)",
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
        lq.onnx_output = r;
        lq.out_address = u;
        Where& y = m_t[r];
        y.shape = s, y.q = q, y.u8 = u;
    }
}

// Concat along channels of 1 x C x H x W maps (or along any axis with only 1s before it):
// the SDK's CONCAT copies the inputs' bytes one after another, here of float copies.
void Lowering::concat(const onnx::Node& n) {
    const Shape s0 = tensor(n, 0).shape;
    const int64_t axis = n.get_int("axis", 1) < 0
                             ? n.get_int("axis", 1) + static_cast<int64_t>(s0.size())
                             : n.get_int("axis", 1);
    if (axis < 0 || axis >= static_cast<int64_t>(s0.size())) {
        fail(n, fmt::format("concat axis {} of {}", n.get_int("axis", 1), shape_str(s0)));
    }
    int64_t outer = 1;  // blocks: the dimensions before the axis
    for (int64_t a = 0; a < axis; ++a) {
        outer *= s0.at(static_cast<size_t>(a));
    }
    if (outer != 1) {
        needs_v4(fmt::format("{} along axis {} of {}: v3's CONCAT appends whole tensors",
                             n.describe(), axis, shape_str(s0)));
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
        cc.inner_size = static_cast<uint32_t>(inner), cc.outer_size = static_cast<uint32_t>(outer);
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
    float_output(l, n.outputs[0], o);
}

// Gemm's B (transposed when transB) times alpha, as [out][in]; C times beta as the bias.
void Lowering::gemm_params(const onnx::Node& n, size_t in, size_t out, std::vector<float>& w,
                           std::vector<float>& bias) const {
    const onnx::Value& b = init(n, 1, "B");
    const bool tb = n.get_int("transB", 0) != 0;
    const float alpha = n.get_float("alpha", 1.0f), beta = n.get_float("beta", 1.0f);
    w.assign(in * out, 0.0f);
    bias.assign(out, 0.0f);
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
}

// A fully connected layer x[in] -> o[out] with weights [out][in]: the SDK's FULLY_CONNECTED
// (act 0 none, 1 relu, 2 relu6) or nncase's matmul with its fused range.
void Lowering::push_fully_connected(uint32_t x, uint32_t o, size_t in, size_t out, uint32_t act,
                                    const std::vector<float>& w, const std::vector<float>& bias) {
    if (!m_v4) {
        m_spec.layers.push_back(fully_connected_layer(x, o, static_cast<uint32_t>(in),
                                                      static_cast<uint32_t>(out), act, w, bias));
        return;
    }
    V4Matmul mm;
    std::vector<float> b_in_out(in * out);  // matmul's B is [in][out]
    for (size_t oo = 0; oo < out; ++oo) {
        for (size_t i = 0; i < in; ++i) {
            b_in_out[i * out + oo] = w[oo * in + i];
        }
    }
    mm.a = main_f32(x, in);
    mm.b = {kConstMemory, kFloat32, add_constants(b_in_out), static_cast<uint32_t>(in * out * 4)};
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
}

void Lowering::gemm(const onnx::Node& n) {
    const Shape s = tensor(n, 0).shape;
    const Where& x = to_f32(n.inputs[0], "Gemm (the K210 runs fully connected layers on the CPU)");
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
    std::vector<float> w, bias;
    gemm_params(n, in, out, w, bias);
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
    push_fully_connected(*x.f32, o, in, out, act, w, bias);
    const char* fc = m_v4 ? "matmul" : "FULLY_CONNECTED";
    CompiledLayer& l =
        add_layer(fmt::format("{}", fmt::join(names, "+")), "CPU",
                  act == 0 ? fc : fmt::format("{} + {}", fc, act == 1 ? "relu" : "relu6"));
    l.why_cpu =
        m_v4 ? "fully connected: nncase's float matmul" : "fully connected: the SDK's float layer";
    l.in_shape = s;
    l.out_shape = {1, static_cast<int64_t>(out)};
    l.weight_bytes = (in * out + out) * 4;
    l.macs = in * out;
    float_output(l, t, o);
}

}  // namespace npu::k210::lowering
