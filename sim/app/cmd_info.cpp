// npusim info: what a platform file describes, without simulating it.
#include <cstdio>

#include <fmt/format.h>

#include "sim/app/app.h"
#include "sim/app/platform_loader.h"

namespace npu::app {

int cmd_info(const InfoOptions& opts) {
    const LoadedPlatform p = load_platform(opts.platform);
    const platform::PlatformConfig& c = p.config;
    sim::AddressMap map;
    for (unsigned port = 0; port < c.memories.size(); ++port) {
        for (const sim::MapWindow& w : platform::windows_of(c.memories[port], port)) {
            map.add(w);  // the same overlap check the router makes at elaboration
        }
    }
    fmt::print("platform {} ({}), from {}\n", c.name, c.kind, p.source);
    fmt::print("quantum: {} ns\n", c.quantum_ns);
    fmt::print("bus: {} B/beat, bursts of at most {} beats, {} cycles per burst, {} boundary, {}\n",
               c.bus.data_width_bytes, c.bus.max_burst_beats, c.bus.burst_latency_cycles,
               sim::format_size(c.bus.boundary_bytes), sim::format_frequency(c.bus.clock_hz));
    fmt::print("\naddress map:\n{}", map.table());
    fmt::print("\nmemories:\n");
    for (const platform::MemoryRegion& m : c.memories) {
        fmt::print("  {:<12} {:>8}  read {} ns, write {} ns, DMI {}\n", m.name,
                   sim::format_size(m.memory.size_bytes), m.memory.read_latency_ns,
                   m.memory.write_latency_ns, m.memory.dmi ? "on" : "off");
    }
    return kExitOk;
}

}  // namespace npu::app
