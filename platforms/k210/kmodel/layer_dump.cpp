#include "platforms/k210/kmodel/layer_dump.h"

#include <fmt/format.h>

namespace npu::k210 {

namespace {

const char* memory_label(uint32_t t) {
    static const char* const kNames[] = {"const", "main", "kpu"};
    return t < 3 ? kNames[t] : "?";
}

}  // namespace

std::vector<LayerDump> ResultRecorder::take(const Kmodel& m, size_t index, RuntimeMemory& debug) {
    std::vector<LayerDump> dumps;
    const std::string type = m.layers.at(index).type_name;
    const auto file = [&] {
        return fmt::format("layer_{:03}_{}{}.npy", index, type,
                           dumps.empty() ? "" : fmt::format("_{}", dumps.size()));
    };
    for (const MemoryRange& r : m_ranges) {
        const bool f32 = r.datatype == kFloat32;
        sim::Tensor t(f32 ? sim::DType::f32 : sim::DType::u8,
                      {static_cast<int64_t>(f32 ? r.size / 4 : r.size)});
        debug.read(r.memory_type, r.start, t.bytes(), t.size_bytes());
        LayerDump d{index, type,
                    fmt::format("{}+{:#x}, {}, {} bytes", memory_label(r.memory_type), r.start,
                                f32 ? "f32" : "u8", r.size),
                    file(), std::move(t)};
        dumps.push_back(std::move(d));
    }
    for (const Map& map : m_maps) {
        const kpu::FmapGeometry& g = map.g;
        const std::vector<uint8_t> dense = download_fmap(debug, map.start, g, map.batches);
        sim::Tensor t(sim::DType::u8, {map.batches, g.channels, g.height, g.width});
        std::copy(dense.begin(), dense.end(), t.data<uint8_t>());
        LayerDump d{
            index, type,
            fmt::format("kpu+{:#x}, {} map{} {}x{}x{} (KPU layout, saved dense)", map.start,
                        map.batches, map.batches == 1 ? "" : "s", g.channels, g.height, g.width),
            file(), std::move(t)};
        dumps.push_back(std::move(d));
    }
    m_ranges.clear();
    m_maps.clear();
    return dumps;
}

}  // namespace npu::k210
