// The reference evaluator's type and creation ops: Cast, CastLike, ConstantOfShape, Range; and
// the layout ops DepthToSpace, SpaceToDepth, GatherElements (eval_detail.h).
#include <cmath>
#include <cstring>

#include "sim/onnx/eval_detail.h"

namespace npu::onnx::detail {

namespace {

bool is_float_type(int64_t t) {
    return t == 1 || t == 10 || t == 11 || t == 16;  // float, float16, double, bfloat16
}

// x rounded to the nearest float16 (ties to even), as a float: what a float16 tensor holds.
float to_half(float x) {
    if (!std::isfinite(x)) {
        return x;
    }
    const float a = std::fabs(x);
    if (a >= 65520.0f) {  // rounds past the largest half (65504)
        return std::copysign(INFINITY, x);
    }
    // The spacing of halves at a's binade (subnormals below 2^-14 share 2^-24).
    const int e = a < 6.103515625e-05f ? -14 : std::ilogb(a);
    const float ulp = std::ldexp(1.0f, e - 10);
    return std::copysign(std::nearbyint(a / ulp) * ulp, x);  // exact scaling; nearbyint: even
}

// x rounded to the nearest bfloat16 (ties to even): the top 16 bits of its float.
float to_bfloat16(float x) {
    if (std::isnan(x)) {
        return x;
    }
    uint32_t b = 0;
    std::memcpy(&b, &x, 4);
    b += 0x7fff + ((b >> 16) & 1);
    b &= 0xffff0000u;
    float r = 0;
    std::memcpy(&r, &b, 4);
    return r;
}

// An integer of ONNX type t from v, wrapped to its width as a two's-complement machine does.
int64_t to_int_type(int64_t v, int64_t t) {
    switch (t) {
    case 2: return static_cast<uint8_t>(v);
    case 3: return static_cast<int8_t>(v);
    case 4: return static_cast<uint16_t>(v);
    case 5: return static_cast<int16_t>(v);
    case 6: return static_cast<int32_t>(v);
    case 12: return static_cast<uint32_t>(v);
    case 9: return v != 0 ? 1 : 0;
    default: return v;  // int64; uint64 held in int64
    }
}

// A float to an integer type: toward zero (NaN: 0), then wrapped; bool: nonzero.
int64_t float_to_int_type(double f, int64_t t) {
    if (t == 9) {
        return f != 0 ? 1 : 0;
    }
    if (std::isnan(f)) {
        return 0;
    }
    const double z = std::trunc(f);
    const double lim = 9.2233720368547758e18;
    return to_int_type(z >= lim ? INT64_MAX : z <= -lim ? INT64_MIN : static_cast<int64_t>(z), t);
}

Value cast_to(const Node& n, const Value& x, int64_t to) {
    if (to == 8 || to == 0) {
        fail(n, "casts to strings (or an undefined type) are not supported");
    }
    Value y;
    y.shape = x.shape;
    y.onnx_type = static_cast<int32_t>(to);
    if (is_float_type(to)) {
        y.kind = Value::Kind::f32;
        y.f = as_floats(x);
        for (float& v : y.f) {
            v = to == 10 ? to_half(v) : to == 16 ? to_bfloat16(v) : v;
        }
        return y;
    }
    y.kind = Value::Kind::i64;
    y.i.resize(x.numel());
    for (size_t k = 0; k < y.i.size(); ++k) {
        y.i[k] = x.is_int() ? to_int_type(x.i[k], to)
                            : float_to_int_type(static_cast<double>(x.f[k]), to);
    }
    return y;
}

}  // namespace

Outputs cast(const Ctx& c) {
    if (!c.n.has("to")) {
        fail(c.n, "has no 'to' attribute");
    }
    return one(cast_to(c.n, c.x(0), c.n.get_int("to", 1)));
}

Outputs cast_like(const Ctx& c) {
    return one(cast_to(c.n, c.x(0), c.x(1).onnx_type));
}

Outputs constant_of_shape(const Ctx& c) {
    const std::vector<int64_t> dims = as_ints(c.x(0));
    for (int64_t d : dims) {
        if (d < 0) {
            fail(c.n, fmt::format("a negative dimension {} in its shape", d));
        }
    }
    const size_t count = checked_numel(c.n, dims);
    Value fill = c.n.has("value") ? c.n.attributes.at("value").t : Value::floats({1}, {0.0f});
    if (fill.numel() != 1) {
        fail(c.n, "its value attribute holds more than one element");
    }
    Value y;
    y.kind = fill.kind, y.onnx_type = fill.onnx_type, y.shape = dims;
    if (fill.is_int()) {
        y.i.assign(count, fill.i[0]);
    } else {
        y.f.assign(count, fill.f[0]);
    }
    return one(std::move(y));
}

// start, start + delta, ... while before limit: max(ceil((limit - start) / delta), 0) elements.
Outputs range(const Ctx& c) {
    const Value &s = c.x(0), &l = c.x(1), &d = c.x(2);
    for (const Value* v : {&s, &l, &d}) {
        need_count(c.n, *v, 1, "a scalar input");
    }
    if (s.is_int()) {
        const int64_t start = s.i[0], limit = as_ints(l)[0], delta = as_ints(d)[0];
        if (delta == 0) {
            fail(c.n, "its delta is 0");
        }
        const double n = std::ceil(static_cast<double>(limit - start) / static_cast<double>(delta));
        const Shape out{static_cast<int64_t>(std::max(n, 0.0))};
        Value y = Value::ints(out, std::vector<int64_t>(checked_numel(c.n, out)));
        for (size_t k = 0; k < y.i.size(); ++k) {
            y.i[k] = start + static_cast<int64_t>(k) * delta;
        }
        y.onnx_type = s.onnx_type;
        return one(std::move(y));
    }
    const float start = s.f[0], limit = as_floats(l)[0], delta = as_floats(d)[0];
    if (delta == 0 || !std::isfinite(start) || !std::isfinite(limit) || !std::isfinite(delta)) {
        fail(c.n, "its start, limit and delta must be finite, the delta not 0");
    }
    const double n = std::ceil((static_cast<double>(limit) - static_cast<double>(start)) /
                               static_cast<double>(delta));
    const Shape out{static_cast<int64_t>(std::max(n, 0.0))};
    Value y = Value::floats(out, std::vector<float>(checked_numel(c.n, out)));
    for (size_t k = 0; k < y.f.size(); ++k) {  // accumulated as the reference's loop does
        y.f[k] = k == 0 ? start : y.f[k - 1] + delta;
    }
    y.onnx_type = s.onnx_type;
    return one(std::move(y));
}

// DepthToSpace (DCR or CRD) and SpaceToDepth on N x C x H x W by `blocksize`.
Outputs depth_space(const Ctx& c, bool to_space) {
    const Value& x = c.x(0);
    need_rank(c.n, x, 4, 4, "the input");
    const int64_t b = c.n.get_int("blocksize", 0);
    const int64_t n = x.shape[0], ch = x.shape[1], h = x.shape[2], w = x.shape[3];
    if (b <= 0 || (to_space ? ch % (b * b) != 0 : h % b != 0 || w % b != 0)) {
        fail(c.n, fmt::format("blocksize {} does not divide {}", b,
                              to_space ? "the channels by its square" : "the height and width"));
    }
    const bool crd = c.n.get_string("mode", "DCR") == "CRD";
    const Shape out =
        to_space ? Shape{n, ch / (b * b), h * b, w * b} : Shape{n, ch * b * b, h / b, w / b};
    Value y;
    y.kind = x.kind, y.onnx_type = x.onnx_type, y.shape = out;
    const size_t count = checked_numel(c.n, out);
    if (x.is_int()) {
        y.i.resize(count);
    } else {
        y.f.resize(count);
    }
    const int64_t oc = out[1], oh = out[2], ow = out[3];
    size_t k = 0;
    for (int64_t in = 0; in < n; ++in) {
        for (int64_t c2 = 0; c2 < oc; ++c2) {
            for (int64_t y2 = 0; y2 < oh; ++y2) {
                for (int64_t x2 = 0; x2 < ow; ++x2, ++k) {
                    int64_t sc = 0, sy = 0, sx = 0;  // the source element
                    if (to_space) {
                        const int64_t by = y2 % b, bx = x2 % b;
                        sc = crd ? c2 * b * b + by * b + bx : (by * b + bx) * oc + c2;
                        sy = y2 / b, sx = x2 / b;
                    } else {  // SpaceToDepth: DCR order
                        const int64_t blk = c2 / ch, cc = c2 % ch;
                        sc = cc, sy = y2 * b + blk / b, sx = x2 * b + blk % b;
                    }
                    const auto at = static_cast<size_t>(((in * ch + sc) * h + sy) * w + sx);
                    if (x.is_int()) {
                        y.i[k] = x.i[at];
                    } else {
                        y.f[k] = x.f[at];
                    }
                }
            }
        }
    }
    return one(std::move(y));
}

// y[..., i, ...] = x[..., index[..., i, ...], ...] along `axis`; indices may be negative.
Outputs gather_elements(const Ctx& c) {
    const Value &x = c.x(0), &ind = c.x(1);
    const size_t r = x.shape.size();
    if (ind.shape.size() != r || r == 0) {
        fail(c.n, "its indices must have the data's rank (at least 1)");
    }
    const auto axis = static_cast<size_t>(norm_axis(c.n, c.n.get_int("axis", 0), r));
    const std::vector<int64_t> ii = as_ints(ind);
    const Shape xs = strides_of(x.shape), is = strides_of(ind.shape);
    Value y;
    y.kind = x.kind, y.onnx_type = x.onnx_type, y.shape = ind.shape;
    for (size_t k = 0; k < ii.size(); ++k) {
        size_t at = 0, rest = k;
        for (size_t a = 0; a < r; ++a) {
            int64_t coord = static_cast<int64_t>(rest / static_cast<size_t>(is[a]));
            rest %= static_cast<size_t>(is[a]);
            if (a == axis) {
                coord = ii[k] < 0 ? ii[k] + x.shape[a] : ii[k];
            }
            if (coord < 0 || coord >= x.shape[a]) {
                fail(c.n, fmt::format("index {} is out of range for a dimension of {}", ii[k],
                                      x.shape[a]));
            }
            at += static_cast<size_t>(coord * xs[a]);
        }
        if (x.is_int()) {
            y.i.push_back(x.i[at]);
        } else {
            y.f.push_back(x.f[at]);
        }
    }
    return one(std::move(y));
}

}  // namespace npu::onnx::detail
