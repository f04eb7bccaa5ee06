#include "platforms/k210/soc/k210_platform.h"

namespace npu::k210 {

K210Platform::K210Platform(sc_core::sc_module_name name, const K210Config& cfg,
                           sim::TraceWriter& trace)
    : sc_module(name)
    , router("router")
    , kpu("kpu", cfg.kpu, &trace)
    , dmac("dmac", cfg.dmac, &trace)
    , cpu("cpu", cfg.platform.bus)
    , m_cfg(cfg)
    , m_stats(basename()) {
    cpu.socket.bind(router.target_socket);
    kpu.axi.socket.bind(router.target_socket);
    dmac.axi.socket.bind(router.target_socket);
    for (const platform::MemoryRegion& r : cfg.platform.memories) {
        memories.push_back(std::make_unique<sim::Memory>(r.name.c_str(), r.memory));
        const unsigned port = router.bind_target(memories.back()->socket);
        for (const sim::MapWindow& w : platform::windows_of(r, port)) {
            router.map(w.name, w.base, w.size, port, w.target_base);
        }
    }
    router.map("kpu", cfg.kpu_base_addr, kpu::regs::kBlockBytes,
               router.bind_target(kpu.regs.socket));
    const unsigned ai = router.bind_target(kpu.ram.socket);
    router.map("ai_sram", cfg.ai_ram_base_addr, kpu::kRamBytes, ai);
    router.map("ai_sram.io", cfg.ai_ram_io_addr, kpu::kRamBytes, ai);
    router.map("dmac", cfg.dmac_base_addr, dma::regs::kBlockBytes,
               router.bind_target(dmac.regs.socket));
    router.map("sysctl", cfg.sysctl_base_addr, dma::regs::kSysctlBytes,
               router.bind_target(dmac.sysctl.socket));
    // The KPU's output FIFO drives the AI_RX handshake request.
    dmac.connect_request(dma::regs::kAiRxReq,
                         {[this] { return kpu.output_words(); }, &kpu.output_event()});
    sim::set_global_quantum(sc_core::sc_time(cfg.platform.quantum_ns, sc_core::SC_NS));

    m_stats.attach(router.stats());
    for (auto& m : memories) {
        m_stats.attach(m->stats());
    }
    m_stats.attach(kpu.stats());
    m_stats.attach(dmac.stats());
    m_stats.attach(cpu.stats());
}

}  // namespace npu::k210
