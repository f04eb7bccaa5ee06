#include "sim/onnx/eval_detail.h"

#include <algorithm>

#include "sim/core/error.h"
#include "sim/onnx/evaluator.h"

namespace npu::onnx::detail {

[[noreturn]] void fail(const Node& n, const std::string& why) {
    throw sim::Error(fmt::format("{}: {}", n.describe(), why));
}

size_t numel(const Shape& s) {
    size_t n = 1;
    for (int64_t d : s) {
        n *= static_cast<size_t>(d);
    }
    return n;
}

Shape strides_of(const Shape& s) {
    Shape st(s.size(), 1);
    for (size_t a = s.size(); a-- > 1;) {
        st[a - 1] = st[a] * s[a];
    }
    return st;
}

int64_t norm_axis(const Node& n, int64_t axis, size_t rank) {
    const auto r = static_cast<int64_t>(rank);
    if (axis < -r || axis >= r) {
        fail(n, fmt::format("axis {} is out of range for rank {}", axis, rank));
    }
    return axis < 0 ? axis + r : axis;
}

std::string shape_str(const Shape& s) {
    return fmt::format("({})", fmt::join(s, ", "));
}

size_t checked_numel(const Node& n, const Shape& s) {
    size_t count = 1;
    for (int64_t d : s) {
        if (d < 0) {
            fail(n, fmt::format("output shape {} has a negative dimension", shape_str(s)));
        }
        if (d != 0 && count > kMaxElements / static_cast<size_t>(d)) {
            fail(n, fmt::format("output shape {} has more than 2^27 elements", shape_str(s)));
        }
        count *= static_cast<size_t>(d);
    }
    check_work(n, count, 1);  // every output element is at least one step
    return count;
}

void check_work(const Node& n, size_t outputs, uint64_t per_output) {
    const uint64_t limit = work_limit();
    if (per_output != 0 && outputs > limit / per_output) {
        fail(n,
             fmt::format("{} outputs of {} multiply-adds each exceed the work limit of {} per node",
                         outputs, per_output, limit));
    }
}

void need_count(const Node& n, const Value& v, size_t count, const std::string& what) {
    if (v.numel() != count) {
        fail(n, fmt::format("{} has {} values, expected {}", what, v.numel(), count));
    }
}

void need_rank(const Node& n, const Value& v, size_t lo, size_t hi, const std::string& what) {
    if (v.shape.size() < lo || v.shape.size() > hi) {
        fail(n, fmt::format("{} is {}: expected rank {}..{}", what, shape_str(v.shape), lo, hi));
    }
}

float first_float(const Node& n, const std::vector<float>& v, const std::string& what) {
    if (v.empty()) {
        fail(n, what + " is empty");
    }
    return v[0];
}

Shape broadcast(const Node& n, const Shape& a, const Shape& b) {
    const size_t r = std::max(a.size(), b.size());
    Shape out(r);
    for (size_t i = 0; i < r; ++i) {
        const int64_t da = i + a.size() >= r ? a[i + a.size() - r] : 1;
        const int64_t db = i + b.size() >= r ? b[i + b.size() - r] : 1;
        if (da != db && da != 1 && db != 1) {
            fail(n, fmt::format("shapes {} and {} do not broadcast", shape_str(a), shape_str(b)));
        }
        out[i] = da == 1 ? db : da;
    }
    checked_numel(n, out);
    return out;
}

std::vector<size_t> broadcast_offsets(const Shape& in, const Shape& out) {
    const size_t r = out.size();
    Shape st(r, 0);
    const Shape ist = strides_of(in);
    for (size_t i = 0; i < in.size(); ++i) {
        const size_t oi = i + r - in.size();
        st[oi] = in[i] == 1 ? 0 : ist[i];
    }
    std::vector<size_t> offs(numel(out));
    Shape idx(r, 0);
    for (size_t k = 0; k < offs.size(); ++k) {
        int64_t o = 0;
        for (size_t a = 0; a < r; ++a) {
            o += idx[a] * st[a];
        }
        offs[k] = static_cast<size_t>(o);
        for (size_t a = r; a-- > 0;) {
            if (++idx[a] < out[a]) {
                break;
            }
            idx[a] = 0;
        }
    }
    return offs;
}

std::vector<float> as_floats(const Value& v) {
    if (!v.is_int()) {
        return v.f;
    }
    return std::vector<float>(v.i.begin(), v.i.end());
}

const std::vector<float>& floats_of(const Value& v, std::vector<float>& scratch) {
    if (!v.is_int()) {
        return v.f;
    }
    scratch.assign(v.i.begin(), v.i.end());
    return scratch;
}

std::vector<int64_t> as_ints(const Value& v) {
    if (v.is_int()) {
        return v.i;
    }
    std::vector<int64_t> r;
    for (float x : v.f) {  // NaN -> 0 and saturation: a float-to-int cast out of range is UB
        r.push_back(std::isnan(x) ? 0 : static_cast<int64_t>(std::clamp(x, -9.2e18f, 9.2e18f)));
    }
    return r;
}

Shape legacy_b_shape(const Ctx& c, int64_t opset, const Shape& a, const Shape& b) {
    if (opset >= 7 || b.empty() || a.size() <= b.size()) {
        return b;
    }
    int64_t axis = -1;
    if (c.n.op_type == "PRelu" && b.size() == 1 && a.size() >= 2 && b[0] == a[1] && b[0] != 1) {
        axis = 1;
    } else if (c.n.get_int("broadcast", 0) == 1 && c.n.attributes.count("axis") != 0) {
        axis = c.n.get_int("axis", 0);
        axis += axis < 0 ? static_cast<int64_t>(a.size()) : 0;
    }
    if (axis < 0) {
        return b;
    }
    if (static_cast<size_t>(axis) + b.size() > a.size()) {
        fail(c.n, fmt::format("legacy broadcast of {} at axis {} into {}", shape_str(b), axis,
                              shape_str(a)));
    }
    Shape s(static_cast<size_t>(axis), 1);
    s.insert(s.end(), b.begin(), b.end());
    s.resize(a.size(), 1);
    return s;
}

Outputs binary(const Ctx& c, int64_t opset, const std::function<float(float, float)>& f,
               const std::function<int64_t(int64_t, int64_t)>& fi) {
    const Value &a = c.x(0), &b = c.x(1);
    const Shape b_shape = legacy_b_shape(c, opset, a.shape, b.shape);
    const Shape out = broadcast(c.n, a.shape, b_shape);
    const std::vector<size_t> oa = broadcast_offsets(a.shape, out),
                              ob = broadcast_offsets(b_shape, out);
    if (a.is_int() && b.is_int() && fi) {
        std::vector<int64_t> r(oa.size());
        for (size_t k = 0; k < r.size(); ++k) {
            r[k] = fi(a.i[oa[k]], b.i[ob[k]]);
        }
        Value v = Value::ints(out, r);
        v.onnx_type = a.onnx_type;
        return one(std::move(v));
    }
    const std::vector<float> fa = as_floats(a), fb = as_floats(b);
    std::vector<float> r(oa.size());
    for (size_t k = 0; k < r.size(); ++k) {
        r[k] = f(fa[oa[k]], fb[ob[k]]);
    }
    return one(Value::floats(out, std::move(r)));
}

Value reshaped(const Value& x, Shape s) {
    Value v = x;
    v.shape = std::move(s);
    return v;
}

}  // namespace npu::onnx::detail
