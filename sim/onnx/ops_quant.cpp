// The ONNX reference evaluator's QuantizeLinear, DequantizeLinear, Resize/Upsample and Clip
// (the ONNX operator specification). Pure C++.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "sim/onnx/conv_kernel.h"
#include "sim/onnx/eval_detail.h"

namespace npu::onnx::detail {

namespace {

// Scale and zero point of Quantize/DequantizeLinear: one value, or one per element of `axis`.
void check_qparams(const Ctx& c, const Value& x, int64_t axis) {
    const size_t want =
        c.x(1).numel() <= 1 ? 1 : static_cast<size_t>(x.shape[static_cast<size_t>(axis)]);
    need_count(c.n, c.x(1), want, "the scale");
    if (c.has(2)) {
        need_count(c.n, c.x(2), want, "the zero point");
    }
}

// Per-tensor or per-axis parameters broadcast along `axis`.
size_t param_index(const Value& p, const Shape& s, int64_t axis, size_t k) {
    if (p.numel() <= 1) {
        return 0;
    }
    const Shape st = strides_of(s);
    return (k / static_cast<size_t>(st[static_cast<size_t>(axis)])) %
           static_cast<size_t>(s[static_cast<size_t>(axis)]);
}

}  // namespace

Outputs quantize_linear(const Ctx& c) {
    const Value& x = c.x(0);
    const Value& scale = c.x(1);
    const int64_t axis =
        scale.numel() > 1 ? norm_axis(c.n, c.n.get_int("axis", 1), x.shape.size()) : 0;
    check_qparams(c, x, axis);
    const bool has_zp = c.has(2);
    const int32_t type = has_zp ? c.x(2).onnx_type : 2;  // uint8 by default
    const int64_t lo = type == 3 ? -128 : 0, hi = type == 3 ? 127 : 255;
    const std::vector<float> xf = as_floats(x), sf = as_floats(scale);
    const std::vector<int64_t> zp = has_zp ? as_ints(c.x(2)) : std::vector<int64_t>{0};
    std::vector<int64_t> y(xf.size());
    for (size_t k = 0; k < y.size(); ++k) {
        const size_t p = param_index(scale, x.shape, axis, k);
        // x / scale in float, as the ONNX reference (numpy float32) divides, then rounded half
        // to even: a double division can land a quotient on the other side of a tie.
        double q = std::nearbyint(static_cast<double>(xf[k] / sf[p]));
        q = std::isnan(q) ? 0.0 : std::clamp(q, -1e12, 1e12);  // x/0: saturate, not UB
        y[k] = std::clamp<int64_t>(static_cast<int64_t>(q) + zp[zp.size() == 1 ? 0 : p], lo, hi);
    }
    Value v = Value::ints(x.shape, y);
    v.onnx_type = type;
    return one(std::move(v));
}

Outputs dequantize_linear(const Ctx& c) {
    const Value& x = c.x(0);
    const Value& scale = c.x(1);
    const int64_t axis =
        scale.numel() > 1 ? norm_axis(c.n, c.n.get_int("axis", 1), x.shape.size()) : 0;
    check_qparams(c, x, axis);
    const std::vector<int64_t> xi = as_ints(x);
    const std::vector<float> sf = as_floats(scale);
    const std::vector<int64_t> zp = c.has(2) ? as_ints(c.x(2)) : std::vector<int64_t>{0};
    std::vector<float> y(xi.size());
    for (size_t k = 0; k < y.size(); ++k) {
        const size_t p = param_index(scale, x.shape, axis, k);
        y[k] = static_cast<float>(xi[k] - zp[zp.size() == 1 ? 0 : p]) * sf[p];
    }
    return one(Value::floats(x.shape, std::move(y)));
}

namespace {

// What a Resize / Upsample node asks for: mode, coordinate transformation, nearest rounding,
// the scale of every axis and the output shape.
struct ResizeSpec {
    std::string mode, coord, nearest;
    std::vector<float> scales;
    Shape out;
};

// The scales (and the output sizes, when given as `sizes`) of every axis.
void resize_scales(const Ctx& c, int64_t opset, bool upsample, ResizeSpec& s) {
    const Value& x = c.x(0);
    const size_t r = x.shape.size();
    s.out.assign(r, 0);
    if (upsample) {
        s.scales = opset < 9 ? c.n.attributes.count("scales") ? c.n.attributes.at("scales").fs
                                                              : std::vector<float>{}
                             : as_floats(c.x(1));
    } else if (opset < 11) {
        s.scales = as_floats(c.x(1));
    } else if (c.has(3) && c.x(3).numel() > 0) {
        const Shape sizes = as_ints(c.x(3));
        if (sizes.size() != r) {
            fail(c.n, "scales or sizes do not match the rank");
        }
        for (size_t a = 0; a < r; ++a) {
            s.scales.push_back(static_cast<float>(sizes[a]) / static_cast<float>(x.shape[a]));
            s.out[a] = sizes[a];
        }
    } else {
        s.scales = as_floats(c.x(2));
    }
    if (s.scales.size() != r) {
        fail(c.n, "scales or sizes do not match the rank");
    }
}

ResizeSpec resize_spec(const Ctx& c, int64_t opset, bool upsample) {
    const Value& x = c.x(0);
    ResizeSpec s;
    s.mode = c.n.get_string("mode", "nearest");
    s.coord = upsample || opset < 11
                  ? "asymmetric"
                  : c.n.get_string("coordinate_transformation_mode", "half_pixel");
    s.nearest =
        upsample || opset < 11 ? "floor" : c.n.get_string("nearest_mode", "round_prefer_floor");
    resize_scales(c, opset, upsample, s);
    if (s.mode == "bilinear") {
        s.mode = "linear";
    }
    if (s.mode != "nearest" && s.mode != "linear") {
        fail(c.n, "mode " + s.mode + " is not supported (nearest, linear)");
    }
    if (s.coord == "tf_crop_and_resize") {
        fail(c.n, "coordinate_transformation_mode tf_crop_and_resize is not supported");
    }
    for (size_t a = 0; a < x.shape.size(); ++a) {
        if (!(s.scales[a] > 0.0f && s.scales[a] < 1e9f)) {
            fail(c.n, fmt::format("scale {} on axis {} (expected a positive, finite scale)",
                                  s.scales[a], a));
        }
        if (s.out[a] == 0) {
            s.out[a] = static_cast<int64_t>(
                std::floor(static_cast<double>(x.shape[a]) * static_cast<double>(s.scales[a])));
        }
    }
    checked_numel(c.n, s.out);
    return s;
}

// The input coordinate of output coordinate `od` on an axis (the ONNX formulas; `out_len` is
// ONNX's length_resized: input · scale, not the floored output size).
double source_coord(const Node& n, const std::string& coord, double od, double sc, double in_len,
                    double out_len) {
    if (coord == "half_pixel") {
        return (od + 0.5) / sc - 0.5;
    }
    if (coord == "pytorch_half_pixel") {
        return out_len > 1 ? (od + 0.5) / sc - 0.5 : 0;
    }
    if (coord == "align_corners") {
        return out_len > 1 ? od * (in_len - 1) / (out_len - 1) : 0;
    }
    if (coord == "tf_half_pixel_for_nn") {
        return (od + 0.5) / sc;
    }
    if (coord == "asymmetric") {
        return od / sc;
    }
    if (coord == "half_pixel_symmetric") {
        const double adj = out_len / (in_len * sc), center = in_len / 2;
        return center * (1 - adj) + (od + 0.5) / sc - 0.5;
    }
    fail(n, "coordinate_transformation_mode " + coord + " is not supported");
}

int64_t nearest_index(const std::string& nearest_mode, double xo) {
    if (nearest_mode == "floor") {
        return static_cast<int64_t>(std::floor(xo));
    }
    if (nearest_mode == "ceil") {
        return static_cast<int64_t>(std::ceil(xo));
    }
    if (nearest_mode == "round_prefer_ceil") {
        return static_cast<int64_t>(std::floor(xo + 0.5));
    }
    return static_cast<int64_t>(std::ceil(xo - 0.5));  // round_prefer_floor
}

// `cur` of shape `cs` resized along axis `a` to `ns`.
std::vector<float> resize_axis(const Node& n, const ResizeSpec& s, const std::vector<float>& cur,
                               const Shape& cs, const Shape& ns, size_t a) {
    const Shape st = strides_of(cs), nst = strides_of(ns);
    std::vector<float> next(numel(ns));
    const double sc = static_cast<double>(s.scales[a]);
    const double in_len = static_cast<double>(cs[a]), out_len = in_len * sc;
    for (size_t k = 0; k < next.size(); ++k) {
        const int64_t o = (static_cast<int64_t>(k) / nst[a]) % ns[a];
        const size_t base = k - static_cast<size_t>(o * nst[a]);
        const size_t src_base =
            (base / static_cast<size_t>(nst[a] * ns[a])) * static_cast<size_t>(st[a] * cs[a]) +
            base % static_cast<size_t>(nst[a]);
        const double xo = source_coord(n, s.coord, static_cast<double>(o), sc, in_len, out_len);
        auto at = [&](int64_t i) {
            i = std::clamp<int64_t>(i, 0, cs[a] - 1);
            return static_cast<double>(cur[src_base + static_cast<size_t>(i * st[a])]);
        };
        if (s.mode == "nearest") {
            next[k] = static_cast<float>(at(nearest_index(s.nearest, xo)));
        } else {
            const double xc = std::clamp(xo, 0.0, in_len - 1);
            const auto i0 = static_cast<int64_t>(std::floor(xc));
            const double t = xc - static_cast<double>(i0);
            next[k] = static_cast<float>(at(i0) * (1 - t) + at(i0 + 1) * t);
        }
    }
    return next;
}

}  // namespace

// Resize / Upsample on any rank: nearest or (multi)linear, separable per axis.
Outputs resize(const Ctx& c, int64_t opset, bool upsample) {
    const Value& x = c.x(0);
    const ResizeSpec s = resize_spec(c, opset, upsample);
    std::vector<float> cur = as_floats(x);
    Shape cs = x.shape;
    for (size_t a = 0; a < cs.size(); ++a) {
        if (s.out[a] == cs[a] && s.scales[a] == 1.0f) {
            continue;
        }
        Shape ns = cs;
        ns[a] = s.out[a];
        cur = resize_axis(c.n, s, cur, cs, ns, a);
        cs = ns;
    }
    return one(Value::floats(cs, std::move(cur)));
}

Outputs clip(const Ctx& c, int64_t opset) {
    float lo = -std::numeric_limits<float>::infinity(), hi = std::numeric_limits<float>::infinity();
    if (opset < 11) {
        lo = c.n.get_float("min", lo), hi = c.n.get_float("max", hi);
    } else {
        if (c.has(1)) {
            lo = first_float(c.n, as_floats(c.x(1)), "min");
        }
        if (c.has(2)) {
            hi = first_float(c.n, as_floats(c.x(2)), "max");
        }
    }
    return unary(c, [lo, hi](float v) { return std::min(std::max(v, lo), hi); });
}

}  // namespace npu::onnx::detail
