#include "sim/onnx/evaluator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <numeric>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/onnx/conv_kernel.h"

namespace npu::onnx {

namespace {

using Shape = std::vector<int64_t>;

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

// The largest tensor a node may produce (512 MiB of float): a hostile or mistaken model gets
// an error naming the node instead of exhausting memory.
constexpr size_t kMaxElements = size_t{1} << 27;

// The element count of an output shape about to be allocated.
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
    return count;
}

// Fails unless `v` holds `count` values.
void need_count(const Node& n, const Value& v, size_t count, const std::string& what) {
    if (v.numel() != count) {
        fail(n, fmt::format("{} has {} values, expected {}", what, v.numel(), count));
    }
}

// Fails unless input `i` has a rank in [lo, hi].
void need_rank(const Node& n, const Value& v, size_t lo, size_t hi, const std::string& what) {
    if (v.shape.size() < lo || v.shape.size() > hi) {
        fail(n, fmt::format("{} is {}: expected rank {}..{}", what, shape_str(v.shape), lo, hi));
    }
}

// The first value of an optional scalar input (min/max of Clip, Pad's constant).
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

// Offsets into an input of shape `in` broadcast to `out`, for every output element.
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

struct Ctx {
    const Node& n;
    std::vector<const Value*> in;  // nullptr for omitted optional inputs
    const Value& x(size_t i) const {
        if (i >= in.size() || in[i] == nullptr) {
            fail(n, fmt::format("input {} is missing", i));
        }
        return *in[i];
    }
    bool has(size_t i) const { return i < in.size() && in[i] != nullptr; }
};

using Outputs = std::vector<Value>;

Outputs unary(const Ctx& c, const std::function<float(float)>& f) {
    const Value& x = c.x(0);
    Value y = Value::floats(x.shape, as_floats(x));
    for (float& v : y.f) {
        v = f(v);
    }
    return {y};
}

// Opset 6 and older: `broadcast = 1` with `axis` lines B's dimensions up with A's starting
// at `axis` (numpy aligns them at the end); PRelu's 1-D slope is per channel (axis 1).
// Returns the shape B is read with.
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
        return {v};
    }
    const std::vector<float> fa = as_floats(a), fb = as_floats(b);
    std::vector<float> r(oa.size());
    for (size_t k = 0; k < r.size(); ++k) {
        r[k] = f(fa[oa[k]], fb[ob[k]]);
    }
    return {Value::floats(out, r)};
}

// Spatial geometry of Conv/Pool over the last `sr` dims.
struct Window {
    Shape kernel, strides, dilations, pad_begin, pad_end, out;
};

Window window(const Node& n, const Shape& in_spatial, const Shape& kernel, bool ceil_mode) {
    const size_t sr = in_spatial.size();
    Window w;
    w.kernel = kernel;
    w.strides = n.get_ints("strides", Shape(sr, 1));
    w.dilations = n.get_ints("dilations", Shape(sr, 1));
    const Shape pads = n.get_ints("pads", Shape(2 * sr, 0));
    if (w.strides.size() != sr || w.dilations.size() != sr || pads.size() != 2 * sr ||
        kernel.size() != sr) {
        fail(n, "kernel, strides, dilations or pads do not match the spatial rank");
    }
    for (size_t a = 0; a < sr; ++a) {
        constexpr int64_t kBig = int64_t{1} << 31;
        if (kernel[a] < 1 || w.strides[a] < 1 || w.dilations[a] < 1 || pads[a] < 0 ||
            pads[a + sr] < 0 || kernel[a] > kBig || w.strides[a] > kBig || w.dilations[a] > kBig ||
            pads[a] > kBig || pads[a + sr] > kBig) {
            fail(n, "kernel sizes, strides and dilations must be 1..2^31 and pads 0..2^31");
        }
    }
    const std::string auto_pad = n.get_string("auto_pad", "NOTSET");
    w.pad_begin.assign(pads.begin(), pads.begin() + static_cast<std::ptrdiff_t>(sr));
    w.pad_end.assign(pads.begin() + static_cast<std::ptrdiff_t>(sr), pads.end());
    w.out.resize(sr);
    for (size_t a = 0; a < sr; ++a) {
        const int64_t eff = (w.kernel[a] - 1) * w.dilations[a] + 1;
        if (auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
            const int64_t out = (in_spatial[a] + w.strides[a] - 1) / w.strides[a];
            const int64_t total =
                std::max<int64_t>(0, (out - 1) * w.strides[a] + eff - in_spatial[a]);
            w.pad_begin[a] = auto_pad == "SAME_UPPER" ? total / 2 : total - total / 2;
            w.pad_end[a] = total - w.pad_begin[a];
            w.out[a] = out;
            continue;
        }
        if (auto_pad == "VALID") {
            w.pad_begin[a] = w.pad_end[a] = 0;
        } else if (auto_pad != "NOTSET") {
            fail(n,
                 "auto_pad " + auto_pad + " is not one of NOTSET, SAME_UPPER, SAME_LOWER, VALID");
        }
        const int64_t span = in_spatial[a] + w.pad_begin[a] + w.pad_end[a] - eff;
        if (span < 0) {
            fail(n, "the kernel does not fit the padded input");
        }
        int64_t out =
            ceil_mode ? (span + w.strides[a] - 1) / w.strides[a] + 1 : span / w.strides[a] + 1;
        if (ceil_mode && (out - 1) * w.strides[a] >= in_spatial[a] + w.pad_begin[a]) {
            --out;  // the last window must start inside the input or its begin padding
        }
        w.out[a] = out;
    }
    return w;
}

// Normalizes [N, C, spatial...] with 1 or 2 spatial dims to H, W (H = 1 for 1-D).
struct Planar {
    int64_t n, c, h, w;
};
Planar planar(const Node& nd, const Shape& s) {
    if (s.size() == 3) {
        return {s[0], s[1], 1, s[2]};
    }
    if (s.size() == 4) {
        return {s[0], s[1], s[2], s[3]};
    }
    fail(nd, fmt::format("input of rank {}: 1-D and 2-D spatial inputs are supported", s.size()));
}

Outputs conv(const Ctx& c) {
    const Value &x = c.x(0), &wv = c.x(1);
    const Planar p = planar(c.n, x.shape);
    const size_t sr = x.shape.size() - 2;
    if (wv.shape.size() != x.shape.size()) {
        fail(c.n,
             fmt::format("weights {} for an input {}", shape_str(wv.shape), shape_str(x.shape)));
    }
    const Shape kernel(wv.shape.begin() + 2, wv.shape.end());
    const Window win = window(c.n, Shape(x.shape.begin() + 2, x.shape.end()), kernel, false);
    const int64_t g = c.n.get_int("group", 1), m = wv.shape[0];
    if (g < 1 || p.c % g != 0 || m % g != 0 || wv.shape[1] != p.c / g) {
        fail(c.n, "weights and group do not match the input channels");
    }
    ConvGeometry geo;
    geo.n = p.n, geo.c = p.c, geo.h = p.h, geo.w = p.w, geo.m = m, geo.group = g;
    geo.kh = sr == 2 ? kernel[0] : 1, geo.kw = kernel[sr - 1];
    geo.sh = sr == 2 ? win.strides[0] : 1, geo.sw = win.strides[sr - 1];
    geo.dh = sr == 2 ? win.dilations[0] : 1, geo.dw = win.dilations[sr - 1];
    geo.ph = sr == 2 ? win.pad_begin[0] : 0, geo.pw = win.pad_begin[sr - 1];
    geo.oh = sr == 2 ? win.out[0] : 1, geo.ow = win.out[sr - 1];
    const int64_t oh = geo.oh, ow = geo.ow;
    const std::vector<float> xf = as_floats(x), wf = as_floats(wv);
    if (c.has(2) && c.x(2).numel() != static_cast<size_t>(m)) {
        fail(c.n, fmt::format("bias has {} values for {} output channels", c.x(2).numel(), m));
    }
    const std::vector<float> bias = c.has(2) ? as_floats(c.x(2)) : std::vector<float>();
    std::vector<float> y(checked_numel(c.n, {p.n, m, oh, ow}));
    conv2d(geo, xf.data(), wf.data(), bias.empty() ? nullptr : bias.data(), y.data());
    Shape out{p.n, m};
    if (sr == 2) {
        out.push_back(oh);
    }
    out.push_back(ow);
    return {Value::floats(out, y)};
}

Outputs conv_transpose(const Ctx& c) {
    const Value &x = c.x(0), &wv = c.x(1);
    if (x.shape.size() != 4) {
        fail(c.n, "ConvTranspose: 2-D inputs are supported");
    }
    need_rank(c.n, wv, 4, 4, "the weight tensor");
    const Planar p = planar(c.n, x.shape);
    const int64_t g = c.n.get_int("group", 1);
    if (g < 1 || p.c % g != 0 || wv.shape[0] != p.c) {
        fail(c.n, "weights and group do not match the input channels");
    }
    const int64_t m = wv.shape[1] * g, kh = wv.shape[2], kw = wv.shape[3];
    const Shape st = c.n.get_ints("strides", {1, 1}), dl = c.n.get_ints("dilations", {1, 1});
    const Shape op = c.n.get_ints("output_padding", {0, 0});
    Shape pads = c.n.get_ints("pads", {0, 0, 0, 0});
    const std::string auto_pad = c.n.get_string("auto_pad", "NOTSET");
    Shape out_shape = c.n.get_ints("output_shape", {});
    if (st.size() != 2 || dl.size() != 2 || op.size() != 2 || pads.size() != 4 ||
        (!out_shape.empty() && out_shape.size() < 2)) {
        fail(c.n, "strides, dilations, output_padding, pads or output_shape do not match 2-D");
    }
    for (size_t a = 0; a < 2; ++a) {
        constexpr int64_t kBig = int64_t{1} << 31;
        if (st[a] < 1 || dl[a] < 1 || op[a] < 0 || pads[a] < 0 || pads[a + 2] < 0 || st[a] > kBig ||
            dl[a] > kBig || op[a] > kBig || pads[a] > kBig || pads[a + 2] > kBig ||
            (!out_shape.empty() && std::abs(out_shape[out_shape.size() - 2 + a]) > kBig)) {
            fail(c.n, "strides and dilations must be 1..2^31, pads and output_padding 0..2^31");
        }
    }
    if (c.has(2)) {
        need_count(c.n, c.x(2), static_cast<size_t>(m), "the bias");
    }
    int64_t oh = st[0] * (p.h - 1) + op[0] + ((kh - 1) * dl[0] + 1) - pads[0] - pads[2];
    int64_t ow = st[1] * (p.w - 1) + op[1] + ((kw - 1) * dl[1] + 1) - pads[1] - pads[3];
    if (!out_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        const int64_t th = out_shape.empty() ? p.h * st[0] : out_shape[out_shape.size() - 2];
        const int64_t tw = out_shape.empty() ? p.w * st[1] : out_shape.back();
        const int64_t tot_h = st[0] * (p.h - 1) + op[0] + ((kh - 1) * dl[0] + 1) - th;
        const int64_t tot_w = st[1] * (p.w - 1) + op[1] + ((kw - 1) * dl[1] + 1) - tw;
        const bool upper = auto_pad != "SAME_LOWER";
        pads[0] = upper ? tot_h / 2 : tot_h - tot_h / 2;
        pads[1] = upper ? tot_w / 2 : tot_w - tot_w / 2;
        oh = th, ow = tw;
    }
    const std::vector<float> xf = as_floats(x), wf = as_floats(wv);
    const std::vector<float> bias =
        c.has(2) ? as_floats(c.x(2)) : std::vector<float>(static_cast<size_t>(m), 0.0f);
    std::vector<double> y(checked_numel(c.n, {p.n, m, oh, ow}), 0.0);
    const int64_t gc = p.c / g, gm = m / g;
    for (int64_t b = 0; b < p.n; ++b) {
        for (int64_t ic = 0; ic < p.c; ++ic) {
            const int64_t grp = ic / gc;
            for (int64_t iy = 0; iy < p.h; ++iy) {
                for (int64_t ix = 0; ix < p.w; ++ix) {
                    const double v = static_cast<double>(
                        xf[static_cast<size_t>(((b * p.c + ic) * p.h + iy) * p.w + ix)]);
                    for (int64_t om = 0; om < gm; ++om) {
                        const int64_t oc = grp * gm + om;
                        for (int64_t ky = 0; ky < kh; ++ky) {
                            const int64_t oy = iy * st[0] - pads[0] + ky * dl[0];
                            if (oy < 0 || oy >= oh) {
                                continue;
                            }
                            for (int64_t kx = 0; kx < kw; ++kx) {
                                const int64_t ox = ix * st[1] - pads[1] + kx * dl[1];
                                if (ox < 0 || ox >= ow) {
                                    continue;
                                }
                                y[static_cast<size_t>(((b * m + oc) * oh + oy) * ow + ox)] +=
                                    v * static_cast<double>(wf[static_cast<size_t>(
                                            ((ic * gm + om) * kh + ky) * kw + kx)]);
                            }
                        }
                    }
                }
            }
        }
    }
    std::vector<float> r(y.size());
    for (size_t k = 0; k < y.size(); ++k) {
        r[k] = static_cast<float>(
            y[k] +
            static_cast<double>(bias[(k / static_cast<size_t>(oh * ow)) % static_cast<size_t>(m)]));
    }
    return {Value::floats({p.n, m, oh, ow}, r)};
}

Outputs pool(const Ctx& c, bool max) {
    const Value& x = c.x(0);
    const Planar p = planar(c.n, x.shape);
    const size_t sr = x.shape.size() - 2;
    const Shape kernel = c.n.get_ints("kernel_shape");
    if (kernel.size() != sr) {
        fail(c.n, "kernel_shape does not match the spatial rank");
    }
    const Window win = window(c.n, Shape(x.shape.begin() + 2, x.shape.end()), kernel,
                              c.n.get_int("ceil_mode", 0) != 0);
    const bool include_pad = c.n.get_int("count_include_pad", 0) != 0;
    const bool column_major = c.n.get_int("storage_order", 0) != 0;
    const int64_t kh = sr == 2 ? kernel[0] : 1, kw = kernel[sr - 1];
    const int64_t sh = sr == 2 ? win.strides[0] : 1, sw = win.strides[sr - 1];
    const int64_t dh = sr == 2 ? win.dilations[0] : 1, dw = win.dilations[sr - 1];
    const int64_t ph = sr == 2 ? win.pad_begin[0] : 0, pw = win.pad_begin[sr - 1];
    const int64_t peh = sr == 2 ? win.pad_end[0] : 0, pew = win.pad_end[sr - 1];
    const int64_t oh = sr == 2 ? win.out[0] : 1, ow = win.out[sr - 1];
    const std::vector<float> xf = as_floats(x);
    std::vector<float> y(checked_numel(c.n, {p.n, p.c, oh, ow}));
    std::vector<int64_t> idx(y.size(), 0);
    for (int64_t b = 0; b < p.n; ++b) {
        for (int64_t ch = 0; ch < p.c; ++ch) {
            for (int64_t oy = 0; oy < oh; ++oy) {
                for (int64_t ox = 0; ox < ow; ++ox) {
                    double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
                    int64_t count = 0, padded = 0, arg = 0;
                    for (int64_t ky = 0; ky < kh; ++ky) {
                        const int64_t iy = oy * sh - ph + ky * dh;
                        for (int64_t kx = 0; kx < kw; ++kx) {
                            const int64_t ix = ox * sw - pw + kx * dw;
                            if (iy >= -ph && iy < p.h + peh && ix >= -pw && ix < p.w + pew) {
                                ++padded;
                            }
                            if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) {
                                continue;
                            }
                            const int64_t off = ((b * p.c + ch) * p.h + iy) * p.w + ix;
                            const auto v = static_cast<double>(xf[static_cast<size_t>(off)]);
                            if (max) {
                                if (v > acc) {
                                    // Indices: row-major, or column-major with storage_order 1.
                                    acc = v, arg = column_major
                                                       ? (b * p.c + ch) * p.h * p.w + ix * p.h + iy
                                                       : off;
                                }
                            } else {
                                acc += v;
                            }
                            ++count;
                        }
                    }
                    const size_t o = static_cast<size_t>(((b * p.c + ch) * oh + oy) * ow + ox);
                    y[o] = static_cast<float>(
                        max ? acc : acc / static_cast<double>(include_pad ? padded : count));
                    idx[o] = arg;
                }
            }
        }
    }
    Shape out{p.n, p.c};
    if (sr == 2) {
        out.push_back(oh);
    }
    out.push_back(ow);
    Outputs r{Value::floats(out, y)};
    if (max && c.n.outputs.size() > 1) {
        r.push_back(Value::ints(out, idx));
    }
    return r;
}

Outputs global_pool(const Ctx& c, bool max) {
    const Value& x = c.x(0);
    need_rank(c.n, x, 3, 8, "the input");
    const int64_t n = x.shape[0], ch = x.shape[1];
    const size_t plane = n * ch == 0 ? 0 : numel(x.shape) / static_cast<size_t>(n * ch);
    const std::vector<float> xf = as_floats(x);
    std::vector<float> y(static_cast<size_t>(n * ch));
    for (size_t k = 0; k < y.size(); ++k) {
        double acc = max ? -std::numeric_limits<double>::infinity() : 0.0;
        for (size_t i = 0; i < plane; ++i) {
            const auto v = static_cast<double>(xf[k * plane + i]);
            acc = max ? std::max(acc, v) : acc + v;
        }
        y[k] = static_cast<float>(max ? acc : acc / static_cast<double>(plane));
    }
    Shape out{n, ch};
    out.resize(x.shape.size(), 1);
    return {Value::floats(out, y)};
}

Outputs batch_norm(const Ctx& c) {
    if (c.n.get_int("training_mode", 0) != 0) {
        fail(c.n, "training_mode is not supported (inference only)");
    }
    const Value& x = c.x(0);
    need_rank(c.n, x, 1, 8, "the input");
    const int64_t ch = x.shape.size() > 1 ? x.shape[1] : 1;
    const char* names[] = {"scale", "B", "mean", "var"};
    for (size_t i = 1; i <= 4; ++i) {
        need_count(c.n, c.x(i), static_cast<size_t>(ch), names[i - 1]);
    }
    const std::vector<float> xf = as_floats(x), s = as_floats(c.x(1)), b = as_floats(c.x(2)),
                             mean = as_floats(c.x(3)), var = as_floats(c.x(4));
    const float eps = c.n.get_float("epsilon", 1e-5f);
    if (x.numel() == 0) {
        return {Value::floats(x.shape, {})};
    }
    const size_t plane = numel(x.shape) / static_cast<size_t>(x.shape[0] * ch);
    std::vector<float> y(xf.size());
    for (size_t k = 0; k < y.size(); ++k) {
        const size_t cc = (k / plane) % static_cast<size_t>(ch);
        const double d = static_cast<double>(xf[k]) - static_cast<double>(mean[cc]);
        const double inv = 1.0 / std::sqrt(static_cast<double>(var[cc]) + static_cast<double>(eps));
        y[k] =
            static_cast<float>(d * inv * static_cast<double>(s[cc]) + static_cast<double>(b[cc]));
    }
    return {Value::floats(x.shape, y)};
}

Outputs softmax(const Ctx& c, int64_t opset, bool log) {
    const Value& x = c.x(0);
    const std::vector<float> xf = as_floats(x);
    std::vector<float> y(xf.size());
    const size_t r = x.shape.size();
    if (opset < 13) {
        const auto axis = static_cast<size_t>(norm_axis(c.n, c.n.get_int("axis", 1), r));
        size_t inner = 1;
        for (size_t a = axis; a < r; ++a) {
            inner *= static_cast<size_t>(x.shape[a]);
        }
        for (size_t o = 0; inner != 0 && o < xf.size() / inner; ++o) {
            const float* p = xf.data() + o * inner;
            const float m = *std::max_element(p, p + inner);
            double sum = 0;
            for (size_t i = 0; i < inner; ++i) {
                sum += std::exp(static_cast<double>(p[i] - m));
            }
            for (size_t i = 0; i < inner; ++i) {
                const double e = static_cast<double>(p[i] - m);
                y[o * inner + i] = static_cast<float>(log ? e - std::log(sum) : std::exp(e) / sum);
            }
        }
        return {Value::floats(x.shape, y)};
    }
    const auto axis = static_cast<size_t>(norm_axis(c.n, c.n.get_int("axis", -1), r));
    const Shape st = strides_of(x.shape);
    const auto n = static_cast<size_t>(x.shape[axis]), stride = static_cast<size_t>(st[axis]);
    for (size_t base = 0; base < xf.size(); ++base) {
        if ((base / stride) % n != 0) {
            continue;  // visit each line once, from its first element
        }
        float m = -std::numeric_limits<float>::infinity();
        for (size_t i = 0; i < n; ++i) {
            m = std::max(m, xf[base + i * stride]);
        }
        double sum = 0;
        for (size_t i = 0; i < n; ++i) {
            sum += std::exp(static_cast<double>(xf[base + i * stride] - m));
        }
        for (size_t i = 0; i < n; ++i) {
            const double e = static_cast<double>(xf[base + i * stride] - m);
            y[base + i * stride] = static_cast<float>(log ? e - std::log(sum) : std::exp(e) / sum);
        }
    }
    return {Value::floats(x.shape, y)};
}

Outputs gemm(const Ctx& c) {
    const Value &a = c.x(0), &b = c.x(1);
    const bool ta = c.n.get_int("transA", 0) != 0, tb = c.n.get_int("transB", 0) != 0;
    const float alpha = c.n.get_float("alpha", 1.0f), beta = c.n.get_float("beta", 1.0f);
    need_rank(c.n, a, 2, 2, "A");
    need_rank(c.n, b, 2, 2, "B");
    const int64_t m = ta ? a.shape[1] : a.shape[0], k = ta ? a.shape[0] : a.shape[1];
    const int64_t n = tb ? b.shape[0] : b.shape[1];
    if ((tb ? b.shape[1] : b.shape[0]) != k) {
        fail(c.n, fmt::format("A is {}, B is {}: inner dimensions differ", shape_str(a.shape),
                              shape_str(b.shape)));
    }
    const std::vector<float> af = as_floats(a), bf = as_floats(b);
    std::vector<float> y(checked_numel(c.n, {m, n}));
    std::vector<size_t> co;
    std::vector<float> cf;
    if (c.has(2)) {
        if (broadcast(c.n, c.x(2).shape, {m, n}) != Shape{m, n}) {
            fail(c.n,
                 fmt::format("C {} does not broadcast to ({}, {})", shape_str(c.x(2).shape), m, n));
        }
        co = broadcast_offsets(c.x(2).shape, {m, n});
        cf = as_floats(c.x(2));
    }
    for (int64_t i = 0; i < m; ++i) {
        for (int64_t j = 0; j < n; ++j) {
            double acc = 0;
            for (int64_t q = 0; q < k; ++q) {
                acc += static_cast<double>(af[static_cast<size_t>(ta ? q * m + i : i * k + q)]) *
                       static_cast<double>(bf[static_cast<size_t>(tb ? j * k + q : q * n + j)]);
            }
            double v = static_cast<double>(alpha) * acc;
            if (c.has(2)) {
                v += static_cast<double>(beta) *
                     static_cast<double>(cf[co[static_cast<size_t>(i * n + j)]]);
            }
            y[static_cast<size_t>(i * n + j)] = static_cast<float>(v);
        }
    }
    return {Value::floats({m, n}, y)};
}

Outputs matmul(const Ctx& c) {
    need_rank(c.n, c.x(0), 1, 8, "A");
    need_rank(c.n, c.x(1), 1, 8, "B");
    Shape as = c.x(0).shape, bs = c.x(1).shape;
    const bool a1 = as.size() == 1, b1 = bs.size() == 1;
    if (a1) {
        as.insert(as.begin(), 1);
    }
    if (b1) {
        bs.push_back(1);
    }
    const int64_t m = as[as.size() - 2], k = as.back(), n = bs.back();
    if (bs[bs.size() - 2] != k) {
        fail(c.n, fmt::format("shapes {} and {} cannot be multiplied", shape_str(c.x(0).shape),
                              shape_str(c.x(1).shape)));
    }
    const Shape batch =
        broadcast(c.n, Shape(as.begin(), as.end() - 2), Shape(bs.begin(), bs.end() - 2));
    const std::vector<size_t> oa = broadcast_offsets(Shape(as.begin(), as.end() - 2), batch),
                              ob = broadcast_offsets(Shape(bs.begin(), bs.end() - 2), batch);
    const std::vector<float> af = as_floats(c.x(0)), bf = as_floats(c.x(1));
    std::vector<float> y(oa.size() * checked_numel(c.n, {m, n}));
    checked_numel(c.n, {static_cast<int64_t>(oa.size()), m, n});
    for (size_t bt = 0; bt < oa.size(); ++bt) {
        const float* pa = af.data() + oa[bt] * static_cast<size_t>(m * k);
        const float* pb = bf.data() + ob[bt] * static_cast<size_t>(k * n);
        for (int64_t i = 0; i < m; ++i) {
            for (int64_t j = 0; j < n; ++j) {
                double acc = 0;
                for (int64_t q = 0; q < k; ++q) {
                    acc += static_cast<double>(pa[i * k + q]) * static_cast<double>(pb[q * n + j]);
                }
                y[bt * static_cast<size_t>(m * n) + static_cast<size_t>(i * n + j)] =
                    static_cast<float>(acc);
            }
        }
    }
    Shape out = batch;
    if (!a1) {
        out.push_back(m);
    }
    if (!b1) {
        out.push_back(n);
    }
    return {Value::floats(out, y)};
}

// Data of any value as int64 or float, copied in a new shape.
Value reshaped(const Value& x, Shape s) {
    Value v = x;
    v.shape = std::move(s);
    return v;
}

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
    for (size_t o = 0; o < outer; ++o) {
        for (size_t i = 0; i < c.in.size(); ++i) {
            const Value& x = c.x(i);
            const size_t block = numel(x.shape) / outer;
            if (y.is_int()) {
                const std::vector<int64_t> xi = as_ints(x);
                y.i.insert(y.i.end(), xi.begin() + static_cast<std::ptrdiff_t>(o * block),
                           xi.begin() + static_cast<std::ptrdiff_t>((o + 1) * block));
            } else {
                const std::vector<float> xf = as_floats(x);
                y.f.insert(y.f.end(), xf.begin() + static_cast<std::ptrdiff_t>(o * block),
                           xf.begin() + static_cast<std::ptrdiff_t>((o + 1) * block));
            }
        }
    }
    return {y};
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
    return {reshaped(x, out)};
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
    return {y};
}

Shape axes_of(const Ctx& c, int64_t opset, int64_t since, size_t input) {
    if (opset >= since) {
        return c.has(input) ? as_ints(c.x(input)) : Shape{};
    }
    return c.n.get_ints("axes", {});
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
    return {reshaped(x, out)};
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
    return {reshaped(x, out)};
}

Outputs slice(const Ctx& c, int64_t opset) {
    const Value& x = c.x(0);
    const size_t r = x.shape.size();
    Shape starts, ends, axes, steps;
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
    Shape beg(r, 0), step(r, 1), out = x.shape;
    for (size_t k = 0; k < axes.size(); ++k) {
        const auto a = static_cast<size_t>(norm_axis(c.n, axes[k], r));
        const int64_t d = x.shape[a];
        int64_t s = steps.empty() ? 1 : steps[k];
        if (s == 0) {
            fail(c.n, "a step of 0");
        }
        // A step longer than the axis takes at most one element: clamp it so that the
        // arithmetic below cannot overflow (steps of INT64_MAX are common in exported models).
        s = std::clamp<int64_t>(s, -std::max<int64_t>(d, 1), std::max<int64_t>(d, 1));
        int64_t b = starts[k], e = ends[k];
        b = b < 0 ? b + d : b;
        e = e < 0 ? e + d : e;
        if (d == 0) {
            b = 0, out[a] = 0;
        } else if (s > 0) {
            b = std::clamp<int64_t>(b, 0, d), e = std::clamp<int64_t>(e, 0, d);
            out[a] = e > b ? (e - b + s - 1) / s : 0;
        } else {
            b = std::clamp<int64_t>(b, 0, d - 1), e = std::clamp<int64_t>(e, -1, d - 1);
            out[a] = b > e ? (b - e - s - 1) / (-s) : 0;
        }
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
        for (size_t a = r; a-- > 0;) {
            if (++idx[a] < out[a]) {
                break;
            }
            idx[a] = 0;
        }
    }
    return {y};
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
            int64_t i = idx[a] - pads[a];
            const int64_t d = x.shape[a];
            if (i < 0 || i >= d) {
                if (mode == "constant") {
                    inside = false;
                } else if (d == 0 && (mode == "edge" || mode == "reflect")) {
                    fail(c.n, fmt::format("{} padding of an empty axis {}", mode, a));
                } else if (mode == "edge") {
                    i = std::clamp<int64_t>(i, 0, d - 1);
                } else if (mode == "reflect") {
                    // Reflection repeats with period 2(d - 1) (numpy's "reflect").
                    const int64_t period = 2 * (d - 1);
                    i = period == 0 ? 0 : ((i % period) + period) % period;
                    i = i >= d ? period - i : i;
                } else {
                    fail(c.n, "mode " + mode + " is not constant, reflect or edge");
                }
            }
            off += i * ist[a];
        }
        y.push_back(inside ? xf[static_cast<size_t>(off)] : value);
        for (size_t a = r; a-- > 0;) {
            if (++idx[a] < out[a]) {
                break;
            }
            idx[a] = 0;
        }
    }
    return {Value::floats(out, y)};
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
    return {y};
}

Outputs constant(const Ctx& c) {
    const Node& n = c.n;
    if (n.has("value")) {
        return {n.attributes.at("value").t};
    }
    if (n.has("value_float")) {
        return {Value::floats({}, {n.get_float("value_float", 0)})};
    }
    if (n.has("value_floats")) {
        const auto& fs = n.attributes.at("value_floats").fs;
        return {Value::floats({static_cast<int64_t>(fs.size())}, fs)};
    }
    if (n.has("value_int")) {
        return {Value::ints({}, {n.get_int("value_int", 0)})};
    }
    if (n.has("value_ints")) {
        const auto& is = n.attributes.at("value_ints").is;
        return {Value::ints({static_cast<int64_t>(is.size())}, is)};
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
    return {Value::ints({static_cast<int64_t>(v.size())}, v)};
}

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
        double q = std::nearbyint(static_cast<double>(xf[k]) / static_cast<double>(sf[p]));
        q = std::isnan(q) ? 0.0 : std::clamp(q, -1e12, 1e12);  // x/0: saturate, not UB
        y[k] = std::clamp<int64_t>(static_cast<int64_t>(q) + zp[zp.size() == 1 ? 0 : p], lo, hi);
    }
    Value v = Value::ints(x.shape, y);
    v.onnx_type = type;
    return {v};
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
    return {Value::floats(x.shape, y)};
}

// Resize / Upsample on any rank: nearest or (multi)linear, separable per axis.
Outputs resize(const Ctx& c, int64_t opset, bool upsample) {
    const Value& x = c.x(0);
    const size_t r = x.shape.size();
    std::string mode = c.n.get_string("mode", "nearest");
    std::string coord = upsample || opset < 11
                            ? "asymmetric"
                            : c.n.get_string("coordinate_transformation_mode", "half_pixel");
    const std::string nearest_mode =
        upsample || opset < 11 ? "floor" : c.n.get_string("nearest_mode", "round_prefer_floor");
    std::vector<float> scales;
    Shape out(r);
    if (upsample) {
        scales = opset < 9 ? c.n.attributes.count("scales") ? c.n.attributes.at("scales").fs
                                                            : std::vector<float>{}
                           : as_floats(c.x(1));
    } else if (opset < 11) {
        scales = as_floats(c.x(1));
    } else {
        if (c.has(3) && c.x(3).numel() > 0) {
            const Shape sizes = as_ints(c.x(3));
            if (sizes.size() != r) {
                fail(c.n, "scales or sizes do not match the rank");
            }
            for (size_t a = 0; a < r; ++a) {
                scales.push_back(static_cast<float>(sizes[a]) / static_cast<float>(x.shape[a]));
                out[a] = sizes[a];
            }
        } else {
            scales = as_floats(c.x(2));
        }
    }
    if (scales.size() != r) {
        fail(c.n, "scales or sizes do not match the rank");
    }
    if (mode == "bilinear") {
        mode = "linear";
    }
    if (mode != "nearest" && mode != "linear") {
        fail(c.n, "mode " + mode + " is not supported (nearest, linear)");
    }
    if (coord == "tf_crop_and_resize") {
        fail(c.n, "coordinate_transformation_mode tf_crop_and_resize is not supported");
    }
    for (size_t a = 0; a < r; ++a) {
        if (!(scales[a] > 0.0f && scales[a] < 1e9f)) {
            fail(c.n, fmt::format("scale {} on axis {} (expected a positive, finite scale)",
                                  scales[a], a));
        }
        if (out[a] == 0) {
            out[a] = static_cast<int64_t>(
                std::floor(static_cast<double>(x.shape[a]) * static_cast<double>(scales[a])));
        }
    }
    checked_numel(c.n, out);
    std::vector<float> cur = as_floats(x);
    Shape cs = x.shape;
    for (size_t a = 0; a < r; ++a) {
        if (out[a] == cs[a] && scales[a] == 1.0f) {
            continue;
        }
        Shape ns = cs;
        ns[a] = out[a];
        const Shape st = strides_of(cs), nst = strides_of(ns);
        std::vector<float> next(numel(ns));
        const double sc = static_cast<double>(scales[a]);
        // ONNX's length_resized: input · scale (not the floored output size).
        const double in_len = static_cast<double>(cs[a]), out_len = in_len * sc;
        for (size_t k = 0; k < next.size(); ++k) {
            const int64_t o = (static_cast<int64_t>(k) / nst[a]) % ns[a];
            const size_t base = k - static_cast<size_t>(o * nst[a]);
            const size_t src_base =
                (base / static_cast<size_t>(nst[a] * ns[a])) * static_cast<size_t>(st[a] * cs[a]) +
                base % static_cast<size_t>(nst[a]);
            double xo = 0;
            const double od = static_cast<double>(o);
            if (coord == "half_pixel") {
                xo = (od + 0.5) / sc - 0.5;
            } else if (coord == "pytorch_half_pixel") {
                xo = out_len > 1 ? (od + 0.5) / sc - 0.5 : 0;
            } else if (coord == "align_corners") {
                xo = out_len > 1 ? od * (in_len - 1) / (out_len - 1) : 0;
            } else if (coord == "tf_half_pixel_for_nn") {
                xo = (od + 0.5) / sc;
            } else if (coord == "asymmetric") {
                xo = od / sc;
            } else if (coord == "half_pixel_symmetric") {
                const double adj = out_len / (in_len * sc), center = in_len / 2;
                xo = center * (1 - adj) + (od + 0.5) / sc - 0.5;
            } else {
                fail(c.n, "coordinate_transformation_mode " + coord + " is not supported");
            }
            auto at = [&](int64_t i) {
                i = std::clamp<int64_t>(i, 0, cs[a] - 1);
                return static_cast<double>(cur[src_base + static_cast<size_t>(i * st[a])]);
            };
            if (mode == "nearest") {
                int64_t i = 0;
                if (nearest_mode == "floor") {
                    i = static_cast<int64_t>(std::floor(xo));
                } else if (nearest_mode == "ceil") {
                    i = static_cast<int64_t>(std::ceil(xo));
                } else if (nearest_mode == "round_prefer_ceil") {
                    i = static_cast<int64_t>(std::floor(xo + 0.5));
                } else {  // round_prefer_floor
                    i = static_cast<int64_t>(std::ceil(xo - 0.5));
                }
                next[k] = static_cast<float>(at(i));
            } else {
                const double xc = std::clamp(xo, 0.0, in_len - 1);
                const auto i0 = static_cast<int64_t>(std::floor(xc));
                const double t = xc - static_cast<double>(i0);
                next[k] = static_cast<float>(at(i0) * (1 - t) + at(i0 + 1) * t);
            }
        }
        cur = std::move(next);
        cs = ns;
    }
    return {Value::floats(cs, cur)};
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

Outputs run_node(const Ctx& c, int64_t opset) {
    const Node& n = c.n;
    const std::string& op = n.op_type;
    if (op == "Relu") {
        return unary(c, [](float v) { return v > 0 ? v : 0.0f; });
    }
    if (op == "LeakyRelu") {
        const float a = n.get_float("alpha", 0.01f);
        return unary(c, [a](float v) { return v >= 0 ? v : v * a; });
    }
    if (op == "Sigmoid") {
        return unary(c, [](float v) {
            return static_cast<float>(1.0 / (1.0 + std::exp(-static_cast<double>(v))));
        });
    }
    if (op == "Tanh") {
        return unary(c, [](float v) { return std::tanh(v); });
    }
    if (op == "HardSigmoid") {
        const float a = n.get_float("alpha", 0.2f), b = n.get_float("beta", 0.5f);
        return unary(c, [a, b](float v) { return std::max(0.0f, std::min(1.0f, a * v + b)); });
    }
    if (op == "HardSwish") {
        return unary(c,
                     [](float v) { return v * std::max(0.0f, std::min(1.0f, v / 6.0f + 0.5f)); });
    }
    if (op == "Abs") {
        return unary(c, [](float v) { return std::fabs(v); });
    }
    if (op == "Neg") {
        return unary(c, [](float v) { return -v; });
    }
    if (op == "Exp") {
        return unary(c, [](float v) { return std::exp(v); });
    }
    if (op == "Log") {
        return unary(c, [](float v) { return std::log(v); });
    }
    if (op == "Sqrt") {
        return unary(c, [](float v) { return std::sqrt(v); });
    }
    if (op == "Reciprocal") {
        return unary(c, [](float v) { return 1.0f / v; });
    }
    if (op == "Floor") {
        return unary(c, [](float v) { return std::floor(v); });
    }
    if (op == "Ceil") {
        return unary(c, [](float v) { return std::ceil(v); });
    }
    if (op == "Clip") {
        return clip(c, opset);
    }
    if (op == "PRelu") {
        return binary(
            c, opset, [](float v, float s) { return v < 0 ? v * s : v; }, nullptr);
    }
    // Integer arithmetic wraps around (two's complement, as numpy's int64 does): computed in
    // uint64, where overflow is defined. Division by zero gives 0, INT64_MIN / -1 wraps.
    auto wrap = [](uint64_t v) {
        return static_cast<int64_t>(v);
    };
    auto u = [](int64_t v) {
        return static_cast<uint64_t>(v);
    };
    if (op == "Add") {
        return binary(c, opset, std::plus<float>(),
                      [&](int64_t a, int64_t b) { return wrap(u(a) + u(b)); });
    }
    if (op == "Sub") {
        return binary(c, opset, std::minus<float>(),
                      [&](int64_t a, int64_t b) { return wrap(u(a) - u(b)); });
    }
    if (op == "Mul") {
        return binary(c, opset, std::multiplies<float>(),
                      [&](int64_t a, int64_t b) { return wrap(u(a) * u(b)); });
    }
    if (op == "Div") {
        return binary(c, opset, std::divides<float>(), [](int64_t a, int64_t b) {
            return b == 0    ? 0
                   : b == -1 ? static_cast<int64_t>(0 - static_cast<uint64_t>(a))
                             : a / b;
        });
    }
    if (op == "Identity" || op == "Dropout") {
        Outputs r{*c.in.at(0)};
        if (op == "Dropout" && n.outputs.size() > 1) {
            Value mask = Value::ints(c.x(0).shape, std::vector<int64_t>(c.x(0).numel(), 1));
            mask.onnx_type = 9;
            r.push_back(mask);
        }
        return r;
    }
    if (op == "Conv") {
        return conv(c);
    }
    if (op == "ConvTranspose") {
        return conv_transpose(c);
    }
    if (op == "BatchNormalization") {
        return batch_norm(c);
    }
    if (op == "MaxPool" || op == "AveragePool") {
        return pool(c, op == "MaxPool");
    }
    if (op == "GlobalAveragePool" || op == "GlobalMaxPool") {
        return global_pool(c, op == "GlobalMaxPool");
    }
    if (op == "Softmax" || op == "LogSoftmax") {
        return softmax(c, opset, op == "LogSoftmax");
    }
    if (op == "Gemm") {
        return gemm(c);
    }
    if (op == "MatMul") {
        return matmul(c);
    }
    if (op == "Concat") {
        return concat(c);
    }
    if (op == "Reshape") {
        return reshape(c, as_ints(c.x(1)), n.get_int("allowzero", 0) != 0);
    }
    if (op == "Flatten") {
        const Shape& s = c.x(0).shape;
        int64_t ax = n.get_int("axis", 1);
        ax = ax < 0 ? ax + static_cast<int64_t>(s.size()) : ax;  // Flatten: −r..r
        if (ax < 0 || ax > static_cast<int64_t>(s.size())) {
            fail(n, fmt::format("axis {} is out of range for rank {}", n.get_int("axis", 1),
                                s.size()));
        }
        const auto axis = static_cast<size_t>(ax);
        int64_t a = 1, b = 1;
        for (size_t i = 0; i < s.size(); ++i) {
            (i < axis ? a : b) *= s[i];
        }
        return {reshaped(c.x(0), {a, b})};
    }
    if (op == "Transpose") {
        return transpose(c);
    }
    if (op == "Squeeze") {
        return squeeze(c, opset);
    }
    if (op == "Unsqueeze") {
        return unsqueeze(c, opset);
    }
    if (op == "Slice") {
        return slice(c, opset);
    }
    if (op == "Pad") {
        return pad(c, opset);
    }
    if (op == "Constant") {
        return constant(c);
    }
    if (op == "Shape") {
        return shape_op(c);
    }
    if (op == "Gather") {
        return gather(c);
    }
    if (op == "QuantizeLinear") {
        return quantize_linear(c);
    }
    if (op == "DequantizeLinear") {
        return dequantize_linear(c);
    }
    if (op == "Resize" || op == "Upsample") {
        return resize(c, opset, op == "Upsample");
    }
    fail(n, "op " + op + " is not supported by the reference evaluator");
}

}  // namespace

const std::set<std::string>& supported_ops() {
    static const std::set<std::string> ops = {"Abs",
                                              "Add",
                                              "AveragePool",
                                              "BatchNormalization",
                                              "Ceil",
                                              "Clip",
                                              "Concat",
                                              "Constant",
                                              "Conv",
                                              "ConvTranspose",
                                              "DequantizeLinear",
                                              "Div",
                                              "Dropout",
                                              "Exp",
                                              "Flatten",
                                              "Floor",
                                              "Gather",
                                              "Gemm",
                                              "GlobalAveragePool",
                                              "GlobalMaxPool",
                                              "HardSigmoid",
                                              "HardSwish",
                                              "Identity",
                                              "LeakyRelu",
                                              "Log",
                                              "LogSoftmax",
                                              "MatMul",
                                              "MaxPool",
                                              "Mul",
                                              "Neg",
                                              "PRelu",
                                              "Pad",
                                              "QuantizeLinear",
                                              "Reciprocal",
                                              "Relu",
                                              "Reshape",
                                              "Resize",
                                              "Shape",
                                              "Sigmoid",
                                              "Slice",
                                              "Softmax",
                                              "Sqrt",
                                              "Squeeze",
                                              "Sub",
                                              "Tanh",
                                              "Transpose",
                                              "Unsqueeze",
                                              "Upsample"};
    return ops;
}

std::map<std::string, Value> evaluate(const Graph& g, const std::map<std::string, Value>& inputs,
                                      const EvalOptions& opts) {
    std::map<std::string, Value> env = g.initializers;
    for (const ValueInfo& in : g.inputs) {
        auto it = inputs.find(in.name);
        if (it == inputs.end()) {
            throw sim::Error(fmt::format("{}: no value for graph input '{}'", g.name, in.name));
        }
        env[in.name] = it->second;
    }
    for (const Node& n : g.nodes) {
        Ctx c{n, {}};
        for (const std::string& name : n.inputs) {
            if (name.empty()) {
                c.in.push_back(nullptr);
                continue;
            }
            auto it = env.find(name);
            if (it == env.end()) {
                fail(n, fmt::format("input '{}' is not computed before it", name));
            }
            c.in.push_back(&it->second);
        }
        Outputs out = run_node(c, g.opset);
        for (size_t i = 0; i < n.outputs.size() && i < out.size(); ++i) {
            if (n.outputs[i].empty()) {
                continue;
            }
            if (opts.on_value) {
                opts.on_value(n.outputs[i], out[i]);
            }
            env[n.outputs[i]] = std::move(out[i]);
        }
    }
    std::map<std::string, Value> result;
    for (const ValueInfo& o : g.outputs) {
        auto it = env.find(o.name);
        if (it == env.end()) {
            throw sim::Error(
                fmt::format("{}: graph output '{}' was never computed", g.name, o.name));
        }
        result[o.name] = it->second;
    }
    return result;
}

}  // namespace npu::onnx
