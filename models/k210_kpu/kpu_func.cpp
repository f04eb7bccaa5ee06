#include "models/k210_kpu/kpu_func.h"

#include <algorithm>
#include <cstring>

#include <boost/endian/conversion.hpp>

#include "models/k210_kpu/kpu_arith.h"
#include "models/k210_kpu/kpu_conv.h"
#include "sim/core/error.h"

namespace npu::kpu {

using sim::sign_extend;

BnParam decode_bn(uint64_t w) {
    return {static_cast<int32_t>(sign_extend(w, 24)), static_cast<uint32_t>((w >> 56) & 0xf),
            static_cast<int32_t>(sign_extend(w >> 24, 32))};
}

uint64_t encode_bn(const BnParam& p) {
    return (static_cast<uint64_t>(static_cast<uint32_t>(p.mul)) & 0xffffff) |
           (static_cast<uint64_t>(static_cast<uint32_t>(p.add)) << 24) |
           (static_cast<uint64_t>(p.shift & 0xf) << 56);
}

ActTable decode_act(const uint8_t* bytes) {
    ActTable t;
    for (size_t i = 0; i < 16; ++i) {
        const uint64_t w = boost::endian::load_little_u64(bytes + 8 * i);
        t[i].shift = static_cast<uint32_t>(w & 0xff);
        t[i].y_mul = static_cast<int32_t>(sign_extend(w >> 8, 16));
        t[i].x_start = sign_extend(w >> 24, 36);
        t[i].bias = bytes[128 + i];  // result_bias[8] of bias0, then of bias1
    }
    return t;
}

void encode_act(const ActTable& t, uint8_t* bytes) {
    for (size_t i = 0; i < 16; ++i) {
        const uint64_t w =
            (t[i].shift & 0xffu) |
            ((static_cast<uint64_t>(static_cast<uint32_t>(t[i].y_mul)) & 0xffff) << 8) |
            ((static_cast<uint64_t>(t[i].x_start) & ((uint64_t{1} << 36) - 1)) << 24);
        boost::endian::store_little_u64(bytes + 8 * i, w);
        bytes[128 + i] = t[i].bias;
    }
}

int64_t act_shift(int64_t value, uint32_t shift, ActRounding rounding) {
    if (shift == 0) {
        return value;
    }
    shift = std::min(shift, 62u);  // shift_number is 8 bits; beyond 62 the result no longer changes
    if (rounding == ActRounding::Carry) {
        // nncase v0.1 CarryShift: shift by s-1, then halve rounding the odd bit away from zero.
        int64_t v = value >> (shift - 1);
        if ((v & 1) != 0) {
            return v < 0 ? (v >> 1) - 1 : (v >> 1) + 1;
        }
        return v >> 1;
    }
    // nncase v0.2/v1 carry_shift<int64_t, Banker = true>, step for step.
    const int64_t integral = value >> shift;
    const int64_t fractional = value & ((int64_t{1} << shift) - 1);
    const int64_t sign = value < 0 ? -1 : 1;
    const int64_t half = int64_t{1} << (shift - 1);
    if (fractional < half) {
        return integral;
    }
    if (fractional > half) {
        return integral + sign;
    }
    return (integral & 1) != 0 ? integral + sign : integral;
}

uint8_t activate(int64_t v, const ActTable& t, const Fidelity& f) {
    size_t seg = 0;  // no segment matches only below x_start[0] (nominally -2^35): use segment 0
    for (size_t i = 16; i-- > 0;) {
        if (f.segment == SegmentRule::GreaterThan ? v > t[i].x_start : v >= t[i].x_start) {
            seg = i;
            break;
        }
    }
    const ActSegment& s = t[seg];
    const int64_t y =
        wrap_add(act_shift(wrap_mul(wrap_sub(v, s.x_start), s.y_mul), s.shift, f.rounding), s.bias);
    return static_cast<uint8_t>(std::clamp<int64_t>(y, 0, 255));
}

bool limit36(int64_t& v, Overflow policy) {
    if (v >= kMin36 && v <= kMax36) {
        return false;
    }
    if (policy == Overflow::Wrap36) {
        v = sign_extend(static_cast<uint64_t>(v), 36);
    } else if (policy == Overflow::Saturate36) {
        v = std::clamp(v, kMin36, kMax36);
    }
    return true;
}

namespace {

struct PoolShape {
    int filter, stride, off_y, off_x;
    enum Kind { Copy, Max, Mean, Pick } kind;
};

PoolShape pool_shape(uint32_t type) {
    switch (type) {
    case 1: return {2, 2, 0, 0, PoolShape::Max};
    case 2: return {2, 2, 0, 0, PoolShape::Mean};
    case 3: return {4, 4, 0, 0, PoolShape::Max};
    case 4: return {4, 4, 0, 0, PoolShape::Mean};
    case 5: return {1, 2, 0, 0, PoolShape::Pick};  // left top of 2x2
    case 6: return {1, 2, 0, 1, PoolShape::Pick};  // right top of 2x2
    case 7: return {1, 4, 0, 0, PoolShape::Pick};  // left top of 4x4
    case 8: return {2, 1, 0, 0, PoolShape::Mean};
    case 9: return {2, 1, 0, 0, PoolShape::Max};
    default: return {1, 1, 0, 0, PoolShape::Copy};
    }
}

}  // namespace

void pool(const uint8_t* in, int channels, int h, int w, uint32_t pool_type, uint8_t* out) {
    const PoolShape s = pool_shape(pool_type);
    const int oh = pool_output_size(h, pool_type), ow = pool_output_size(w, pool_type);
    const size_t plane = static_cast<size_t>(h) * static_cast<size_t>(w);
    if (s.kind == PoolShape::Copy) {
        std::memcpy(out, in, plane * static_cast<size_t>(channels));
        return;
    }
    auto at = [&](const uint8_t* p, int y, int x) {
        return p[static_cast<size_t>(y) * static_cast<size_t>(w) + static_cast<size_t>(x)];
    };
    for (int c = 0; c < channels; ++c) {
        const uint8_t* p = in + static_cast<size_t>(c) * plane;
        for (int oy = 0; oy < oh; ++oy) {
            for (int ox = 0; ox < ow; ++ox) {
                const int y0 = oy * s.stride + s.off_y, x0 = ox * s.stride + s.off_x;
                int v = 0;
                for (int ky = 0; ky < s.filter; ++ky) {
                    for (int kx = 0; kx < s.filter; ++kx) {
                        const int y = y0 + ky, x = x0 + kx;
                        if (s.kind == PoolShape::Mean) {  // edge taps clamped into the image
                            v += at(p, std::min(y, h - 1), std::min(x, w - 1));
                        } else if (y < h && x < w) {  // Max and Pick: taps outside count as 0
                            v = std::max(v, int{at(p, y, x)});
                        }
                    }
                }
                if (s.kind == PoolShape::Mean) {
                    v /= s.filter * s.filter;
                }
                *out++ = static_cast<uint8_t>(v);
            }
        }
    }
}

uint64_t weight_bytes(const LayerArgs& a, bool eight_bit) {
    const auto k = static_cast<uint64_t>(a.kernel_size());
    const auto ic = a.depth_wise_layer ? 1u : static_cast<uint64_t>(a.in_channels());
    return static_cast<uint64_t>(a.out_channels()) * ic * k * k * (eight_bit ? 1u : 2u);
}

FmapGeometry input_geometry(const LayerArgs& a) {
    return {a.in_channels(), a.in_width(),      a.in_height(),
            a.coef_group,    a.row_switch_addr, a.channel_switch_addr};
}

FmapGeometry output_geometry(const LayerArgs& a) {
    return {a.out_channels(), a.out_width(),        a.out_height(),
            a.wb_group,       a.wb_row_switch_addr, a.wb_channel_switch_addr};
}

LayerResult run_layer(const LayerArgs& a, const LayerParams& p, bool eight_bit, const Fidelity& f,
                      uint8_t* ram) {
    NPU_ASSERT(p.bn.size() == static_cast<size_t>(a.out_channels()),
               "{} BN entries for {} channels", p.bn.size(), a.out_channels());
    const int ic = a.in_channels(), oc = a.out_channels();
    const int h = a.in_height(), w = a.in_width(), k = a.kernel_size(), pad = k / 2;
    const int pw = w + 2 * pad, ph = h + 2 * pad;
    const size_t plane = static_cast<size_t>(h) * static_cast<size_t>(w);

    // Gather the input planes from the RAM and surround them with pad_value.
    std::vector<uint8_t> dense(static_cast<size_t>(ic) * plane);
    download(ram + uint64_t{a.image_src_addr} * kLineBytes, input_geometry(a), dense.data());
    std::vector<uint8_t> xp(static_cast<size_t>(ic) * static_cast<size_t>(pw * ph),
                            static_cast<uint8_t>(a.pad_value));
    for (int c = 0; c < ic; ++c) {
        for (int y = 0; y < h; ++y) {
            std::memcpy(xp.data() + static_cast<size_t>(c * pw * ph + (y + pad) * pw + pad),
                        dense.data() + static_cast<size_t>(c) * plane + static_cast<size_t>(y * w),
                        static_cast<size_t>(w));
        }
    }

    LayerResult r;
    std::vector<uint8_t> act(static_cast<size_t>(oc) * plane);
    r.overflows = conv_bn_act(a, p, eight_bit, f, xp.data(), act.data());
    r.macs = static_cast<uint64_t>(oc) * plane * static_cast<uint64_t>(k * k) *
             static_cast<uint64_t>(a.depth_wise_layer ? 1 : ic);

    const FmapGeometry og = output_geometry(a);
    r.dense_output.resize(static_cast<size_t>(oc) * static_cast<size_t>(og.width * og.height));
    pool(act.data(), oc, h, w, a.pool_type, r.dense_output.data());
    upload(r.dense_output.data(), og, ram + uint64_t{a.image_dst_addr} * kLineBytes);
    return r;
}

}  // namespace npu::kpu
