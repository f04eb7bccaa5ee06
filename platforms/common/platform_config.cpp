#include "platforms/common/platform_config.h"

#include <fmt/format.h>

namespace npu::platform {

MemoryRegion read_memory(const sim::ConfigNode& node) {
    MemoryRegion m;
    m.name = node.get<std::string>("name");
    m.base_addr = node.get<uint64_t>("base_addr");
    // Up to 1 TiB: a memory is an anonymous mapping, reserved but not committed.
    m.memory.size_bytes = node.get_bytes_in("size_bytes", 1, uint64_t{1} << 40);
    for (const sim::ConfigNode& a : node.optional_items("aliases")) {
        m.alias_addrs.push_back(a.as<uint64_t>());
    }
    m.memory.read_latency_ns = node.get<double>("read_latency_ns", 0.0, 0.0, 1e9);
    m.memory.write_latency_ns = node.get<double>("write_latency_ns", 0.0, 0.0, 1e9);
    m.memory.dmi = node.get<bool>("dmi", true);
    return m;
}

std::vector<sim::MapWindow> windows_of(const MemoryRegion& m, unsigned port) {
    std::vector<sim::MapWindow> out{{m.name, m.base_addr, m.memory.size_bytes, port, 0}};
    for (size_t i = 0; i < m.alias_addrs.size(); ++i) {
        out.push_back(
            {fmt::format("{}.alias{}", m.name, i), m.alias_addrs[i], m.memory.size_bytes, port, 0});
    }
    return out;
}

PlatformConfig read_platform(const sim::ConfigNode& platform) {
    PlatformConfig p;
    p.kind = platform.get<std::string>("kind", "");  // checked by the platform registry
    p.name = platform.get<std::string>("name");
    p.quantum_ns = platform.get<double>("quantum_ns", 1000.0, 1e-3, 1e12);
    if (auto bus = platform.optional_child("bus")) {
        p.bus = sim::read_bus_config(*bus, sim::BusConfig{});
    }
    for (const sim::ConfigNode& m : platform.items("memories")) {
        p.memories.push_back(read_memory(m));
    }
    return p;
}

}  // namespace npu::platform
