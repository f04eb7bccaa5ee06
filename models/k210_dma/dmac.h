// The K210 DMAC subset as a SystemC module: six channels of single-block transfers, memory to
// memory, peripheral to memory and memory to peripheral with hardware handshake (the KPU's
// fifo_data_out drained into main memory, SYSCTL_DMA_SELECT_AI_RX_REQ; the UARTs' RX and TX
// requests), per-channel completion interrupts. Also the SYSCTL
// block: its two handshake selector registers, and the others (clocks, PLLs, resets: the SDK's
// sysctl_t) kept as written, the PLLs reading locked. Not modelled: multi-block and
// linked-list transfers, software handshake. docs/k210_platform.md.
#pragma once

#include <array>
#include <functional>
#include <memory>
#include <utility>
#include <vector>

#include <systemc>

#include "models/k210_dma/dmac_regs.h"
#include "sim/core/bus_cost.h"
#include "sim/core/regs.h"
#include "sim/core/stats.h"
#include "sim/core/trace.h"
#include "sim/tlm/axi_port.h"
#include "sim/tlm/irq.h"
#include "sim/tlm/peripheral.h"
#include "sim/tlm/register_target.h"

namespace npu::dma {

struct DmacConfig {
    sim::BusConfig bus{8, 16, 2, 4096, 400'000'000};  // the DMAC's AXI master
    double register_latency_ns = 10;
    // SYSCTL registers whose reset value is not 0 (offset, value): the platform's (the K210's
    // clock registers as the boot ROM leaves them).
    std::vector<std::pair<uint64_t, uint32_t>> sysctl_reset;
};

// A peripheral's DMA request: how many items it can deliver now (a source) or take now (a
// destination), and an event notified when that number may have grown.
struct RequestSource {
    std::function<size_t()> available;
    const sc_core::sc_event* changed = nullptr;
};

class Dmac : public sc_core::sc_module {
private:
    struct Channel;
    std::vector<std::unique_ptr<Channel>> m_ch;
    sim::Register m_id, m_compver, m_dmac_cfg, m_chen, m_intstatus, m_com_intclear,
        m_com_intstatus_en, m_com_intsignal_en, m_com_intstatus, m_reset;
    sim::RegisterBank m_bank;
    sim::Register m_dma_sel0, m_dma_sel1;

public:
    sim::RegisterTarget regs;  // DMAC_BASE_ADDR (0x50000000)
    // SYSCTL_BASE_ADDR (0x50440000): the DMA selectors, and the rest kept (PLLs read locked).
    sim::Peripheral sysctl;
    sim::AxiPort axi;
    std::array<sim::IrqLine, regs::kChannels> irq;  // K210: PLIC 27 + channel

    Dmac(sc_core::sc_module_name name, const DmacConfig& cfg, sim::TraceWriter* trace);
    ~Dmac() override;

    // Connects the peripheral whose SYSCTL select value is `select` (e.g. regs::kAiRxReq).
    void connect_request(unsigned select, RequestSource source);
    sim::StatGroup& stats() { return m_stats; }
    // A SYSCTL register other than the DMA selectors as it is now (0 for no register), and a
    // callback after each write to one (its offset, the write's time): the SoC drives its
    // blocks' clocks from them.
    uint32_t sysctl_value(uint64_t offset) const;
    void on_sysctl_write(std::function<void(uint64_t offset, const sc_core::sc_time&)> f) {
        m_sysctl_write = std::move(f);
    }

private:
    void run_channel(unsigned ch);
    void transfer(unsigned ch);
    // One burst through the AXI master; 0 or the channel's error cause.
    uint64_t move_burst(uint64_t src, uint64_t dst, std::vector<uint8_t>& buf, uint64_t n,
                        uint64_t width, bool src_fixed, bool dst_fixed, sc_core::sc_time& local);
    const RequestSource* request_for(unsigned interface) const;
    bool handshakes(unsigned c, uint64_t cfg, const RequestSource*& src,
                    const RequestSource*& dst) const;
    void write_chen(uint64_t v);
    void software_reset();  // RESET.dmac_rst
    void finish(unsigned ch, uint64_t status_bits);
    void update_irq(unsigned ch);
    void connect_registers();
    void add_sysctl_registers(const DmacConfig& cfg);

    sim::TraceWriter* m_trace;
    std::function<void(uint64_t offset, const sc_core::sc_time&)> m_sysctl_write;
    int m_track = 0;
    std::vector<RequestSource> m_sources;  // by select value
    std::array<sc_core::sc_event, regs::kChannels> m_start;

    sim::StatGroup m_stats;
    sim::Counter& m_transfers;
    sim::Counter& m_bytes;
    sim::Counter& m_handshake_waits;
    sim::Counter& m_errors;
};

}  // namespace npu::dma
