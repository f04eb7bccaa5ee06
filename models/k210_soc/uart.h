// The K210's high-speed serial port as firmware prints through it: UARTHS (the SiFive UART the
// SDK's uarths.h describes, 0x38000000; UART1-3 are dw_uart.h). Transmitted bytes go to a sink
// at once (the transmitter is never busy); nothing is received. Also the register file the SoC
// blocks share.
// docs/firmware.md, "The SoC".
#pragma once

#include <cstdint>
#include <deque>
#include <functional>

#include <systemc>

#include "sim/core/regs.h"
#include "sim/core/stats.h"
#include "sim/tlm/register_target.h"

namespace npu::soc {

using ByteSink = std::function<void(uint8_t)>;

// Registers of one block kept alive for its bank (stable addresses).
class RegisterFile {
public:
    RegisterFile(const char* name, uint64_t bytes)
        : bank(name, bytes) {}
    sim::Register& add(sim::Register::Spec spec) {
        bank.add(m_regs.emplace_back(std::move(spec)));
        return m_regs.back();
    }
    sim::RegisterBank bank;

private:
    std::deque<sim::Register> m_regs;
};

class UartHs : public sc_core::sc_module {
public:
    static constexpr uint64_t kBytes = 0x1c;
    UartHs(sc_core::sc_module_name name, sc_core::sc_time access_latency, ByteSink sink);
    uint64_t bytes_sent() const { return m_sent.value(); }
    sim::StatGroup& stats() { return m_stats; }

private:
    RegisterFile m_file;
    ByteSink m_sink;
    sim::StatGroup m_stats;
    sim::Counter& m_sent;

public:
    sim::RegisterTarget regs;
};

}  // namespace npu::soc
