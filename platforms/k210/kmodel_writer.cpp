#include "platforms/k210/kmodel_writer.h"

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

}  // namespace npu::k210
