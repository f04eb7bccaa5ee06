// The ONNX reference evaluator's tensor ops: Concat, Reshape, Transpose, Squeeze, Unsqueeze,
// Slice, Pad, Gather, Constant, Shape (the ONNX operator specification). Pure C++.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "sim/onnx/conv_kernel.h"
#include "sim/onnx/eval_detail.h"

namespace npu::onnx::detail {

namespace {

Shape axes_of(const Ctx& c, int64_t opset, int64_t since, size_t input) {
    if (opset >= since) {
        return c.has(input) ? as_ints(c.x(input)) : Shape{};
    }
    return c.n.get_ints("axes", {});
}

}  // namespace

Outputs concat(const Ctx& c) {
    const Value& first = c.x(0);
    const auto axis =
        static_cast<size_t>(norm_axis(c.n, c.n.get_int("axis", 0), first.shape.size()));
    Shape out = first.shape;
    out[axis] = 0;
    for (size_t i = 0; i < c.in.size(); ++i) {
        const Value& x = c.x(i);
        for (size_t a = 0; a < out.size(); ++a) {
            if (x.shape.size() != out.size() || x.is_int() != first.is_int() ||
                (a != axis && x.shape[a] != first.shape[a])) {
                fail(c.n, fmt::format("input {} is {} but input 0 is {}", i, shape_str(x.shape),
                                      shape_str(first.shape)));
            }
        }
        out[axis] += x.shape[axis];
    }
    checked_numel(c.n, out);
    size_t outer = 1;
    for (size_t a = 0; a < axis; ++a) {
        outer *= static_cast<size_t>(out[a]);
    }
    Value y;
    y.kind = first.kind, y.onnx_type = first.onnx_type, y.shape = out;
    // Each input's values once (not per block): a concatenation along the last axis of an
    // (1, N, k) table has N blocks.
    std::vector<std::vector<int64_t>> ints(y.is_int() ? c.in.size() : 0);
    std::vector<std::vector<float>> floats(y.is_int() ? 0 : c.in.size());
    for (size_t i = 0; i < c.in.size(); ++i) {
        y.is_int() ? void(ints[i] = as_ints(c.x(i))) : void(floats[i] = as_floats(c.x(i)));
    }
    y.is_int() ? y.i.reserve(numel(out)) : y.f.reserve(numel(out));
    for (size_t o = 0; o < outer; ++o) {
        for (size_t i = 0; i < c.in.size(); ++i) {
            const auto block = static_cast<std::ptrdiff_t>(numel(c.x(i).shape) / outer);
            const auto at = static_cast<std::ptrdiff_t>(o) * block;
            if (y.is_int()) {
                y.i.insert(y.i.end(), ints[i].begin() + at, ints[i].begin() + at + block);
            } else {
                y.f.insert(y.f.end(), floats[i].begin() + at, floats[i].begin() + at + block);
            }
        }
    }
    return one(std::move(y));
}

Outputs reshape(const Ctx& c, const Shape& req, bool allowzero) {
    const Value& x = c.x(0);
    Shape out = req;
    int64_t infer = -1;
    size_t known = 1;
    for (size_t a = 0; a < out.size(); ++a) {
        if (out[a] == 0 && !allowzero) {
            if (a >= x.shape.size()) {
                fail(c.n, fmt::format("shape {} copies dimension {} of an input {}", shape_str(req),
                                      a, shape_str(x.shape)));
            }
            out[a] = x.shape[a];
        }
        if (out[a] < -1 || (out[a] == -1 && infer >= 0)) {
            fail(c.n, fmt::format("shape {}: at most one -1 and no other negative size",
                                  shape_str(req)));
        }
        if (out[a] == -1) {
            infer = static_cast<int64_t>(a);
        } else if (out[a] != 0 && known > (size_t{1} << 40) / static_cast<size_t>(out[a])) {
            fail(c.n, fmt::format("cannot reshape {} into {}", shape_str(x.shape), shape_str(req)));
        } else {
            known *= static_cast<size_t>(out[a]);
        }
    }
    if (infer >= 0) {
        out[static_cast<size_t>(infer)] = known == 0 ? 0 : static_cast<int64_t>(x.numel() / known);
    }
    if (numel(out) != x.numel()) {
        fail(c.n, fmt::format("cannot reshape {} into {}", shape_str(x.shape), shape_str(req)));
    }
    return one(reshaped(x, out));
}

Outputs transpose(const Ctx& c) {
    const Value& x = c.x(0);
    const size_t r = x.shape.size();
    Shape perm = c.n.get_ints("perm", {});
    if (perm.empty()) {
        for (size_t a = r; a-- > 0;) {
            perm.push_back(static_cast<int64_t>(a));
        }
    }
    Shape sorted_perm = perm;
    std::sort(sorted_perm.begin(), sorted_perm.end());
    for (size_t a = 0; a < sorted_perm.size(); ++a) {
        if (sorted_perm.size() != r || sorted_perm[a] != static_cast<int64_t>(a)) {
            fail(c.n, fmt::format("perm ({}) is not a permutation of the {} axes",
                                  fmt::join(perm, ", "), r));
        }
    }
    Shape out(r);
    for (size_t a = 0; a < r; ++a) {
        out[a] = x.shape[static_cast<size_t>(perm[a])];
    }
    const Shape ist = strides_of(x.shape);
    Value y;
    y.kind = x.kind, y.onnx_type = x.onnx_type, y.shape = out;
    Shape idx(r, 0);
    for (size_t k = 0; k < x.numel(); ++k) {
        int64_t off = 0;
        for (size_t a = 0; a < r; ++a) {
            off += idx[a] * ist[static_cast<size_t>(perm[a])];
        }
        if (x.is_int()) {
            y.i.push_back(x.i[static_cast<size_t>(off)]);
        } else {
            y.f.push_back(x.f[static_cast<size_t>(off)]);
        }
        for (size_t a = r; a-- > 0;) {
            if (++idx[a] < out[a]) {
                break;
            }
            idx[a] = 0;
        }
    }
    return one(std::move(y));
}

Outputs squeeze(const Ctx& c, int64_t opset) {
    const Value& x = c.x(0);
    Shape axes = axes_of(c, opset, 13, 1);
    Shape out;
    for (size_t a = 0; a < x.shape.size(); ++a) {
        bool drop = false;
        for (int64_t ax : axes) {
            drop = drop || static_cast<size_t>(norm_axis(c.n, ax, x.shape.size())) == a;
        }
        if (axes.empty()) {
            drop = x.shape[a] == 1;
        }
        if (!drop) {
            out.push_back(x.shape[a]);
        }
    }
    return one(reshaped(x, out));
}

Outputs unsqueeze(const Ctx& c, int64_t opset) {
    const Value& x = c.x(0);
    const Shape axes = axes_of(c, opset, 13, 1);
    const size_t r = x.shape.size() + axes.size();
    std::vector<bool> inserted(r, false);
    for (int64_t ax : axes) {
        const auto a = static_cast<size_t>(norm_axis(c.n, ax, r));
        if (inserted[a]) {
            fail(c.n, fmt::format("axis {} is listed twice", ax));
        }
        inserted[a] = true;
    }
    Shape out;
    size_t k = 0;
    for (size_t a = 0; a < r; ++a) {
        out.push_back(inserted[a] ? 1 : x.shape.at(k++));
    }
    return one(reshaped(x, out));
}

namespace {

// The next multi-index of `shape` in row-major order.
void advance(Shape& idx, const Shape& shape) {
    for (size_t a = idx.size(); a-- > 0;) {
        if (++idx[a] < shape[a]) {
            return;
        }
        idx[a] = 0;
    }
}

// Slice's starts, ends, axes and steps (attributes before opset 10, inputs after).
void slice_args(const Ctx& c, int64_t opset, Shape& starts, Shape& ends, Shape& axes,
                Shape& steps) {
    if (opset < 10) {
        starts = c.n.get_ints("starts"), ends = c.n.get_ints("ends"), axes = c.n.get_ints("axes");
    } else {
        starts = as_ints(c.x(1)), ends = as_ints(c.x(2));
        if (c.has(3)) {
            axes = as_ints(c.x(3));
        }
        if (c.has(4)) {
            steps = as_ints(c.x(4));
        }
    }
    if (axes.empty()) {
        for (size_t a = 0; a < starts.size(); ++a) {
            axes.push_back(static_cast<int64_t>(a));
        }
    }
    if (starts.size() != axes.size() || ends.size() != axes.size() ||
        (!steps.empty() && steps.size() != axes.size())) {
        fail(c.n, "starts, ends, axes and steps have different lengths");
    }
}

// One sliced axis of length d: its first index `b`, its step `s` and its output length.
int64_t slice_axis(const Node& n, int64_t d, int64_t start, int64_t end, int64_t& b, int64_t& s) {
    if (s == 0) {
        fail(n, "a step of 0");
    }
    // A step longer than the axis takes at most one element: clamp it so that the arithmetic
    // below cannot overflow (steps of INT64_MAX are common in exported models).
    s = std::clamp<int64_t>(s, -std::max<int64_t>(d, 1), std::max<int64_t>(d, 1));
    b = start < 0 ? start + d : start;
    int64_t e = end < 0 ? end + d : end;
    if (d == 0) {
        b = 0;
        return 0;
    }
    if (s > 0) {
        b = std::clamp<int64_t>(b, 0, d), e = std::clamp<int64_t>(e, 0, d);
        return e > b ? (e - b + s - 1) / s : 0;
    }
    b = std::clamp<int64_t>(b, 0, d - 1), e = std::clamp<int64_t>(e, -1, d - 1);
    return b > e ? (b - e - s - 1) / (-s) : 0;
}

// The source index along an axis of length d for padded index i (-1: the constant value).
int64_t pad_source(const Node& n, const std::string& mode, int64_t i, int64_t d, size_t axis) {
    if (i >= 0 && i < d) {
        return i;
    }
    if (mode == "constant") {
        return -1;
    }
    if (d == 0 && (mode == "edge" || mode == "reflect")) {
        fail(n, fmt::format("{} padding of an empty axis {}", mode, axis));
    }
    if (mode == "edge") {
        return std::clamp<int64_t>(i, 0, d - 1);
    }
    if (mode == "reflect") {
        // Reflection repeats with period 2(d - 1) (numpy's "reflect").
        const int64_t period = 2 * (d - 1);
        i = period == 0 ? 0 : ((i % period) + period) % period;
        return i >= d ? period - i : i;
    }
    fail(n, "mode " + mode + " is not constant, reflect or edge");
}

}  // namespace

Outputs slice(const Ctx& c, int64_t opset) {
    const Value& x = c.x(0);
    const size_t r = x.shape.size();
    Shape starts, ends, axes, steps;
    slice_args(c, opset, starts, ends, axes, steps);
    Shape beg(r, 0), step(r, 1), out = x.shape;
    for (size_t k = 0; k < axes.size(); ++k) {
        const auto a = static_cast<size_t>(norm_axis(c.n, axes[k], r));
        int64_t b = 0, s = steps.empty() ? 1 : steps[k];
        out[a] = slice_axis(c.n, x.shape[a], starts[k], ends[k], b, s);
        beg[a] = b, step[a] = s;
    }
    const Shape ist = strides_of(x.shape);
    Value y;
    y.kind = x.kind, y.onnx_type = x.onnx_type, y.shape = out;
    Shape idx(r, 0);
    for (size_t k = 0; k < numel(out); ++k) {
        int64_t off = 0;
        for (size_t a = 0; a < r; ++a) {
            off += (beg[a] + idx[a] * step[a]) * ist[a];
        }
        if (x.is_int()) {
            y.i.push_back(x.i[static_cast<size_t>(off)]);
        } else {
            y.f.push_back(x.f[static_cast<size_t>(off)]);
        }
        advance(idx, out);
    }
    return one(std::move(y));
}

Outputs pad(const Ctx& c, int64_t opset) {
    const Value& x = c.x(0);
    const size_t r = x.shape.size();
    const std::string mode = c.n.get_string("mode", "constant");
    Shape pads;
    float value = 0;
    if (opset < 11) {
        pads = c.n.get_ints("pads");
        value = c.n.get_float("value", 0.0f);
    } else {
        pads = as_ints(c.x(1));
        if (c.has(2)) {
            const std::vector<float> v = as_floats(c.x(2));
            value = v.empty() ? 0.0f : v[0];
        }
    }
    if (pads.size() != 2 * r) {
        fail(c.n, "pads do not match the rank");
    }
    Shape out(r);
    for (size_t a = 0; a < r; ++a) {
        if (std::abs(pads[a]) > (int64_t{1} << 32) || std::abs(pads[a + r]) > (int64_t{1} << 32)) {
            fail(c.n, fmt::format("pads of {} and {} on axis {}", pads[a], pads[a + r], a));
        }
        out[a] = x.shape[a] + pads[a] + pads[a + r];
    }
    checked_numel(c.n, out);
    const Shape ist = strides_of(x.shape);
    const std::vector<float> xf = as_floats(x);
    std::vector<float> y;
    Shape idx(r, 0);
    for (size_t k = 0; k < numel(out); ++k) {
        int64_t off = 0;
        bool inside = true;
        for (size_t a = 0; a < r; ++a) {
            const int64_t i = pad_source(c.n, mode, idx[a] - pads[a], x.shape[a], a);
            inside = inside && i >= 0;
            off += std::max<int64_t>(i, 0) * ist[a];
        }
        y.push_back(inside ? xf[static_cast<size_t>(off)] : value);
        advance(idx, out);
    }
    return one(Value::floats(out, std::move(y)));
}

Outputs gather(const Ctx& c) {
    const Value &x = c.x(0), &ind = c.x(1);
    const size_t r = x.shape.size();
    const auto axis = static_cast<size_t>(norm_axis(c.n, c.n.get_int("axis", 0), r));
    Shape out(x.shape.begin(), x.shape.begin() + static_cast<std::ptrdiff_t>(axis));
    out.insert(out.end(), ind.shape.begin(), ind.shape.end());
    out.insert(out.end(), x.shape.begin() + static_cast<std::ptrdiff_t>(axis) + 1, x.shape.end());
    checked_numel(c.n, out);
    size_t outer = 1, inner = 1;
    for (size_t a = 0; a < axis; ++a) {
        outer *= static_cast<size_t>(x.shape[a]);
    }
    for (size_t a = axis + 1; a < r; ++a) {
        inner *= static_cast<size_t>(x.shape[a]);
    }
    const int64_t d = x.shape[axis];
    const std::vector<int64_t> ii = as_ints(ind);
    Value y;
    y.kind = x.kind, y.onnx_type = x.onnx_type, y.shape = out;
    for (size_t o = 0; o < outer; ++o) {
        for (int64_t q : ii) {
            const int64_t qq = q < 0 ? q + d : q;
            if (qq < 0 || qq >= d) {
                fail(c.n, fmt::format("index {} is out of range for a dimension of {}", q, d));
            }
            const size_t base = (o * static_cast<size_t>(d) + static_cast<size_t>(qq)) * inner;
            for (size_t i = 0; i < inner; ++i) {
                if (x.is_int()) {
                    y.i.push_back(x.i[base + i]);
                } else {
                    y.f.push_back(x.f[base + i]);
                }
            }
        }
    }
    return one(std::move(y));
}

Outputs constant(const Ctx& c) {
    const Node& n = c.n;
    if (n.has("value")) {
        return one(n.attributes.at("value").t);
    }
    if (n.has("value_float")) {
        return one(Value::floats({}, {n.get_float("value_float", 0)}));
    }
    if (n.has("value_floats")) {
        const auto& fs = n.attributes.at("value_floats").fs;
        return one(Value::floats({static_cast<int64_t>(fs.size())}, fs));
    }
    if (n.has("value_int")) {
        return one(Value::ints({}, {n.get_int("value_int", 0)}));
    }
    if (n.has("value_ints")) {
        const auto& is = n.attributes.at("value_ints").is;
        return one(Value::ints({static_cast<int64_t>(is.size())}, is));
    }
    fail(n, "no value attribute this evaluator reads (value, value_float(s), value_int(s))");
}

Outputs shape_op(const Ctx& c) {
    const Shape& s = c.x(0).shape;
    const auto r = static_cast<int64_t>(s.size());
    int64_t b = c.n.get_int("start", 0), e = c.n.get_int("end", r);
    b = std::clamp<int64_t>(b < 0 ? b + r : b, 0, r);
    e = std::clamp<int64_t>(e < 0 ? e + r : e, 0, r);
    Shape v(s.begin() + b, s.begin() + std::max(b, e));
    return one(Value::ints({static_cast<int64_t>(v.size())}, v));
}

}  // namespace npu::onnx::detail
