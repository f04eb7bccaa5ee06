// The K210's serial ports as firmware prints through them: UARTHS (the SiFive UART the SDK's
// uarths.h describes, 0x38000000) and UART1-3 (DesignWare APB UARTs, 16550 registers, the SDK's
// uart.h; the SDK's console is UART3 at 0x50230000). Transmitted bytes go to a sink at once (the
// transmitter is never busy: THR empty, TX FIFO never full); nothing is ever received. Every other
// register accepts writes and reads back (baud divisors, FIFO and line control). Also the FPIOA:
// pin functions as a register file that accepts writes. docs/firmware.md, "The SoC".
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

class DwUart : public sc_core::sc_module {
public:
    static constexpr uint64_t kBytes = 0x100;
    DwUart(sc_core::sc_module_name name, sc_core::sc_time access_latency, ByteSink sink);
    uint64_t bytes_sent() const { return m_sent.value(); }
    sim::StatGroup& stats() { return m_stats; }

private:
    RegisterFile m_file;
    ByteSink m_sink;
    sim::Register* m_lcr = nullptr;
    uint64_t m_ier = 0, m_dlh = 0;  // IER and DLH share offset 0x04 (LCR.DLAB picks DLH)
    uint64_t m_fcr = 0;             // FCR (write only at 0x08, where IIR is read)
    sim::StatGroup m_stats;
    sim::Counter& m_sent;

public:
    sim::RegisterTarget regs;
};

// FPIOA: 48 pin registers and the tie enable/value words, accepted and kept (no pins are
// modelled).
class Fpioa : public sc_core::sc_module {
public:
    static constexpr uint64_t kBytes = 0x100;
    Fpioa(sc_core::sc_module_name name, sc_core::sc_time access_latency);

private:
    RegisterFile m_file;

public:
    sim::RegisterTarget regs;
};

}  // namespace npu::soc
