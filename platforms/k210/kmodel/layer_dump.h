// `--dump-all`: every layer's result as the runtime leaves it, for diffing layer by layer against
// one's own reference. A ResultRecorder sits between the runtime and its memories, passes every
// access through and keeps the results the runners tell it (RuntimeMemory::result, kpu_result);
// after each layer take() reads them back through a debug memory (the timed platform's reads
// cost no simulated time). Pure C++.
#pragma once

#include <string>
#include <vector>

#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "sim/core/tensor.h"

namespace npu::k210 {

struct LayerDump {
    size_t index = 0;    // position in the layer (v3) or node (v4) table
    std::string type;    // its type name
    std::string where;   // "main+0x40, f32, 128 bytes" or "kpu+0x1000, 2 maps 3x16x16 (KPU layout)"
    std::string file;    // "layer_003_conv2d.npy" (a second result of one layer: "_1" added)
    sim::Tensor tensor;  // a range: flat u8 or f32; KPU maps: u8 (batches, C, H, W), dense
};

class ResultRecorder : public RuntimeMemory {
public:
    explicit ResultRecorder(RuntimeMemory& inner)
        : m_inner(inner) {}
    void read(uint32_t memory_type, uint64_t start, void* dst, size_t n) override {
        m_inner.read(memory_type, start, dst, n);
    }
    void write(uint32_t memory_type, uint64_t start, const void* src, size_t n) override {
        m_inner.write(memory_type, start, src, n);
    }
    void result(const MemoryRange& r) override { m_ranges.push_back(r); }
    void kpu_result(uint64_t start, const kpu::FmapGeometry& g, uint32_t batches) override {
        m_maps.push_back({start, g, batches});
    }
    // The results told since the last take(), read through `debug`, for layer `index` of `m`.
    std::vector<LayerDump> take(const Kmodel& m, size_t index, RuntimeMemory& debug);

private:
    struct Map {
        uint64_t start;
        kpu::FmapGeometry g;
        uint32_t batches;
    };
    RuntimeMemory& m_inner;
    std::vector<MemoryRange> m_ranges;
    std::vector<Map> m_maps;
};

}  // namespace npu::k210
