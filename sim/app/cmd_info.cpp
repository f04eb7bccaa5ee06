// npusim info: what a platform file describes, without simulating it.
#include <cstdio>

#include <fmt/format.h>

#include "platforms/k210/k210_platform.h"
#include "sim/app/app.h"
#include "sim/app/platform_loader.h"
#include "sim/tlm/kernel.h"

namespace npu::app {

namespace {

// The K210 platform is elaborated (not simulated) so that the map printed is the router's own.
int info_k210(const LoadedPlatform& p) {
    sim::install_report_handler();
    sim::TraceWriter trace(false);
    k210::K210Platform soc("k210", *p.k210, trace);
    const k210::K210Config& c = *p.k210;
    fmt::print("platform {} (k210), from {}\n", c.platform.name, p.source);
    fmt::print("clocks: KPU {}, CPU {}, CPU bus {}, DMAC bus {}\n",
               sim::format_frequency(c.kpu.timing.clock_hz), sim::format_frequency(c.cpu.clock_hz),
               sim::format_frequency(c.platform.bus.clock_hz),
               sim::format_frequency(c.dmac.bus.clock_hz));
    fmt::print("\naddress map:\n{}", soc.address_map().table());
    fmt::print("\nKPU registers at {:#x} (kpu_config_t):\n{}", c.kpu_base_addr,
               soc.kpu.register_map());
    fmt::print(
        "\nKPU: layer FIFO {} words, strict {}, IRQ to PLIC 25; DMAC channel {} drains "
        "FIFO_DATA_OUT (SYSCTL DMA select 22)\n",
        c.kpu.layer_fifo_words, c.kpu.strict ? "on" : "off", c.dma_channel);
    return kExitOk;
}

}  // namespace

int cmd_info(const InfoOptions& opts) {
    const LoadedPlatform p = load_platform(opts.platform);
    if (p.k210) {
        return info_k210(p);
    }
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
