#include "models/kl730/kl730_layout.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::kl730 {

namespace {

struct Named {
    Layout layout;
    const char* name;
};
constexpr Named kNames[] = {
    {Layout::UNKNOWN, "UNKNOWN"},
    {Layout::L4W4C8B, "4W4C8B"},
    {Layout::L1W16C8B, "1W16C8B"},
    {Layout::L16W1C8B, "16W1C8B"},
    {Layout::L8W1C16B, "8W1C16B"},
    {Layout::L4W4C8BHL, "4W4C8BHL"},
    {Layout::L1W16C8BHL, "1W16C8BHL"},
    {Layout::L16W1C8BHL, "16W1C8BHL"},
    {Layout::RAW_8B, "RAW_8B"},
    {Layout::RAW_16B, "RAW_16B"},
    {Layout::RAW_FLOAT, "RAW_FLOAT"},
    {Layout::L1W16C8B_CH_COMPACT, "1W16C8B_CH_COMPACT"},
    {Layout::L1W16C8BHL_CH_COMPACT, "1W16C8BHL_CH_COMPACT"},
    {Layout::HW4C8B_KEEP_A, "HW4C8B_KEEP_A"},
    {Layout::HW4C8B_DROP_A, "HW4C8B_DROP_A"},
    {Layout::HW1C8B, "HW1C8B"},
    {Layout::HW1C16B_LE, "HW1C16B_LE"},
    {Layout::HW1C16B_BE, "HW1C16B_BE"},
};

int64_t round_up(int64_t v, int64_t a) {
    return (v + a - 1) / a * a;
}

[[noreturn]] void fail(const std::string& why) {
    throw sim::Error("KL730 layout: " + why);
}

// The channel axis of an outer-group layout (the one with NPU stride 1) and the extra stride of
// each further 16-channel group: max over the other axes of stride_npu · shape, minus 16 (once:
// the documentation's Python subtracts it twice; the C code and kp_inference.c once).
struct OuterGroup {
    int axis = -1;
    int64_t stride = 0;
};
OuterGroup outer_group(const TensorInfo& t) {
    OuterGroup g;
    if (!is_outer_group(t.layout)) {
        return g;
    }
    int64_t widest = 0;
    for (size_t a = 0; a < t.shape.size(); ++a) {
        if (t.stride_npu[a] == 1 && g.axis < 0) {
            g.axis = static_cast<int>(a);
            continue;
        }
        widest = std::max(widest, t.stride_npu[a] * t.shape[a]);
    }
    g.stride = widest - 16;
    return g;
}

// Element position -> byte of its first (HL: low) byte.
size_t byte_of(Storage s, int64_t p) {
    switch (s) {
    case Storage::int8: return static_cast<size_t>(p);
    case Storage::int16:
    case Storage::int16_le:
    case Storage::int16_be: return static_cast<size_t>(2 * p);
    case Storage::float32: return static_cast<size_t>(4 * p);
    case Storage::hl: return static_cast<size_t>(((p >> 4) << 5) + (p & 15));
    }
    return 0;
}

// Visits every ONNX index: f(onnx offset, npu position, quant index). Odometer over the outer
// axes, a tight loop over the last.
template <typename F>
void for_each(const TensorInfo& t, F&& f) {
    const size_t rank = t.shape.size();
    const OuterGroup g = outer_group(t);
    const size_t last = rank - 1;
    std::vector<int64_t> idx(rank, 0);
    const int qa = t.quant.size() > 1 ? t.quantized_axis : -1;
    const int64_t n_last = t.shape[last], so = t.stride_onnx[last], sn = t.stride_npu[last];
    const bool group_last = g.axis == static_cast<int>(last);
    const bool quant_last = qa == static_cast<int>(last);
    for (;;) {
        int64_t o = 0, p = 0;
        for (size_t a = 0; a < last; ++a) {
            o += idx[a] * t.stride_onnx[a];
            p += idx[a] * t.stride_npu[a];
        }
        if (g.axis >= 0 && !group_last) {
            p += (idx[static_cast<size_t>(g.axis)] >> 4) * g.stride;
        }
        const size_t q_row =
            qa >= 0 && !quant_last ? static_cast<size_t>(idx[static_cast<size_t>(qa)]) : 0;
        for (int64_t i = 0; i < n_last; ++i) {
            const int64_t pi = p + i * sn + (group_last ? (i >> 4) * g.stride : 0);
            f(o + i * so, pi, quant_last ? static_cast<size_t>(i) : q_row);
        }
        size_t a = last;
        while (a > 0) {
            --a;
            if (++idx[a] < t.shape[a]) {
                break;
            }
            idx[a] = 0;
            if (a == 0) {
                return;
            }
        }
        if (last == 0) {
            return;
        }
    }
}

std::vector<float> factors(const TensorInfo& t) {
    std::vector<float> f;
    for (const QuantParam& q : t.quant) {
        f.push_back(q.scale * std::ldexp(1.0f, q.radix));
    }
    return f;
}

// round half to even, then clip to T; NaN gives 0. After the clip |v| < 2^22, where adding and
// subtracting 1.5 · 2^23 rounds to an integer in the default (ties-to-even) mode, without a libm
// call per element.
template <typename T>
T clip_round(float v) {
    constexpr auto lo = static_cast<float>(std::numeric_limits<T>::lowest());
    constexpr auto hi = static_cast<float>(std::numeric_limits<T>::max());
    if (!(v >= lo)) {
        return std::isnan(v) ? T{0} : std::numeric_limits<T>::lowest();
    }
    if (v > hi) {
        return std::numeric_limits<T>::max();
    }
    constexpr float kMagic = 12582912.0f;  // 1.5 · 2^23
    return static_cast<T>((v + kMagic) - kMagic);
}

}  // namespace

Layout parse_layout(const std::string& name) {
    std::string n;
    for (char c : name) {
        n += static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    }
    const std::string prefix = "KP_MODEL_TENSOR_DATA_LAYOUT_";
    if (n.rfind(prefix, 0) == 0) {
        n = n.substr(prefix.size());
    }
    for (const Named& x : kNames) {
        if (n == x.name && x.layout != Layout::UNKNOWN) {
            return x.layout;
        }
    }
    std::string known;
    for (const Named& x : kNames) {
        if (x.layout != Layout::UNKNOWN) {
            known += (known.empty() ? "" : ", ") + std::string(x.name);
        }
    }
    fail(fmt::format("unknown layout '{}', expected one of {}", name, known));
}

const char* layout_name(Layout l) {
    for (const Named& x : kNames) {
        if (x.layout == l) {
            return x.name;
        }
    }
    return "UNKNOWN";
}

std::vector<Layout> all_layouts() {
    std::vector<Layout> v;
    for (const Named& x : kNames) {
        if (x.layout != Layout::UNKNOWN) {
            v.push_back(x.layout);
        }
    }
    return v;
}

Storage storage_of(Layout l) {
    switch (l) {
    case Layout::L8W1C16B:
    case Layout::RAW_16B: return Storage::int16;
    case Layout::L4W4C8BHL:
    case Layout::L1W16C8BHL:
    case Layout::L16W1C8BHL:
    case Layout::L1W16C8BHL_CH_COMPACT: return Storage::hl;
    case Layout::RAW_FLOAT: return Storage::float32;
    case Layout::HW1C16B_LE: return Storage::int16_le;
    case Layout::HW1C16B_BE: return Storage::int16_be;
    default: return Storage::int8;
    }
}

bool is_outer_group(Layout l) {
    return l == Layout::L1W16C8B || l == Layout::L1W16C8BHL;
}

std::vector<int64_t> dense_strides(const std::vector<int64_t>& shape) {
    std::vector<int64_t> s(shape.size(), 1);
    for (size_t a = shape.size(); a-- > 1;) {
        s[a - 1] = s[a] * shape[a];
    }
    return s;
}

std::vector<int64_t> generate_npu_strides(Layout layout, const std::vector<int64_t>& shape) {
    if (layout == Layout::RAW_8B || layout == Layout::RAW_16B || layout == Layout::RAW_FLOAT) {
        return dense_strides(shape);
    }
    if (shape.size() != 4) {
        fail(fmt::format("{} needs a 4-D NCHW shape to generate its strides, got {} dimensions",
                         layout_name(layout), shape.size()));
    }
    const int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
    auto at_most = [&](int64_t limit) {
        if (c > limit) {
            fail(fmt::format("{} holds at most {} channel{}, the shape has {}", layout_name(layout),
                             limit, limit > 1 ? "s" : "", c));
        }
    };
    const int64_t c16 = round_up(c, 16);
    switch (layout) {
    case Layout::L4W4C8B:
    case Layout::L4W4C8BHL: {
        at_most(4);
        const int64_t w4 = round_up(w, 4);
        return {h * w4 * 4, 1, w4 * 4, 4};
    }
    case Layout::HW4C8B_KEEP_A:
    case Layout::HW4C8B_DROP_A:
        at_most(layout == Layout::HW4C8B_DROP_A ? 3 : 4);
        return {h * w * 4, 1, w * 4, 4};
    case Layout::HW1C8B:
    case Layout::HW1C16B_LE:
    case Layout::HW1C16B_BE: at_most(1); return {h * w, h * w, w, 1};
    case Layout::L16W1C8B:
    case Layout::L16W1C8BHL: {
        const int64_t w16 = round_up(w, 16);
        return {c * h * w16, h * w16, w16, 1};
    }
    case Layout::L8W1C16B: {
        const int64_t w8 = round_up(w, 8);
        return {c * h * w8, h * w8, w8, 1};
    }
    case Layout::L1W16C8B:
    case Layout::L1W16C8BHL:
        // One channel group's strides; further groups follow at the outer-group stride.
        if (n != 1) {
            fail(fmt::format("{} (outer channel groups) needs N = 1, the shape has N = {}",
                             layout_name(layout), n));
        }
        return {16 * h * w, 1, 16 * w, 16};
    case Layout::L1W16C8B_CH_COMPACT:
    case Layout::L1W16C8BHL_CH_COMPACT: return {h * w * c16, 1, w * c16, c16};
    default: fail(fmt::format("cannot generate strides for layout {}", layout_name(layout)));
    }
}

TensorInfo make_info(Layout layout, const std::vector<int64_t>& shape,
                     std::vector<QuantParam> quant, int32_t quantized_axis) {
    TensorInfo t;
    t.layout = layout;
    t.shape = shape;
    for (int64_t d : shape) {
        if (d < 1 || d > (int64_t{1} << 24)) {
            fail(fmt::format("shape dimension {} is out of range 1..2^24", d));
        }
    }
    t.stride_onnx = dense_strides(shape);
    t.stride_npu = generate_npu_strides(layout, shape);
    t.quant = std::move(quant);
    t.quantized_axis = quantized_axis;
    validate(t);
    return t;
}

void validate(const TensorInfo& t) {
    if (t.layout == Layout::UNKNOWN || static_cast<uint32_t>(t.layout) > 17) {
        fail(fmt::format("layout {} is not a KL730 layout (1..17)",
                         static_cast<uint32_t>(t.layout)));
    }
    const size_t rank = t.shape.size();
    if (rank < 1 || rank > 8) {
        fail(fmt::format("shape has {} dimensions, expected 1..8", rank));
    }
    if (t.stride_onnx.size() != rank || t.stride_npu.size() != rank) {
        fail(fmt::format("shape has {} dimensions but stride_onnx has {} and stride_npu {}", rank,
                         t.stride_onnx.size(), t.stride_npu.size()));
    }
    int64_t elements = 1;
    for (size_t a = 0; a < rank; ++a) {
        if (t.shape[a] < 1 || t.shape[a] > (int64_t{1} << 24) || t.stride_onnx[a] < 0 ||
            t.stride_npu[a] < 0 || t.stride_onnx[a] > (int64_t{1} << 32) ||
            t.stride_npu[a] > (int64_t{1} << 32)) {
            fail(
                fmt::format("axis {}: shape {}, stride_onnx {}, stride_npu {}: expected a shape of "
                            "1..2^24 and strides of 0..2^32",
                            a, t.shape[a], t.stride_onnx[a], t.stride_npu[a]));
        }
        elements *= t.shape[a];
        if (elements > (int64_t{1} << 31)) {
            fail("the tensor has more than 2^31 elements");
        }
    }
    if (is_outer_group(t.layout)) {
        const OuterGroup g = outer_group(t);
        if (g.axis < 0) {
            fail(fmt::format("{} needs the channel axis: one axis with stride_npu 1",
                             layout_name(t.layout)));
        }
        if (g.stride < 0) {
            fail(fmt::format("{}: the channel-group stride is negative", layout_name(t.layout)));
        }
    }
    const int32_t qa = t.quantized_axis;
    if (qa < -1 || qa >= static_cast<int32_t>(rank)) {
        fail(fmt::format("quantized_axis is {}, expected -1 (per tensor) or 0..{}", qa, rank - 1));
    }
    const size_t want = qa < 0 ? 1 : static_cast<size_t>(t.shape[static_cast<size_t>(qa)]);
    if (t.quant.size() != 1 && t.quant.size() != want) {
        fail(fmt::format("{} quantization parameters, expected 1{}", t.quant.size(),
                         qa < 0 ? "" : fmt::format(" or {} (shape[{}])", want, qa)));
    }
    for (size_t i = 0; i < t.quant.size(); ++i) {
        const QuantParam& q = t.quant[i];
        if (q.radix < -31 || q.radix > 31) {
            fail(fmt::format("radix {} (parameter {}) is out of range -31..31", q.radix, i));
        }
        if (!std::isfinite(q.scale) || q.scale <= 0) {
            fail(fmt::format("scale {} (parameter {}) must be finite and > 0", q.scale, i));
        }
    }
}

size_t npu_bytes(const TensorInfo& t) {
    int64_t p_max = 0;
    for (size_t a = 0; a < t.shape.size(); ++a) {
        p_max += (t.shape[a] - 1) * t.stride_npu[a];
    }
    const OuterGroup g = outer_group(t);
    if (g.axis >= 0) {
        p_max += ((t.shape[static_cast<size_t>(g.axis)] - 1) >> 4) * g.stride;
    }
    const Storage s = storage_of(t.layout);
    if (s == Storage::hl) {
        return static_cast<size_t>(((p_max >> 4) + 1) * 32);
    }
    const int64_t width = s == Storage::int8 ? 1 : (s == Storage::float32 ? 4 : 2);
    return static_cast<size_t>(round_up((p_max + 1) * width, 16));
}

Place place(const TensorInfo& t, const std::vector<int64_t>& index) {
    int64_t p = 0;
    for (size_t a = 0; a < t.shape.size(); ++a) {
        p += index.at(a) * t.stride_npu[a];
    }
    const OuterGroup g = outer_group(t);
    if (g.axis >= 0) {
        p += (index[static_cast<size_t>(g.axis)] >> 4) * g.stride;
    }
    const Storage s = storage_of(t.layout);
    Place out;
    out.byte = byte_of(s, p);
    out.high_byte = s == Storage::hl ? out.byte + 16 : out.byte + 1;
    if (s == Storage::int16_be) {
        out.high_byte = out.byte, out.byte += 1;  // high byte first
    }
    out.entry = out.byte / 16;
    out.lane = out.byte % 16;
    return out;
}

void hl_split(int16_t q, uint8_t& low, uint8_t& high) {
    const auto u = static_cast<uint16_t>(static_cast<uint16_t>(q) >> 1);
    low = static_cast<uint8_t>(u & 0x7f);
    high = static_cast<uint8_t>((u >> 7) & 0xff);
}

int16_t hl_merge(uint8_t low, uint8_t high) {
    return static_cast<int16_t>(static_cast<uint16_t>(((low & 0x7f) + (high << 7)) << 1));
}

namespace {
size_t onnx_extent(const TensorInfo& t) {
    int64_t e = 0;
    for (size_t a = 0; a < t.shape.size(); ++a) {
        e += (t.shape[a] - 1) * t.stride_onnx[a];
    }
    return static_cast<size_t>(e + 1);
}
}  // namespace

std::vector<uint8_t> to_npu(const TensorInfo& t, const float* x, size_t x_elements) {
    validate(t);
    if (x_elements < onnx_extent(t)) {
        fail(fmt::format("the ONNX buffer holds {} elements, the shape and stride_onnx need {}",
                         x_elements, onnx_extent(t)));
    }
    std::vector<uint8_t> npu(npu_bytes(t), 0);
    uint8_t* out = npu.data();
    const std::vector<float> f = factors(t);
    switch (storage_of(t.layout)) {
    case Storage::int8:
        for_each(t, [&](int64_t o, int64_t p, size_t q) {
            out[p] = static_cast<uint8_t>(clip_round<int8_t>(x[o] * f[q]));
        });
        break;
    case Storage::int16:
        for_each(t, [&](int64_t o, int64_t p, size_t q) {
            const auto v = static_cast<uint16_t>(clip_round<int16_t>(x[o] * f[q])) & 0xfffeu;
            out[2 * p] = static_cast<uint8_t>(v), out[2 * p + 1] = static_cast<uint8_t>(v >> 8);
        });
        break;
    case Storage::int16_le:
    case Storage::int16_be: {
        const bool be = storage_of(t.layout) == Storage::int16_be;
        for_each(t, [&](int64_t o, int64_t p, size_t q) {
            const auto v = static_cast<uint16_t>(clip_round<int16_t>(x[o] * f[q]));
            out[2 * p + (be ? 1 : 0)] = static_cast<uint8_t>(v);
            out[2 * p + (be ? 0 : 1)] = static_cast<uint8_t>(v >> 8);
        });
        break;
    }
    case Storage::hl:
        for_each(t, [&](int64_t o, int64_t p, size_t q) {
            const size_t b = static_cast<size_t>(((p >> 4) << 5) + (p & 15));
            hl_split(clip_round<int16_t>(x[o] * f[q]), out[b], out[b + 16]);
        });
        break;
    case Storage::float32:
        for_each(t, [&](int64_t o, int64_t p, size_t q) {
            const float v = x[o] * f[q];  // no rounding for float layouts
            std::memcpy(out + 4 * p, &v, 4);
        });
        break;
    }
    return npu;
}

namespace {

void check_npu_size(const TensorInfo& t, size_t npu_size) {
    if (npu_size < npu_bytes(t)) {
        fail(fmt::format("the NPU buffer holds {} bytes, layout {} with this shape needs {}",
                         npu_size, layout_name(t.layout), npu_bytes(t)));
    }
}

// Visits every element's fixed-point value: emit(onnx offset, value, quant index). One pass,
// one loop per storage kind.
template <typename Emit>
void gather(const TensorInfo& t, const uint8_t* npu, Emit&& emit) {
    switch (storage_of(t.layout)) {
    case Storage::int8:
        for_each(t,
                 [&](int64_t o, int64_t p, size_t q) { emit(o, static_cast<int8_t>(npu[p]), q); });
        break;
    case Storage::int16:
        for_each(t, [&](int64_t o, int64_t p, size_t q) {
            emit(o, static_cast<int16_t>((npu[2 * p] | (npu[2 * p + 1] << 8)) & 0xfffe), q);
        });
        break;
    case Storage::int16_le:
        for_each(t, [&](int64_t o, int64_t p, size_t q) {
            emit(o, static_cast<int16_t>(npu[2 * p] | (npu[2 * p + 1] << 8)), q);
        });
        break;
    case Storage::int16_be:
        for_each(t, [&](int64_t o, int64_t p, size_t q) {
            emit(o, static_cast<int16_t>((npu[2 * p] << 8) | npu[2 * p + 1]), q);
        });
        break;
    case Storage::hl:
        for_each(t, [&](int64_t o, int64_t p, size_t q) {
            const size_t b = static_cast<size_t>(((p >> 4) << 5) + (p & 15));
            emit(o, hl_merge(npu[b], npu[b + 16]), q);
        });
        break;
    case Storage::float32: break;
    }
}

}  // namespace

std::vector<int32_t> to_onnx_fixed(const TensorInfo& t, const uint8_t* npu, size_t npu_size) {
    validate(t);
    if (storage_of(t.layout) == Storage::float32) {
        fail("RAW_FLOAT holds floats, not fixed-point values");
    }
    check_npu_size(t, npu_size);
    std::vector<int32_t> q(onnx_extent(t), 0);
    gather(t, npu, [&](int64_t o, int32_t v, size_t) { q[static_cast<size_t>(o)] = v; });
    return q;
}

std::vector<float> to_onnx(const TensorInfo& t, const uint8_t* npu, size_t npu_size) {
    validate(t);
    check_npu_size(t, npu_size);
    const std::vector<float> f = factors(t);
    std::vector<float> x(onnx_extent(t), 0.0f);
    if (storage_of(t.layout) == Storage::float32) {
        for_each(t, [&](int64_t o, int64_t p, size_t q) {
            float v = 0;
            std::memcpy(&v, npu + 4 * p, 4);
            x[static_cast<size_t>(o)] = v / f[q];
        });
        return x;
    }
    gather(t, npu, [&](int64_t o, int32_t v, size_t q) {
        x[static_cast<size_t>(o)] = static_cast<float>(v) / f[q];
    });
    return x;
}

}  // namespace npu::kl730
