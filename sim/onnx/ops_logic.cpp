// Comparisons, logic, selection and the broadcasting tensor ops of the ONNX reference evaluator:
// Equal, Greater, Less, GreaterOrEqual, LessOrEqual, Not, And, Or, Xor (booleans as int64 0/1,
// ONNX type 9), Where, Expand, Tile, Split, the variadic Max, Min, Sum, Mean, and Pow.
#include <cmath>

#include "sim/onnx/eval_detail.h"

namespace npu::onnx::detail {

namespace {

constexpr int32_t kBool = 9;  // TensorProto.DataType BOOL

Value booleans(const Shape& s, std::vector<int64_t> v) {
    Value r = Value::ints(s, std::move(v));
    r.onnx_type = kBool;
    return r;
}

// Two inputs broadcast together: the output shape and each input's offsets for every output
// element (its size checked before they are made).
struct Pair {
    Shape out;
    std::vector<size_t> oa, ob;
};
Pair pair_of(const Ctx& c) {
    Pair p;
    p.out = broadcast(c.n, c.x(0).shape, c.x(1).shape);
    checked_numel(c.n, p.out);
    p.oa = broadcast_offsets(c.x(0).shape, p.out);
    p.ob = broadcast_offsets(c.x(1).shape, p.out);
    return p;
}

// Element k of `v` as a double (exact for int64 up to 2^53).
double at(const Value& v, size_t k) {
    return v.is_int() ? static_cast<double>(v.i[k]) : static_cast<double>(v.f[k]);
}

// Both inputs as doubles at the broadcast shape's offsets (exact for int64 up to 2^53).
template <typename F>
Outputs compare_with(const Ctx& c, F pred) {
    const Value &a = c.x(0), &b = c.x(1);
    const Pair p = pair_of(c);
    const Shape& out = p.out;
    const std::vector<size_t>&oa = p.oa, &ob = p.ob;
    std::vector<int64_t> r(oa.size());
    for (size_t k = 0; k < r.size(); ++k) {
        r[k] = pred(at(a, oa[k]), at(b, ob[k])) ? 1 : 0;
    }
    return one(booleans(out, std::move(r)));
}

}  // namespace

Outputs compare(const Ctx& c) {
    const std::string& op = c.n.op_type;
    if (op == "Equal")
        return compare_with(c, [](double a, double b) { return a == b; });
    if (op == "Greater")
        return compare_with(c, [](double a, double b) { return a > b; });
    if (op == "Less")
        return compare_with(c, [](double a, double b) { return a < b; });
    if (op == "GreaterOrEqual")
        return compare_with(c, [](double a, double b) { return a >= b; });
    if (op == "LessOrEqual")
        return compare_with(c, [](double a, double b) { return a <= b; });
    if (op == "And")
        return compare_with(c, [](double a, double b) { return a != 0 && b != 0; });
    if (op == "Or")
        return compare_with(c, [](double a, double b) { return a != 0 || b != 0; });
    if (op == "Xor")
        return compare_with(c, [](double a, double b) { return (a != 0) != (b != 0); });
    fail(c.n, "is not a comparison");
}

Outputs logical_not(const Ctx& c) {
    const Value& x = c.x(0);
    std::vector<int64_t> r(numel(x.shape));
    for (size_t k = 0; k < r.size(); ++k) {
        r[k] = (x.is_int() ? x.i[k] != 0 : x.f[k] != 0) ? 0 : 1;
    }
    return one(booleans(x.shape, std::move(r)));
}

Outputs where(const Ctx& c) {
    const Value &cond = c.x(0), &a = c.x(1), &b = c.x(2);
    const Shape out = broadcast(c.n, broadcast(c.n, cond.shape, a.shape), b.shape);
    const size_t n = checked_numel(c.n, out);
    const std::vector<size_t> oc = broadcast_offsets(cond.shape, out),
                              oa = broadcast_offsets(a.shape, out),
                              ob = broadcast_offsets(b.shape, out);
    auto chosen = [&](size_t k) {
        return cond.is_int() ? cond.i[oc[k]] != 0 : cond.f[oc[k]] != 0;
    };
    if (a.is_int() && b.is_int()) {
        std::vector<int64_t> r(n);
        for (size_t k = 0; k < n; ++k) {
            r[k] = chosen(k) ? a.i[oa[k]] : b.i[ob[k]];
        }
        Value v = Value::ints(out, std::move(r));
        v.onnx_type = a.onnx_type;
        return one(std::move(v));
    }
    const std::vector<float> fa = as_floats(a), fb = as_floats(b);
    std::vector<float> r(n);
    for (size_t k = 0; k < n; ++k) {
        r[k] = chosen(k) ? fa[oa[k]] : fb[ob[k]];
    }
    return one(Value::floats(out, std::move(r)));
}

// x's elements at `offsets` (one per output element), in x's kind.
Value gathered(const Value& x, const Shape& out, const std::vector<size_t>& offsets) {
    if (x.is_int()) {
        std::vector<int64_t> r(offsets.size());
        for (size_t k = 0; k < r.size(); ++k) {
            r[k] = x.i[offsets[k]];
        }
        Value v = Value::ints(out, std::move(r));
        v.onnx_type = x.onnx_type;
        return v;
    }
    std::vector<float> r(offsets.size());
    for (size_t k = 0; k < r.size(); ++k) {
        r[k] = x.f[offsets[k]];
    }
    return Value::floats(out, std::move(r));
}

Outputs expand(const Ctx& c) {
    const Value& x = c.x(0);
    const Shape out = broadcast(c.n, x.shape, as_ints(c.x(1)));
    checked_numel(c.n, out);
    return one(gathered(x, out, broadcast_offsets(x.shape, out)));
}

Outputs tile(const Ctx& c) {
    const Value& x = c.x(0);
    const Shape reps = as_ints(c.x(1));
    need_count(c.n, c.x(1), x.shape.size(), "repeats (one per axis)");
    Shape out(x.shape.size());
    for (size_t i = 0; i < out.size(); ++i) {
        if (reps[i] < 0) {
            fail(c.n, fmt::format("repeat {} of axis {} is negative", reps[i], i));
        }
        out[i] = x.shape[i] * reps[i];
    }
    const size_t n = checked_numel(c.n, out);
    const Shape xs = strides_of(x.shape), os = strides_of(out);
    std::vector<size_t> offsets(n);
    for (size_t k = 0; k < n; ++k) {
        size_t off = 0, rest = k;
        for (size_t i = 0; i < out.size(); ++i) {
            const auto pos = static_cast<int64_t>(rest / static_cast<size_t>(os[i]));
            rest %= static_cast<size_t>(os[i]);
            off += static_cast<size_t>((pos % x.shape[i]) * xs[i]);
        }
        offsets[k] = off;
    }
    return one(gathered(x, out, offsets));
}

Outputs split(const Ctx& c, int64_t opset) {
    const Value& x = c.x(0);
    const auto axis = static_cast<size_t>(norm_axis(c.n, c.n.get_int("axis", 0), x.shape.size()));
    Shape parts = opset >= 13 ? (c.has(1) ? as_ints(c.x(1)) : Shape{}) : c.n.get_ints("split", {});
    const size_t n_out = c.n.outputs.size();
    if (parts.empty()) {
        if (n_out == 0 || x.shape[axis] % static_cast<int64_t>(n_out) != 0) {
            fail(c.n, fmt::format("axis {} of {} does not split into {} equal parts", axis,
                                  x.shape[axis], n_out));
        }
        parts.assign(n_out, x.shape[axis] / static_cast<int64_t>(n_out));
    }
    int64_t total = 0;
    for (int64_t p : parts) {
        total += p < 0 ? x.shape[axis] + 1 : p;
    }
    if (parts.size() != n_out || total != x.shape[axis]) {
        fail(c.n, fmt::format("split {} does not cut axis {} ({}) into {} outputs",
                              shape_str(parts), axis, x.shape[axis], n_out));
    }
    const Shape xs = strides_of(x.shape);
    Outputs r;
    int64_t start = 0;
    for (int64_t p : parts) {
        Shape out = x.shape;
        out[axis] = p;
        const Shape os = strides_of(out);
        std::vector<size_t> offsets(numel(out));
        for (size_t k = 0; k < offsets.size(); ++k) {
            size_t off = 0, rest = k;
            for (size_t i = 0; i < out.size(); ++i) {
                const auto pos = static_cast<int64_t>(rest / static_cast<size_t>(os[i]));
                rest %= static_cast<size_t>(os[i]);
                off += static_cast<size_t>((pos + (i == axis ? start : 0)) * xs[i]);
            }
            offsets[k] = off;
        }
        r.push_back(gathered(x, out, offsets));
        start += p;
    }
    return r;
}

// Max, Min, Sum, Mean of any number of inputs, broadcast together.
Outputs variadic(const Ctx& c) {
    const std::string& op = c.n.op_type;
    Value acc = c.x(0);
    for (size_t i = 1; i < c.in.size(); ++i) {
        Ctx pair{c.n, {&acc, &c.x(i)}};
        acc = std::move(binary(
            pair, 13,
            [&op](float a, float b) {
                return op == "Max" ? std::max(a, b) : op == "Min" ? std::min(a, b) : a + b;
            },
            [&op](int64_t a, int64_t b) {
                return op == "Max" ? std::max(a, b) : op == "Min" ? std::min(a, b) : a + b;
            })[0]);
    }
    if (op == "Mean") {
        for (float& v : acc.f) {
            v /= static_cast<float>(c.in.size());
        }
    }
    return one(std::move(acc));
}

// Pow: the result has the base's type (int64 bases stay integers, as numpy's int power).
Outputs pow_op(const Ctx& c) {
    const Value &a = c.x(0), &b = c.x(1);
    const Pair p = pair_of(c);
    const Shape& out = p.out;
    const std::vector<size_t>&oa = p.oa, &ob = p.ob;
    if (a.is_int()) {
        std::vector<int64_t> r(oa.size());
        for (size_t k = 0; k < r.size(); ++k) {
            r[k] = static_cast<int64_t>(std::pow(at(a, oa[k]), at(b, ob[k])));
        }
        Value v = Value::ints(out, std::move(r));
        v.onnx_type = a.onnx_type;
        return one(std::move(v));
    }
    std::vector<float> r(oa.size());
    for (size_t k = 0; k < r.size(); ++k) {
        r[k] = static_cast<float>(std::pow(at(a, oa[k]), at(b, ob[k])));
    }
    return one(Value::floats(out, std::move(r)));
}

}  // namespace npu::onnx::detail
