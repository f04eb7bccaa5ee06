// Internals of the ONNX reference evaluator shared by its files (evaluator.cpp holds the op
// table; ops_nn.cpp, ops_tensor.cpp, ops_quant.cpp the larger ops): shape helpers that name the
// node in their errors, the node context, and the runners the table points at. Not for other
// folders. Pure C++.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/onnx/graph.h"

namespace npu::onnx::detail {

using Shape = std::vector<int64_t>;

[[noreturn]] void fail(const Node& n, const std::string& why);

size_t numel(const Shape& s);

Shape strides_of(const Shape& s);

int64_t norm_axis(const Node& n, int64_t axis, size_t rank);

std::string shape_str(const Shape& s);

// The largest tensor a node may produce (512 MiB of float): a hostile or mistaken model gets
// an error naming the node instead of exhausting memory.
constexpr size_t kMaxElements = size_t{1} << 27;

// The element count of an output shape about to be allocated.
size_t checked_numel(const Node& n, const Shape& s);

// Fails when `outputs` elements of `per_output` multiply-adds or taps each exceed work_limit().
void check_work(const Node& n, size_t outputs, uint64_t per_output);

// Fails unless `v` holds `count` values.
void need_count(const Node& n, const Value& v, size_t count, const std::string& what);

// Fails unless input `i` has a rank in [lo, hi].
void need_rank(const Node& n, const Value& v, size_t lo, size_t hi, const std::string& what);

// The first value of an optional scalar input (min/max of Clip, Pad's constant).
float first_float(const Node& n, const std::vector<float>& v, const std::string& what);

Shape broadcast(const Node& n, const Shape& a, const Shape& b);

// Offsets into an input of shape `in` broadcast to `out`, for every output element.
std::vector<size_t> broadcast_offsets(const Shape& in, const Shape& out);

std::vector<float> as_floats(const Value& v);
// v's floats without a copy when it holds floats; else converted into `scratch`, returned.
const std::vector<float>& floats_of(const Value& v, std::vector<float>& scratch);

std::vector<int64_t> as_ints(const Value& v);

struct Ctx {
    const Node& n;
    std::vector<const Value*> in;  // nullptr for omitted optional inputs
    // Input 0 itself when no later node reads it (and this node reads it once): an op may take
    // its storage over for its output instead of copying (unary does).
    Value* donated = nullptr;
    const Value& x(size_t i) const {
        if (i >= in.size() || in[i] == nullptr) {
            fail(n, fmt::format("input {} is missing", i));
        }
        return *in[i];
    }
    bool has(size_t i) const { return i < in.size() && in[i] != nullptr; }
};

using Outputs = std::vector<Value>;

// One output, moved in (`return {v};` would copy it out of an initializer list).
inline Outputs one(Value v) {
    Outputs o;
    o.push_back(std::move(v));
    return o;
}

// y = f(x) element by element (f inlined: no call per element).
template <typename F>
Outputs unary(const Ctx& c, F f) {
    const Value& x = c.x(0);
    Value y = c.donated != nullptr && !x.is_int() ? std::move(*c.donated)
                                                  : Value::floats(x.shape, as_floats(x));
    for (float& v : y.f) {
        v = f(v);
    }
    return one(std::move(y));
}

// Opset 6 and older: `broadcast = 1` with `axis` lines B's dimensions up with A's starting
// at `axis` (numpy aligns them at the end); PRelu's 1-D slope is per channel (axis 1).
// Returns the shape B is read with.
Shape legacy_b_shape(const Ctx& c, int64_t opset, const Shape& a, const Shape& b);

Outputs binary(const Ctx& c, int64_t opset, const std::function<float(float, float)>& f,
               const std::function<int64_t(int64_t, int64_t)>& fi);

// binary() with f inlined for the common case of two float inputs of one shape (a residual Add,
// a gate's Mul): no broadcast offsets, no copies of the inputs, the first input's storage taken
// over when no later node reads it. The same arithmetic, so the same bits, as binary().
template <typename F, typename FI>
Outputs elementwise(const Ctx& c, int64_t opset, F f, FI fi) {
    const Value &a = c.x(0), &b = c.x(1);
    if (a.is_int() || b.is_int() || a.shape != b.shape) {
        return binary(c, opset, f, fi);
    }
    Value y = c.donated != nullptr ? std::move(*c.donated) : a;
    y.onnx_type = 1;  // float, as binary() gives
    const float* bf = b.f.data();
    for (size_t k = 0; k < y.f.size(); ++k) {
        y.f[k] = f(y.f[k], bf[k]);
    }
    return one(std::move(y));
}

// Data of any value as int64 or float, copied in a new shape.
Value reshaped(const Value& x, Shape s);

// The runners of the larger ops (the op table in evaluator.cpp points at them).
Outputs conv(const Ctx& c);
Outputs conv_transpose(const Ctx& c);
Outputs pool(const Ctx& c, bool max);
Outputs global_pool(const Ctx& c, bool max);
Outputs batch_norm(const Ctx& c);
Outputs softmax(const Ctx& c, int64_t opset, bool log);
Outputs gemm(const Ctx& c);
Outputs matmul(const Ctx& c);
Outputs concat(const Ctx& c);
// ReduceMean, ReduceSum, ... (by the node's op_type) and ArgMax / ArgMin (ops_reduce.cpp).
Outputs reduce(const Ctx& c, int64_t opset);
Outputs arg_extreme(const Ctx& c, bool max);
// Comparisons and logic (booleans), Where, Expand, Tile, Split, Max/Min/Sum/Mean, Pow
// (ops_logic.cpp).
Outputs compare(const Ctx& c);
Outputs logical_not(const Ctx& c);
Outputs where(const Ctx& c);
Outputs expand(const Ctx& c);
Outputs tile(const Ctx& c);
Outputs split(const Ctx& c, int64_t opset);
Outputs variadic(const Ctx& c);
Outputs pow_op(const Ctx& c);
Outputs reshape(const Ctx& c, const Shape& req, bool allowzero);
Outputs transpose(const Ctx& c);
Outputs squeeze(const Ctx& c, int64_t opset);
Outputs unsqueeze(const Ctx& c, int64_t opset);
Outputs slice(const Ctx& c, int64_t opset);
Outputs pad(const Ctx& c, int64_t opset);
Outputs gather(const Ctx& c);
Outputs constant(const Ctx& c);
Outputs shape_op(const Ctx& c);
Outputs quantize_linear(const Ctx& c);
Outputs dequantize_linear(const Ctx& c);
Outputs resize(const Ctx& c, int64_t opset, bool upsample);
Outputs clip(const Ctx& c, int64_t opset);
Outputs instance_norm(const Ctx& c);
Outputs lrn(const Ctx& c);
// Cast, CastLike, ConstantOfShape, Range, DepthToSpace / SpaceToDepth, GatherElements
// (ops_create.cpp).
Outputs cast(const Ctx& c);
Outputs cast_like(const Ctx& c);
Outputs constant_of_shape(const Ctx& c);
Outputs range(const Ctx& c);
Outputs depth_space(const Ctx& c, bool to_space);
Outputs gather_elements(const Ctx& c);
// The mean of v[0..n) and 1 / sqrt(variance + eps), summed in double (InstanceNormalization,
// LayerNormalization).
struct Moments {
    double mean = 0, inv_std = 0;
};
Moments moments(const float* v, size_t n, double eps);
// TopK, NonZero, NonMaxSuppression, LayerNormalization (ops_select.cpp).
Outputs top_k(const Ctx& c, int64_t opset);
Outputs non_zero(const Ctx& c);
Outputs non_max_suppression(const Ctx& c);
Outputs layer_norm(const Ctx& c);

}  // namespace npu::onnx::detail
