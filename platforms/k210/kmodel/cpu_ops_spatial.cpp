// Compiled with -ffp-contract=off (CMakeLists.txt), as every kernel file: no operation here is
// fused unless it says so.
#include "platforms/k210/kmodel/cpu_ops_spatial.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <tuple>

#include <fmt/format.h>

#include "platforms/k210/kmodel/cpu_ops_detail.h"

namespace npu::k210 {

namespace cpu_detail {

std::vector<uint8_t> read_u8s(sim::ByteReader& r, uint64_t n, const char* what) {
    if (n > r.remaining()) {
        r.fail(r.pos(), what,
               fmt::format("{} bytes do not fit in the {} that follow", n, r.remaining()));
    }
    const uint8_t* p = r.bytes(static_cast<size_t>(n), what);
    return {p, p + n};
}

void read_matmul_dims(sim::ByteReader& r, const char* op, int32_t& a_rows, int32_t& a_cols,
                      int32_t& b_cols) {
    const size_t at = r.pos();
    const auto field = [op](const char* f) {
        return std::string(op) + " " + f;
    };
    a_rows = r.i32(field("a_rows").c_str());
    a_cols = r.i32(field("a_cols").c_str());
    b_cols = r.i32(field("b_cols").c_str());
    for (int32_t d : {a_rows, a_cols, b_cols}) {
        if (d < 0 || d > (1 << 24)) {
            r.fail(
                at, field("a_rows, a_cols, b_cols").c_str(),
                fmt::format("({}, {}, {}): expected each within 0..2^24", a_rows, a_cols, b_cols));
        }
    }
}

}  // namespace cpu_detail

using namespace cpu_detail;

std::vector<int32_t> read_i32s(sim::ByteReader& r, uint64_t n, const char* what) {
    if (n > r.remaining() / 4) {
        r.fail(r.pos(), what,
               fmt::format("{} int32 values do not fit in the {} bytes that follow", n,
                           r.remaining()));
    }
    std::vector<int32_t> v(static_cast<size_t>(n));
    for (int32_t& x : v) {
        x = r.i32(what);
    }
    return v;
}

// ---------------------------------------------------------------- resize_image

V4ResizeImage read_v4_resize_image(sim::ByteReader& r) {
    V4ResizeImage p;
    p.in = read_memory_range(r, "resize_image input");
    p.out = read_memory_range(r, "resize_image output");
    p.in_shape = read_dims(r, "resize_image in_shape");
    const size_t at = r.pos();
    p.out_h = r.i32("resize_image out_h");
    p.out_w = r.i32("resize_image out_w");
    if (p.out_h < 1 || p.out_w < 1 || p.out_h > (1 << 24) || p.out_w > (1 << 24)) {
        r.fail(at, "resize_image out_h, out_w",
               fmt::format("{}x{}: expected each within 1..2^24", p.out_h, p.out_w));
    }
    p.mode =
        static_cast<ResizeMode>(read_enum(r, "resize_image mode", 1, "bilinear, nearest_neighbor"));
    const size_t at_align = r.pos();
    const uint8_t align = r.u8("resize_image align_corners");
    if (align > 1) {
        r.fail(at_align, "resize_image align_corners",
               fmt::format("is {}, expected a bool (0 or 1)", align));
    }
    p.align_corners = align == 1;
    return p;  // (the struct's 3 bytes of tail padding are not read: the last body may lack them)
}

namespace {

float load_elem(const uint8_t* p, size_t elem) {
    if (elem == 1) {
        return static_cast<float>(*p);
    }
    float f = 0;
    std::memcpy(&f, p, 4);
    return f;
}

void store_elem(uint8_t* p, size_t elem, float v) {
    if (elem == 1) {
        *p = static_cast<uint8_t>(static_cast<int32_t>(v));  // T(v): truncation, v in 0..255
    } else {
        std::memcpy(p, &v, 4);
    }
}

}  // namespace

void resize_image(const uint8_t* in, size_t elem, const V4ResizeImage& p, uint8_t* out, bool fma) {
    const Shape4& s = p.in_shape;
    float hs = static_cast<float>(s[2]) / static_cast<float>(p.out_h);
    float ws = static_cast<float>(s[3]) / static_cast<float>(p.out_w);
    const bool bilinear = p.mode == ResizeMode::bilinear;
    if (bilinear && p.align_corners && p.out_h > 1) {
        hs = static_cast<float>(s[2] - 1) / static_cast<float>(p.out_h - 1);
    }
    if (bilinear && p.align_corners && p.out_w > 1) {
        ws = static_cast<float>(s[3] - 1) / static_cast<float>(p.out_w - 1);
    }
    const size_t plane = static_cast<size_t>(s[2]) * static_cast<size_t>(s[3]);
    const auto at = [&](const uint8_t* c, int32_t y, int32_t x) {
        return load_elem(
            c + (static_cast<size_t>(y) * static_cast<size_t>(s[3]) + static_cast<size_t>(x)) *
                    elem,
            elem);
    };
    for (int64_t nc = 0; nc < int64_t{s[0]} * s[1]; ++nc) {
        const uint8_t* c = in + static_cast<size_t>(nc) * plane * elem;
        for (int32_t oy = 0; oy < p.out_h; ++oy) {
            const float y = static_cast<float>(oy) * hs;
            // (The min() only guards float rounding at extreme sizes: nncase reads no further.)
            const int32_t y0 = std::min(static_cast<int32_t>(std::floor(y)), s[2] - 1);
            const int32_t y1 = std::min(y0 + 1, s[2] - 1);
            for (int32_t ox = 0; ox < p.out_w; ++ox) {
                const float x = static_cast<float>(ox) * ws;
                const int32_t x0 = std::min(static_cast<int32_t>(std::floor(x)), s[3] - 1);
                if (!bilinear) {
                    store_elem(out, elem, at(c, y0, x0));
                    out += elem;
                    continue;
                }
                const int32_t x1 = std::min(x0 + 1, s[3] - 1);
                const float dy = y - static_cast<float>(y0), dx = x - static_cast<float>(x0);
                const float a0 = (1 - dy) * (1 - dx), a1 = dy * (1 - dx), a2 = (1 - dy) * dx,
                            a3 = dy * dx;
                const float v0 = at(c, y0, x0), v1 = at(c, y1, x0), v2 = at(c, y0, x1),
                            v3 = at(c, y1, x1);
                const float v = fma ? std::fma(v3, a3, std::fma(v2, a2, std::fma(v0, a0, v1 * a1)))
                                    : v0 * a0 + v1 * a1 + v2 * a2 + v3 * a3;
                store_elem(out, elem, v);
                out += elem;
            }
        }
    }
}

// ---------------------------------------------------------------- strided_slice

V4StridedSlice read_v4_strided_slice(sim::ByteReader& r) {
    V4StridedSlice p;
    p.in = read_memory_range(r, "strided_slice input");
    p.out = read_memory_range(r, "strided_slice output");
    p.in_shape = read_dims(r, "strided_slice in_shape");
    p.begin = read_shape(r, "strided_slice begin");
    p.end = read_shape(r, "strided_slice end");
    const size_t at = r.pos();
    p.strides = read_shape(r, "strided_slice strides");
    for (int32_t s : p.strides) {
        if (s == 0) {
            r.fail(at, "strided_slice strides",
                   fmt::format("({}, {}, {}, {}) has a zero stride (the runtime would loop "
                               "forever)",
                               p.strides[0], p.strides[1], p.strides[2], p.strides[3]));
        }
    }
    for (const char* mask :
         {"begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask"}) {
        r.i32(mask);  // resolved by the compiler; the runtime does not use them
    }
    return p;
}

int64_t slice_count(const V4StridedSlice& p, size_t k) {
    const int64_t b = p.begin[k], e = p.end[k], s = p.strides[k];
    const int64_t span = s > 0 ? e - b : b - e;
    const int64_t step = s > 0 ? s : -s;
    return span > 0 ? (span + step - 1) / step : 0;
}

void strided_slice(const uint8_t* in, size_t elem, const V4StridedSlice& p, uint8_t* out) {
    const Shape4& s = p.in_shape;
    Shape4 i{};
    const int64_t n[4] = {slice_count(p, 0), slice_count(p, 1), slice_count(p, 2),
                          slice_count(p, 3)};
    if (n[0] == 0 || n[1] == 0 || n[2] == 0 || n[3] == 0) {
        return;  // an empty slice (the other dimensions may span 2^32 indices each)
    }
    for (int64_t a = 0; a < n[0]; ++a) {
        i[0] = static_cast<int32_t>(p.begin[0] + a * p.strides[0]);
        for (int64_t b = 0; b < n[1]; ++b) {
            i[1] = static_cast<int32_t>(p.begin[1] + b * p.strides[1]);
            for (int64_t c = 0; c < n[2]; ++c) {
                i[2] = static_cast<int32_t>(p.begin[2] + c * p.strides[2]);
                for (int64_t d = 0; d < n[3]; ++d) {
                    i[3] = static_cast<int32_t>(p.begin[3] + d * p.strides[3]);
                    const uint8_t* src = in + offset4(s, i) * elem;
                    out = std::copy(src, src + elem, out);
                }
            }
        }
    }
}

// ---------------------------------------------------------------- conv2d_transpose

V4Conv2dTranspose read_v4_conv2d_transpose(sim::ByteReader& r) {
    V4Conv2dTranspose c;
    c.in = read_memory_range(r, "conv2d_transpose input");
    c.out = read_memory_range(r, "conv2d_transpose output");
    c.in_shape = read_dims(r, "conv2d_transpose in_shape");
    c.out_shape = read_dims(r, "conv2d_transpose out_shape");
    const size_t at = r.pos();
    c.groups = r.i32("conv2d_transpose groups");
    if (c.groups < 1 || c.in_shape[1] % c.groups != 0 || c.out_shape[1] % c.groups != 0 ||
        c.out_shape[1] < 1 || c.in_shape[0] != c.out_shape[0]) {
        r.fail(at, "conv2d_transpose groups",
               fmt::format("groups {} with in_shape ({}, {}, {}, {}) and out_shape ({}, {}, {}, "
                           "{}): expected groups ≥ 1 dividing both channel counts and one "
                           "batch count",
                           c.groups, c.in_shape[0], c.in_shape[1], c.in_shape[2], c.in_shape[3],
                           c.out_shape[0], c.out_shape[1], c.out_shape[2], c.out_shape[3]));
    }
    c.win = read_window2d(r, "conv2d_transpose");
    c.act = read_value_range(r, "conv2d_transpose fused_activation");
    const uint64_t n =
        static_cast<uint64_t>(c.out_shape[1]) * static_cast<uint64_t>(c.in_shape[1] / c.groups) *
        static_cast<uint64_t>(c.win.filter_h) * static_cast<uint64_t>(c.win.filter_w);
    c.weights = read_f32s(r, n, "conv2d_transpose weights");
    c.bias = read_f32s(r, static_cast<uint64_t>(c.out_shape[1]), "conv2d_transpose bias");
    return c;
}

uint64_t conv2d_transpose_f32(const float* in, const V4Conv2dTranspose& p, float* out, bool fma) {
    const Shape4 &is = p.in_shape, &os = p.out_shape;
    const Window2d& w = p.win;
    const uint64_t n_out = shape_elements(os);
    std::fill(out, out + n_out, 0.0f);
    const int64_t g_ic = is[1] / p.groups, g_oc = os[1] / p.groups;
    const int64_t oplane = int64_t{os[2]} * os[3], fsize = int64_t{w.filter_h} * w.filter_w;
    uint64_t macs = 0;
    for (int64_t n = 0; n < is[0] && shape_elements(is) != 0; ++n) {
        for (int64_t g = 0; g < p.groups; ++g) {
            float* out_g = out + (n * os[1] + g * g_oc) * oplane;
            const float* w_g = p.weights.data() + g * g_oc * g_ic * fsize;
            for (int64_t ic = 0; ic < g_ic; ++ic) {
                for (int64_t iy = 0; iy < is[2]; ++iy) {
                    const int64_t y0 = iy * w.stride_h - w.pad_h.before;
                    const auto [ky0, ky1] = taps(y0, os[2], w.filter_h, w.dilation_h);
                    for (int64_t ix = 0; ix < is[3]; ++ix) {
                        const int64_t x0 = ix * w.stride_w - w.pad_w.before;
                        const auto [kx0, kx1] = taps(x0, os[3], w.filter_w, w.dilation_w);
                        const float v = *in++;
                        for (int64_t oc = 0; oc < g_oc; ++oc) {
                            float* out_c = out_g + oc * oplane;
                            const float* w_ic = w_g + (oc * g_ic + ic) * fsize;
                            for (int64_t ky = ky0; ky < ky1; ++ky) {
                                const int64_t y = y0 + w.dilation_h * ky;
                                for (int64_t kx = kx0; kx < kx1; ++kx) {
                                    float& o = out_c[y * os[3] + x0 + w.dilation_w * kx];
                                    o = mul_add(v, w_ic[ky * w.filter_w + kx], o, fma);
                                }
                            }
                        }
                        if (ky1 > ky0 && kx1 > kx0) {
                            macs += static_cast<uint64_t>(g_oc * (ky1 - ky0) * (kx1 - kx0));
                        }
                    }
                }
            }
        }
    }
    const float lowest = std::numeric_limits<float>::lowest();
    const float highest = std::numeric_limits<float>::max();
    if (p.act.min != lowest || p.act.max != highest) {  // value_range::full() is not applied
        for (uint64_t i = 0; i < n_out; ++i) {
            out[i] = activate(out[i], p.act);
        }
    }
    return macs;
}

// ---------------------------------------------------------------- quantized conv2d, matmul

V4QuantizedConv2d read_v4_quantized_conv2d(sim::ByteReader& r) {
    V4QuantizedConv2d c;
    c.in = read_memory_range(r, "quantized_conv2d input");
    c.out = read_memory_range(r, "quantized_conv2d output");
    c.in_shape = read_dims(r, "quantized_conv2d in_shape");
    std::tie(c.groups, c.out_channels) = read_groups(r, "quantized_conv2d", c.in_shape[1]);
    c.win = read_window2d(r, "quantized_conv2d");
    c.input_offset = r.i32("quantized_conv2d input_offset");
    c.filter_offset = r.i32("quantized_conv2d filter_offset");
    c.output_mul = r.i32("quantized_conv2d output_mul");
    c.output_shift = r.i32("quantized_conv2d output_shift");
    c.output_offset = r.i32("quantized_conv2d output_offset");
    c.bias = read_i32s(r, static_cast<uint64_t>(c.out_channels), "quantized_conv2d bias");
    const uint64_t n =
        static_cast<uint64_t>(c.out_channels) * static_cast<uint64_t>(c.in_shape[1] / c.groups) *
        static_cast<uint64_t>(c.win.filter_h) * static_cast<uint64_t>(c.win.filter_w);
    c.weights = read_u8s(r, n, "quantized_conv2d weights");
    return c;
}

uint64_t quantized_conv2d(const uint8_t* in, const V4QuantizedConv2d& p, uint8_t* out) {
    const Shape4& s = p.in_shape;
    const Window2d& w = p.win;
    const int64_t oh = w.out_h(s), ow = w.out_w(s);
    const int64_t g_ic = s[1] / p.groups, g_oc = p.out_channels / p.groups;
    const int64_t plane = int64_t{s[2]} * s[3], fsize = int64_t{w.filter_h} * w.filter_w;
    uint64_t macs = 0;
    for (int64_t n = 0; n < s[0]; ++n) {
        for (int64_t g = 0; g < p.groups; ++g) {
            const uint8_t* in_g = in + (n * s[1] + g * g_ic) * plane;
            for (int64_t oc = 0; oc < g_oc; ++oc) {
                const uint8_t* w_oc = p.weights.data() + (g * g_oc + oc) * g_ic * fsize;
                for (int64_t oy = 0; oy < oh; ++oy) {
                    const int64_t y0 = oy * w.stride_h - w.pad_h.before;
                    const auto [ky0, ky1] = taps(y0, s[2], w.filter_h, w.dilation_h);
                    for (int64_t ox = 0; ox < ow; ++ox) {
                        const int64_t x0 = ox * w.stride_w - w.pad_w.before;
                        const auto [kx0, kx1] = taps(x0, s[3], w.filter_w, w.dilation_w);
                        // 32-bit wrapping sums (addw/mulw): the same residues as uint32.
                        auto v = static_cast<uint32_t>(p.bias[static_cast<size_t>(g * g_oc + oc)]);
                        for (int64_t ic = 0; ic < g_ic; ++ic) {
                            const uint8_t* in_c = in_g + ic * plane;
                            const uint8_t* w_ic = w_oc + ic * fsize;
                            for (int64_t ky = ky0; ky < ky1; ++ky) {
                                const int64_t y = y0 + w.dilation_h * ky;
                                for (int64_t kx = kx0; kx < kx1; ++kx) {
                                    const uint32_t x = in_c[y * s[3] + x0 + w.dilation_w * kx] +
                                                       static_cast<uint32_t>(p.input_offset);
                                    const uint32_t f = w_ic[ky * w.filter_w + kx] +
                                                       static_cast<uint32_t>(p.filter_offset);
                                    v += x * f;
                                }
                            }
                        }
                        if (ky1 > ky0 && kx1 > kx0) {
                            macs += static_cast<uint64_t>(g_ic * (ky1 - ky0) * (kx1 - kx0));
                        }
                        const int32_t q = mul_and_carry_shift(static_cast<int32_t>(v), p.output_mul,
                                                              p.output_shift);
                        *out++ = clamp_u8(wrap(int64_t{q} + p.output_offset));
                    }
                }
            }
        }
    }
    return macs;
}

V4QuantizedMatmul read_v4_quantized_matmul(sim::ByteReader& r) {
    V4QuantizedMatmul m;
    m.a = read_memory_range(r, "quantized_matmul input_a");
    m.b = read_memory_range(r, "quantized_matmul input_b");
    m.out = read_memory_range(r, "quantized_matmul output");
    read_matmul_dims(r, "quantized_matmul", m.a_rows, m.a_cols, m.b_cols);
    m.a_offset = r.i32("quantized_matmul input_a_offset");
    m.b_offset = r.i32("quantized_matmul input_b_offset");
    m.output_mul = r.i32("quantized_matmul output_mul");
    m.output_shift = r.i32("quantized_matmul output_shift");
    m.output_offset = r.i32("quantized_matmul output_offset");
    m.bias = read_i32s(r, static_cast<uint64_t>(m.b_cols), "quantized_matmul bias");
    return m;
}

uint64_t quantized_matmul(const uint8_t* a, const uint8_t* b, const V4QuantizedMatmul& p,
                          uint8_t* out) {
    const auto rows = static_cast<size_t>(p.a_rows), cols = static_cast<size_t>(p.a_cols),
               bcols = static_cast<size_t>(p.b_cols);
    for (size_t r = 0; r < rows; ++r) {
        for (size_t c = 0; c < bcols; ++c) {
            auto v = static_cast<uint32_t>(p.bias[c]);
            for (size_t i = 0; i < cols; ++i) {
                const uint32_t x = a[r * cols + i] + static_cast<uint32_t>(p.a_offset);
                const uint32_t y = b[i * bcols + c] + static_cast<uint32_t>(p.b_offset);
                v += x * y;
            }
            const int32_t q =
                mul_and_carry_shift(static_cast<int32_t>(v), p.output_mul, p.output_shift);
            out[r * bcols + c] = clamp_u8(wrap(int64_t{q} + p.output_offset));
        }
    }
    return static_cast<uint64_t>(rows) * cols * bcols;
}

}  // namespace npu::k210
