// The K210's high-speed serial port as firmware prints through it: UARTHS (the SiFive UART the
// SDK's uarths.h describes, 0x38000000; UART1-3 are dw_uart.h). Transmitted bytes go to a sink
// at once (the transmitter is never busy); nothing is received.
// docs/firmware.md, "The SoC".
#pragma once

#include <cstdint>
#include <functional>

#include <systemc>

#include "sim/core/regs.h"
#include "sim/core/stats.h"
#include "sim/tlm/peripheral.h"

namespace npu::soc {

using ByteSink = std::function<void(uint8_t)>;

class UartHs : public sc_core::sc_module {
public:
    static constexpr uint64_t kBytes = 0x1c;
    UartHs(sc_core::sc_module_name name, sc_core::sc_time access_latency, ByteSink sink);
    uint64_t bytes_sent() const { return m_sent.value(); }
    sim::StatGroup& stats() { return m_stats; }

private:
    ByteSink m_sink;
    sim::StatGroup m_stats;
    sim::Counter& m_sent;

public:
    sim::Peripheral regs;
};

}  // namespace npu::soc
