// Compiled with -ffp-contract=off (CMakeLists.txt), as every kernel file: no operation here is
// fused unless it says so.
#include "platforms/k210/kmodel/cpu_ops_nhwc.h"

#include <fmt/format.h>

#include "platforms/k210/kmodel/cpu_ops_detail.h"
#include "platforms/k210/kmodel/cpu_ops_spatial.h"

namespace npu::k210 {

using namespace cpu_detail;

NhwcConv read_nhwc_conv(sim::ByteReader& r, bool depthwise, bool quantized) {
    const char* op = quantized
                         ? (depthwise ? "cpu_quantized_depthwise_conv2d" : "cpu_quantized_conv2d")
                         : (depthwise ? "cpu_depthwise_conv2d" : "cpu_conv2d");
    const auto field = [op](const char* f) {
        return std::string(op) + " " + f;
    };
    NhwcConv c;
    c.depthwise = depthwise;
    c.quantized = quantized;
    c.in = read_memory_range(r, field("input").c_str());
    c.out = read_memory_range(r, field("output").c_str());
    c.in_shape = read_dims(r, field("in_shape").c_str());
    if (depthwise) {
        c.out_channels = c.in_shape[3];
    } else {
        const size_t at = r.pos();
        c.out_channels = r.i32(field("out_channels").c_str());
        if (c.out_channels < 1 || c.out_channels > (1 << 24)) {
            r.fail(at, field("out_channels").c_str(),
                   fmt::format("is {}, expected 1..2^24", c.out_channels));
        }
    }
    c.win = read_window2d(r, op);
    const uint64_t per_oc = static_cast<uint64_t>(c.win.filter_h) *
                            static_cast<uint64_t>(c.win.filter_w) *
                            (depthwise ? 1u : static_cast<uint64_t>(c.in_shape[3]));
    const uint64_t n_w = per_oc * static_cast<uint64_t>(c.out_channels);
    if (!quantized) {
        c.act = read_value_range(r, field("fused_activation").c_str());
        c.weights = read_f32s(r, n_w, field("weights").c_str());
        c.bias = read_f32s(r, static_cast<uint64_t>(c.out_channels), field("bias").c_str());
        return c;
    }
    c.input_offset = r.i32(field("input_offset").c_str());
    c.filter_offset = r.i32(field("filter_offset").c_str());
    c.output_mul = r.i32(field("output_mul").c_str());
    c.output_shift = r.i32(field("output_shift").c_str());
    c.output_offset = r.i32(field("output_offset").c_str());
    c.qweights = read_u8s(r, n_w, field("weights").c_str());
    c.qbias = read_i32s(r, static_cast<uint64_t>(c.out_channels), field("bias").c_str());
    return c;
}

namespace {

// Walks the NHWC output in order and calls `cell(in_pixel_offset_fn, oc, ky0..ky1, kx0..kx1,
// y0, x0)` per output element; returns the taps visited times the channels per tap.
template <class Cell>
uint64_t walk_nhwc(const NhwcConv& p, Cell&& cell) {
    const Shape4& s = p.in_shape;  // N, H, W, C
    const Window2d& w = p.win;
    const Shape4 v = p.nchw();
    const int64_t oh = w.out_h(v), ow = w.out_w(v);
    const int64_t per_tap = p.depthwise ? 1 : s[3];
    uint64_t macs = 0;
    for (int64_t n = 0; n < s[0]; ++n) {
        for (int64_t oy = 0; oy < oh; ++oy) {
            const int64_t y0 = oy * w.stride_h - w.pad_h.before;
            const auto [ky0, ky1] = taps(y0, s[1], w.filter_h, w.dilation_h);
            for (int64_t ox = 0; ox < ow; ++ox) {
                const int64_t x0 = ox * w.stride_w - w.pad_w.before;
                const auto [kx0, kx1] = taps(x0, s[2], w.filter_w, w.dilation_w);
                for (int64_t oc = 0; oc < p.out_channels; ++oc) {
                    cell(n, oc, y0, x0, ky0, ky1, kx0, kx1);
                }
                if (ky1 > ky0 && kx1 > kx0) {
                    macs +=
                        static_cast<uint64_t>(p.out_channels * (ky1 - ky0) * (kx1 - kx0) * per_tap);
                }
            }
        }
    }
    return macs;
}

}  // namespace

uint64_t nhwc_conv_f32(const float* in, const NhwcConv& p, float* out, bool fma) {
    const Shape4& s = p.in_shape;
    const Window2d& w = p.win;
    const int64_t ic_n = p.depthwise ? 1 : s[3];
    return walk_nhwc(p, [&](int64_t n, int64_t oc, int64_t y0, int64_t x0, int64_t ky0, int64_t ky1,
                            int64_t kx0, int64_t kx1) {
        const float* w_oc = p.weights.data() + oc * w.filter_h * w.filter_w * ic_n;
        float v = p.bias[static_cast<size_t>(oc)];
        for (int64_t ky = ky0; ky < ky1; ++ky) {
            for (int64_t kx = kx0; kx < kx1; ++kx) {
                const int64_t y = y0 + w.dilation_h * ky, x = x0 + w.dilation_w * kx;
                const float* px = in + ((n * s[1] + y) * s[2] + x) * s[3];
                const float* wp = w_oc + (ky * w.filter_w + kx) * ic_n;
                if (p.depthwise) {
                    v = mul_add(px[oc], wp[0], v, fma);
                    continue;
                }
                for (int64_t ic = 0; ic < s[3]; ++ic) {
                    v = mul_add(px[ic], wp[ic], v, fma);
                }
            }
        }
        *out++ = activate(v, p.act);
    });
}

uint64_t nhwc_conv_u8(const uint8_t* in, const NhwcConv& p, uint8_t* out) {
    const Shape4& s = p.in_shape;
    const Window2d& w = p.win;
    const int64_t ic_n = p.depthwise ? 1 : s[3];
    const auto in_off = static_cast<uint32_t>(p.input_offset);
    const auto f_off = static_cast<uint32_t>(p.filter_offset);
    return walk_nhwc(p, [&](int64_t n, int64_t oc, int64_t y0, int64_t x0, int64_t ky0, int64_t ky1,
                            int64_t kx0, int64_t kx1) {
        const uint8_t* w_oc = p.qweights.data() + oc * w.filter_h * w.filter_w * ic_n;
        auto v = static_cast<uint32_t>(p.qbias[static_cast<size_t>(oc)]);  // 32-bit wrapping
        for (int64_t ky = ky0; ky < ky1; ++ky) {
            for (int64_t kx = kx0; kx < kx1; ++kx) {
                const int64_t y = y0 + w.dilation_h * ky, x = x0 + w.dilation_w * kx;
                const uint8_t* px = in + ((n * s[1] + y) * s[2] + x) * s[3];
                const uint8_t* wp = w_oc + (ky * w.filter_w + kx) * ic_n;
                for (int64_t ic = 0; ic < ic_n; ++ic) {
                    const uint32_t xv = (p.depthwise ? px[oc] : px[ic]) - in_off;
                    v += xv * (wp[ic] - f_off);
                }
            }
        }
        const int32_t q =
            mul_and_carry_shift(static_cast<int32_t>(v), p.output_mul, p.output_shift);
        *out++ = clamp_u8(wrap(int64_t{q} + p.output_offset));
    });
}

void nhwc_reduce_window2d_f32(const float* in, const V4ReduceWindow2d& p, float* out) {
    const Shape4& s = p.in_shape;  // N, H, W, C
    const Window2d& w = p.win;
    const Shape4 v{s[0], s[3], s[1], s[2]};
    const int64_t oh = w.out_h(v), ow = w.out_w(v);
    for (int64_t n = 0; n < s[0]; ++n) {
        for (int64_t oy = 0; oy < oh; ++oy) {
            const int64_t y0 = oy * w.stride_h - w.pad_h.before;
            const auto [ky0, ky1] = taps(y0, s[1], w.filter_h, w.dilation_h);
            for (int64_t ox = 0; ox < ow; ++ox) {
                const int64_t x0 = ox * w.stride_w - w.pad_w.before;
                const auto [kx0, kx1] = taps(x0, s[2], w.filter_w, w.dilation_w);
                for (int64_t c = 0; c < s[3]; ++c) {
                    float acc = p.init_value;
                    int32_t count = 0;
                    for (int64_t ky = ky0; ky < ky1; ++ky) {
                        for (int64_t kx = kx0; kx < kx1; ++kx) {
                            const int64_t y = y0 + w.dilation_h * ky, x = x0 + w.dilation_w * kx;
                            const float a = in[((n * s[1] + y) * s[2] + x) * s[3] + c];
                            acc = p.op == ReduceOp::min   ? (a < acc ? a : acc)
                                  : p.op == ReduceOp::max ? (acc < a ? a : acc)
                                                          : acc + a;
                            ++count;
                        }
                    }
                    if (p.op == ReduceOp::mean) {
                        acc = acc / static_cast<float>(count);
                    }
                    *out++ = activate(acc, p.act);
                }
            }
        }
    }
}

}  // namespace npu::k210
