#include "platforms/k210/kmodel/kmodel_writer.h"

#include <cstring>

#include <boost/endian/conversion.hpp>

namespace npu::k210 {

namespace {

class Out {
public:
    void u32(uint32_t v) {
        uint8_t b[4];
        boost::endian::store_little_u32(b, v);
        bytes.insert(bytes.end(), b, b + 4);
    }
    void u64(uint64_t v) {
        uint8_t b[8];
        boost::endian::store_little_u64(b, v);
        bytes.insert(bytes.end(), b, b + 8);
    }
    void f32(float f) {
        uint32_t v = 0;
        std::memcpy(&v, &f, 4);
        u32(v);
    }
    void u8(uint8_t v) { bytes.push_back(v); }
    void raw(const uint8_t* p, size_t n) { bytes.insert(bytes.end(), p, p + n); }
    void align(size_t a) { bytes.resize((bytes.size() + a - 1) / a * a, 0); }
    size_t pos() const { return bytes.size(); }
    void patch_u32(size_t at, uint32_t v) { boost::endian::store_little_u32(bytes.data() + at, v); }
    std::vector<uint8_t> bytes;
};

constexpr uint32_t kConv = 10240, kDequantize = 12;

void write_conv(Out& o, const ConvLayerSpec& c) {
    const size_t head = o.pos();
    o.u32(c.main_mem_out ? 1 : 0);
    o.u32(c.main_mem_out_address);
    for (int i = 0; i < 4; ++i) {
        o.u32(0);  // offsets, patched below
    }
    o.align(8);
    const size_t args = o.pos();
    for (uint64_t w : kpu::encode(c.args)) {
        o.u64(w);
    }
    o.align(128);
    const size_t weights = o.pos();
    o.raw(c.weights.data(), c.weights.size());
    o.align(128);
    const size_t bn = o.pos();
    for (const kpu::BnParam& p : c.bn) {
        o.u64(kpu::encode_bn(p));
    }
    o.align(256);
    const size_t act = o.pos();
    uint8_t table[kpu::kActTableBytes];
    kpu::encode_act(c.act, table);
    o.raw(table, sizeof(table));
    o.patch_u32(head + 8, static_cast<uint32_t>(args));
    o.patch_u32(head + 12, static_cast<uint32_t>(weights));
    o.patch_u32(head + 16, static_cast<uint32_t>(bn));
    o.patch_u32(head + 20, static_cast<uint32_t>(act));
}

RawLayerSpec raw(uint32_t type, std::initializer_list<uint32_t> words) {
    Out o;
    for (uint32_t w : words) {
        o.u32(w);
    }
    return {type, o.bytes};
}

uint32_t bits(float f) {
    uint32_t v = 0;
    std::memcpy(&v, &f, 4);
    return v;
}

}  // namespace

RawLayerSpec quantize_layer(uint32_t in_address, uint32_t out_address, uint32_t count, float scale,
                            float bias) {
    return raw(11, {0, in_address, out_address, count, bits(scale), bits(bias)});
}

RawLayerSpec add_layer(uint32_t a_address, uint32_t b_address, uint32_t out_address,
                       uint32_t count) {
    return raw(1, {0, a_address, b_address, out_address, count});
}

RawLayerSpec global_average_pool_layer(uint32_t in_address, uint32_t out_address,
                                       uint32_t kernel_size, uint32_t channels) {
    return raw(5, {0, in_address, out_address, kernel_size, channels});
}

RawLayerSpec softmax_layer(uint32_t in_address, uint32_t out_address, uint32_t channels) {
    return raw(15, {0, in_address, out_address, channels});
}

RawLayerSpec tf_flatten_layer(uint32_t in_address, uint32_t out_address, uint32_t width,
                              uint32_t height, uint32_t channels) {
    return raw(20, {0, in_address, out_address, width, height, channels});
}

RawLayerSpec fully_connected_layer(uint32_t in_address, uint32_t out_address, uint32_t in_channels,
                                   uint32_t out_channels, uint32_t act,
                                   const std::vector<float>& weights,
                                   const std::vector<float>& bias) {
    RawLayerSpec l = raw(18, {0, in_address, out_address, in_channels, out_channels, act});
    Out o;
    o.bytes = std::move(l.body);
    for (float w : weights) {
        o.f32(w);
    }
    for (float b : bias) {
        o.f32(b);
    }
    return {18, o.bytes};
}

RawLayerSpec concat_layer(uint32_t out_address,
                          const std::vector<std::pair<uint32_t, uint32_t>>& inputs) {
    Out o;
    o.u32(0);
    o.u32(out_address);
    o.u32(static_cast<uint32_t>(inputs.size()));
    for (const auto& [start, size] : inputs) {
        o.u32(start);
        o.u32(size);
    }
    return {16, o.bytes};
}

RawLayerSpec upload_layer(uint32_t in_address, uint32_t kpu_line, uint32_t width, uint32_t height,
                          uint32_t channels) {
    return raw(10243, {0, in_address, kpu_line, width, height, channels});
}

std::vector<uint8_t> write_kmodel_v3(const V3ModelSpec& spec) {
    Out o;
    o.u32(3);
    o.u32(spec.eight_bit ? 1 : 0);
    o.u32(0);
    o.u32(static_cast<uint32_t>(spec.layers.size()));
    o.u32(spec.max_start_address);
    o.u32(spec.main_mem_usage);
    o.u32(static_cast<uint32_t>(spec.outputs.size()));
    for (const OutputSpec& out : spec.outputs) {
        o.u32(out.address);
        o.u32(out.size);
    }
    const size_t headers = o.pos();
    for (size_t i = 0; i < spec.layers.size(); ++i) {
        o.u32(0);
        o.u32(0);
    }
    for (size_t i = 0; i < spec.layers.size(); ++i) {
        const size_t start = o.pos();
        uint32_t type = 0;
        if (const auto* c = std::get_if<ConvLayerSpec>(&spec.layers[i])) {
            type = kConv;
            write_conv(o, *c);
        } else if (const auto* raw = std::get_if<RawLayerSpec>(&spec.layers[i])) {
            type = raw->type;
            o.raw(raw->body.data(), raw->body.size());
        } else {
            const auto& d = std::get<DequantizeSpec>(spec.layers[i]);
            type = kDequantize;
            o.u32(0);
            o.u32(d.in_address);
            o.u32(d.out_address);
            o.u32(d.count);
            o.f32(d.scale);
            o.f32(d.bias);
        }
        o.align(8);
        o.patch_u32(headers + 8 * i, type);
        o.patch_u32(headers + 8 * i + 4, static_cast<uint32_t>(o.pos() - start));
    }
    return o.bytes;
}

// ---------------------------------------------------------------- kmodel v4

namespace {

void range(Out& o, const MemoryRange& r) {
    o.u32(r.memory_type);
    o.u32(r.datatype);
    o.u32(r.start);
    o.u32(r.size);
}
void shape(Out& o, const Shape4& s) {
    for (int32_t d : s) {
        o.u32(static_cast<uint32_t>(d));
    }
}
void padding(Out& o, const Padding& p) {
    o.u32(static_cast<uint32_t>(p.before));
    o.u32(static_cast<uint32_t>(p.after));
}
void value_range(Out& o, const ValueRange& v) {
    o.f32(v.min);
    o.f32(v.max);
}
void i32s(Out& o, std::initializer_list<int32_t> v) {
    for (int32_t x : v) {
        o.u32(static_cast<uint32_t>(x));
    }
}
void window2d(Out& o, const Window2d& w) {
    padding(o, w.pad_h);
    padding(o, w.pad_w);
    i32s(o, {w.filter_h, w.filter_w, w.stride_h, w.stride_w, w.dilation_h, w.dilation_w});
}

RawLayerSpec quant_node(uint32_t opcode, const MemoryRange& in, const MemoryRange& out,
                        int32_t zero_point, float scale) {
    Out o;
    range(o, in);
    range(o, out);
    o.u32(static_cast<uint32_t>(zero_point));
    o.f32(scale);
    return {opcode, o.bytes};
}

// The skip to the next absolute multiple of `a`, written as zero bytes; returns its length.
uint32_t align_skip(Out& o, size_t a) {
    const size_t before = o.pos();
    o.align(a);
    return static_cast<uint32_t>(o.pos() - before);
}

void write_kpu_conv2d(Out& o, const ConvLayerSpec& c) {
    const kpu::FmapGeometry og = kpu::output_geometry(c.args);
    const auto out_bytes = static_cast<uint32_t>(og.channels * og.height * og.width);
    range(o, c.main_mem_out ? MemoryRange{kMainMemory, kUint8, c.main_mem_out_address, out_bytes}
                            : MemoryRange{kMainMemory, kUint8, 0, 0});
    o.u32(1);  // batches
    o.u32(0);  // reserved0
    const size_t args = o.pos();
    for (int i = 0; i < 12; ++i) {
        o.u64(0);  // patched below, once the skips are known
    }
    kpu::LayerArgs a = c.args;
    a.bwsx_base_addr = align_skip(o, 256);
    for (const kpu::BnParam& p : c.bn) {
        o.u64(kpu::encode_bn(p));
    }
    a.active_addr = align_skip(o, 256);
    uint8_t table[kpu::kActTableBytes];
    kpu::encode_act(c.act, table);
    o.raw(table, sizeof(table));
    a.para_start_addr = align_skip(o, 256);
    o.raw(c.weights.data(), c.weights.size());
    const auto words = kpu::encode(a);
    for (size_t i = 0; i < words.size(); ++i) {
        boost::endian::store_little_u64(o.bytes.data() + args + 8 * i, words[i]);
    }
}

}  // namespace

RawLayerSpec v4_quantize_node(const MemoryRange& in, const MemoryRange& out, int32_t zero_point,
                              float scale) {
    return quant_node(0x06, in, out, zero_point, scale);
}

RawLayerSpec v4_dequantize_node(const MemoryRange& in, const MemoryRange& out, int32_t zero_point,
                                float scale) {
    return quant_node(0x03, in, out, zero_point, scale);
}

RawLayerSpec v4_upload_node(const MemoryRange& in, const MemoryRange& out, const Shape4& s) {
    Out o;
    range(o, in);
    range(o, out);
    shape(o, s);
    return {0x2001, o.bytes};
}

namespace {
// The fields binary and quantized_binary start with: the three ranges, the op, the three shapes.
template <typename B>
void binary_head(Out& o, const B& b) {
    range(o, b.a);
    range(o, b.b);
    range(o, b.out);
    o.u32(static_cast<uint32_t>(b.op));
    shape(o, b.a_shape);
    shape(o, b.b_shape);
    shape(o, b.out_shape);
}
}  // namespace

RawLayerSpec v4_node(const V4Binary& b) {
    Out o;
    binary_head(o, b);
    value_range(o, b.act);
    return {0x00, o.bytes};
}

RawLayerSpec v4_node(const V4Conv2d& c) {
    Out o;
    range(o, c.in);
    range(o, c.out);
    shape(o, c.in_shape);
    i32s(o, {c.groups, c.out_channels});
    window2d(o, c.win);
    value_range(o, c.act);
    for (float w : c.weights) {
        o.f32(w);
    }
    for (float b : c.bias) {
        o.f32(b);
    }
    return {0x02, o.bytes};
}

RawLayerSpec v4_node(const V4Matmul& m) {
    Out o;
    range(o, m.a);
    range(o, m.b);
    range(o, m.out);
    i32s(o, {m.a_rows, m.a_cols, m.b_cols});
    value_range(o, m.act);
    for (float b : m.bias) {
        o.f32(b);
    }
    return {0x04, o.bytes};
}

RawLayerSpec v4_node(const V4ReduceWindow2d& w) {
    Out o;
    range(o, w.in);
    range(o, w.out);
    o.u32(static_cast<uint32_t>(w.op));
    shape(o, w.in_shape);
    window2d(o, w.win);
    o.f32(w.init_value);
    value_range(o, w.act);
    return {0x08, o.bytes};
}

RawLayerSpec v4_node(const V4Softmax& s) {
    Out o;
    range(o, s.in);
    range(o, s.out);
    i32s(o, {s.inner_size, s.outer_size});
    o.f32(s.beta);
    return {0x0B, o.bytes};
}

RawLayerSpec v4_node(const V4Transpose& t) {
    Out o;
    range(o, t.in);
    range(o, t.out);
    i32s(o, {t.in_shape[0], t.in_shape[1], t.in_shape[2], t.in_shape[3]});
    i32s(o, {t.perm[0], t.perm[1], t.perm[2], t.perm[3]});
    return {0x0C, o.bytes};
}

RawLayerSpec v4_node(const V4QuantizedBinary& q) {
    Out o;
    binary_head(o, q);
    i32s(o, {q.a_offset, q.a_mul, q.a_shift, q.b_offset, q.b_mul, q.b_shift, q.out_offset,
             q.out_mul, q.out_shift});
    return {0x11, o.bytes};
}

RawLayerSpec v4_node(const V4Concat& c) {
    Out o;
    range(o, c.out);
    o.u32(c.inner_size);
    o.u32(c.outer_size);
    o.u32(static_cast<uint32_t>(c.inputs.size()));
    for (const MemoryRange& r : c.inputs) {
        range(o, r);
    }
    for (int32_t d : c.dims) {
        o.u32(static_cast<uint32_t>(d));
    }
    return {0x01, o.bytes};
}

RawLayerSpec v4_node(const V4Pad& p) {
    Out o;
    range(o, p.in);
    range(o, p.out);
    shape(o, p.in_shape);
    for (const Padding& d : p.paddings) {
        padding(o, d);
    }
    o.u32(p.in.datatype);  // the scalar's type, then its 4 bytes
    o.raw(p.pad_value.data(), p.pad_value.size());
    return {0x05, o.bytes};
}

RawLayerSpec v4_node(const V4Reduce& r) {
    Out o;
    range(o, r.in);
    range(o, r.out);
    o.u32(static_cast<uint32_t>(r.op));
    shape(o, r.in_shape);
    shape(o, r.out_shape);
    o.f32(r.init_value);
    return {0x07, o.bytes};
}

RawLayerSpec v4_node(const V4Unary& u) {
    Out o;
    range(o, u.in);
    range(o, u.out);
    o.u32(static_cast<uint32_t>(u.op));
    return {0x0E, o.bytes};
}

RawLayerSpec v4_node(const V4NnilUnary& n) {
    Out o;
    range(o, n.in);
    range(o, n.out);
    for (const NnilOp& op : n.program) {
        o.u8(op.opcode);
        if (op.opcode == 0x06) {  // ldc_r4 and its operand
            o.f32(op.constant);
        }
    }
    return {0x14, o.bytes};
}

RawLayerSpec v4_node(const V4ResizeImage& r) {
    Out o;
    range(o, r.in);
    range(o, r.out);
    shape(o, r.in_shape);
    i32s(o, {r.out_h, r.out_w});
    o.u32(static_cast<uint32_t>(r.mode));
    o.u8(r.align_corners ? 1 : 0);
    o.u8(0), o.u8(0), o.u8(0);  // the struct's tail padding
    return {0x0A, o.bytes};
}

RawLayerSpec v4_node(const V4StridedSlice& s) {
    Out o;
    range(o, s.in);
    range(o, s.out);
    shape(o, s.in_shape);
    shape(o, s.begin);
    shape(o, s.end);
    shape(o, s.strides);
    i32s(o, {0, 0, 0, 0, 0});  // the masks: resolved into begin and end
    return {0x0D, o.bytes};
}

std::vector<uint8_t> write_kmodel_v4(const V4ModelSpec& spec) {
    Out o;
    o.u32(0x4B4D444C);  // 'KMDL' as a multi-character constant: bytes "LDMK"
    o.u32(4);
    o.u32(0);  // flags
    o.u32(1);  // target K210
    o.u32(static_cast<uint32_t>(spec.constants.size()));
    o.u32(spec.main_mem);
    o.u32(static_cast<uint32_t>(spec.nodes.size()));
    o.u32(static_cast<uint32_t>(spec.inputs.size()));
    o.u32(static_cast<uint32_t>(spec.outputs.size()));
    o.u32(0);  // reserved0
    for (const KmodelIo& in : spec.inputs) {
        range(o, in.range);
    }
    for (const KmodelIo& in : spec.inputs) {
        shape(o, {in.shape[0], in.shape[1], in.shape[2], in.shape[3]});
    }
    for (const MemoryRange& out : spec.outputs) {
        range(o, out);
    }
    o.raw(spec.constants.data(), spec.constants.size());
    const size_t headers = o.pos();
    for (size_t i = 0; i < spec.nodes.size(); ++i) {
        o.u32(0);
        o.u32(0);
    }
    for (size_t i = 0; i < spec.nodes.size(); ++i) {
        const size_t start = o.pos();
        uint32_t opcode = 0;
        if (const auto* c = std::get_if<ConvLayerSpec>(&spec.nodes[i])) {
            opcode = 0x2002;
            write_kpu_conv2d(o, *c);
        } else {
            const auto& raw = std::get<RawLayerSpec>(spec.nodes[i]);
            opcode = raw.type;
            o.raw(raw.body.data(), raw.body.size());
        }
        o.patch_u32(headers + 8 * i, opcode);
        o.patch_u32(headers + 8 * i + 4, static_cast<uint32_t>(o.pos() - start));
    }
    return o.bytes;
}

}  // namespace npu::k210
