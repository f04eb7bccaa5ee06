#include "platforms/k210/soc/k210_config.h"

#include <filesystem>

#include <fmt/format.h>

#include "models/k210_soc/clock_tree.h"
#include "platforms/k210/kmodel/kmodel_ops.h"
#include "sim/core/error.h"

namespace npu::k210 {

namespace {

// The CPU time model's keys over `m` (docs/k210_platform.md "CPU time model").
void read_cpu_model(const sim::ConfigNode& cpu, CpuModel& m) {
    m.clock_hz = cpu.get_hz("clock_hz", m.clock_hz);
    m.cycles_per_element = cpu.get<double>("cycles_per_element", m.cycles_per_element, 0.0, 1e6);
    m.cycles_per_mac = cpu.get<double>("cycles_per_mac", m.cycles_per_mac, 0.0, 1e6);
    m.kpu_readback_cycles_per_byte =
        cpu.get<double>("kpu_readback_cycles_per_byte", m.kpu_readback_cycles_per_byte, 0.0, 1e6);
    // Any CPU op of the table, by its name (an unknown name is reported by finish()).
    for (const char* key : {"op_cycles_per_element", "op_cycles_per_mac"}) {
        auto& per =
            std::string(key) == "op_cycles_per_mac" ? m.op_cycles_per_mac : m.op_cycles_per_element;
        if (const auto per_op = cpu.optional_child(key)) {
            for (const KmodelOp& op : kmodel_ops()) {
                if (op.runs == OpRuns::cpu && per_op->has(op.name)) {
                    per[op.name] = per_op->get<double>(op.name, 0.0, 0.0, 1e6);
                }
            }
        }
    }
    m.interrupt_cycles = cpu.get<uint64_t>("interrupt_cycles", m.interrupt_cycles, 0u, 1u << 30);
    m.layer_dispatch_cycles =
        cpu.get<uint64_t>("layer_dispatch_cycles", m.layer_dispatch_cycles, 0u, 1u << 30);
    m.fused_multiply_add = cpu.get<bool>("fused_multiply_add", m.fused_multiply_add);
}

// A relative path is taken beside the file that names it (a built-in config: the working
// directory).
std::string resolve_beside(const std::string& path, const std::string& from) {
    const std::filesystem::path p(path);
    if (p.is_absolute() || from.empty() || from[0] == '<') {
        return path;
    }
    return (std::filesystem::path(from).parent_path() / p).string();
}

// `calibration: FILE`: what `npusim calibrate` wrote, over the platform's own values: `cpu:` (the
// CPU time model's keys) and `kpu:` (the timing model's fitted keys).
void read_calibration(const std::string& path, K210Config& c) {
    sim::ConfigDocument doc = sim::ConfigDocument::load_file(path);
    sim::ConfigNode root = doc.root();
    if (auto k = root.optional_child("kpu")) {
        kpu::read_kpu_timing(*k, c.kpu.timing);
    }
    if (auto cpu = root.optional_child("cpu")) {
        read_cpu_model(*cpu, c.cpu);
    }
    doc.finish();
}

// cpu.cpi: {alu: 1, load: 2, ...}, each class's cycles per instruction.
void read_cpi(const sim::ConfigNode& cpi, rv64::CycleModel& m) {
    for (size_t c = 0; c < rv64::kInsnClasses; ++c) {
        const char* name = rv64::to_string(static_cast<rv64::InsnClass>(c));
        m.cycles[c] = cpi.get<uint32_t>(name, m.cycles[c], 1u, 10000u);
    }
}

}  // namespace

rv64::CycleModel K210Config::default_cpi() {
    using rv64::InsnClass;
    rv64::CycleModel m;  // 1 for every class, then the classes that take longer
    auto set = [&m](InsnClass c, uint32_t n) {
        m.cycles[static_cast<size_t>(c)] = n;
    };
    set(InsnClass::Load, 2);    // the load-use bubble of a five-stage pipeline, always taken
    set(InsnClass::Jump, 2);    // a taken jump refetches
    set(InsnClass::Mul, 3);     // a pipelined multiplier's latency
    set(InsnClass::Div, 33);    // an iterative divider: one quotient bit per cycle (32 bits)
    set(InsnClass::FpDiv, 20);  // iterative floating-point divide and square root
    return m;
}

namespace {
// SYSCTL's clock registers as the boot ROM leaves them (docs/firmware.md, "Clocks").
std::vector<std::pair<uint64_t, uint32_t>> boot_sysctl() {
    soc::SysctlClockRegs boot = soc::SysctlClockRegs::at_boot();
    std::vector<std::pair<uint64_t, uint32_t>> v;
    for (uint64_t offset : soc::SysctlClockRegs::offsets()) {
        if (*boot.word(offset) != 0) {
            v.emplace_back(offset, *boot.word(offset));
        }
    }
    return v;
}
}  // namespace

K210Config read_k210_config(const sim::ConfigNode& p) {
    K210Config c;
    c.dmac.sysctl_reset = boot_sysctl();
    c.platform = platform::read_platform(p);
    if (auto k = p.optional_child("kpu")) {
        c.kpu_base_addr = k->get<uint64_t>("base_addr", c.kpu_base_addr);
        c.ai_ram_base_addr = k->get<uint64_t>("ram_base_addr", c.ai_ram_base_addr);
        c.ai_ram_io_addr = k->get<uint64_t>("ram_io_addr", c.ai_ram_io_addr);
        c.kpu = kpu::read_kpu_config(*k);
    }
    if (auto d = p.optional_child("dmac")) {
        c.dmac_base_addr = d->get<uint64_t>("base_addr", c.dmac_base_addr);
        c.sysctl_base_addr = d->get<uint64_t>("sysctl_base_addr", c.sysctl_base_addr);
        c.dma_channel = d->get<unsigned>("channel", c.dma_channel, 0u, dma::regs::kChannels - 1);
        c.dmac.register_latency_ns =
            d->get<double>("register_latency_ns", c.dmac.register_latency_ns, 0.0, 1e6);
        if (auto bus = d->optional_child("bus")) {
            c.dmac.bus = sim::read_bus_config(*bus, c.dmac.bus);
        }
    }
    c.devices.place("kpu", c.kpu_base_addr);
    c.devices.place("dmac", c.dmac_base_addr);
    c.devices.place("sysctl", c.sysctl_base_addr);
    c.devices.read(p);
    if (auto l = p.optional_child("lcd")) {
        c.lcd.controller = l->get_enum<std::string>("controller", c.lcd.controller,
                                                    {{"nt35310", "nt35310"}, {"st7789", "st7789"}});
        c.lcd.cs = l->get<unsigned>("cs", c.lcd.cs, 0u, 3u);
        c.lcd.dcx_pad = l->get<unsigned>("dcx_pad", c.lcd.dcx_pad, 0u, 47u);
        c.lcd.bgr = l->get<bool>("bgr", c.lcd.bgr);
    }
    if (auto cam = p.optional_child("camera")) {
        c.camera.sensor = cam->get_enum<std::string>("sensor", c.camera.sensor,
                                                     {{"ov5640", "ov5640"}, {"ov2640", "ov2640"}});
    }
    if (auto cpu = p.optional_child("cpu")) {
        read_cpu_model(*cpu, c.cpu);
        if (auto cpi = cpu->optional_child("cpi")) {
            read_cpi(*cpi, c.cpi);
        }
        c.uncached_load_cycles =
            cpu->get<double>("uncached_load_cycles", c.uncached_load_cycles, 0.0, 1e6);
        c.uncached_store_cycles =
            cpu->get<double>("uncached_store_cycles", c.uncached_store_cycles, 0.0, 1e6);
    }
    const std::string calibration = p.get<std::string>("calibration", "");
    if (!calibration.empty()) {
        try {
            read_calibration(resolve_beside(calibration, p.document_name()), c);
        } catch (const sim::Error& e) {
            throw sim::Error(
                fmt::format("{}: platform.calibration: {}", p.document_name(), e.what()));
        }
    }
    c.io_offset = p.get<uint64_t>("io_offset", c.io_offset);
    if (c.platform.memories.empty()) {
        p.error("a k210 platform needs its SRAM under 'memories'");
    }
    return c;
}

}  // namespace npu::k210
