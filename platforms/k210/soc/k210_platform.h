// The K210 SoC as the KPU sees it: 6 MiB SRAM (and its uncached alias), the KPU with its 2 MiB AI
// SRAM (both windows), the DMAC and the SYSCTL DMA selectors, one router, and the CPU's AXI port
// that the driver uses. Wiring and addresses from configs/k210.yaml (docs/k210_platform.md).
#pragma once

#include <memory>
#include <vector>

#include <systemc>

#include "models/k210_dma/dmac.h"
#include "models/k210_kpu/kpu.h"
#include "platforms/k210/soc/k210_config.h"
#include "sim/core/stats.h"
#include "sim/core/trace.h"
#include "sim/tlm/axi_port.h"
#include "sim/tlm/memory.h"
#include "sim/tlm/router.h"

namespace npu::k210 {

class K210Platform : public sc_core::sc_module {
public:
    // Throws sim::Error when the address map overlaps or a block's config is invalid.
    K210Platform(sc_core::sc_module_name name, const K210Config& cfg, sim::TraceWriter& trace);

    const K210Config& config() const { return m_cfg; }
    const sim::AddressMap& address_map() const { return router.address_map(); }
    sim::StatGroup& stats() { return m_stats; }

    sim::Router router;
    std::vector<std::unique_ptr<sim::Memory>> memories;  // memories[0] is the SRAM
    kpu::Kpu kpu;
    dma::Dmac dmac;
    sim::AxiPort cpu;  // the RISC-V core's data port (the driver's only way to the hardware)

private:
    K210Config m_cfg;
    sim::StatGroup m_stats;
};

}  // namespace npu::k210
