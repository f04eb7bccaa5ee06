// Building one CPU node or layer from bytes laid out field by field, and running it over plain
// buffers: the harness of the CPU-op tests.
#pragma once

#include <cstdint>
#include <cstring>
#include <map>
#include <vector>

#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"

namespace npu::test {

inline uint32_t fbits(float f) {
    uint32_t v = 0;
    std::memcpy(&v, &f, 4);
    return v;
}

// A body written little-endian, field by field.
struct Body {
    std::vector<uint8_t> bytes;
    Body& u32(uint32_t v) {
        for (int i = 0; i < 4; ++i) {
            bytes.push_back(static_cast<uint8_t>(v >> (8 * i)));
        }
        return *this;
    }
    Body& i32(int32_t v) { return u32(static_cast<uint32_t>(v)); }
    Body& f32(float v) { return u32(fbits(v)); }
    Body& u8(uint8_t v) {
        bytes.push_back(v);
        return *this;
    }
    Body& range(uint32_t mem, uint32_t type, uint32_t start, uint32_t size) {
        return u32(mem).u32(type).u32(start).u32(size);
    }
    Body& shape(int32_t a, int32_t b, int32_t c, int32_t d) { return i32(a).i32(b).i32(c).i32(d); }
    // nncase's window geometry: padding h, w {before, after}, filter, stride, dilation (h, w).
    Body& window(int32_t fh, int32_t fw, int32_t stride, int32_t pad) {
        return i32(pad)
            .i32(pad)
            .i32(pad)
            .i32(pad)
            .i32(fh)
            .i32(fw)
            .i32(stride)
            .i32(stride)
            .i32(1)
            .i32(1);
    }
};

// const (0), main (1) and kpu (2) memories, 64 bytes each unless resized.
class MapMemory : public k210::RuntimeMemory {
public:
    std::map<uint32_t, std::vector<uint8_t>> mem{{0, std::vector<uint8_t>(64)},
                                                 {1, std::vector<uint8_t>(64)},
                                                 {2, std::vector<uint8_t>(64)}};
    // Zero-length accesses do nothing (their pointers may be null), as in the real memories.
    void read(uint32_t t, uint64_t start, void* dst, size_t n) override {
        if (n != 0) {
            std::memcpy(dst, mem.at(t).data() + start, n);
        }
    }
    void write(uint32_t t, uint64_t start, const void* src, size_t n) override {
        if (n != 0) {
            std::memcpy(mem.at(t).data() + start, src, n);
        }
    }
    template <class T>
    void put(uint32_t t, uint64_t at, const std::vector<T>& v) {
        std::memcpy(mem.at(t).data() + at, v.data(), v.size() * sizeof(T));
    }
    template <class T>
    std::vector<T> get(uint32_t t, uint64_t at, size_t n) const {
        std::vector<T> v(n);
        std::memcpy(v.data(), mem.at(t).data() + at, n * sizeof(T));
        return v;
    }
};

// A model of one node (v4) or layer (v3) whose body is `body`, over a main memory of
// `main_bytes`.
inline k210::Kmodel one_node_model(uint32_t opcode, const Body& body, int version = 4,
                                   uint32_t main_bytes = 64) {
    k210::Kmodel m;
    m.name = "t.kmodel";
    m.version = version;
    m.main_mem_bytes = main_bytes;
    m.bytes = body.bytes;
    m.layers.push_back({opcode, 0, body.bytes.size(),
                        version == 3 ? k210::v3_layer_name(opcode) : k210::v4_opcode_name(opcode)});
    return m;
}

// A one-node model over a 256-byte main memory holding `in` floats from byte 0.
struct FloatNode {
    k210::Kmodel m;
    MapMemory mem;
    FloatNode(uint32_t opcode, const std::vector<uint8_t>& body, const std::vector<float>& in) {
        m.name = "t.kmodel";
        m.version = 4;
        m.main_mem_bytes = 256;
        m.bytes = body;
        m.layers.push_back({opcode, 0, body.size(), k210::v4_opcode_name(opcode)});
        mem.mem[1].assign(256, 0);
        if (!in.empty()) {
            std::memcpy(mem.mem[1].data(), in.data(), in.size() * 4);
        }
    }
    std::vector<float> out(uint32_t at, size_t n) const {
        std::vector<float> v(n);
        std::memcpy(v.data(), mem.mem.at(1).data() + at, n * 4);
        return v;
    }
};

}  // namespace npu::test
