#include "models/dlp/dlp_program.h"

#include <cstring>
#include <vector>

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::dlp {

namespace {

struct Writer {
    uint8_t* p;
    void u8(size_t at, uint64_t v) { p[at] = static_cast<uint8_t>(v); }
    void u16(size_t at, uint64_t v) {
        boost::endian::store_little_u16(p + at, static_cast<uint16_t>(v));
    }
    void u32(size_t at, uint64_t v) {
        boost::endian::store_little_u32(p + at, static_cast<uint32_t>(v));
    }
    void i32(size_t at, int64_t v) { u32(at, static_cast<uint32_t>(static_cast<int32_t>(v))); }
    void f32(size_t at, float v) {
        uint32_t b = 0;
        std::memcpy(&b, &v, 4);
        u32(at, b);
    }
};

struct Reader {
    const uint8_t* p;
    uint8_t u8(size_t at) const { return p[at]; }
    uint16_t u16(size_t at) const { return boost::endian::load_little_u16(p + at); }
    uint32_t u32(size_t at) const { return boost::endian::load_little_u32(p + at); }
    int32_t i32(size_t at) const { return static_cast<int32_t>(u32(at)); }
    float f32(size_t at) const {
        const uint32_t b = u32(at);
        float v = 0;
        std::memcpy(&v, &b, 4);
        return v;
    }
};

}  // namespace

uint64_t input_image_bytes(const ActShape& s, const DlpConfig& cfg) {
    return conv_ddr_elements(s, {cfg.threads_c(), cfg.transfer_n(), cfg.x_is_height}) *
           element_bytes(cfg.data_type);
}

uint64_t image_bytes(const Layer& l, const DlpConfig& cfg) {
    if (l.kind == LayerKind::fc) {
        return fc_ddr_elements(static_cast<size_t>(l.fc.out), cfg.fc_thread_number) *
               element_bytes(cfg.data_type);
    }
    return input_image_bytes(l.out, cfg);
}

std::vector<ConcatSlot> concat_slots(const Network& n, const DlpConfig& cfg) {
    std::vector<ConcatSlot> slots(n.layers.size());
    for (size_t k = 0; k < n.layers.size(); ++k) {
        uint64_t at = 0;
        for (int src : n.layers[k].inputs) {
            if (n.layers[k].kind != LayerKind::concat || src < 0 || static_cast<size_t>(src) >= k) {
                throw sim::Error(
                    fmt::format("{}: layer {} holds layer {} (unchecked network)", n.name, k, src));
            }
            slots[static_cast<size_t>(src)] = {static_cast<int>(k), at};
            at += image_bytes(n.layers[static_cast<size_t>(src)], cfg);
        }
    }
    return slots;
}

namespace {

bool same(const ActShape& a, const ActShape& b) {
    return a.z == b.z && a.h == b.h && a.w == b.w;
}

// A conv or pool record's geometry against its image shapes; "" or the problem.
std::string check_conv_geometry(const Record& r) {
    const Layer& l = r.layer;
    const ConvLayer& c = l.conv;
    try {
        l.kind == LayerKind::pool ? check_pool(c) : check(c);
    } catch (const sim::Error& e) {
        return e.what();
    }
    if (!same(r.input, {c.in_c, c.in_h, c.in_w}) || !same(l.out, {c.out_c, c.out_h(), c.out_w()}) ||
        r.input_fc_format) {
        return fmt::format("the {} geometry disagrees with the record's image shapes",
                           kind_name(l.kind));
    }
    // A bound on the work a record may ask of the simulator (about a minute of host time).
    const double macs = static_cast<double>(c.out_c) * static_cast<double>(c.conv_h()) *
                        static_cast<double>(c.conv_w()) *
                        static_cast<double>(c.kernel_h * c.kernel_w) *
                        static_cast<double>(c.in_c / c.groups);
    if (macs > 68719476736.0) {  // 2^36
        return fmt::format("the conv layer asks {:.3g} MACs, more than the simulator's 2^36", macs);
    }
    return "";
}

// The record's geometry per kind, and its weight and bias bytes; "" or the problem.
std::string check_geometry(Record& r, const DlpConfig& cfg) {
    const Layer& l = r.layer;
    const auto in_elements = static_cast<uint64_t>(r.input.z * r.input.h * r.input.w);
    if (l.kind == LayerKind::conv || l.kind == LayerKind::pool) {
        const std::string why = check_conv_geometry(r);
        if (!why.empty()) {
            return why;
        }
    } else if (l.kind == LayerKind::fc) {
        if (static_cast<uint64_t>(l.fc.in) != in_elements || !same(l.out, {l.fc.out, 1, 1})) {
            return fmt::format(
                "the fc layer ({} -> {}) disagrees with its images ({} inputs, "
                "{}x{}x{} output)",
                l.fc.in, l.fc.out, in_elements, l.out.z, l.out.h, l.out.w);
        }
    } else if (!same(l.out, r.input)) {
        return fmt::format("the {}'s output shape differs from its input's", kind_name(l.kind));
    }
    r.place.weight_bytes = weight_count(l) * element_bytes(cfg.data_type);
    r.place.bias_bytes = bias_count(l) * 4;
    return "";
}

}  // namespace

std::string derive_sizes(Record& r, const DlpConfig& cfg, uint64_t limit_bytes) {
    const Layer& l = r.layer;
    for (const ActShape* s : {static_cast<const ActShape*>(&r.input), &l.out}) {
        if (s->z < 1 || s->h < 1 || s->w < 1 || s->z > (1 << 16) || s->h > (1 << 14) ||
            s->w > (1 << 14)) {
            return fmt::format("a shape of {}x{}x{} is out of range", s->z, s->h, s->w);
        }
    }
    const auto in_elements = static_cast<uint64_t>(r.input.z * r.input.h * r.input.w);
    LayerPlacement& p = r.place;
    p.input_bytes = r.input_fc_format ? fc_ddr_elements(in_elements, cfg.fc_thread_number) *
                                            element_bytes(cfg.data_type)
                                      : input_image_bytes(r.input, cfg);
    p.input2_bytes = is_adder(l.kind) ? p.input_bytes : 0;
    if (l.kind == LayerKind::concat) {  // reads nothing: its inputs wrote its image
        p.input_bytes = 0;
    }
    p.output_bytes = image_bytes(l, cfg);
    const std::string why = check_geometry(r, cfg);
    if (!why.empty()) {
        return why;
    }
    for (uint64_t b : {p.input_bytes, p.output_bytes, p.weight_bytes}) {
        if (b > limit_bytes) {
            return fmt::format("a buffer of {} bytes exceeds the {}-byte DDR", b, limit_bytes);
        }
    }
    return "";
}

namespace {

// Bytes 28..75 of a conv, pool, add or multiply record.
void encode_conv(Writer& w, const ConvLayer& c) {
    w.u32(28, static_cast<uint64_t>(c.in_c));
    w.u32(32, static_cast<uint64_t>(c.in_h));
    w.u32(36, static_cast<uint64_t>(c.in_w));
    w.u32(40, static_cast<uint64_t>(c.out_c));
    w.u8(44, static_cast<uint64_t>(c.kernel_h));
    w.u8(45, static_cast<uint64_t>(c.kernel_w));
    w.u8(46, static_cast<uint64_t>(c.stride_h));
    w.u8(47, static_cast<uint64_t>(c.stride_w));
    w.u8(48, static_cast<uint64_t>(c.pad_top));
    w.u8(49, static_cast<uint64_t>(c.pad_bottom));
    w.u8(50, static_cast<uint64_t>(c.pad_left));
    w.u8(51, static_cast<uint64_t>(c.pad_right));
    w.u32(52, static_cast<uint64_t>(c.groups));
    w.u8(56, static_cast<uint64_t>(c.activation));
    w.u8(57, static_cast<uint64_t>(c.pool));
    w.u8(58, static_cast<uint64_t>(c.pool_h));
    w.u8(59, static_cast<uint64_t>(c.pool_w));
    w.u8(60, static_cast<uint64_t>(c.pool_stride_h));
    w.u8(61, static_cast<uint64_t>(c.pool_stride_w));
    w.u8(62, static_cast<uint64_t>(c.pool_pad_top));
    w.u8(63, static_cast<uint64_t>(c.pool_pad_bottom));
    w.u8(64, static_cast<uint64_t>(c.pool_pad_left));
    w.u8(65, static_cast<uint64_t>(c.pool_pad_right));
    w.f32(68, c.leaky_slope);
    w.f32(72, c.clip_ceiling);
}

// The inverse; "" or why the bytes are not a record.
std::string decode_conv(const Reader& r, uint8_t act, ConvLayer& c) {
    c.in_c = r.u32(28), c.in_h = r.u32(32), c.in_w = r.u32(36), c.out_c = r.u32(40);
    c.kernel_h = r.u8(44), c.kernel_w = r.u8(45), c.stride_h = r.u8(46), c.stride_w = r.u8(47);
    c.pad_top = r.u8(48), c.pad_bottom = r.u8(49), c.pad_left = r.u8(50);
    c.pad_right = r.u8(51);
    c.groups = r.u32(52);
    c.activation = static_cast<Activation>(act);
    if (r.u8(57) > 2) {
        return fmt::format("record pool is {}, expected 0..2", r.u8(57));
    }
    c.pool = static_cast<PoolType>(r.u8(57));
    c.pool_h = r.u8(58), c.pool_w = r.u8(59), c.pool_stride_h = r.u8(60);
    c.pool_stride_w = r.u8(61), c.pool_pad_top = r.u8(62), c.pool_pad_bottom = r.u8(63);
    c.pool_pad_left = r.u8(64), c.pool_pad_right = r.u8(65);
    c.leaky_slope = r.f32(68);
    c.clip_ceiling = r.f32(72);
    return "";
}

}  // namespace

std::array<uint8_t, kRecordBytes> encode(const Record& r) {
    std::array<uint8_t, kRecordBytes> b{};
    Writer w{b.data()};
    const Layer& l = r.layer;
    const ConvLayer& c = l.conv;
    w.u32(0, kRecordMagic);
    w.u16(4, static_cast<uint16_t>(l.kind));
    w.u16(6, (r.last ? 1 : 0) | (r.input_fc_format ? 2 : 0));
    w.u32(8, r.place.input_addr);
    w.u32(12, r.place.input2_addr);
    w.u32(16, r.place.output_addr);
    w.u32(20, r.place.weight_addr);
    w.u32(24, r.place.bias_addr);
    if (l.kind == LayerKind::fc) {
        w.u32(28, static_cast<uint64_t>(l.fc.in));
        w.u32(40, static_cast<uint64_t>(l.fc.out));
        w.u8(56, static_cast<uint64_t>(l.fc.activation));
        w.u8(66, static_cast<uint64_t>(l.fc.output));
        w.f32(68, l.fc.leaky_slope);
        w.f32(72, l.fc.clip_ceiling);
    } else {
        encode_conv(w, c);
    }
    w.i32(76, l.quant.in_exp);
    w.i32(80, l.quant.w_exp);
    w.i32(84, l.quant.out_exp);
    w.i32(88, l.quant.leaky_mul);
    w.i32(92, l.quant.leaky_shift);
    w.i32(96, l.quant.clip_ceiling);
    w.u32(100, static_cast<uint64_t>(l.out.z));
    w.u32(104, static_cast<uint64_t>(l.out.h));
    w.u32(108, static_cast<uint64_t>(l.out.w));
    w.i32(112, l.quant.in2_exp);
    w.u32(116, static_cast<uint64_t>(r.input.z));
    w.u32(120, static_cast<uint64_t>(r.input.h));
    w.u32(124, static_cast<uint64_t>(r.input.w));
    return b;
}

std::string decode(const uint8_t* bytes, Record& out) {
    const Reader r{bytes};
    if (r.u32(0) != kRecordMagic) {
        return fmt::format("record magic is {:#010x}, expected {:#010x} ('DLPL')", r.u32(0),
                           kRecordMagic);
    }
    const uint16_t kind = r.u16(4);
    if (kind < 1 || kind > 6) {
        return fmt::format(
            "record kind is {}, expected 1 (conv), 2 (fc), 3 (add), 4 (multiply), "
            "5 (pool) or 6 (concat)",
            kind);
    }
    Layer& l = out.layer;
    l.kind = static_cast<LayerKind>(kind);
    out.last = (r.u16(6) & 1) != 0;
    out.input_fc_format = (r.u16(6) & 2) != 0;
    out.input = {static_cast<int64_t>(r.u32(116)), static_cast<int64_t>(r.u32(120)),
                 static_cast<int64_t>(r.u32(124))};
    out.place.input_addr = r.u32(8);
    out.place.input2_addr = r.u32(12);
    out.place.output_addr = r.u32(16);
    out.place.weight_addr = r.u32(20);
    out.place.bias_addr = r.u32(24);
    const uint8_t act = r.u8(56);
    if (act > 3) {
        return fmt::format("record activation is {}, expected 0..3", act);
    }
    if (l.kind == LayerKind::fc) {
        l.fc.in = r.u32(28);
        l.fc.out = r.u32(40);
        l.fc.activation = static_cast<Activation>(act);
        if (r.u8(66) > 2) {
            return fmt::format("record fc output is {}, expected 0..2", r.u8(66));
        }
        l.fc.output = static_cast<FcLayer::Output>(r.u8(66));
        l.fc.leaky_slope = r.f32(68);
        l.fc.clip_ceiling = r.f32(72);
    } else {
        const std::string why = decode_conv(r, act, l.conv);
        if (!why.empty()) {
            return why;
        }
    }
    l.quant.in_exp = r.i32(76);
    l.quant.w_exp = r.i32(80);
    l.quant.out_exp = r.i32(84);
    l.quant.leaky_mul = r.i32(88);
    l.quant.leaky_shift = r.i32(92);
    l.quant.clip_ceiling = static_cast<int8_t>(r.i32(96));
    l.out = {static_cast<int64_t>(r.u32(100)), static_cast<int64_t>(r.u32(104)),
             static_cast<int64_t>(r.u32(108))};
    l.quant.in2_exp = r.i32(112);
    return "";
}

}  // namespace npu::dlp
