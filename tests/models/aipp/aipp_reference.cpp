#include "tests/models/aipp/aipp_reference.h"

#include <algorithm>

#include "sim/core/tensor.h"

namespace npu::test {

using aipp::InputFormat;
using aipp::OutputType;

namespace {

uint16_t dtc(const aipp::Params& p, const aipp::Fidelity& f, uint8_t v, uint32_t k) {
    const int d = static_cast<int>(v) - p.dtc_mean[k];
    if (p.output == OutputType::i8) {
        const int q = f.saturate ? std::max(-128, std::min(127, d)) : d;
        return static_cast<uint8_t>(static_cast<int8_t>(q));
    }
    if (p.output == OutputType::f16) {
        // half arithmetic: each operation's exact result rounded to half
        const double a = static_cast<double>(sim::half_to_float(sim::double_to_half(d)));
        const double min = static_cast<double>(sim::half_to_float(p.dtc_min[k]));
        const double var = static_cast<double>(sim::half_to_float(p.dtc_var[k]));
        const double b = static_cast<double>(sim::half_to_float(sim::double_to_half(a - min)));
        return sim::double_to_half(b * var);
    }
    return v;
}

uint8_t store(int v, const aipp::Fidelity& f) {  // the model's uint8 dstVal
    return f.saturate ? static_cast<uint8_t>(std::max(0, std::min(255, v)))
                      : static_cast<uint8_t>(v);
}

int divide(int sum, const aipp::Fidelity& f) {
    return f.csc_round_add_128 ? (sum + 128) / 256 : (sum >= 0 ? sum / 256 : -((-sum + 255) / 256));
}

}  // namespace

std::vector<uint16_t> aipp_reference(const aipp::Params& p, const aipp::LoadParams& l,
                                     const aipp::Fidelity& f, const std::vector<uint8_t>& src0,
                                     const std::vector<uint8_t>& src1) {
    uint32_t vert = l.vert_size, top = l.top_pad, bot = l.bot_pad;
    if (p.single_line) {
        vert = 1;
    }
    if (p.padding_mode == 0) {
        top = 0, bot = 0;
    }
    const uint32_t c0 = p.c_padding_mode == 0 ? (p.output == OutputType::f16 ? 16 : 32) : 4;
    const uint32_t channels = (!p.csc_enable && p.format == InputFormat::YUV400_U8) ? 1 : 3;
    uint32_t src0_channels = channels;
    if (p.format == InputFormat::YUV420SP_U8 || p.format == InputFormat::YUV400_U8) {
        src0_channels = 1;
    } else if (p.format == InputFormat::XRGB8888_U8) {
        src0_channels = 4;
    }
    const uint32_t height = vert + top + bot, width = l.horiz_size + l.left_pad + l.right_pad;
    const uint32_t size = height * width * c0;
    std::vector<uint16_t> dst(size, 0xdead);
    const bool xrgb = p.format == InputFormat::XRGB8888_U8,
               rgb = p.format == InputFormat::RGB888_U8;
    const bool yuv420 = p.format == InputFormat::YUV420SP_U8,
               yuv400 = p.format == InputFormat::YUV400_U8;
    const auto bias_in = f.bias_roles_as_labelled ? p.csc_bias_out : p.csc_bias_in;
    const auto bias_out = f.bias_roles_as_labelled ? p.csc_bias_in : p.csc_bias_out;
    auto m = [&](uint32_t r, uint32_t c) {
        return static_cast<int>(p.csc_matrix[r * 3 + c]);
    };

    // Pass 1.
    for (uint32_t n = 0; n < size; ++n) {
        const uint32_t i = n / (width * c0), j = n % (width * c0) / c0, k_out = n % c0;
        uint32_t k = k_out;
        if (k >= channels) {
            dst[n] = p.c_padding_value;
            continue;
        }
        if (!(i >= top && i < top + vert && j >= l.left_pad && j < l.horiz_size + l.left_pad)) {
            continue;
        }
        uint8_t val = 0;
        const uint32_t ii = l.vert_start + i - top, jj = l.horiz_start + j - l.left_pad;
        const uint32_t s0 = ii * l.src_horiz_size * src0_channels + jj * src0_channels;
        if (p.csc_enable) {
            if (rgb || xrgb) {
                uint8_t r, g, b;
                if (xrgb && p.swap_ax && p.swap_rb) {
                    r = src0[s0 + 3], g = src0[s0 + 2], b = src0[s0 + 1];
                } else if (xrgb && p.swap_ax) {
                    r = src0[s0 + 1], g = src0[s0 + 2], b = src0[s0 + 3];
                } else if (p.swap_rb) {
                    r = src0[s0 + 2], g = src0[s0 + 1], b = src0[s0];
                } else {
                    r = src0[s0], g = src0[s0 + 1], b = src0[s0 + 2];
                }
                val = store(divide(r * m(k, 0) + g * m(k, 1) + b * m(k, 2), f) + bias_out[k], f);
            } else {
                const uint8_t y = src0[s0];
                uint8_t u = yuv400 ? f.yuv400_chroma : 0, v = yuv400 ? f.yuv400_chroma : 0;
                if (yuv420) {
                    const uint32_t s1 = (l.vert_start / 2 + (i - top) / 2) * l.src_horiz_size +
                                        l.horiz_start + (j - l.left_pad) / 2 * 2;
                    u = p.swap_uv ? src1[s1 + 1] : src1[s1];
                    v = p.swap_uv ? src1[s1] : src1[s1 + 1];
                }
                val = store(divide((y - bias_in[0]) * m(k, 0) + (u - bias_in[1]) * m(k, 1) +
                                       (v - bias_in[2]) * m(k, 2),
                                   f),
                            f);
            }
        } else {
            if (p.swap_ax && p.swap_rb && xrgb) {
                k = channels - k;
            } else if (p.swap_uv && yuv420) {
                k = k > 0 ? channels - k : k;
            } else if (p.swap_ax && xrgb) {
                k = k + 1;
            } else if (p.swap_rb && (rgb || xrgb)) {
                k = channels - 1 - k;
            }
            if (yuv420 && k != 0) {
                const uint32_t s1 = (l.vert_start / 2 + (i - top) / 2) * l.src_horiz_size +
                                    l.horiz_start + (j - l.left_pad) / 2 * 2 + k - 1;
                val = src1[s1];
            } else {
                val = src0[s0 + k];
            }
        }
        dst[n] = dtc(p, f, val, k_out);
    }

    // Pass 2.
    const uint32_t pad_channels = p.padding_mode == 0 ? 4 : channels;
    for (uint32_t n = 0; n < size; ++n) {
        const uint32_t i = n / (width * c0), j = n % (width * c0) / c0, k = n % c0;
        if (k >= pad_channels ||
            !(i < top || i >= top + vert || j < l.left_pad || j >= l.horiz_size + l.left_pad)) {
            continue;
        }
        if (p.padding_mode == 0) {
            dst[n] = p.padding_value[k];
            continue;
        }
        uint32_t ii = i, jj = j;
        if (p.padding_mode == 1) {
            ii = i < top ? top : (i < top + vert ? i : top + vert - 1);
            jj = j < l.left_pad
                     ? l.left_pad
                     : (j < l.horiz_size + l.left_pad ? j : l.left_pad + l.horiz_size - 1);
        } else if (p.padding_mode == 2) {
            ii = i < top ? top + i : (i < top + vert ? i : i - bot);
            jj = j < l.left_pad ? l.left_pad + j
                                : (j < l.horiz_size + l.left_pad ? j : j - l.right_pad);
        } else {
            ii = i < top ? top * 2 - i - 1 : (i < top + vert ? i : i - (i - top - vert) * 2 - 1);
            jj = j < l.left_pad ? l.left_pad * 2 - j - 1
                                : (j < l.horiz_size + l.left_pad
                                       ? j
                                       : j - (j - l.left_pad - l.horiz_size) * 2 - 1);
        }
        dst[n] = dst[ii * width * c0 + jj * c0 + k];
    }
    return dst;
}

}  // namespace npu::test
