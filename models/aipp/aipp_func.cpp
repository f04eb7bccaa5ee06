#include "models/aipp/aipp_func.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/tensor.h"

namespace npu::aipp {

namespace {

uint32_t src0_stride(InputFormat f) {
    switch (f) {
    case InputFormat::RGB888_U8: return 3;
    case InputFormat::XRGB8888_U8: return 4;
    default: return 1;
    }
}

// Where output channel k comes from without CSC: src0 byte `offset` of the pixel, or (plane 1,
// YUV420SP chroma) byte `offset` of the pixel pair's UV bytes. The vendor model's remapping:
// XRGB+AX+RB k -> 3 − k; YUV420SP+UV k -> (k > 0 ? 3 − k : 0); XRGB+AX k -> k + 1;
// RGB888/XRGB+RB k -> 2 − k.
struct Tap {
    int plane = 0;
    uint32_t offset = 0;
};
Tap copy_tap(const Params& p, int k) {
    const bool xrgb = p.format == InputFormat::XRGB8888_U8;
    const bool rgb = p.format == InputFormat::RGB888_U8;
    const bool yuv420 = p.format == InputFormat::YUV420SP_U8;
    int src = k;
    if (xrgb && p.swap_ax && p.swap_rb) {
        src = 3 - k;
    } else if (yuv420 && p.swap_uv) {
        src = k > 0 ? 3 - k : k;
    } else if (xrgb && p.swap_ax) {
        src = k + 1;
    } else if ((rgb || xrgb) && p.swap_rb) {
        src = 2 - k;
    }
    if (yuv420 && src != 0) {
        return {1, static_cast<uint32_t>(src - 1)};
    }
    return {0, static_cast<uint32_t>(src)};
}

// Byte offsets of R, G, B in an RGB888/XRGB8888 pixel for CSC.
std::array<uint32_t, 3> rgb_taps(const Params& p) {
    const bool xrgb = p.format == InputFormat::XRGB8888_U8;
    if (xrgb && p.swap_ax && p.swap_rb) {
        return {3, 2, 1};
    }
    if (xrgb && p.swap_ax) {
        return {1, 2, 3};
    }
    if (p.swap_rb) {
        return {2, 1, 0};
    }
    return {0, 1, 2};
}

// The image row (column) a padded position copies in padding modes 1..3: `lo` the pad before,
// `n` the image size, `hi` the pad after, `v` a position of the padded range. Mode 1 replicates
// the edge, mode 2 copies the block next to the edge (v + lo before, v − hi after), mode 3
// mirrors it including the edge.
uint32_t pad_map(uint32_t mode, uint32_t v, uint32_t lo, uint32_t n, uint32_t hi) {
    if (v >= lo && v < lo + n) {
        return v;
    }
    const bool before = v < lo;
    switch (mode) {
    case 1: return before ? lo : lo + n - 1;
    case 2: return before ? lo + v : v - hi;
    default: return before ? 2 * lo - 1 - v : 2 * (lo + n) - 1 - v;
    }
}

template <typename E>
struct Tables {
    std::array<std::array<E, 256>, 3> dtc{};
    std::array<E, 32> c_pad{};   // an image pixel before its channels are written
    std::array<E, 32> border{};  // a padding-mode-0 border pixel
};

template <typename E>
Tables<E> make_tables(const Params& p, const Fidelity& f, const Geometry& g) {
    Tables<E> t;
    for (int k = 0; k < 3; ++k) {
        const std::array<uint16_t, 256> d = dtc_table(p, f, k);
        for (size_t v = 0; v < 256; ++v) {
            t.dtc[static_cast<size_t>(k)][v] = static_cast<E>(d[v]);
        }
    }
    t.c_pad.fill(static_cast<E>(p.c_padding_value));
    t.border = t.c_pad;
    for (size_t k = 0; k < 4 && k < g.c0; ++k) {
        t.border[k] = static_cast<E>(p.padding_value[k]);
    }
    return t;
}

// The CSC as per-term tables: term[3k + c][x] = m[k][c] · (x − bias_in[c]) for YUV-type input,
// m[k][c] · x for RGB-type input; add[k] = bias_out[k] (RGB-type) or 0. A pixel's channel k is
// then three lookups and a sum, the same integers csc() computes.
struct CscTables {
    std::array<std::array<int32_t, 256>, 9> term{};
    std::array<int32_t, 3> add{};
};
CscTables make_csc(const Params& p, const Fidelity& f, bool yuv_input) {
    CscTables c;
    const std::array<uint8_t, 3>& sub = f.bias_roles_as_labelled ? p.csc_bias_out : p.csc_bias_in;
    const std::array<uint8_t, 3>& add = f.bias_roles_as_labelled ? p.csc_bias_in : p.csc_bias_out;
    for (size_t k = 0; k < 3; ++k) {
        for (size_t ch = 0; ch < 3; ++ch) {
            for (int32_t x = 0; x < 256; ++x) {
                c.term[3 * k + ch][static_cast<size_t>(x)] =
                    p.csc_matrix[3 * k + ch] * (yuv_input ? x - sub[ch] : x);
            }
        }
        c.add[k] = yuv_input ? 0 : add[k];
    }
    return c;
}

// One row of CSC pixels: the three inputs of pixel x come from `in(x)`.
template <bool kRoundAdd128, bool kSaturate, typename E, typename In>
void csc_row(const CscTables& c, const Tables<E>& t, size_t c0, uint32_t n, In in, E* out) {
    for (uint32_t x = 0; x < n; ++x, out += c0) {
        std::memcpy(out, t.c_pad.data(), c0 * sizeof(E));
        const std::array<uint8_t, 3> v = in(x);
        for (size_t k = 0; k < 3; ++k) {
            const int32_t sum =
                c.term[3 * k][v[0]] + c.term[3 * k + 1][v[1]] + c.term[3 * k + 2][v[2]];
            int32_t r = kRoundAdd128 ? (sum + 128) / 256 : sum >> 8;
            r += c.add[k];
            const auto u =
                kSaturate ? static_cast<uint8_t>(std::clamp(r, 0, 255)) : static_cast<uint8_t>(r);
            out[k] = t.dtc[k][u];
        }
    }
}

template <typename E, typename In>
void csc_row(const Fidelity& f, const CscTables& c, const Tables<E>& t, size_t c0, uint32_t n,
             In in, E* out) {
    if (f.csc_round_add_128) {
        f.saturate ? csc_row<true, true>(c, t, c0, n, in, out)
                   : csc_row<true, false>(c, t, c0, n, in, out);
    } else {
        f.saturate ? csc_row<false, true>(c, t, c0, n, in, out)
                   : csc_row<false, false>(c, t, c0, n, in, out);
    }
}

template <typename E>
void image_rows(const Params& p, const LoadParams& l, const Fidelity& f, const Source& s,
                const Geometry& g, const Tables<E>& t, E* dst) {
    const uint32_t stride0 = src0_stride(p.format);
    const bool yuv420 = p.format == InputFormat::YUV420SP_U8;
    const bool yuv_input = yuv420 || p.format == InputFormat::YUV400_U8;
    const size_t c0 = g.c0;
    const std::array<Tap, 3> taps = {copy_tap(p, 0), copy_tap(p, 1), copy_tap(p, 2)};
    const std::array<uint32_t, 3> rgb = rgb_taps(p);
    const uint32_t u_off = p.swap_uv ? 1 : 0, v_off = p.swap_uv ? 0 : 1;
    const CscTables csc_t = p.csc_enable ? make_csc(p, f, yuv_input) : CscTables{};
    const uint8_t chroma = f.yuv400_chroma;
    for (uint32_t y = 0; y < g.vert_size; ++y) {
        E* out = dst + (size_t{g.top_pad + y} * g.width + l.left_pad) * c0;
        const uint8_t* r0 =
            s.src0 + (size_t{l.vert_start + y} * l.src_horiz_size + l.horiz_start) * stride0;
        const uint8_t* r1 =
            yuv420 ? s.src1 + size_t{l.vert_start / 2 + y / 2} * l.src_horiz_size + l.horiz_start
                   : nullptr;
        if (!p.csc_enable) {
            for (uint32_t x = 0; x < l.horiz_size; ++x, out += c0) {
                std::memcpy(out, t.c_pad.data(), c0 * sizeof(E));
                const uint8_t* px = r0 + size_t{x} * stride0;
                const uint8_t* uv = yuv420 ? r1 + (x & ~1u) : nullptr;
                for (uint32_t k = 0; k < g.channels; ++k) {
                    const Tap& tap = taps[k];
                    out[k] = t.dtc[k][tap.plane == 0 ? px[tap.offset] : uv[tap.offset]];
                }
            }
        } else if (yuv420) {
            csc_row(
                f, csc_t, t, c0, l.horiz_size,
                [&](uint32_t x) {
                    const uint8_t* uv = r1 + (x & ~1u);
                    return std::array<uint8_t, 3>{r0[x], uv[u_off], uv[v_off]};
                },
                out);
        } else if (yuv_input) {
            csc_row(
                f, csc_t, t, c0, l.horiz_size,
                [&](uint32_t x) {
                    return std::array<uint8_t, 3>{r0[x], chroma, chroma};
                },
                out);
        } else {
            csc_row(
                f, csc_t, t, c0, l.horiz_size,
                [&](uint32_t x) {
                    const uint8_t* px = r0 + size_t{x} * stride0;
                    return std::array<uint8_t, 3>{px[rgb[0]], px[rgb[1]], px[rgb[2]]};
                },
                out);
        }
    }
}

template <typename E>
void border(const Params& p, const LoadParams& l, const Geometry& g, const Tables<E>& t, E* dst) {
    const size_t c0 = g.c0, row = size_t{g.width} * c0;
    const uint32_t image_end = l.left_pad + l.horiz_size;
    // Left and right borders of the image rows, then whole top/bottom rows copied from the image
    // rows they map to (whose borders are by then final).
    for (uint32_t i = g.top_pad; i < g.top_pad + g.vert_size; ++i) {
        E* r = dst + i * row;
        for (uint32_t j = 0; j < g.width; ++j) {
            if (j >= l.left_pad && j < image_end) {
                j = image_end - 1;
                continue;
            }
            if (p.padding_mode == 0) {
                std::memcpy(r + j * c0, t.border.data(), c0 * sizeof(E));
            } else {
                const uint32_t src =
                    pad_map(p.padding_mode, j, l.left_pad, l.horiz_size, l.right_pad);
                std::memcpy(r + j * c0, r + src * c0, c0 * sizeof(E));
            }
        }
    }
    for (uint32_t i = 0; i < g.height; ++i) {
        if (i >= g.top_pad && i < g.top_pad + g.vert_size) {
            continue;
        }
        const uint32_t src = pad_map(p.padding_mode, i, g.top_pad, g.vert_size, g.bot_pad);
        std::memcpy(dst + i * row, dst + src * row, row * sizeof(E));
    }
}

template <typename E>
void run(const Params& p, const LoadParams& l, const Fidelity& f, const Source& s, E* dst) {
    const Geometry g = geometry(p, l);
    const Tables<E> t = make_tables<E>(p, f, g);
    image_rows(p, l, f, s, g, t, dst);
    border(p, l, g, t, dst);
}

}  // namespace

std::array<uint16_t, 256> dtc_table(const Params& p, const Fidelity& f, int k) {
    std::array<uint16_t, 256> t{};
    const auto ku = static_cast<size_t>(k);
    for (int v = 0; v < 256; ++v) {
        const int d = v - p.dtc_mean[ku];
        uint16_t out = 0;
        switch (p.output) {
        case OutputType::u8: out = static_cast<uint16_t>(v); break;
        case OutputType::i8:
            out = static_cast<uint8_t>(
                static_cast<int8_t>(f.saturate ? std::clamp(d, -128, 127) : d));
            break;
        case OutputType::f16: {
            const uint16_t a = sim::double_to_half(d);  // exact: |d| <= 255
            const uint16_t b =
                sim::double_to_half(static_cast<double>(sim::half_to_float(a)) -
                                    static_cast<double>(sim::half_to_float(p.dtc_min[ku])));
            out = sim::double_to_half(static_cast<double>(sim::half_to_float(b)) *
                                      static_cast<double>(sim::half_to_float(p.dtc_var[ku])));
            break;
        }
        }
        t[static_cast<size_t>(v)] = out;
    }
    return t;
}

void load_image(const Params& p, const LoadParams& l, const Fidelity& f, const Source& s,
                void* dst) {
    const std::vector<std::string> problems = check(p, l);
    if (!problems.empty()) {
        std::string msg = "AIPP parameters: " + problems.front();
        for (size_t i = 1; i < problems.size(); ++i) {
            msg += "; " + problems[i];
        }
        throw sim::Error(msg);
    }
    const size_t need0 = src0_bytes_needed(p, l), need1 = src1_bytes_needed(p, l);
    if (s.src0 == nullptr || s.src0_bytes < need0) {
        throw sim::Error(fmt::format("AIPP source: src0 holds {} bytes, the crop reads {}",
                                     s.src0_bytes, need0));
    }
    if (need1 > 0 && (s.src1 == nullptr || s.src1_bytes < need1)) {
        throw sim::Error(fmt::format(
            "AIPP source: src1 (UV plane) holds {} bytes, the crop reads {}", s.src1_bytes, need1));
    }
    if (p.output == OutputType::f16) {
        run(p, l, f, s, static_cast<uint16_t*>(dst));
    } else {
        run(p, l, f, s, static_cast<uint8_t*>(dst));
    }
}

Counts counts(const Params& p, const LoadParams& l) {
    const Geometry g = geometry(p, l);
    Counts c;
    c.image_pixels = uint64_t{l.horiz_size} * g.vert_size;
    c.pad_pixels = uint64_t{g.width} * g.height - c.image_pixels;
    c.src0_bytes = c.image_pixels * src0_stride(p.format);
    if (p.format == InputFormat::YUV420SP_U8) {
        const uint64_t uv_rows = (l.vert_start + g.vert_size - 1) / 2 - l.vert_start / 2 + 1;
        c.src1_bytes = uv_rows * ((l.horiz_size + 1) / 2 * 2);
    }
    c.dst_bytes = g.elements() * output_bytes(p.output);
    return c;
}

}  // namespace npu::aipp
