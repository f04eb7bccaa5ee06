// UART1-3 of the K210: DesignWare DW_apb_uart (16550 registers with 16-byte FIFOs; the SDK's
// uart.h / uart.c), timed at the line rate. A transmitted byte waits in the TX FIFO, goes into
// the shift register when the previous one has left and reaches the sink when its stop bit ends;
// received bytes (the user's input) arrive back to back from one character time after the
// firmware first sets a baud rate. Character time = (start + data + parity + stop bits) ×
// (16·(DLH:DLL) + DLF) / clock. Interrupts as the SDK's uart_irq_register uses them: received
// data at the RX trigger level (FCR/SRT), the character timeout (data below the trigger and
// nothing received or read for 4 character times), THR empty / TX FIFO at or below its trigger
// (programmable THRE mode: IER.PTIME with FIFOs, FCR/STET). docs/firmware.md, "The SoC".
#pragma once

#include <cstdint>
#include <deque>
#include <vector>

#include <systemc>

#include "models/k210_soc/uart.h"
#include "sim/core/stats.h"
#include "sim/tlm/irq.h"
#include "sim/tlm/peripheral.h"
#include "sim/tlm/register_target.h"

namespace npu::soc {

class DwApbUart : public sc_core::sc_module {
public:
    static constexpr uint64_t kBytes = 0x100;
    static constexpr unsigned kFifoDepth = 16;
    // `clock_hz`: the UART's clock (APB0); `sink`: each transmitted byte when its stop bit ends.
    DwApbUart(sc_core::sc_module_name name, double clock_hz, sc_core::sc_time access_latency,
              ByteSink sink);
    // The UART's clock changed: characters started from now take the new rate.
    void set_clock_hz(double hz) { m_clock_hz = hz; }
    // The bytes the line brings (before the simulation starts).
    void set_input(std::vector<uint8_t> bytes) { m_input = std::move(bytes); }
    uint64_t bytes_sent() const { return m_sent.value(); }
    uint64_t bytes_received() const { return m_received.value(); }
    uint64_t bytes_lost() const { return m_lost.value(); }
    // The simulation ended at `end`: the bytes still in the TX FIFO and the shift register reach
    // the sink, in order, as the line carries them on (a board's UART keeps shifting after its
    // core stops). How many there were and when the last one's stop bit ends (`end` if none).
    struct Drained {
        size_t bytes = 0;
        sc_core::sc_time last;
    };
    Drained drain_tx(const sc_core::sc_time& end);
    // Bytes of the input (set_input) that had not arrived by the last settled time, and whether
    // the firmware ever set a baud rate (before that no byte arrives).
    size_t input_left() const { return m_input.size() - m_next_input; }
    bool line_started() const { return m_rx_started; }
    // The DMA requests (SYSCTL_DMA_SELECT_UARTn_RX_REQ / _TX_REQ): bytes the RX FIFO holds,
    // room in the TX FIFO, now; `dma_event()` is notified whenever either may have grown.
    size_t rx_available();
    size_t tx_room();
    const sc_core::sc_event& dma_event() const { return m_dma; }
    sim::StatGroup& stats() { return m_stats; }

    sim::IrqLine irq;

private:
    struct TxByte {
        uint8_t value;
        sc_core::sc_time start, done;  // into the shift register; its stop bit's end
    };
    SC_HAS_PROCESS(DwApbUart);
    void add_registers();
    void add_line_registers();
    void add_control_registers();
    sc_core::sc_time char_time() const;
    unsigned tx_level(const sc_core::sc_time& at) const;
    unsigned tx_threshold() const;
    unsigned rx_trigger() const;
    unsigned depth() const { return m_fifo_enabled ? kFifoDepth : 1; }
    bool ptime() const;
    // Brings the line up to `at`: bytes sent, FIFO thresholds crossed, bytes received, timeouts.
    void settle(const sc_core::sc_time& at);
    void settle_tx(const sc_core::sc_time& at);
    void settle_rx(const sc_core::sc_time& at);
    uint64_t interrupt_id() const;
    void after_access();  // settle at the access's time, update the line, reschedule
    void update_irq();
    void tick();  // SC_METHOD: settles at each next event of the line
    uint64_t read_rbr();
    void write_thr(uint64_t v);
    void write_ier(uint64_t v);
    void write_fcr(uint64_t v);
    void reset_fifos(bool rx, bool tx);
    void write_lcr(uint64_t v);
    sc_core::sc_time now() const;

    ByteSink m_sink;
    double m_clock_hz;
    uint64_t m_lcr = 0, m_ier = 0, m_dll = 0, m_dlh = 0, m_dlf = 0;
    bool m_fifo_enabled = false;
    unsigned m_rx_trigger = 0, m_tx_trigger = 0;  // FCR[7:6] / SRT, FCR[5:4] / STET
    std::deque<TxByte> m_tx;                      // not yet at the sink
    sc_core::sc_time m_tx_free;                   // the shift register's next free time
    sc_core::sc_time m_tx_settled;                // starts up to here are accounted for
    bool m_thre_pending = false;
    std::vector<uint8_t> m_input;
    size_t m_next_input = 0;
    bool m_rx_started = false;
    sc_core::sc_time m_rx_start, m_rx_char, m_rx_activity;
    std::deque<uint8_t> m_rx;
    bool m_timeout = false, m_overrun = false;
    sc_core::sc_event m_wake, m_dma;
    sim::StatGroup m_stats;
    sim::Counter& m_sent;
    sim::Counter& m_received;
    sim::Counter& m_lost;

public:
    sim::Peripheral regs;
};

}  // namespace npu::soc
