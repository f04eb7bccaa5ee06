// Compiler lowering: nncase v0.2's float CPU nodes (kmodel v4) for what real exports compute
// after their convolutions: elementwise binaries with broadcasting and constants, unary
// functions and activations (unary, or an nnil program), Slice and Split (strided_slice), Resize
// and Upsample (resize_image), Pad, the Reduce ops (lowering.h). The post-processing of
// detectors lives here: soft-maxed scores, prior-box decode, feature-pyramid upsampling.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include <fmt/format.h>

#include "platforms/k210/compiler/lowering.h"
#include "platforms/k210/kmodel/cpu_ops_elementwise.h"
#include "platforms/k210/kmodel/cpu_ops_spatial.h"

namespace npu::k210::lowering {

namespace {

const std::map<std::string, BinaryOp>& binary_ops() {
    static const std::map<std::string, BinaryOp> ops = {
        {"Add", BinaryOp::add}, {"Sub", BinaryOp::sub}, {"Mul", BinaryOp::mul},
        {"Div", BinaryOp::div}, {"Min", BinaryOp::min}, {"Max", BinaryOp::max}};
    return ops;
}

const std::map<std::string, UnaryOp>& unary_ops() {
    static const std::map<std::string, UnaryOp> ops = {
        {"Exp", UnaryOp::exp}, {"Log", UnaryOp::log},     {"Neg", UnaryOp::neg},
        {"Abs", UnaryOp::abs}, {"Floor", UnaryOp::floor}, {"Ceil", UnaryOp::ceil},
        {"Cos", UnaryOp::cos}, {"Sin", UnaryOp::sin}};
    return ops;
}

// runtime/nnil.h opcodes the programs below use.
constexpr uint8_t kLda = 0x03, kZero = 0x04, kOne = 0x05, kExp = 0x23, kLog = 0x25, kNeg = 0x26,
                  kAdd = 0x40, kSub = 0x41, kMul = 0x42, kDiv = 0x43, kMin = 0x44, kMax = 0x45,
                  kClamp = 0x80, kRet = 0xA0;

NnilOp op(uint8_t code) {
    return {code, 0.0f};
}
NnilOp ldc(float v) {
    return {0x06, v};
}

// ONNX Slice/Split bounds on a dimension of `size`, clamped as the operator defines them.
void clamp_bounds(int64_t size, int64_t step, int64_t& begin, int64_t& end) {
    begin = begin < 0 ? begin + size : begin;
    end = end < 0 ? end + size : end;
    if (step > 0) {
        begin = std::clamp<int64_t>(begin, 0, size);
        end = std::clamp<int64_t>(end, 0, size);
    } else {
        begin = std::clamp<int64_t>(begin, 0, size - 1);
        end = std::clamp<int64_t>(end, -1, size - 1);
    }
}

}  // namespace

std::vector<NnilOp> nnil_program(const onnx::Node& n, float lo, float hi) {
    const std::string& t = n.op_type;
    if (t == "Relu") {  // max(x, 0)
        return {op(kLda), op(kZero), op(kMax), op(kRet)};
    }
    if (t == "Clip") {  // clamp(x, lo, hi)
        return {op(kLda), ldc(lo), ldc(hi), op(kClamp), op(kRet)};
    }
    if (t == "LeakyRelu") {  // x < 0 ? αx : x  =  max(x, αx) for α ≤ 1, min(x, αx) above
        const float a = n.get_float("alpha", 0.01f);
        return {op(kLda), op(kLda), ldc(a), op(kMul), op(a <= 1.0f ? kMax : kMin), op(kRet)};
    }
    if (t == "Sigmoid") {  // 1 / (1 + exp(−x))
        return {op(kOne), op(kOne), op(kLda), op(kNeg), op(kExp), op(kAdd), op(kDiv), op(kRet)};
    }
    if (t == "Tanh") {  // 2 / (1 + exp(−2x)) − 1
        return {ldc(2),   op(kOne), op(kLda), ldc(-2),  op(kMul), op(kExp),
                op(kAdd), op(kDiv), op(kOne), op(kSub), op(kRet)};
    }
    if (t == "HardSigmoid" || t == "HardSwish") {  // clamp(αx + β, 0, 1), times x for HardSwish
        const bool swish = t == "HardSwish";
        const float a = swish ? 1.0f / 6.0f : n.get_float("alpha", 0.2f);
        const float b = swish ? 0.5f : n.get_float("beta", 0.5f);
        std::vector<NnilOp> p = {op(kLda), ldc(a),    op(kMul), ldc(b),
                                 op(kAdd), op(kZero), op(kOne), op(kClamp)};
        if (swish) {
            p.insert(p.begin(), op(kLda));
            p.push_back(op(kMul));
        }
        p.push_back(op(kRet));
        return p;
    }
    if (t == "Reciprocal") {  // 1 / x
        return {op(kOne), op(kLda), op(kDiv), op(kRet)};
    }
    if (t == "Softplus") {  // log(1 + exp(x))
        return {op(kLda), op(kExp), op(kOne), op(kAdd), op(kLog), op(kRet)};
    }
    if (t == "Elu") {  // max(x, 0) + min(α(exp(x) − 1), 0), α > 0
        const float a = n.get_float("alpha", 1.0f);
        if (!(a > 0.0f)) {
            return {};
        }
        return {op(kLda), op(kZero), op(kMax),  op(kLda), op(kExp), op(kOne), op(kSub),
                ldc(a),   op(kMul),  op(kZero), op(kMin), op(kAdd), op(kRet)};
    }
    return {};
}

// Operand `i` of `n` as float: a computed tensor in the working buffer, or a constant in the
// kmodel's constants.
MemoryRange Lowering::float_operand(const onnx::Node& n, size_t i, Shape& shape) {
    if (has_init(n, i)) {
        const onnx::Value& v = init(n, i, "operand");
        if (v.is_int()) {
            fail(n, fmt::format("its operand {} is an integer constant", i));
        }
        shape = v.shape;
        return {kConstMemory, kFloat32, add_constants(v.f), static_cast<uint32_t>(v.f.size() * 4)};
    }
    tensor(n, i);  // computed, or an error naming the node
    const Where& w = to_f32(n.inputs[i], n.op_type + " on the CPU (nncase's float binary)");
    shape = w.shape;
    return main_f32(*w.f32, static_cast<uint64_t>(numel(w.shape)));
}

// A float CPU node of kmodel v4 that wrote ONNX tensor `t` at `o`.
CompiledLayer& Lowering::float_node(const onnx::Node& n, RawLayerSpec body, const std::string& kind,
                                    const Shape& in, const std::string& t, uint32_t o) {
    m_spec.layers.push_back(std::move(body));
    CompiledLayer& l = add_layer(n.name, "CPU", kind);
    l.why_cpu = "the KPU computes convolutions only";
    l.in_shape = in;
    l.out_shape = m_shapes.at(t);
    float_output(l, t, o);
    return l;
}

// Add, Sub, Mul, Div, Min, Max of two tensors (computed or constant, numpy broadcasting over at
// most 4 axes): nncase's binary. A Relu or Clip that alone follows is its fused range.
void Lowering::lower_binary(size_t index) {
    const onnx::Node& n = m_g.nodes[index];
    const bool plain_add = n.op_type == "Add" && n.inputs.size() == 2 && !has_init(n, 0) &&
                           !has_init(n, 1) && tensor(n, 0).shape == tensor(n, 1).shape;
    if (plain_add) {
        add(n);
        return;
    }
    needs_v4(n.describe() + ": kmodel v3's CPU layers add two tensors of one shape only");
    if (n.inputs.size() != 2) {
        fail(n, fmt::format("{} inputs (nncase's binary takes two)", n.inputs.size()));
    }
    V4Binary b;
    Shape sa, sb;
    b.a = float_operand(n, 0, sa);
    b.b = float_operand(n, 1, sb);
    b.op = binary_ops().at(n.op_type);
    std::string out = n.outputs.at(0);
    const Shape so = m_shapes.at(out);
    if (sa.size() > 4 || sb.size() > 4 || so.size() > 4) {
        fail(n, fmt::format("{} of {} and {}: nncase's binary takes at most 4 axes", n.op_type,
                            shape_str(sa), shape_str(sb)));
    }
    b.a_shape = shape4(sa), b.b_shape = shape4(sb), b.out_shape = shape4(so);
    std::string names = n.name;
    size_t next_index = 0;
    const onnx::Node* next = sole_consumer(out, &next_index);
    Activation act;
    if (next != nullptr && activation_of(*next, act) && act.kind != Activation::Kind::LeakyRelu) {
        m_done.insert(next_index);
        b.act.min = act.kind == Activation::Kind::Relu ? 0.0f : static_cast<float>(act.lo);
        b.act.max = act.kind == Activation::Kind::Relu ? std::numeric_limits<float>::max()
                                                       : static_cast<float>(act.hi);
        out = next->outputs.at(0);
        names += "+" + next->name;
    }
    const auto count = static_cast<uint64_t>(numel(so));
    const uint32_t o = alloc_main(count * 4);
    b.out = main_f32(o, count);
    std::string kind = "binary " + n.op_type;
    std::transform(kind.begin(), kind.end(), kind.begin(), ::tolower);
    CompiledLayer& l = float_node(n, v4_node(b), kind, sa, out, o);
    l.nodes = names;
}

// PRelu with constant slopes (a LeakyRelu when they are all one value: lower_unary's nnil, or
// fused into the KPU layer before it): y = max(x, 0) + slope · min(x, 0) as four binaries.
void Lowering::lower_prelu(size_t index) {
    const onnx::Node& n = m_g.nodes[index];
    Activation a;
    if (activation_of(n, a)) {  // one slope
        onnx::Node leaky = n;
        leaky.op_type = "LeakyRelu";
        leaky.attributes["alpha"].kind = onnx::Attribute::Kind::f;
        leaky.attributes["alpha"].f = static_cast<float>(a.alpha);
        unary_node(leaky);
        return;
    }
    needs_v4(n.describe() + " with one slope per channel: nncase's float binaries");
    if (!has_init(n, 1)) {
        fail(n, "its slopes are computed (the K210 takes them as constants)");
    }
    const Shape s = tensor(n, 0).shape;
    const onnx::Value& slope = init(n, 1, "slope");
    if (s.size() > 4 || slope.shape.size() > 4) {
        fail(n, fmt::format("a PRelu of {} (at most 4 axes)", shape_str(s)));
    }
    const auto count = static_cast<uint64_t>(numel(s));
    const MemoryRange x = main_f32(*to_f32(n.inputs[0], "PRelu on the CPU").f32, count);
    const MemoryRange zero{kConstMemory, kFloat32, add_constants({0.0f}), 4};
    const MemoryRange k{kConstMemory, kFloat32, add_constants(slope.f),
                        static_cast<uint32_t>(slope.f.size() * 4)};
    const MemoryRange pos = main_f32(alloc_main(count * 4), count);
    const MemoryRange neg = main_f32(alloc_main(count * 4), count);
    const uint32_t o = alloc_main(count * 4);
    struct Step {
        MemoryRange a, b, out;
        BinaryOp op;
        Shape b_shape;
        const char* kind;
    };
    const Step steps[] = {{x, zero, pos, BinaryOp::max, {}, "binary max (prelu: x > 0)"},
                          {x, zero, neg, BinaryOp::min, {}, "binary min (prelu: x < 0)"},
                          {neg, k, neg, BinaryOp::mul, slope.shape, "binary mul (prelu: slopes)"},
                          {pos, neg, main_f32(o, count), BinaryOp::add, s, "binary add"}};
    for (const Step& st : steps) {
        V4Binary b;
        b.a = st.a, b.b = st.b, b.out = st.out, b.op = st.op;
        b.a_shape = b.out_shape = shape4(s), b.b_shape = shape4(st.b_shape);
        m_spec.layers.push_back(v4_node(b));
        CompiledLayer& l = add_layer(n.name, "CPU", st.kind);
        l.why_cpu = "the KPU's activation table is one for all channels";
        l.in_shape = l.out_shape = s;
        if (st.op == BinaryOp::add) {
            float_output(l, n.outputs.at(0), o);
        }
    }
}

// Exp, Log, Neg, Abs, Floor, Ceil, Cos, Sin: nncase's unary; activations outside a KPU layer
// (Relu, Clip, LeakyRelu, Sigmoid, Tanh, HardSigmoid, HardSwish, Reciprocal, Softplus, Elu): an
// nnil program run per element.
void Lowering::lower_unary(size_t index) {
    unary_node(m_g.nodes[index]);
}

void Lowering::unary_node(const onnx::Node& n) {
    needs_v4(n.describe() + " outside a KPU layer: nncase's float unary/nnil node");
    const Shape s = tensor(n, 0).shape;
    const auto count = static_cast<uint64_t>(numel(s));
    const Where& w = to_f32(n.inputs[0], n.op_type + " on the CPU");
    const uint32_t o = alloc_main(count * 4);
    const auto u = unary_ops().find(n.op_type);
    if (u != unary_ops().end()) {
        V4Unary un{main_f32(*w.f32, count), main_f32(o, count), u->second};
        std::string kind = "unary " + n.op_type;
        std::transform(kind.begin(), kind.end(), kind.begin(), ::tolower);
        float_node(n, v4_node(un), kind, s, n.outputs.at(0), o);
        return;
    }
    Activation a;
    activation_of(n, a);  // Clip's bounds, when it is one
    V4NnilUnary nn{main_f32(*w.f32, count), main_f32(o, count),
                   nnil_program(n, static_cast<float>(a.lo), static_cast<float>(a.hi))};
    if (nn.program.empty()) {
        fail(n, "has no nnil program here (Elu needs alpha > 0)");
    }
    float_node(n, v4_node(nn), "nnil " + n.op_type, s, n.outputs.at(0), o);
}

// Slice (opset < 10: attributes; from 10: constant inputs) as nncase's strided_slice.
void Lowering::lower_slice(size_t index) {
    const onnx::Node& n = m_g.nodes[index];
    needs_v4(n.describe() + ": nncase's strided_slice");
    const Shape s = tensor(n, 0).shape;
    const auto rank = static_cast<int64_t>(s.size());
    Shape starts, ends, axes, steps;
    if (m_g.opset < 10) {
        starts = n.get_ints("starts"), ends = n.get_ints("ends"), axes = n.get_ints("axes");
    } else {
        const char* what[] = {"starts", "ends", "axes", "steps"};
        Shape* into[] = {&starts, &ends, &axes, &steps};
        for (size_t i = 1; i < n.inputs.size() && i <= 4; ++i) {
            if (n.inputs[i].empty()) {
                continue;
            }
            if (!has_init(n, i)) {
                fail(n, fmt::format("its {} are computed (the K210 slices with bounds known "
                                    "when compiling)",
                                    what[i - 1]));
            }
            *into[i - 1] = init(n, i, what[i - 1]).i;
        }
    }
    if (axes.empty()) {
        for (size_t a = 0; a < starts.size(); ++a) {
            axes.push_back(static_cast<int64_t>(a));
        }
    }
    steps.resize(starts.size(), 1);
    if (starts.size() != ends.size() || axes.size() != starts.size() || rank > 4) {
        fail(n, fmt::format("a Slice of {} with starts {}, ends {}, axes {} (at most 4 axes, "
                            "one bound each)",
                            shape_str(s), shape_str(starts), shape_str(ends), shape_str(axes)));
    }
    std::vector<int64_t> begin(s.size(), 0), end(s), stride(s.size(), 1);
    for (size_t k = 0; k < axes.size(); ++k) {
        const int64_t a = axes[k] < 0 ? axes[k] + rank : axes[k];
        if (a < 0 || a >= rank || steps[k] == 0) {
            fail(n, fmt::format("slice axis {} of a rank-{} tensor, step {}", axes[k], rank,
                                steps[k]));
        }
        const auto d = static_cast<size_t>(a);
        begin[d] = starts[k], end[d] = ends[k], stride[d] = steps[k];
        clamp_bounds(s[d], steps[k], begin[d], end[d]);
    }
    strided_slice_node(n, n.outputs.at(0), begin, end, stride);
}

// Split along `axis` into the given sizes (attribute before opset 13, input from 13) or equal
// parts: one strided_slice per output.
void Lowering::lower_split(size_t index) {
    const onnx::Node& n = m_g.nodes[index];
    needs_v4(n.describe() + ": nncase's strided_slice");
    const Shape s = tensor(n, 0).shape;
    const auto rank = static_cast<int64_t>(s.size());
    int64_t axis = n.get_int("axis", 0);
    axis = axis < 0 ? axis + rank : axis;
    if (axis < 0 || axis >= rank || rank > 4) {
        fail(n, fmt::format("a Split along axis {} of {} (at most 4 axes)", axis, shape_str(s)));
    }
    int64_t at = 0;
    for (const std::string& out : n.outputs) {
        const Shape so = m_shapes.at(out);
        std::vector<int64_t> begin(s.size(), 0), end(s), stride(s.size(), 1);
        begin[static_cast<size_t>(axis)] = at;
        at += so.at(static_cast<size_t>(axis));
        end[static_cast<size_t>(axis)] = at;
        strided_slice_node(n, out, begin, end, stride);
    }
}

void Lowering::strided_slice_node(const onnx::Node& n, const std::string& out, const Shape& begin,
                                  const Shape& end, const Shape& stride) {
    const Shape s = tensor(n, 0).shape;
    const Where& w = to_f32(n.inputs[0], n.op_type + ": nncase's strided_slice");
    V4StridedSlice p;
    p.in = main_f32(*w.f32, static_cast<uint64_t>(numel(s)));
    p.in_shape = shape4(s);
    p.begin = {0, 0, 0, 0}, p.end = p.in_shape, p.strides = {1, 1, 1, 1};
    const size_t lead = 4 - s.size();  // right-aligned, as shape4()
    int64_t count = 1;
    for (size_t k = 0; k < s.size(); ++k) {
        p.begin[lead + k] = static_cast<int32_t>(begin[k]);
        p.end[lead + k] = static_cast<int32_t>(end[k]);
        p.strides[lead + k] = static_cast<int32_t>(stride[k]);
        count *= slice_count(p, lead + k);
    }
    if (count != numel(m_shapes.at(out))) {
        fail(n, fmt::format("a slice of {} elements where the reference computes {} ({})", count,
                            numel(m_shapes.at(out)), shape_str(m_shapes.at(out))));
    }
    const uint32_t o = alloc_main(static_cast<uint64_t>(count) * 4);
    p.out = main_f32(o, static_cast<uint64_t>(count));
    float_node(n, v4_node(p), "strided_slice", s, out, o);
}

// Resize (opset 10 on) and Upsample (before) of the H and W of an N x C x H x W map: nncase's
// resize_image samples source pixel floor(o · in / out) (nearest) or interpolates at o · in / out
// (bilinear; (in − 1) / (out − 1) with align_corners). ONNX's nearest with asymmetric
// coordinates and floor is that; so is half_pixel with rounding when the scale factors are whole
// numbers (o = k·s + r maps to k + (r + ½)/s − ½, which rounds to k).
void Lowering::lower_resize(size_t index) {
    const onnx::Node& n = m_g.nodes[index];
    needs_v4(n.describe() + ": nncase's resize_image");
    const Shape s = tensor(n, 0).shape;
    const std::string out = n.outputs.at(0);
    const Shape so = m_shapes.at(out);
    if (s.size() != 4 || so.size() != 4 || so[0] != s[0] || so[1] != s[1]) {
        fail(n, fmt::format("a resize of {} to {} (the K210 resizes H and W of N x C x H x W "
                            "maps)",
                            shape_str(s), shape_str(so)));
    }
    const bool v11 = n.op_type == "Resize" && m_g.opset >= 11;
    const std::string mode = n.get_string("mode", "nearest");
    const std::string ctm =
        v11 ? n.get_string("coordinate_transformation_mode", "half_pixel") : "asymmetric";
    const std::string rounding = v11 ? n.get_string("nearest_mode", "round_prefer_floor") : "floor";
    V4ResizeImage r;
    if (mode == "nearest") {
        const bool whole = so[2] % s[2] == 0 && so[3] % s[3] == 0;
        const bool half = ctm == "half_pixel" || ctm == "pytorch_half_pixel";
        if (!(ctm == "asymmetric" && rounding == "floor") &&
            !(half && whole && rounding.rfind("round_prefer", 0) == 0)) {
            fail(n, fmt::format("nearest with coordinate_transformation_mode {} and nearest_mode "
                                "{} from {} to {}: nncase's resize_image takes pixel floor(o · in "
                                "/ out) (asymmetric with floor; half_pixel with rounding when the "
                                "factors are whole)",
                                ctm, rounding, shape_str(s), shape_str(so)));
        }
        r.mode = ResizeMode::nearest;
    } else if (mode == "linear" || mode == "bilinear") {
        if (ctm != "asymmetric" && ctm != "align_corners") {
            fail(n, fmt::format("linear with coordinate_transformation_mode {}: nncase's "
                                "resize_image interpolates at o · in / out (asymmetric) or with "
                                "align_corners (PyTorch: align_corners=True, or mode nearest)",
                                ctm));
        }
        r.mode = ResizeMode::bilinear;
        r.align_corners = ctm == "align_corners";
    } else {
        fail(n, fmt::format("mode {}: nncase's resize_image is nearest or bilinear", mode));
    }
    const Where& w = to_f32(n.inputs[0], n.op_type + ": nncase's resize_image");
    r.in = main_f32(*w.f32, static_cast<uint64_t>(numel(s)));
    r.in_shape = shape4(s);
    r.out_h = static_cast<int32_t>(so[2]), r.out_w = static_cast<int32_t>(so[3]);
    const auto count = static_cast<uint64_t>(numel(so));
    const uint32_t o = alloc_main(count * 4);
    r.out = main_f32(o, count);
    float_node(n, v4_node(r), "resize_image " + mode, s, out, o);
}

// Pad in constant mode (pads as an attribute before opset 11, an input from 11): nncase's pad.
void Lowering::lower_pad(size_t index) {
    const onnx::Node& n = m_g.nodes[index];
    needs_v4(n.describe() + ": nncase's pad");
    const Shape s = tensor(n, 0).shape;
    const std::string mode = n.get_string("mode", "constant");
    Shape pads = n.get_ints("pads");
    float value = n.get_float("value", 0.0f);
    if (m_g.opset >= 11) {
        if (n.inputs.size() < 2 || !has_init(n, 1) ||
            (n.inputs.size() > 2 && !n.inputs[2].empty() && !has_init(n, 2))) {
            fail(n,
                 "its pads or value are computed (the K210 pads by amounts known when "
                 "compiling)");
        }
        pads = init(n, 1, "pads").i;
        if (n.inputs.size() > 2 && !n.inputs[2].empty()) {
            value = init(n, 2, "constant_value").f.at(0);
        }
    }
    if (mode != "constant" || s.size() > 4 || pads.size() != 2 * s.size() ||
        (n.inputs.size() > 3 && !n.inputs[3].empty())) {
        fail(n, fmt::format("a {} pad of {} by {} (nncase's pad: constant, at most 4 axes, every "
                            "axis)",
                            mode, shape_str(s), shape_str(pads)));
    }
    const Where& w = to_f32(n.inputs[0], "Pad: nncase's pad");
    V4Pad p;
    p.in = main_f32(*w.f32, static_cast<uint64_t>(numel(s)));
    p.in_shape = shape4(s);
    const size_t lead = 4 - s.size();
    for (size_t k = 0; k < s.size(); ++k) {
        p.paddings[lead + k] = {static_cast<int32_t>(pads[k]),
                                static_cast<int32_t>(pads[k + s.size()])};
    }
    std::memcpy(p.pad_value.data(), &value, 4);
    const std::string out = n.outputs.at(0);
    const auto count = static_cast<uint64_t>(numel(m_shapes.at(out)));
    const uint32_t o = alloc_main(count * 4);
    p.out = main_f32(o, count);
    float_node(n, v4_node(p), "pad", s, out, o);
}

// ReduceMean, ReduceMax, ReduceMin, ReduceSum over constant axes (an attribute, or an input
// where the opset makes it one): nncase's reduce.
void Lowering::lower_reduce(size_t index) {
    const onnx::Node& n = m_g.nodes[index];
    needs_v4(n.describe() + ": nncase's reduce");
    const Shape s = tensor(n, 0).shape;
    const auto rank = static_cast<int64_t>(s.size());
    Shape axes = n.get_ints("axes");
    if (n.inputs.size() > 1 && !n.inputs[1].empty()) {
        if (!has_init(n, 1)) {
            fail(n, "its axes are computed (the K210 reduces axes known when compiling)");
        }
        axes = init(n, 1, "axes").i;
    }
    if (axes.empty()) {
        if (n.get_int("noop_with_empty_axes", 0) != 0) {
            fail(n, "reduces nothing (noop_with_empty_axes)");
        }
        for (int64_t a = 0; a < rank; ++a) {
            axes.push_back(a);
        }
    }
    if (rank > 4) {
        fail(n, fmt::format("a reduce of {} (at most 4 axes)", shape_str(s)));
    }
    V4Reduce r;
    r.in_shape = r.out_shape = shape4(s);
    for (int64_t a : axes) {
        const int64_t k = a < 0 ? a + rank : a;
        if (k < 0 || k >= rank) {
            fail(n, fmt::format("reduce axis {} of a rank-{} tensor", a, rank));
        }
        r.out_shape[static_cast<size_t>(4 - rank + k)] = 1;
    }
    const std::map<std::string, std::pair<ReduceOp, float>> ops = {
        {"ReduceMean", {ReduceOp::mean, 0.0f}},
        {"ReduceSum", {ReduceOp::sum, 0.0f}},
        {"ReduceMax", {ReduceOp::max, std::numeric_limits<float>::lowest()}},
        {"ReduceMin", {ReduceOp::min, std::numeric_limits<float>::max()}}};
    r.op = ops.at(n.op_type).first, r.init_value = ops.at(n.op_type).second;
    const Where& w = to_f32(n.inputs[0], n.op_type + ": nncase's reduce");
    r.in = main_f32(*w.f32, static_cast<uint64_t>(numel(s)));
    uint64_t count = 1;
    for (int32_t d : r.out_shape) {
        count *= static_cast<uint64_t>(d);
    }
    const uint32_t o = alloc_main(count * 4);
    r.out = main_f32(o, count);
    float_node(n, v4_node(r), "reduce " + n.op_type.substr(6), s, n.outputs.at(0), o);
}

}  // namespace npu::k210::lowering
