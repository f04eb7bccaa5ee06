// Compiled with -ffp-contract=off (CMakeLists.txt), as every kernel file: no operation here is
// fused unless it says so.
#include "platforms/k210/kmodel/cpu_ops_v3.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "platforms/k210/kmodel/cpu_ops_detail.h"

namespace npu::k210 {

using namespace cpu_detail;

namespace {

V3Shape read_v3_shape(sim::ByteReader& r, const char* what) {
    const size_t at = r.pos();
    V3Shape s;
    s.width = r.u32(what);
    s.height = r.u32(what);
    s.channels = r.u32(what);
    if (s.width > (1u << 24) || s.height > (1u << 24) || s.channels > (1u << 24)) {
        r.fail(at, what,
               fmt::format("{}x{}x{} (width, height, channels): expected each within 0..2^24",
                           s.width, s.height, s.channels));
    }
    return s;
}

// RV64 shifts of a 64-bit register use the amount mod 64.
int64_t sra(int64_t v, int64_t amount) {
    return v >> (static_cast<uint64_t>(amount) & 63u);
}

int64_t mul64(int64_t a, int64_t b) {  // wrapping
    return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}

int64_t add64(int64_t a, int64_t b) {  // wrapping
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

}  // namespace

V3QuantizedAdd read_v3_quantized_add(sim::ByteReader& r) {
    V3QuantizedAdd q;
    r.u32("QUANTIZED_ADD flags");
    q.a_address = r.u32("main_mem_in_a_address");
    q.b_address = r.u32("main_mem_in_b_address");
    q.out_address = r.u32("main_mem_out_address");
    q.count = r.u32("count");
    q.a_offset = r.i32("in_a_offset");
    q.a_mul = r.i32("in_a_mul");
    q.a_shift = r.i32("in_a_shift");
    q.b_offset = r.i32("in_b_offset");
    q.b_mul = r.i32("in_b_mul");
    q.b_shift = r.i32("in_b_shift");
    q.out_offset = r.i32("out_offset");
    q.out_mul = r.i32("out_mul");
    q.out_shift = r.i32("out_shift");
    return q;
}

int64_t kpu_carry_shift(int64_t value, uint32_t shift) {
    if (shift > 0) {
        value = sra(value, static_cast<int64_t>(shift - 1));
        if ((value & 1) != 0) {
            value = value < 0 ? (value >> 1) - 1 : (value >> 1) + 1;
        } else {
            value >>= 1;
        }
    }
    return value;
}

void quantized_add_v3(const uint8_t* a, const uint8_t* b, const V3QuantizedAdd& p, uint8_t* out) {
    const uint64_t n = p.aligned_count();
    for (uint64_t i = 0; i < n; ++i) {
        const int64_t va = mul64(int64_t{a[i]} + p.a_offset, p.a_mul);  // (in 64 bits: no overflow)
        const int64_t vb = mul64(int64_t{b[i]} + p.b_offset, p.b_mul);
        int64_t v = p.a_shift == p.b_shift ? sra(add64(va, vb), p.a_shift)
                                           : add64(sra(va, p.a_shift), sra(vb, p.b_shift));
        v = kpu_carry_shift(mul64(v, p.out_mul), static_cast<uint32_t>(p.out_shift));
        v = add64(v, p.out_offset);
        out[i] = static_cast<uint8_t>(std::clamp<int64_t>(v, 0, 255));
    }
}

V3Pool read_v3_pool(sim::ByteReader& r, bool average) {
    V3Pool p;
    r.u32(average ? "AVERAGE_POOL2D flags" : "QUANTIZED_MAX_POOL2D flags");
    p.in_address = r.u32("main_mem_in_address");
    p.out_address = r.u32("main_mem_out_address");
    p.in_shape = read_v3_shape(r, "in_shape");
    const size_t at = r.pos();
    p.out_shape = read_v3_shape(r, "out_shape");
    if (p.out_shape.channels > p.in_shape.channels) {
        r.fail(at, "out_shape",
               fmt::format("has {} channels, the input {}", p.out_shape.channels,
                           p.in_shape.channels));
    }
    const size_t at_k = r.pos();
    p.kernel_w = r.u32("kernel_width");
    p.kernel_h = r.u32("kernel_height");
    p.stride_w = r.u32("stride_width");
    p.stride_h = r.u32("stride_height");
    for (uint32_t v : {p.kernel_w, p.kernel_h, p.stride_w, p.stride_h}) {
        if (v < 1 || v > 65535) {
            r.fail(at_k, "kernel_width, kernel_height, stride_width, stride_height",
                   fmt::format("{}, {}, {}, {}: expected each within 1..65535", p.kernel_w,
                               p.kernel_h, p.stride_w, p.stride_h));
        }
    }
    const size_t at_p = r.pos();
    p.pad_w = r.u32("padding_width");
    p.pad_h = r.u32("padding_height");
    if (p.pad_w > 65535 || p.pad_h > 65535) {
        r.fail(at_p, "padding_width, padding_height",
               fmt::format("{}, {}: expected each within 0..65535", p.pad_w, p.pad_h));
    }
    if (average) {
        p.act = r.u32("act");
    }
    return p;
}

int64_t v3_pool_tap_end(uint32_t kernel, uint32_t size, int32_t origin) {
    return static_cast<int32_t>(std::min(kernel, size - static_cast<uint32_t>(origin)));
}

namespace {

// Calls tap(in_index) for each in-bounds tap of each output, in kpu.c's order, and done(out
// index, tap count) after each output.
template <class Tap, class Done>
void walk_v3_pool(const V3Pool& p, Tap&& tap, Done&& done) {
    const V3Shape &is = p.in_shape, &os = p.out_shape;
    uint64_t o = 0;
    for (uint32_t c = 0; c < os.channels; ++c) {
        const uint64_t base = uint64_t{is.width} * is.height * c;
        for (uint32_t oy = 0; oy < os.height; ++oy) {
            for (uint32_t ox = 0; ox < os.width; ++ox) {
                const auto x0 = static_cast<int32_t>(ox * p.stride_w - p.pad_w);
                const auto y0 = static_cast<int32_t>(oy * p.stride_h - p.pad_h);
                const int64_t kx1 = v3_pool_tap_end(p.kernel_w, is.width, x0);
                const int64_t ky1 = v3_pool_tap_end(p.kernel_h, is.height, y0);
                int32_t count = 0;
                for (int64_t ky = std::max(0, -y0); ky < ky1; ++ky) {
                    for (int64_t kx = std::max(0, -x0); kx < kx1; ++kx) {
                        tap(base + static_cast<uint64_t>((y0 + ky) * is.width + x0 + kx));
                        ++count;
                    }
                }
                done(o++, count);
            }
        }
    }
}

}  // namespace

void max_pool_v3(const uint8_t* in, const V3Pool& p, uint8_t* out) {
    uint8_t v = 0;
    walk_v3_pool(
        p, [&](uint64_t i) { v = std::max(v, in[i]); },
        [&](uint64_t o, int32_t) {
            out[o] = v;
            v = 0;
        });
}

void average_pool_v3(const float* in, const V3Pool& p, float* out) {
    float v = 0;
    walk_v3_pool(
        p, [&](uint64_t i) { v = v + in[i]; },
        [&](uint64_t o, int32_t count) {
            out[o] = v / static_cast<float>(count);  // kernel_count is a float counter
            v = 0;
        });
}

V3Requantize read_v3_requantize(sim::ByteReader& r) {
    V3Requantize q;
    r.u32("REQUANTIZE flags");
    q.in_address = r.u32("main_mem_in_address");
    q.out_address = r.u32("main_mem_out_address");
    q.count = r.u32("count");
    const uint8_t* t = r.bytes(256, "table");
    q.table.assign(t, t + 256);
    return q;
}

V3Channels read_v3_channels(sim::ByteReader& r, const char* layer) {
    V3Channels c;
    r.u32(fmt::format("{} flags", layer).c_str());
    c.in_address = r.u32("main_mem_in_address");
    c.out_address = r.u32("main_mem_out_address");
    c.channels = r.u32("channels");
    return c;
}

void l2_normalization_v3(const float* in, size_t n, float* out, bool fma) {
    float sum = 0.0f;
    for (size_t i = 0; i < n; ++i) {
        sum = mul_add(in[i], in[i], sum, fma);
    }
    const float epsilon = 1e-10f;
    if (sum < epsilon) {
        sum = epsilon;
    }
    sum = 1.0f / std::sqrt(sum);
    for (size_t i = 0; i < n; ++i) {
        out[i] = in[i] * sum;
    }
}

void logistic_v3(const float* in, size_t n, float* out) {
    for (size_t i = 0; i < n; ++i) {
        out[i] = 1.0f / (1.0f + std::exp(-in[i]));
    }
}

V3Flatten read_v3_flatten(sim::ByteReader& r) {
    V3Flatten f;
    r.u32("TENSORFLOW_FLATTEN flags");
    f.in_address = r.u32("main_mem_in_address");
    f.out_address = r.u32("main_mem_out_address");
    f.shape = read_v3_shape(r, "shape");
    return f;
}

void flatten_v3(const float* in, const V3Shape& s, float* out) {
    if (s.elements() == 0) {
        return;  // (the other dimensions may still span 2^24 each: no empty loops)
    }
    for (uint64_t y = 0; y < s.height; ++y) {
        for (uint64_t x = 0; x < s.width; ++x) {
            for (uint64_t c = 0; c < s.channels; ++c) {
                *out++ = in[(c * s.height + y) * s.width + x];
            }
        }
    }
}

V3Resize read_v3_resize(sim::ByteReader& r) {
    V3Resize z;
    r.u32("RESIZE_NEAREST_NEIGHBOR flags");
    z.in_address = r.u32("main_mem_in_address");
    z.out_address = r.u32("main_mem_out_address");
    z.in_shape = read_v3_shape(r, "in_shape");
    const size_t at = r.pos();
    z.out_width = r.u32("out_width");
    z.out_height = r.u32("out_height");
    if (z.out_width < 1 || z.out_height < 1 || z.out_width > (1u << 24) ||
        z.out_height > (1u << 24)) {
        r.fail(at, "out_width, out_height",
               fmt::format("{}x{}: expected each within 1..2^24", z.out_width, z.out_height));
    }
    r.u32("align_corners");
    return z;
}

V3ChannelwiseDequantize read_v3_channelwise_dequantize(sim::ByteReader& r) {
    V3ChannelwiseDequantize d;
    r.u32("CHANNELWISE_DEQUANTIZE flags");
    d.in_address = r.u32("main_mem_in_address");
    d.out_address = r.u32("main_mem_out_address");
    d.channels = r.count("channels", 8);  // a {scale, bias} pair per channel
    d.channel_size = r.u32("channel_size");
    for (uint32_t c = 0; c < d.channels; ++c) {
        d.scale.push_back(r.f32("quant_params scale"));
        d.bias.push_back(r.f32("quant_params bias"));
    }
    return d;
}

void channelwise_dequantize_v3(const uint8_t* in, const V3ChannelwiseDequantize& p, float* out,
                               bool fma) {
    for (uint32_t c = 0; c < p.channels; ++c) {
        for (uint32_t i = 0; i < p.channel_size; ++i) {
            *out++ = mul_add(static_cast<float>(*in++), p.scale[c], p.bias[c], fma);
        }
    }
}

}  // namespace npu::k210
