// The DL processor as a SystemC module: the AXI4-Lite register block (dlp_regs.h), three AXI4
// masters to DDR (instructions, weights, activations) with N-wide beats through the bus model,
// and an interrupt. A start runs FrameCount frames: fetch the layer records, then per frame and
// layer read the input image(s), weights and bias, compute (dlp_exec: the pure, bit-exact path),
// write the output image, and charge the layer's time as dlp_cost does with the transfer terms
// measured on the ports. Semantics: docs/dlp.md "Registers" and "Timed run".
#pragma once

#include <string>
#include <vector>

#include <systemc>

#include "models/dlp/dlp_config.h"
#include "models/dlp/dlp_cost.h"
#include "models/dlp/dlp_program.h"
#include "models/dlp/dlp_regs.h"
#include "models/dlp/dlp_tiles.h"
#include "sim/core/regs.h"
#include "sim/core/stats.h"
#include "sim/tlm/axi_port.h"
#include "sim/tlm/irq.h"
#include "sim/tlm/register_target.h"

namespace npu::dlp {

// One layer of one frame as the module ran it.
struct LayerRun {
    uint32_t frame = 0;
    size_t layer = 0;
    std::string kind;
    LayerCost cost;  // transfer terms as measured on the ports
    uint64_t start_ps = 0, end_ps = 0;
};

class Dlp : public sc_core::sc_module {
private:
    std::vector<sim::Register> m_regs_storage;
    sim::RegisterBank m_bank;

public:
    sim::RegisterTarget regs;  // AXI4-Lite
    sim::AxiPort instr;        // instruction fetch master
    sim::AxiPort weights;      // weight master
    sim::AxiPort act;          // activation master
    sim::IrqLine irq;

    Dlp(sc_core::sc_module_name name, const DlpConfig& cfg, const DlpTiming& timing);

    const std::vector<LayerRun>& runs() const { return m_runs; }
    sim::StatGroup& stats() { return m_stats; }
    // The last error, when Status.error is set.
    const std::string& error() const { return m_error; }

private:
    sim::Register& reg(uint64_t offset);
    void wire_registers();
    void run();
    bool run_frames();
    bool run_frame(const std::vector<Record>& records, uint32_t frame, uint32_t slot);
    bool transfer(const Transfer& x, const LayerPlacement& p, std::vector<uint8_t>& buf,
                  LayerCost& c, sc_core::sc_time& tp);
    bool run_layer(const Record& r, const LayerPlacement& p, uint32_t frame, size_t i);
    void finish_layer(const Record& r, const LayerPlacement& p, LayerRun& run);
    bool streaming(const std::vector<Record>& records, uint64_t frames);
    void raise(uint64_t irq_bits);
    void fail(uint64_t code, const std::string& why);
    void update_irq();
    uint32_t adjust(uint64_t addr, uint32_t frame) const;

    DlpConfig m_cfg;
    DlpTiming m_timing;
    sc_core::sc_time m_period;
    sc_core::sc_event m_start{"start"};
    sc_core::sc_event m_input_next{"input_next"}, m_output_next{"output_next"};
    bool m_stop_requested = false;
    std::vector<LayerRun> m_runs;
    std::string m_error;

    sim::StatGroup m_stats;
    sim::Counter& m_frames;
    sim::Counter& m_layers;
    sim::Counter& m_busy_cycles;
};

}  // namespace npu::dlp
