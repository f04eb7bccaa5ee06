// The DL processor's platform (SystemC): DDR, the processor's register block and its three AXI
// masters on one router, and a host that plays the toolbox's dlhdl workflow through the bus
// only: write the program (instructions, weights) and the input frames into DDR, program the
// registers, start, wait for the done interrupt, read the results. docs/dlp.md "Timed run".
#pragma once

#include <vector>

#include <systemc>

#include "models/dlp/dlp.h"
#include "platforms/dlp/dlp_compiler.h"
#include "platforms/dlp/dlp_job.h"
#include "sim/tlm/axi_port.h"
#include "sim/tlm/memory.h"
#include "sim/tlm/quantum.h"
#include "sim/tlm/router.h"

namespace npu::dlp {

struct HostResult {
    std::vector<std::vector<uint8_t>> outputs;  // one result image per frame
    uint64_t start_ps = 0, end_ps = 0;          // InputStart written, done interrupt taken
    bool done = false;
    std::string error;
};

class DlpPlatform : public sc_core::sc_module {
public:
    sim::Router router{"router"};
    sim::Memory ddr;
    Dlp dlp;
    sim::AxiPort host;  // the host CPU's master (program and data loading, registers)

    DlpPlatform(sc_core::sc_module_name name, const DlpPlatformConfig& cfg);

    // Before sc_start(): the compiled program and one input image (DDR bytes) per frame.
    // `streaming`: run the frames in streaming mode (one at a time through the first slots, with
    // the InputNext/OutputNext handshake) instead of one batch.
    void load(const Program& p, std::vector<std::vector<uint8_t>> inputs, bool streaming = false);
    const HostResult& result() const { return m_result; }

private:
    void run_host();
    void write(uint64_t addr, const void* data, size_t n);
    void reg(uint64_t offset, uint32_t value);
    uint32_t read_reg(uint64_t offset);
    void wait_irq_bit(uint32_t bit);  // waits for the line, checks IrqStatus, clears the bit
    void run_batch();
    void run_streaming();

    DlpPlatformConfig m_cfg;
    const Program* m_program = nullptr;
    std::vector<std::vector<uint8_t>> m_inputs;
    bool m_streaming = false;
    sim::QuantumKeeper m_qk;
    HostResult m_result;
};

}  // namespace npu::dlp
