// The Kendryte K210 KPU as a SystemC module, as firmware sees it: the kpu_config_t register block,
// the layer-argument FIFO with its thresholds and interrupts, the 2 MiB AI SRAM, an AXI master that
// fetches weights/BN/activation tables from system memory, and the fifo_data_out stream a DMA
// drains. Values come from kpu_func (bit-exact), time from kpu_cost with bus-measured fetches.
// Register semantics and inferred behaviour: docs/k210_kpu.md.
#pragma once

#include <deque>
#include <string>
#include <vector>

#include <systemc>

#include "models/k210_kpu/kpu_config.h"
#include "models/k210_kpu/kpu_cost.h"
#include "models/k210_kpu/kpu_regs.h"
#include "sim/core/regs.h"
#include "sim/core/stats.h"
#include "sim/core/trace.h"
#include "sim/tlm/axi_port.h"
#include "sim/tlm/irq.h"
#include "sim/tlm/memory.h"
#include "sim/tlm/quantum.h"
#include "sim/tlm/register_target.h"

namespace npu::kpu {

// One layer the KPU took from its FIFO.
struct LayerRecord {
    uint64_t index = 0;
    LayerArgs args;
    LayerCost cost;  // fetch terms as measured on the bus
    uint64_t start_ps = 0;
    uint64_t end_ps = 0;
    uint64_t overflows = 0;
    bool skipped = false;  // a fatal problem (or a failed fetch): not executed
};

class Kpu : public sc_core::sc_module {
private:
    // Declared first: the register target below refers to the bank.
    sim::Register m_fifo, m_status, m_raw, m_mask, m_clear, m_threshold, m_data_out, m_ctrl,
        m_eight_bit;
    sim::RegisterBank m_bank;

public:
    sim::RegisterTarget regs;  // the register block (AI_BASE_ADDR)
    sim::Memory ram;           // the AI SRAM (the platform maps its socket at both windows)
    sim::AxiPort axi;          // parameter fetch master (bus addresses, e.g. 0x40xxxxxx)
    sim::IrqLine irq;          // K210: PLIC source 25

    // Throws sim::Error when the config is invalid. `trace` may be null.
    Kpu(sc_core::sc_module_name name, const KpuConfig& cfg, sim::TraceWriter* trace);

    // fifo_data_out handshake (the DMAC's AI_RX request): words waiting, and an event notified
    // whenever words are added.
    size_t output_words() const { return m_out.size(); }
    const sc_core::sc_event& output_event() const { return m_output_added; }
    // Notified (delta) when a layer has finished: its output is in the AI SRAM.
    const sc_core::sc_event& layer_done_event() const { return m_layer_done; }
    const std::vector<LayerRecord>& layers() const { return m_layers; }
    sim::StatGroup& stats() { return m_stats; }
    double clock_hz() const { return 1e12 / m_period_ps; }
    // The KPU's clock changed (SYSCTL's PLL1 and AI threshold): layers started from now on.
    void set_clock_hz(double hz) { m_period_ps = 1e12 / hz; }
    // The register map: offset, name, access, size, reset value (for `npusim info`).
    std::string register_map() const { return m_bank.dump(); }

private:
    void run();
    void execute(const Words& w);
    void finish_layer(LayerRecord& rec, const LayerResult& r);
    void count_layer(const LayerRecord& rec, const LayerResult& r);
    // Fetches the layer's tables through `axi`; returns false (after a warning) on a bus error.
    bool fetch(const LayerArgs& a, bool eight_bit, LayerParams& p);
    bool read(uint64_t addr, uint8_t* dst, size_t n, const char* what);
    void problem(uint64_t layer, const std::string& what, bool fatal);
    void connect_registers();
    void push_word(uint64_t w);
    uint64_t pop_output();
    void flush(uint64_t ctrl);
    void update_interrupts();
    void set_raw(uint64_t bits);

    void trace_parts(const LayerRecord& rec);

    KpuConfig m_cfg;
    sim::TraceWriter* m_trace;
    int m_track = 0;
    double m_period_ps;  // not rounded to the kernel's 1 ps (398.67 MHz: 2508.36 ps)
    sim::QuantumKeeper m_qk;
    // The layer in flight's parameters and result: members, not execute()'s locals, since a
    // thread stopped in a wait() at the simulation's end never destroys its locals.
    LayerParams m_params;
    LayerResult m_result;
    std::deque<uint64_t> m_layer_fifo;
    // The FIFO's almost-empty/full conditions at the last update (their interrupts are the
    // conditions' rising edges). Reset: empty, so almost empty already holds.
    bool m_was_almost_empty = true, m_was_almost_full = false;
    // When each complete layer in the FIFO got its 12th word: the writer's own time (a CPU
    // running ahead of the kernel), so a layer never starts before its arguments were written.
    std::deque<sc_core::sc_time> m_layer_written;
    std::deque<uint64_t> m_out;
    sc_core::sc_event m_layer_pushed{"layer_pushed"};
    sc_core::sc_event m_output_added{"output_added"};
    sc_core::sc_event m_layer_done{"layer_done"};
    std::vector<uint8_t> m_weights;
    std::vector<LayerRecord> m_layers;

    sim::StatGroup m_stats;
    sim::Counter& m_layers_done;
    sim::Counter& m_layers_skipped;
    sim::Counter& m_macs;
    sim::Counter& m_busy_cycles;
    sim::Counter& m_compute_cycles;
    sim::Counter& m_exposed_fetch_cycles;
    sim::Counter& m_output_stream_cycles;
    sim::Counter& m_weight_bytes;
    sim::Counter& m_param_bytes;
    sim::Counter& m_output_bytes;
    sim::Counter& m_overflows;
    sim::Counter& m_fifo_overflow_words;
    sim::Counter& m_output_underflows;
};

}  // namespace npu::kpu
