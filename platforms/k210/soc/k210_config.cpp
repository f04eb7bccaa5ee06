#include "platforms/k210/soc/k210_config.h"

#include "platforms/k210/kmodel/kmodel_ops.h"

namespace npu::k210 {

K210Config read_k210_config(const sim::ConfigNode& p) {
    K210Config c;
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
    if (auto cpu = p.optional_child("cpu")) {
        c.cpu.clock_hz = cpu->get_hz("clock_hz", c.cpu.clock_hz);
        c.cpu.cycles_per_element =
            cpu->get<double>("cycles_per_element", c.cpu.cycles_per_element, 0.0, 1e6);
        c.cpu.cycles_per_mac = cpu->get<double>("cycles_per_mac", c.cpu.cycles_per_mac, 0.0, 1e6);
        c.cpu.kpu_readback_cycles_per_byte = cpu->get<double>(
            "kpu_readback_cycles_per_byte", c.cpu.kpu_readback_cycles_per_byte, 0.0, 1e6);
        // Any CPU op of the table, by its name (an unknown name is reported by finish()).
        if (const auto per_op = cpu->optional_child("op_cycles_per_element")) {
            for (const KmodelOp& op : kmodel_ops()) {
                if (op.runs == OpRuns::cpu && per_op->has(op.name)) {
                    c.cpu.op_cycles_per_element[op.name] =
                        per_op->get<double>(op.name, 0.0, 0.0, 1e6);
                }
            }
        }
        c.cpu.interrupt_cycles =
            cpu->get<uint64_t>("interrupt_cycles", c.cpu.interrupt_cycles, 0u, 1u << 30);
        c.cpu.layer_dispatch_cycles =
            cpu->get<uint64_t>("layer_dispatch_cycles", c.cpu.layer_dispatch_cycles, 0u, 1u << 30);
        c.cpu.fused_multiply_add = cpu->get<bool>("fused_multiply_add", c.cpu.fused_multiply_add);
    }
    c.io_offset = p.get<uint64_t>("io_offset", c.io_offset);
    if (c.platform.memories.empty()) {
        p.error("a k210 platform needs its SRAM under 'memories'");
    }
    return c;
}

}  // namespace npu::k210
