// The ONNX reference evaluator's network ops: Conv, ConvTranspose, pools, BatchNormalization,
// Softmax/LogSoftmax, Gemm, MatMul (the ONNX operator specification). Pure C++.
#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <tuple>
#include <utility>

#include <fmt/format.h>

#include "sim/onnx/conv_kernel.h"
#include "sim/onnx/eval_detail.h"

namespace npu::onnx::detail {

namespace {

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

}  // namespace

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
    std::vector<float> xs, ws;
    const std::vector<float>& xf = floats_of(x, xs);
    const std::vector<float>& wf = floats_of(wv, ws);
    if (c.has(2) && c.x(2).numel() != static_cast<size_t>(m)) {
        fail(c.n, fmt::format("bias has {} values for {} output channels", c.x(2).numel(), m));
    }
    const std::vector<float> bias = c.has(2) ? as_floats(c.x(2)) : std::vector<float>();
    const size_t outs = checked_numel(c.n, {p.n, m, oh, ow});
    check_work(c.n, outs,
               static_cast<uint64_t>(p.c / g) * static_cast<uint64_t>(geo.kh) *
                   static_cast<uint64_t>(geo.kw));
    std::vector<float> y(outs);
    conv2d(geo, xf.data(), wf.data(), bias.empty() ? nullptr : bias.data(), y.data());
    Shape out{p.n, m};
    if (sr == 2) {
        out.push_back(oh);
    }
    out.push_back(ow);
    return one(Value::floats(out, std::move(y)));
}

namespace {

// ConvTranspose's geometry: group, kernel, strides, dilations, pads and output size, checked.
struct Deconv {
    int64_t g = 1, m = 0, kh = 0, kw = 0, oh = 0, ow = 0;
    Shape st, dl, pads;
};

Deconv deconv_geometry(const Ctx& c, const Planar& p, const Value& wv) {
    Deconv d;
    d.g = c.n.get_int("group", 1);
    if (d.g < 1 || p.c % d.g != 0 || wv.shape[0] != p.c) {
        fail(c.n, "weights and group do not match the input channels");
    }
    d.m = wv.shape[1] * d.g, d.kh = wv.shape[2], d.kw = wv.shape[3];
    d.st = c.n.get_ints("strides", {1, 1}), d.dl = c.n.get_ints("dilations", {1, 1});
    const Shape op = c.n.get_ints("output_padding", {0, 0});
    d.pads = c.n.get_ints("pads", {0, 0, 0, 0});
    const std::string auto_pad = c.n.get_string("auto_pad", "NOTSET");
    const Shape out_shape = c.n.get_ints("output_shape", {});
    const Shape &st = d.st, &dl = d.dl, &pads = d.pads;
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
    const int64_t full_h = st[0] * (p.h - 1) + op[0] + ((d.kh - 1) * dl[0] + 1);
    const int64_t full_w = st[1] * (p.w - 1) + op[1] + ((d.kw - 1) * dl[1] + 1);
    d.oh = full_h - pads[0] - pads[2];
    d.ow = full_w - pads[1] - pads[3];
    if (!out_shape.empty() || auto_pad == "SAME_UPPER" || auto_pad == "SAME_LOWER") {
        const int64_t th = out_shape.empty() ? p.h * st[0] : out_shape[out_shape.size() - 2];
        const int64_t tw = out_shape.empty() ? p.w * st[1] : out_shape.back();
        const int64_t tot_h = full_h - th, tot_w = full_w - tw;
        const bool upper = auto_pad != "SAME_LOWER";
        d.pads[0] = upper ? tot_h / 2 : tot_h - tot_h / 2;
        d.pads[1] = upper ? tot_w / 2 : tot_w - tot_w / 2;
        d.oh = th, d.ow = tw;
    }
    return d;
}

// Every input value scattered through the kernel into the output (double accumulation).
std::vector<double> deconv_scatter(const Deconv& d, const Planar& p, const std::vector<float>& xf,
                                   const std::vector<float>& wf, size_t count) {
    std::vector<double> y(count, 0.0);
    const int64_t gc = p.c / d.g, gm = d.m / d.g;
    for (int64_t b = 0; b < p.n; ++b) {
        for (int64_t ic = 0; ic < p.c; ++ic) {
            for (int64_t iy = 0; iy < p.h; ++iy) {
                for (int64_t ix = 0; ix < p.w; ++ix) {
                    const double v = static_cast<double>(
                        xf[static_cast<size_t>(((b * p.c + ic) * p.h + iy) * p.w + ix)]);
                    for (int64_t om = 0; om < gm; ++om) {
                        const int64_t oc = (ic / gc) * gm + om;
                        for (int64_t ky = 0; ky < d.kh; ++ky) {
                            const int64_t oy = iy * d.st[0] - d.pads[0] + ky * d.dl[0];
                            for (int64_t kx = 0; kx < d.kw && oy >= 0 && oy < d.oh; ++kx) {
                                const int64_t ox = ix * d.st[1] - d.pads[1] + kx * d.dl[1];
                                if (ox < 0 || ox >= d.ow) {
                                    continue;
                                }
                                y[static_cast<size_t>(((b * d.m + oc) * d.oh + oy) * d.ow + ox)] +=
                                    v * static_cast<double>(wf[static_cast<size_t>(
                                            ((ic * gm + om) * d.kh + ky) * d.kw + kx)]);
                            }
                        }
                    }
                }
            }
        }
    }
    return y;
}

}  // namespace

Outputs conv_transpose(const Ctx& c) {
    const Value &x = c.x(0), &wv = c.x(1);
    if (x.shape.size() != 4) {
        fail(c.n, "ConvTranspose: 2-D inputs are supported");
    }
    need_rank(c.n, wv, 4, 4, "the weight tensor");
    const Planar p = planar(c.n, x.shape);
    const Deconv d = deconv_geometry(c, p, wv);
    if (c.has(2)) {
        need_count(c.n, c.x(2), static_cast<size_t>(d.m), "the bias");
    }
    const std::vector<float> bias =
        c.has(2) ? as_floats(c.x(2)) : std::vector<float>(static_cast<size_t>(d.m), 0.0f);
    const size_t outs = checked_numel(c.n, {p.n, d.m, d.oh, d.ow});
    check_work(c.n, x.numel(),
               static_cast<uint64_t>(d.m / d.g) * static_cast<uint64_t>(d.kh) *
                   static_cast<uint64_t>(d.kw));
    const std::vector<double> y = deconv_scatter(d, p, as_floats(x), as_floats(wv), outs);
    std::vector<float> r(y.size());
    const auto plane = static_cast<size_t>(d.oh * d.ow);
    for (size_t k = 0; k < y.size(); ++k) {
        r[k] = static_cast<float>(
            y[k] + static_cast<double>(bias[(k / plane) % static_cast<size_t>(d.m)]));
    }
    return one(Value::floats({p.n, d.m, d.oh, d.ow}, std::move(r)));
}

namespace {

// A pooling window in two dimensions (1-D pools have height 1).
struct Pool2d {
    int64_t kh, kw, sh, sw, dh, dw, ph, pw, peh, pew, oh, ow;
    bool max, include_pad, column_major;
};

// Output (oy, ox) of channel plane `ch` of batch `b`: the value and, for max, its index.
std::pair<float, int64_t> pool_one(const Pool2d& w, const Planar& p, const std::vector<float>& xf,
                                   int64_t b, int64_t ch, int64_t oy, int64_t ox) {
    double acc = w.max ? -std::numeric_limits<double>::infinity() : 0.0;
    int64_t count = 0, padded = 0, arg = 0;
    for (int64_t ky = 0; ky < w.kh; ++ky) {
        const int64_t iy = oy * w.sh - w.ph + ky * w.dh;
        for (int64_t kx = 0; kx < w.kw; ++kx) {
            const int64_t ix = ox * w.sw - w.pw + kx * w.dw;
            if (iy >= -w.ph && iy < p.h + w.peh && ix >= -w.pw && ix < p.w + w.pew) {
                ++padded;
            }
            if (iy < 0 || iy >= p.h || ix < 0 || ix >= p.w) {
                continue;
            }
            const int64_t off = ((b * p.c + ch) * p.h + iy) * p.w + ix;
            const auto v = static_cast<double>(xf[static_cast<size_t>(off)]);
            if (w.max) {
                if (v > acc) {
                    // Indices: row-major, or column-major with storage_order 1.
                    acc = v,
                    arg = w.column_major ? (b * p.c + ch) * p.h * p.w + ix * p.h + iy : off;
                }
            } else {
                acc += v;
            }
            ++count;
        }
    }
    return {
        static_cast<float>(w.max ? acc : acc / static_cast<double>(w.include_pad ? padded : count)),
        arg};
}

Pool2d pool_window(const Ctx& c, const Shape& shape, bool max) {
    const size_t sr = shape.size() - 2;
    const Shape kernel = c.n.get_ints("kernel_shape");
    if (kernel.size() != sr) {
        fail(c.n, "kernel_shape does not match the spatial rank");
    }
    const Window win = window(c.n, Shape(shape.begin() + 2, shape.end()), kernel,
                              c.n.get_int("ceil_mode", 0) != 0);
    const bool two = sr == 2;
    return {two ? kernel[0] : 1,
            kernel[sr - 1],
            two ? win.strides[0] : 1,
            win.strides[sr - 1],
            two ? win.dilations[0] : 1,
            win.dilations[sr - 1],
            two ? win.pad_begin[0] : 0,
            win.pad_begin[sr - 1],
            two ? win.pad_end[0] : 0,
            win.pad_end[sr - 1],
            two ? win.out[0] : 1,
            win.out[sr - 1],
            max,
            c.n.get_int("count_include_pad", 0) != 0,
            c.n.get_int("storage_order", 0) != 0};
}

}  // namespace

Outputs pool(const Ctx& c, bool max) {
    const Value& x = c.x(0);
    const Planar p = planar(c.n, x.shape);
    const Pool2d w = pool_window(c, x.shape, max);
    std::vector<float> xf_scratch;
    const std::vector<float>& xf = floats_of(x, xf_scratch);
    const size_t outs = checked_numel(c.n, {p.n, p.c, w.oh, w.ow});
    check_work(c.n, outs, static_cast<uint64_t>(w.kh) * static_cast<uint64_t>(w.kw));
    std::vector<float> y(outs);
    std::vector<int64_t> idx(y.size(), 0);
    for (int64_t b = 0; b < p.n; ++b) {
        for (int64_t ch = 0; ch < p.c; ++ch) {
            for (int64_t oy = 0; oy < w.oh; ++oy) {
                for (int64_t ox = 0; ox < w.ow; ++ox) {
                    const size_t o = static_cast<size_t>(((b * p.c + ch) * w.oh + oy) * w.ow + ox);
                    std::tie(y[o], idx[o]) = pool_one(w, p, xf, b, ch, oy, ox);
                }
            }
        }
    }
    Shape out{p.n, p.c};
    if (x.shape.size() == 4) {
        out.push_back(w.oh);
    }
    out.push_back(w.ow);
    Outputs r = one(Value::floats(out, std::move(y)));
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
    std::vector<float> xf_scratch;
    const std::vector<float>& xf = floats_of(x, xf_scratch);
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
    return one(Value::floats(out, std::move(y)));
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
    const std::vector<float> s = as_floats(c.x(1)), b = as_floats(c.x(2)), mean = as_floats(c.x(3)),
                             var = as_floats(c.x(4));
    const float eps = c.n.get_float("epsilon", 1e-5f);
    const auto batch = static_cast<size_t>(x.shape[0]);  // `x` is moved from just below
    // The input's storage when no later node reads it (a feature map after a Conv), else a copy.
    Value y = c.donated != nullptr && !x.is_int() ? std::move(*c.donated)
                                                  : Value::floats(x.shape, as_floats(x));
    if (y.f.empty()) {
        return one(std::move(y));
    }
    // Per channel plane: y = (x - mean) · (1 / sqrt(var + eps)) · scale + B in double, rounded to
    // float once; the channel's constants are computed once (the same bits as per element).
    const size_t plane = y.f.size() / (batch * static_cast<size_t>(ch));
    for (size_t p = 0; p < y.f.size() / plane; ++p) {
        const size_t cc = p % static_cast<size_t>(ch);
        const double m = static_cast<double>(mean[cc]), sc = static_cast<double>(s[cc]),
                     bb = static_cast<double>(b[cc]);
        const double inv = 1.0 / std::sqrt(static_cast<double>(var[cc]) + static_cast<double>(eps));
        float* v = y.f.data() + p * plane;
        for (size_t k = 0; k < plane; ++k) {
            v[k] = static_cast<float>((static_cast<double>(v[k]) - m) * inv * sc + bb);
        }
    }
    return one(std::move(y));
}

// Per (n, c): y = scale[c] · (x − mean) / sqrt(var + epsilon) + B[c] over the spatial elements
// (mean and the biased variance in double).
Moments moments(const float* v, size_t n, double eps) {
    double sum = 0, sq = 0;
    for (size_t k = 0; k < n; ++k) {
        sum += static_cast<double>(v[k]);
    }
    const double mean = sum / static_cast<double>(n);
    for (size_t k = 0; k < n; ++k) {
        const double d = static_cast<double>(v[k]) - mean;
        sq += d * d;
    }
    return {mean, 1.0 / std::sqrt(sq / static_cast<double>(n) + eps)};
}

Outputs instance_norm(const Ctx& c) {
    const Value& x = c.x(0);
    need_rank(c.n, x, 3, 8, "the input");
    const int64_t ch = x.shape[1];
    need_count(c.n, c.x(1), static_cast<size_t>(ch), "scale");
    need_count(c.n, c.x(2), static_cast<size_t>(ch), "B");
    const std::vector<float> s = as_floats(c.x(1)), b = as_floats(c.x(2));
    const double eps = c.n.get_float("epsilon", 1e-5f);
    Value y = c.donated != nullptr && !x.is_int() ? std::move(*c.donated)
                                                  : Value::floats(x.shape, as_floats(x));
    const size_t planes = static_cast<size_t>(y.shape[0] * ch);
    const size_t plane = planes == 0 ? 0 : y.f.size() / planes;
    for (size_t p = 0; plane != 0 && p < planes; ++p) {
        float* v = y.f.data() + p * plane;
        const auto [mean, inv] = moments(v, plane, eps);
        const size_t cc = p % static_cast<size_t>(ch);
        for (size_t k = 0; k < plane; ++k) {
            v[k] = static_cast<float>((static_cast<double>(v[k]) - mean) * inv *
                                          static_cast<double>(s[cc]) +
                                      static_cast<double>(b[cc]));
        }
    }
    return one(std::move(y));
}

// Local response normalization across channels: y = x / (bias + alpha / size · Σ x²)^beta, the
// sum over channels c − floor((size − 1) / 2) .. c + ceil((size − 1) / 2) that exist.
Outputs lrn(const Ctx& c) {
    const Value& x = c.x(0);
    need_rank(c.n, x, 3, 8, "the input");
    const int64_t size = c.n.get_int("size", 0);
    if (size <= 0) {
        fail(c.n, "its size must be positive");
    }
    const double alpha = c.n.get_float("alpha", 1e-4f), beta = c.n.get_float("beta", 0.75f),
                 bias = c.n.get_float("bias", 1.0f);
    const std::vector<float> xf = as_floats(x);
    const int64_t n = x.shape[0], ch = x.shape[1];
    const size_t plane = n * ch == 0 ? 0 : xf.size() / static_cast<size_t>(n * ch);
    std::vector<float> y(xf.size());
    const int64_t lo = (size - 1) / 2, hi = size - 1 - lo;
    for (int64_t in = 0; in < n; ++in) {
        for (int64_t cc = 0; cc < ch; ++cc) {
            for (size_t k = 0; k < plane; ++k) {
                double sq = 0;
                for (int64_t j = std::max<int64_t>(0, cc - lo); j <= std::min(ch - 1, cc + hi);
                     ++j) {
                    const auto v =
                        static_cast<double>(xf[static_cast<size_t>(in * ch + j) * plane + k]);
                    sq += v * v;
                }
                const size_t at = static_cast<size_t>(in * ch + cc) * plane + k;
                y[at] = static_cast<float>(
                    static_cast<double>(xf[at]) /
                    std::pow(bias + alpha / static_cast<double>(size) * sq, beta));
            }
        }
    }
    return one(Value::floats(x.shape, std::move(y)));
}

Outputs softmax(const Ctx& c, int64_t opset, bool log) {
    const Value& x = c.x(0);
    std::vector<float> xf_scratch;
    const std::vector<float>& xf = floats_of(x, xf_scratch);
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
        return one(Value::floats(x.shape, std::move(y)));
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
    return one(Value::floats(x.shape, std::move(y)));
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
    std::vector<float> as, bs;
    const std::vector<float>& af = floats_of(a, as);
    const std::vector<float>& bf = floats_of(b, bs);
    const size_t outs = checked_numel(c.n, {m, n});
    check_work(c.n, outs, static_cast<uint64_t>(k));
    std::vector<float> y(outs);
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
    return one(Value::floats({m, n}, std::move(y)));
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
    std::vector<float> a_scratch, b_scratch;
    const std::vector<float>& af = floats_of(c.x(0), a_scratch);
    const std::vector<float>& bf = floats_of(c.x(1), b_scratch);
    const size_t outs = checked_numel(c.n, {static_cast<int64_t>(oa.size()), m, n});
    check_work(c.n, outs, static_cast<uint64_t>(k));
    std::vector<float> y(outs);
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
    return one(Value::floats(out, std::move(y)));
}

}  // namespace npu::onnx::detail
