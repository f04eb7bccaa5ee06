// A register-level trace player in the NVDLA cmod style: a text script of bus accesses and
// checks, played through the platform's CPU port, for firmware bring-up and integration tests.
//   load_mem  ADDR @blob          write a named blob at ADDR
//   write_reg ADDR VALUE          64-bit write
//   read_reg  ADDR MASK EXPECT    64-bit read; (value & MASK) must equal EXPECT
//   wait_irq  kpu|dma0..dma5      wait until the line is high
//   compare_mem ADDR @blob        read len(blob) bytes at ADDR; they must equal the blob
// '#' starts a comment; numbers take 0x hex. A bad line is a sim::Error naming its line number.
#pragma once

#include <map>
#include <string>
#include <vector>

#include <systemc>

#include "platforms/k210/soc/k210_platform.h"
#include "sim/tlm/quantum.h"

namespace npu::k210 {

struct TraceStep {
    enum Op { LoadMem, WriteReg, ReadReg, WaitIrq, CompareMem } op;
    int line = 0;
    uint64_t addr = 0, value = 0, mask = 0;
    std::string name;  // blob or IRQ line
};

// Parses a script; blobs named with '@' must exist in `blobs`. Throws sim::Error
// "<source>:<line>: <problem>".
std::vector<TraceStep> parse_trace(const std::string& text, const std::string& source,
                                   const std::map<std::string, std::vector<uint8_t>>& blobs);

class TracePlayer : public sc_core::sc_module {
public:
    TracePlayer(sc_core::sc_module_name name, K210Platform& platform, std::vector<TraceStep> steps,
                std::map<std::string, std::vector<uint8_t>> blobs);
    // Failed checks, one line each ("line 12: read_reg 0x40800008: got 0x0, mask 0x1, expected
    // 0x1").
    const std::vector<std::string>& failures() const { return m_failures; }
    bool finished() const { return m_finished; }

private:
    void run();

    K210Platform& m_p;
    std::vector<TraceStep> m_steps;
    std::map<std::string, std::vector<uint8_t>> m_blobs;
    std::vector<std::string> m_failures;
    bool m_finished = false;
    sim::QuantumKeeper m_qk;
};

}  // namespace npu::k210
