#include "tests/models/k210_kpu/naive_reference.h"

#include <algorithm>

namespace npu::test {

namespace {

int64_t sext(uint64_t v, int bits) {
    v &= (bits == 64) ? ~0ull : ((1ull << bits) - 1);
    if (v & (1ull << (bits - 1))) {
        return static_cast<int64_t>(v) - static_cast<int64_t>(1ull << bits) * (bits < 64 ? 1 : 0);
    }
    return static_cast<int64_t>(v);
}

uint64_t le64(const uint8_t* p) {
    uint64_t v = 0;
    for (int i = 7; i >= 0; --i) {
        v = (v << 8) | p[i];
    }
    return v;
}

// Byte address of (c, y, x) from the layout fields: (c / G)·switch·64 + y·row·64 + (c % G)·(64/G) +
// x.
int64_t addr(int64_t base_line, int c, int y, int x, int group, int row, int chan_switch) {
    return base_line * 64 + (c / group) * chan_switch * 64 + y * row * 64 +
           (c % group) * (64 / group) + x;
}

int64_t rounding_shift(int64_t value, int shift, bool carry) {
    if (shift == 0) {
        return value;
    }
    if (shift > 62) {
        shift = 62;
    }
    if (carry) {
        int64_t v = value >> (shift - 1);
        if (v % 2 != 0) {
            return v < 0 ? (v >> 1) - 1 : (v >> 1) + 1;
        }
        return v >> 1;
    }
    const int64_t integral = value >> shift;
    const int64_t frac = value - integral * (int64_t{1} << shift);
    const int64_t half = int64_t{1} << (shift - 1);
    const int64_t sign = value < 0 ? -1 : 1;
    if (frac < half) {
        return integral;
    }
    if (frac > half) {
        return integral + sign;
    }
    return integral % 2 != 0 ? integral + sign : integral;
}

uint8_t pool_pixel(const std::vector<uint8_t>& plane, int h, int w, int type, int oy, int ox) {
    auto px = [&](int y, int x) -> int {
        return plane[static_cast<size_t>(y * w + x)];
    };
    auto inside = [&](int y, int x) {
        return y >= 0 && y < h && x >= 0 && x < w;
    };
    switch (type) {
    case 0: return static_cast<uint8_t>(px(oy, ox));
    case 1:
    case 3:
    case 9: {
        const int f = type == 3 ? 4 : 2, s = type == 9 ? 1 : f;
        int m = 0;
        for (int dy = 0; dy < f; ++dy)
            for (int dx = 0; dx < f; ++dx)
                if (inside(oy * s + dy, ox * s + dx))
                    m = std::max(m, px(oy * s + dy, ox * s + dx));
        return static_cast<uint8_t>(m);
    }
    case 2:
    case 4:
    case 8: {
        const int f = type == 4 ? 4 : 2, s = type == 8 ? 1 : f;
        int sum = 0;
        for (int dy = 0; dy < f; ++dy)
            for (int dx = 0; dx < f; ++dx)
                sum += px(std::min(oy * s + dy, h - 1), std::min(ox * s + dx, w - 1));
        return static_cast<uint8_t>(sum / (f * f));
    }
    case 5: return inside(oy * 2, ox * 2) ? static_cast<uint8_t>(px(oy * 2, ox * 2)) : 0;
    case 6: return inside(oy * 2, ox * 2 + 1) ? static_cast<uint8_t>(px(oy * 2, ox * 2 + 1)) : 0;
    case 7: return inside(oy * 4, ox * 4) ? static_cast<uint8_t>(px(oy * 4, ox * 4)) : 0;
    default: return 0;
    }
}

}  // namespace

std::vector<uint8_t> naive_layer(const kpu::LayerArgs& a, const uint8_t* weights,
                                 const std::vector<uint64_t>& bn_words, const uint8_t* act,
                                 const NaiveOptions& o, uint8_t* ram) {
    const int IC = static_cast<int>(a.i_ch_num) + 1, OC = static_cast<int>(a.o_ch_num) + 1;
    const int W = static_cast<int>(a.i_row_wid) + 1, H = static_cast<int>(a.i_col_high) + 1;
    const int OW = static_cast<int>(a.o_row_wid) + 1, OH = static_cast<int>(a.o_col_high) + 1;
    const int k = a.kernel_type == 1 ? 3 : 1, pad = a.kernel_type == 1 ? 1 : 0;
    const bool dw = a.depth_wise_layer;

    // Activation table: 16 words, then 16 bias bytes.
    int64_t xs[16], mul[16], shift[16], bias[16];
    for (int i = 0; i < 16; ++i) {
        const uint64_t word = le64(act + 8 * i);
        shift[i] = static_cast<int64_t>(word & 0xff);
        mul[i] = sext(word >> 8, 16);
        xs[i] = sext(word >> 24, 36);
        bias[i] = act[128 + i];
    }

    std::vector<uint8_t> out(static_cast<size_t>(OC * OH * OW));
    for (int oc = 0; oc < OC; ++oc) {
        const uint64_t bnw = bn_words[static_cast<size_t>(oc)];
        const int64_t bn_mul = sext(bnw, 24), bn_add = sext(bnw >> 24, 32);
        const int bn_shift = static_cast<int>((bnw >> 56) & 15);
        std::vector<uint8_t> plane(static_cast<size_t>(H * W));
        for (int oy = 0; oy < H; ++oy) {
            for (int ox = 0; ox < W; ++ox) {
                int64_t acc = 0, sum_x = 0, sum_w = 0;
                const int ic_lo = dw ? oc : 0, ic_hi = dw ? oc + 1 : IC;
                for (int ic = ic_lo; ic < ic_hi; ++ic) {
                    for (int ky = 0; ky < k; ++ky) {
                        for (int kx = 0; kx < k; ++kx) {
                            const int iy = oy - pad + ky, ix = ox - pad + kx;
                            int64_t x = a.pad_value;
                            if (iy >= 0 && iy < H && ix >= 0 && ix < W) {
                                x = ram[addr(a.image_src_addr, ic, iy, ix,
                                             static_cast<int>(a.coef_group),
                                             static_cast<int>(a.row_switch_addr),
                                             static_cast<int>(a.channel_switch_addr))];
                            }
                            const int icl = dw ? 0 : ic;
                            const int64_t idx =
                                ((static_cast<int64_t>(oc) * (dw ? 1 : IC) + icl) * k + ky) * k +
                                kx;
                            const int64_t wv = o.eight_bit
                                                   ? weights[idx]
                                                   : weights[2 * idx] | (weights[2 * idx + 1] << 8);
                            acc += x * wv;
                            sum_x += x;
                            sum_w += wv;
                        }
                    }
                }
                const int64_t alu = acc + ((int64_t{a.arg_x} * sum_x) >> a.shr_x) +
                                    ((int64_t{a.arg_w} * sum_w) >> a.shr_w) +
                                    a.arg_add * (ic_hi - ic_lo);
                // Products and sums wrap at 64 bits (only reachable far beyond the 36-bit range).
                const int64_t v = static_cast<int64_t>(
                    static_cast<uint64_t>(static_cast<int64_t>(static_cast<uint64_t>(alu) *
                                                               static_cast<uint64_t>(bn_mul)) >>
                                          bn_shift) +
                    static_cast<uint64_t>(bn_add));
                int seg = 0;
                for (int i = 15; i >= 0; --i) {
                    if (o.greater_equal ? v >= xs[i] : v > xs[i]) {
                        seg = i;
                        break;
                    }
                }
                const int64_t prod = static_cast<int64_t>(
                    (static_cast<uint64_t>(v) - static_cast<uint64_t>(xs[seg])) *
                    static_cast<uint64_t>(mul[seg]));
                int64_t y = rounding_shift(prod, static_cast<int>(shift[seg]), o.carry_rounding) +
                            bias[seg];
                plane[static_cast<size_t>(oy * W + ox)] =
                    static_cast<uint8_t>(std::min<int64_t>(255, std::max<int64_t>(0, y)));
            }
        }
        for (int oy = 0; oy < OH; ++oy) {
            for (int ox = 0; ox < OW; ++ox) {
                const uint8_t p = pool_pixel(plane, H, W, static_cast<int>(a.pool_type), oy, ox);
                out[static_cast<size_t>((oc * OH + oy) * OW + ox)] = p;
                ram[addr(a.image_dst_addr, oc, oy, ox, static_cast<int>(a.wb_group),
                         static_cast<int>(a.wb_row_switch_addr),
                         static_cast<int>(a.wb_channel_switch_addr))] = p;
            }
        }
    }
    return out;
}

}  // namespace npu::test
