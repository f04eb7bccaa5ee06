#include "platforms/common/platform_config.h"

#include <fmt/format.h>

namespace npu::platform {

sim::BusConfig read_bus(const sim::ConfigNode& node, sim::BusConfig d) {
    sim::BusConfig b;
    b.data_width_bytes = node.get<unsigned>("data_width_bytes", d.data_width_bytes, 1u, 128u);
    if ((b.data_width_bytes & (b.data_width_bytes - 1)) != 0) {
        node.error_at("data_width_bytes", "expected a power of two");
    }
    b.max_burst_beats = node.get<unsigned>("max_burst_beats", d.max_burst_beats, 1u, 256u);
    b.burst_latency_cycles =
        node.get<unsigned>("burst_latency_cycles", d.burst_latency_cycles, 0u, 1u << 20);
    b.boundary_bytes = node.get_bytes("boundary_bytes", d.boundary_bytes);
    if ((b.boundary_bytes & (b.boundary_bytes - 1)) != 0 || b.boundary_bytes < b.data_width_bytes) {
        node.error_at("boundary_bytes", "expected a power of two not below data_width_bytes");
    }
    b.clock_hz = node.get_hz("clock_hz", d.clock_hz);
    return b;
}

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
    p.kind = platform.get_enum<std::string>("kind", "", {{"selfcheck", "selfcheck"}});
    if (!platform.has("kind")) {
        platform.error("missing required key 'kind' (one of: selfcheck)");
    }
    p.name = platform.get<std::string>("name");
    p.quantum_ns = platform.get<double>("quantum_ns", 1000.0, 1e-3, 1e12);
    if (auto bus = platform.optional_child("bus")) {
        p.bus = read_bus(*bus, sim::BusConfig{});
    }
    for (const sim::ConfigNode& m : platform.items("memories")) {
        p.memories.push_back(read_memory(m));
    }
    return p;
}

}  // namespace npu::platform
