#include "models/k210_kpu/kpu_func.h"

#include <algorithm>
#include <cstring>

#include <boost/endian/conversion.hpp>

#include "sim/core/error.h"

namespace npu::kpu {

namespace {
using sim::sign_extend;

// 64-bit two's-complement arithmetic that wraps instead of being undefined. Only values already
// far beyond the 36-bit range (counted as overflows) can get here; the C++ emulators wrap the
// same way on every host they run on.
int64_t wrap_add(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}
int64_t wrap_sub(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t wrap_mul(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) * static_cast<uint64_t>(b));
}
constexpr int64_t kMax36 = (int64_t{1} << 35) - 1;
constexpr int64_t kMin36 = -(int64_t{1} << 35);
}  // namespace

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

namespace {

// The convolution of one output channel into `acc` (H x W), accumulating x·w over the padded
// input planes `xp` ((H + 2p) x (W + 2p) each). Acc is int32 for 8-bit weights (the largest sum,
// 1024 · 9 · 255 · 255, fits) and int64 for 16-bit weights. The innermost loop runs along a row
// with a scalar weight, which the compiler vectorizes.
template <typename Acc, typename Wt>
int64_t conv_channel(const uint8_t* xp, int padded_w, int padded_plane, const Wt* wts, int first_ic,
                     int n_ic, int k, int h, int w, Acc* acc) {
    std::fill(acc, acc + static_cast<size_t>(h) * static_cast<size_t>(w), Acc{0});
    int64_t sum_w = 0;
    for (int i = 0; i < n_ic; ++i) {
        const uint8_t* plane =
            xp + static_cast<size_t>(first_ic + i) * static_cast<size_t>(padded_plane);
        for (int ky = 0; ky < k; ++ky) {
            for (int kx = 0; kx < k; ++kx) {
                const Acc wv = static_cast<Acc>(*wts++);
                sum_w += wv;
                if (wv == 0) {
                    continue;
                }
                for (int y = 0; y < h; ++y) {
                    const uint8_t* src =
                        plane + static_cast<size_t>(y + ky) * static_cast<size_t>(padded_w) +
                        static_cast<size_t>(kx);
                    Acc* dst = acc + static_cast<size_t>(y) * static_cast<size_t>(w);
                    for (int x = 0; x < w; ++x) {
                        dst[x] += wv * static_cast<Acc>(src[x]);
                    }
                }
            }
        }
    }
    return sum_w;
}

// Σ over taps (and channels [first, first + n)) of the padded input, per output pixel.
void window_sums(const uint8_t* xp, int padded_w, int padded_plane, int first, int n, int k, int h,
                 int w, int32_t* out) {
    std::fill(out, out + static_cast<size_t>(h) * static_cast<size_t>(w), 0);
    for (int c = first; c < first + n; ++c) {
        const uint8_t* plane = xp + static_cast<size_t>(c) * static_cast<size_t>(padded_plane);
        for (int ky = 0; ky < k; ++ky) {
            for (int kx = 0; kx < k; ++kx) {
                for (int y = 0; y < h; ++y) {
                    const uint8_t* src =
                        plane + static_cast<size_t>(y + ky) * static_cast<size_t>(padded_w) +
                        static_cast<size_t>(kx);
                    int32_t* dst = out + static_cast<size_t>(y) * static_cast<size_t>(w);
                    for (int x = 0; x < w; ++x) {
                        dst[x] += src[x];
                    }
                }
            }
        }
    }
}

template <typename Acc, typename Wt>
void conv_bn_act(const LayerArgs& a, const LayerParams& p, const Fidelity& f, const uint8_t* xp,
                 uint8_t* act_out, LayerResult& r) {
    const int ic = a.in_channels(), oc = a.out_channels();
    const int h = a.in_height(), w = a.in_width(), k = a.kernel_size(), pad = k / 2;
    const int pw = w + 2 * pad, pplane = pw * (h + 2 * pad);
    const size_t plane = static_cast<size_t>(h) * static_cast<size_t>(w);
    const int n_ic = a.depth_wise_layer ? 1 : ic;
    const Wt* weights = reinterpret_cast<const Wt*>(p.weights);
    const size_t per_oc = static_cast<size_t>(n_ic * k * k);

    std::vector<Acc> acc(plane);
    std::vector<int32_t> sum_x(plane);
    if (!a.depth_wise_layer) {
        window_sums(xp, pw, pplane, 0, ic, k, h, w, sum_x.data());
    }
    for (int o = 0; o < oc; ++o) {
        const int first = a.depth_wise_layer ? o : 0;
        if (a.depth_wise_layer) {
            window_sums(xp, pw, pplane, o, 1, k, h, w, sum_x.data());
        }
        const int64_t sum_w =
            conv_channel<Acc, Wt>(xp, pw, pplane, weights + static_cast<size_t>(o) * per_oc, first,
                                  n_ic, k, h, w, acc.data());
        const int64_t w_term = (int64_t{a.arg_w} * sum_w) >> a.shr_w;
        const int64_t add_term = a.arg_add * n_ic;
        const BnParam& bn = p.bn[static_cast<size_t>(o)];
        uint8_t* out = act_out + static_cast<size_t>(o) * plane;
        for (size_t i = 0; i < plane; ++i) {
            int64_t v = static_cast<int64_t>(acc[i]) + ((int64_t{a.arg_x} * sum_x[i]) >> a.shr_x) +
                        w_term + add_term;
            r.overflows += limit36(v, f.overflow) ? 1u : 0u;
            v = wrap_add(wrap_mul(v, bn.mul) >> bn.shift, bn.add);
            r.overflows += limit36(v, f.overflow) ? 1u : 0u;
            out[i] = activate(v, p.act, f);
        }
    }
}

}  // namespace

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
    if (eight_bit) {
        conv_bn_act<int32_t, uint8_t>(a, p, f, xp.data(), act.data(), r);
    } else {
        conv_bn_act<int64_t, uint16_t>(a, p, f, xp.data(), act.data(), r);
    }
    r.macs = static_cast<uint64_t>(oc) * plane * static_cast<uint64_t>(k * k) *
             static_cast<uint64_t>(a.depth_wise_layer ? 1 : ic);

    const FmapGeometry og = output_geometry(a);
    r.dense_output.resize(static_cast<size_t>(oc) * static_cast<size_t>(og.width * og.height));
    pool(act.data(), oc, h, w, a.pool_type, r.dense_output.data());
    upload(r.dense_output.data(), og, ram + uint64_t{a.image_dst_addr} * kLineBytes);
    return r;
}

}  // namespace npu::kpu
