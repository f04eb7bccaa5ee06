// npusim info: what a platform file describes, without simulating it.
#include <cstdio>

#include <fmt/format.h>

#include "platforms/k210/k210_platform.h"
#include "platforms/k210/kmodel.h"
#include "platforms/k210/kmodel_runtime.h"
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

std::string io_str(const k210::KmodelIo& io) {
    static const char* const kMem[] = {"const", "main", "kpu"};
    return fmt::format("{} {}x{}x{}x{} at {}+{:#x} ({} bytes)",
                       io.range.datatype == k210::kFloat32 ? "f32" : "u8", io.shape[0], io.shape[1],
                       io.shape[2], io.shape[3], kMem[io.range.memory_type], io.range.start,
                       io.range.size);
}

// A kmodel's header and layer table, with what the K210 driver supports.
int info_model(const std::string& path) {
    const k210::Kmodel m = k210::load_kmodel(path);
    fmt::print("{}: kmodel v{} ({}), {} bytes, {}-bit KPU, main memory {} bytes\n", path, m.version,
               m.version == 3 ? "nncase v0.1, Kendryte SDK" : "nncase v0.2", m.bytes.size(),
               m.eight_bit ? 8 : 16, m.main_mem_bytes);
    for (size_t i = 0; i < m.inputs.size(); ++i) {
        fmt::print("input {}: {}\n", i, io_str(m.inputs[i]));
    }
    for (size_t i = 0; i < m.outputs.size(); ++i) {
        fmt::print("output {}: {}\n", i, io_str(m.outputs[i]));
    }
    fmt::print("\n{:>4}  {:<28} {:>10} {:>8}  {}\n", "#", "layer", "body at", "bytes", "KPU shape");
    size_t conv = 0, unsupported = 0;
    for (size_t i = 0; i < m.layers.size(); ++i) {
        const k210::KmodelLayer& l = m.layers[i];
        std::string shape;
        if (conv < m.convs.size() && m.convs[conv].layer_index == i) {
            shape = kpu::shape_summary(m.convs[conv++].args);
        }
        const bool ok = k210::layer_supported(m.version, l.type);
        unsupported += ok ? 0 : 1;
        fmt::print("{:>4}  {:<28} {:>#10x} {:>8}  {}{}\n", i,
                   fmt::format("{} ({:#x})", l.type_name, l.type), l.body_offset, l.body_size,
                   shape, ok ? "" : "(not supported)");
    }
    fmt::print("\n{} layers, {} on the KPU, {} not supported by the simulator\n", m.layers.size(),
               m.convs.size(), unsupported);
    return kExitOk;
}

int info_dlp(const LoadedPlatform& p) {
    const dlp::DlpPlatformConfig& c = *p.dlp;
    const dlp::DlpConfig& d = c.dlp;
    fmt::print("platform {} (dlp), from {}\n", c.name, p.source);
    fmt::print(
        "ConvThreadNumber {} (C = {} channels at once, N = {} values per transfer), "
        "FCThreadNumber {}\n",
        d.conv_thread_number, d.threads_c(), d.transfer_n(), d.fc_thread_number);
    fmt::print("ProcessorDataType {}, TargetFrequency {}, AXI masters {} bits\n",
               dlp::data_type_name(d.data_type), sim::format_frequency(d.target_frequency_hz),
               d.axi_bits());
    fmt::print("conv buffers in [{}, {}, {}] out [{}, {}, {}], fc buffers in {} out {}\n",
               d.conv_input_memory_size[0], d.conv_input_memory_size[1],
               d.conv_input_memory_size[2], d.conv_output_memory_size[0],
               d.conv_output_memory_size[1], d.conv_output_memory_size[2], d.fc_input_memory_size,
               d.fc_output_memory_size);
    fmt::print("DDR at {:#x} ({}), registers at {:#x}; spatial x = {}\n", c.ddr_base_addr,
               sim::format_size(c.ddr_size_bytes), c.register_base_addr,
               d.x_is_height ? "height" : "width");
    return kExitOk;
}

}  // namespace

int cmd_info(const InfoOptions& opts) {
    if (!opts.model.empty()) {
        return info_model(opts.model);
    }
    const LoadedPlatform p = load_platform(opts.platform);
    if (p.dlp) {
        return info_dlp(p);
    }
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
