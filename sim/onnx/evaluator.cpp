#include "sim/onnx/evaluator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <unordered_map>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/onnx/eval_detail.h"

namespace npu::onnx {

using namespace detail;  // the evaluator's own internals (eval_detail.h)

namespace {

// Integer arithmetic wraps around (two's complement, as numpy's int64 does): computed in uint64,
// where overflow is defined. Division by zero gives 0, INT64_MIN / -1 wraps.
int64_t wrap(uint64_t v) {
    return static_cast<int64_t>(v);
}
uint64_t u(int64_t v) {
    return static_cast<uint64_t>(v);
}

Outputs identity(const Ctx& c, int64_t /*opset*/) {
    Outputs r{*c.in.at(0)};
    if (c.n.op_type == "Dropout" && c.n.outputs.size() > 1) {
        Value mask = Value::ints(c.x(0).shape, std::vector<int64_t>(c.x(0).numel(), 1));
        mask.onnx_type = 9;
        r.push_back(mask);
    }
    return r;
}

Outputs flatten(const Ctx& c, int64_t /*opset*/) {
    const Node& n = c.n;
    const Shape& s = c.x(0).shape;
    int64_t ax = n.get_int("axis", 1);
    ax = ax < 0 ? ax + static_cast<int64_t>(s.size()) : ax;  // Flatten: −r..r
    if (ax < 0 || ax > static_cast<int64_t>(s.size())) {
        fail(n, fmt::format("axis {} is out of range for rank {}", n.get_int("axis", 1), s.size()));
    }
    const auto axis = static_cast<size_t>(ax);
    int64_t a = 1, b = 1;
    for (size_t i = 0; i < s.size(); ++i) {
        (i < axis ? a : b) *= s[i];
    }
    return one(reshaped(c.x(0), {a, b}));
}

using Runner = Outputs (*)(const Ctx& c, int64_t opset);

// One entry per ONNX op the evaluator runs: its name (as in the graph) and its runner, which
// reads the attributes it needs and checks the shapes it is given (errors name the node).
// supported_ops() and the importer's "unsupported op" list derive from it. Adding an op: one
// entry, its runner, its test (and docs/onnx.md).
struct OnnxOp {
    const char* name;
    Runner run;
};

const std::vector<OnnxOp>& table() {
    static const std::vector<OnnxOp> ops = {
        // Elementwise, one input.
        {"Relu",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return v > 0 ? v : 0.0f; });
         }},
        {"LeakyRelu",
         [](const Ctx& c, int64_t) {
             const float a = c.n.get_float("alpha", 0.01f);
             return unary(c, [a](float v) { return v >= 0 ? v : v * a; });
         }},
        {"Sigmoid",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) {
                 return static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(v))));
             });
         }},
        {"Tanh",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::tanh(v); });
         }},
        {"HardSigmoid",
         [](const Ctx& c, int64_t) {
             const float a = c.n.get_float("alpha", 0.2f), b = c.n.get_float("beta", 0.5f);
             return unary(c, [a, b](float v) { return std::max(0.0f, std::min(1.0f, a * v + b)); });
         }},
        {"HardSwish",
         [](const Ctx& c, int64_t) {
             return unary(
                 c, [](float v) { return v * std::max(0.0f, std::min(1.0f, v / 6.0f + 0.5f)); });
         }},
        {"Abs",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::fabs(v); });
         }},
        {"Neg",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return -v; });
         }},
        {"Exp",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::exp(v); });
         }},
        {"Log",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::log(v); });
         }},
        {"Sqrt",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::sqrt(v); });
         }},
        {"Reciprocal",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return 1.0f / v; });
         }},
        {"Floor",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::floor(v); });
         }},
        {"Ceil",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::ceil(v); });
         }},
        {"Clip", clip},
        // Elementwise, two inputs (numpy broadcasting; opset 6's legacy broadcast).
        {"PRelu",
         [](const Ctx& c, int64_t opset) {
             return binary(
                 c, opset, [](float v, float s) { return v < 0 ? v * s : v; }, nullptr);
         }},
        {"Add",
         [](const Ctx& c, int64_t opset) {
             return elementwise(c, opset, std::plus<float>(),
                                [](int64_t a, int64_t b) { return wrap(u(a) + u(b)); });
         }},
        {"Sub",
         [](const Ctx& c, int64_t opset) {
             return elementwise(c, opset, std::minus<float>(),
                                [](int64_t a, int64_t b) { return wrap(u(a) - u(b)); });
         }},
        {"Mul",
         [](const Ctx& c, int64_t opset) {
             return elementwise(c, opset, std::multiplies<float>(),
                                [](int64_t a, int64_t b) { return wrap(u(a) * u(b)); });
         }},
        {"Div",
         [](const Ctx& c, int64_t opset) {
             return elementwise(c, opset, std::divides<float>(), [](int64_t a, int64_t b) {
                 return b == 0    ? 0
                        : b == -1 ? static_cast<int64_t>(0 - static_cast<uint64_t>(a))
                                  : a / b;
             });
         }},
        {"Identity", identity},
        {"Dropout", identity},
        // Networks (ops_nn.cpp).
        {"Conv",
         [](const Ctx& c, int64_t) {
             return conv(c);
         }},
        {"ConvTranspose",
         [](const Ctx& c, int64_t) {
             return conv_transpose(c);
         }},
        {"BatchNormalization",
         [](const Ctx& c, int64_t) {
             return batch_norm(c);
         }},
        {"MaxPool",
         [](const Ctx& c, int64_t) {
             return pool(c, true);
         }},
        {"AveragePool",
         [](const Ctx& c, int64_t) {
             return pool(c, false);
         }},
        {"GlobalAveragePool",
         [](const Ctx& c, int64_t) {
             return global_pool(c, false);
         }},
        {"GlobalMaxPool",
         [](const Ctx& c, int64_t) {
             return global_pool(c, true);
         }},
        {"Softmax",
         [](const Ctx& c, int64_t opset) {
             return softmax(c, opset, false);
         }},
        {"LogSoftmax",
         [](const Ctx& c, int64_t opset) {
             return softmax(c, opset, true);
         }},
        {"Gemm",
         [](const Ctx& c, int64_t) {
             return gemm(c);
         }},
        {"MatMul",
         [](const Ctx& c, int64_t) {
             return matmul(c);
         }},
        // Tensors (ops_tensor.cpp).
        {"Concat",
         [](const Ctx& c, int64_t) {
             return concat(c);
         }},
        {"Reshape",
         [](const Ctx& c, int64_t) {
             return reshape(c, as_ints(c.x(1)), c.n.get_int("allowzero", 0) != 0);
         }},
        {"Flatten", flatten},
        {"Transpose",
         [](const Ctx& c, int64_t) {
             return transpose(c);
         }},
        {"Squeeze", squeeze},
        {"Unsqueeze", unsqueeze},
        {"Slice", slice},
        {"Pad", pad},
        {"Constant",
         [](const Ctx& c, int64_t) {
             return constant(c);
         }},
        {"Shape",
         [](const Ctx& c, int64_t) {
             return shape_op(c);
         }},
        {"Gather",
         [](const Ctx& c, int64_t) {
             return gather(c);
         }},
        // More elementwise, one input.
        {"Elu",
         [](const Ctx& c, int64_t) {
             const float a = c.n.get_float("alpha", 1.0f);
             return unary(c, [a](float v) { return v >= 0 ? v : a * std::expm1(v); });
         }},
        {"Selu",
         [](const Ctx& c, int64_t) {
             const float a = c.n.get_float("alpha", 1.67326319217681884765625f),
                         g = c.n.get_float("gamma", 1.05070102214813232421875f);
             return unary(c, [a, g](float v) { return g * (v > 0 ? v : a * std::expm1(v)); });
         }},
        {"Celu",
         [](const Ctx& c, int64_t) {
             const float a = c.n.get_float("alpha", 1.0f);
             return unary(c, [a](float v) {
                 return std::max(0.0f, v) + std::min(0.0f, a * std::expm1(v / a));
             });
         }},
        {"ThresholdedRelu",
         [](const Ctx& c, int64_t) {
             const float a = c.n.get_float("alpha", 1.0f);
             return unary(c, [a](float v) { return v > a ? v : 0.0f; });
         }},
        {"Softplus",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::log1p(std::exp(v)); });
         }},
        {"Softsign",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return v / (1 + std::abs(v)); });
         }},
        {"Sin",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::sin(v); });
         }},
        {"Cos",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::cos(v); });
         }},
        {"Tan",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::tan(v); });
         }},
        {"Asin",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::asin(v); });
         }},
        {"Acos",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::acos(v); });
         }},
        {"Atan",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::atan(v); });
         }},
        {"Sinh",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::sinh(v); });
         }},
        {"Cosh",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::cosh(v); });
         }},
        {"Asinh",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::asinh(v); });
         }},
        {"Acosh",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::acosh(v); });
         }},
        {"Atanh",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::atanh(v); });
         }},
        {"Erf",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::erf(v); });
         }},
        {"Sign",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return static_cast<float>((v > 0) - (v < 0)); });
         }},
        {"Round",
         [](const Ctx& c, int64_t) {
             return unary(c, [](float v) { return std::nearbyint(v); });  // half to even
         }},
        // Comparisons, logic, selection, broadcasting (ops_logic.cpp).
        {"Equal",
         [](const Ctx& c, int64_t) {
             return compare(c);
         }},
        {"Greater",
         [](const Ctx& c, int64_t) {
             return compare(c);
         }},
        {"Less",
         [](const Ctx& c, int64_t) {
             return compare(c);
         }},
        {"GreaterOrEqual",
         [](const Ctx& c, int64_t) {
             return compare(c);
         }},
        {"LessOrEqual",
         [](const Ctx& c, int64_t) {
             return compare(c);
         }},
        {"And",
         [](const Ctx& c, int64_t) {
             return compare(c);
         }},
        {"Or",
         [](const Ctx& c, int64_t) {
             return compare(c);
         }},
        {"Xor",
         [](const Ctx& c, int64_t) {
             return compare(c);
         }},
        {"Not",
         [](const Ctx& c, int64_t) {
             return logical_not(c);
         }},
        {"Where",
         [](const Ctx& c, int64_t) {
             return where(c);
         }},
        {"Expand",
         [](const Ctx& c, int64_t) {
             return expand(c);
         }},
        {"Tile",
         [](const Ctx& c, int64_t) {
             return tile(c);
         }},
        {"Split", split},
        {"Max",
         [](const Ctx& c, int64_t) {
             return variadic(c);
         }},
        {"Min",
         [](const Ctx& c, int64_t) {
             return variadic(c);
         }},
        {"Sum",
         [](const Ctx& c, int64_t) {
             return variadic(c);
         }},
        {"Mean",
         [](const Ctx& c, int64_t) {
             return variadic(c);
         }},
        {"Pow",
         [](const Ctx& c, int64_t) {
             return pow_op(c);
         }},
        // Reductions (ops_reduce.cpp).
        {"ReduceMean", reduce},
        {"ReduceSum", reduce},
        {"ReduceMax", reduce},
        {"ReduceMin", reduce},
        {"ReduceProd", reduce},
        {"ReduceL1", reduce},
        {"ReduceL2", reduce},
        {"ReduceLogSum", reduce},
        {"ReduceLogSumExp", reduce},
        {"ReduceSumSquare", reduce},
        {"ArgMax",
         [](const Ctx& c, int64_t) {
             return arg_extreme(c, true);
         }},
        {"ArgMin",
         [](const Ctx& c, int64_t) {
             return arg_extreme(c, false);
         }},
        // Quantization and resizing (ops_quant.cpp).
        {"QuantizeLinear",
         [](const Ctx& c, int64_t) {
             return quantize_linear(c);
         }},
        {"DequantizeLinear",
         [](const Ctx& c, int64_t) {
             return dequantize_linear(c);
         }},
        {"Resize",
         [](const Ctx& c, int64_t opset) {
             return resize(c, opset, false);
         }},
        {"Upsample",
         [](const Ctx& c, int64_t opset) {
             return resize(c, opset, true);
         }},
        // Types, creation and layout (ops_create.cpp); normalizations (ops_nn.cpp).
        {"Cast",
         [](const Ctx& c, int64_t) {
             return cast(c);
         }},
        {"CastLike",
         [](const Ctx& c, int64_t) {
             return cast_like(c);
         }},
        {"ConstantOfShape",
         [](const Ctx& c, int64_t) {
             return constant_of_shape(c);
         }},
        {"Range",
         [](const Ctx& c, int64_t) {
             return range(c);
         }},
        {"DepthToSpace",
         [](const Ctx& c, int64_t) {
             return depth_space(c, true);
         }},
        {"SpaceToDepth",
         [](const Ctx& c, int64_t) {
             return depth_space(c, false);
         }},
        {"GatherElements",
         [](const Ctx& c, int64_t) {
             return gather_elements(c);
         }},
        {"InstanceNormalization",
         [](const Ctx& c, int64_t) {
             return instance_norm(c);
         }},
        {"LRN",
         [](const Ctx& c, int64_t) {
             return lrn(c);
         }},
        {"TopK",
         [](const Ctx& c, int64_t opset) {
             return top_k(c, opset);
         }},
        {"NonZero",
         [](const Ctx& c, int64_t) {
             return non_zero(c);
         }},
        {"NonMaxSuppression",
         [](const Ctx& c, int64_t) {
             return non_max_suppression(c);
         }},
        {"LayerNormalization",
         [](const Ctx& c, int64_t) {
             return layer_norm(c);
         }},
    };
    return ops;
}

Runner find_runner(const std::string& op) {
    static const std::unordered_map<std::string, Runner> by_name = [] {
        std::unordered_map<std::string, Runner> m;
        for (const OnnxOp& o : table()) {
            m.emplace(o.name, o.run);
        }
        return m;
    }();
    const auto it = by_name.find(op);
    return it == by_name.end() ? nullptr : it->second;
}

}  // namespace

const std::set<std::string>& supported_ops() {
    static const std::set<std::string> ops = [] {
        std::set<std::string> s;
        for (const OnnxOp& o : table()) {
            s.insert(o.name);
        }
        return s;
    }();
    return ops;
}

namespace {

// glibc hands blocks over its mmap threshold back to the kernel when they are freed, so each
// feature map of a large model came back as fresh pages to fault in on every inference (a third
// of the time of a 320x240 detector). Keeping freed memory in the heap for reuse removes that.
void keep_freed_memory() {
#if defined(__GLIBC__)
    static const bool once = [] {
        mallopt(M_MMAP_THRESHOLD, 256 << 20);  // blocks below 256 MiB come from the heap
        mallopt(M_TRIM_THRESHOLD, 512 << 20);  // the heap's free top is kept up to 512 MiB
        return true;
    }();
    (void)once;
#endif
}

}  // namespace

namespace {

// The values of one evaluation: graph inputs and initializers read where they are, never copied;
// node outputs kept from their node to their last reader (graph outputs to the end).
class Values {
public:
    Values(const Graph& g, const std::map<std::string, Value>& inputs)
        : m_g(g)
        , m_inputs(inputs) {
        for (size_t i = 0; i < g.nodes.size(); ++i) {
            for (const std::string& name : g.nodes[i].inputs) {
                m_last_read[name] = i;
            }
        }
        for (const ValueInfo& o : g.outputs) {
            m_last_read[o.name] = kKeep;
        }
    }
    const Value* find(const std::string& name) const {
        if (auto it = m_computed.find(name); it != m_computed.end()) {
            return &it->second;
        }
        if (auto it = m_inputs.find(name); it != m_inputs.end()) {
            return &it->second;
        }
        auto it = m_g.initializers.find(name);
        return it != m_g.initializers.end() ? &it->second : nullptr;
    }
    // Node i's inputs; its first one donated when no later node reads it (and it reads it once).
    Ctx context(const Node& n, size_t i) {
        Ctx c{n, {}, nullptr};
        for (const std::string& name : n.inputs) {
            const Value* v = name.empty() ? nullptr : find(name);
            if (!name.empty() && v == nullptr) {
                fail(n, fmt::format("input '{}' is not computed before it", name));
            }
            c.in.push_back(v);
        }
        if (!n.inputs.empty() && !n.inputs[0].empty() &&
            std::count(n.inputs.begin(), n.inputs.end(), n.inputs[0]) == 1) {
            auto it = m_computed.find(n.inputs[0]);
            if (it != m_computed.end() && m_last_read.at(n.inputs[0]) == i) {
                c.donated = &it->second;
            }
        }
        return c;
    }
    // After node i: its inputs no later node reads dropped, its outputs shown and kept.
    void after(const Node& n, size_t i, Outputs& out, const EvalOptions& opts) {
        for (const std::string& name : n.inputs) {
            auto it = m_last_read.find(name);
            if (it != m_last_read.end() && it->second == i) {
                m_computed.erase(name);
            }
        }
        for (size_t k = 0; k < n.outputs.size() && k < out.size(); ++k) {
            const std::string& name = n.outputs[k];
            if (name.empty()) {
                continue;
            }
            if (opts.on_value) {
                opts.on_value(name, out[k]);
            }
            auto it = m_last_read.find(name);
            if (it != m_last_read.end() && it->second > i) {
                m_computed[name] = std::move(out[k]);
            }
        }
    }

private:
    static constexpr size_t kKeep = static_cast<size_t>(-1);
    const Graph& m_g;
    const std::map<std::string, Value>& m_inputs;
    std::unordered_map<std::string, size_t> m_last_read;
    std::unordered_map<std::string, Value> m_computed;
};

}  // namespace

std::map<std::string, Value> evaluate(const Graph& g, const std::map<std::string, Value>& inputs,
                                      const EvalOptions& opts) {
    keep_freed_memory();
    for (const ValueInfo& in : g.inputs) {
        if (inputs.count(in.name) == 0) {
            throw sim::Error(fmt::format("{}: no value for graph input '{}'", g.name, in.name));
        }
    }
    Values values(g, inputs);
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const Node& n = g.nodes[i];
        const Ctx c = values.context(n, i);
        const Runner run = find_runner(n.op_type);
        if (run == nullptr) {
            fail(n, "op " + n.op_type + " is not supported by the reference evaluator");
        }
        Outputs out = run(c, g.opset);
        values.after(n, i, out, opts);
    }
    std::map<std::string, Value> result;
    for (const ValueInfo& o : g.outputs) {
        const Value* v = values.find(o.name);
        if (v == nullptr) {
            throw sim::Error(
                fmt::format("{}: graph output '{}' was never computed", g.name, o.name));
        }
        result[o.name] = *v;
    }
    return result;
}

namespace {
constexpr uint64_t kDefaultWorkLimit = uint64_t{1} << 36;
thread_local uint64_t t_work_limit = kDefaultWorkLimit;
}  // namespace

uint64_t work_limit() {
    return t_work_limit;
}

ScopedWorkLimit::ScopedWorkLimit(uint64_t limit)
    : m_saved(t_work_limit) {
    t_work_limit = limit;
}

ScopedWorkLimit::~ScopedWorkLimit() {
    t_work_limit = m_saved;
}

}  // namespace npu::onnx
