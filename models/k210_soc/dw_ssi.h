// SPI0 and SPI3 of the K210 as the SDK's spi.c drives them (an LCD, a flash): DesignWare
// DW_apb_ssi in master mode with its 32-frame TX FIFO, timed at the line rate. A frame
// written to DR (by the CPU or the DMAC's SSI0_TX handshake) waits in the FIFO until a slave is
// selected (SER) and the previous frame has left, then takes its data-frame-size bits (CTRLR0
// DFS, 4..32) over 1, 2, 4 or 8 lines (CTRLR0 FRF: standard, dual, quad, octal) at SCLK = the
// SPI0 clock / BAUDR. SR reports BUSY, TFNF and TFE at the access's time, TXFLR the FIFO's level;
// disabling (SSIENR 0) empties the FIFO. Each frame is handed to the device side (the board's
// LCD) when SPI0 schedules it — at the DR write, or at the SER write for frames that waited —
// with the slave-select mask, its bits (MSB first) and the time it starts on the wire (a frame
// dropped by disabling after that has reached the device anyway: the SDK disables only after
// SR shows the line idle).
// Receiving as spi_receive_data_standard does it (CTRLR0.TMOD): transmit and receive (each frame
// sent brings one back), receive only (a DR write starts CTRLR1.NDF + 1 frames in), EEPROM read
// (the frames written are sent, then NDF + 1 come in); what comes in is the device's answer to
// each frame, in the RX FIFO from the frame's end (RXFLR, DR reads). SPI3's CTRLR0 has its own
// layout (DFS at bit 0, TMOD at 10, FRF at 22). The transfer ends for the device when SER or
// SSIENR is written 0 (the SDK ends every transfer so). Not modelled: interrupts, the instruction
// and address phases of the enhanced modes (every FIFO entry is sent as one data frame: what the
// LCD drivers send has instruction or address length equal to the frame size), RX FIFO overflow.
// docs/k210_lcd.md.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>

#include <systemc>

#include "sim/core/stats.h"
#include "sim/tlm/peripheral.h"

namespace npu::soc {

class DwSsi : public sc_core::sc_module {
public:
    static constexpr uint64_t kBytes = 0x120;
    static constexpr unsigned kFifoDepth = 32;
    // A frame on the wire: the slave-select mask, its bit count, its value (low `bits` bits) and
    // when it starts; returns what the device sends back in it.
    using FrameSink =
        std::function<uint32_t(uint32_t ser, unsigned bits, uint32_t value, sc_core::sc_time at)>;
    // Where CTRLR0's fields sit: SPI0/1 (DFS 20:16, TMOD 9:8, FRF 22:21) or SPI3 (DFS 4:0, TMOD
    // 11:10, FRF 23:22), as spi.c's offsets.
    struct Layout {
        unsigned dfs_shift, tmod_shift, frf_shift;
    };
    static constexpr Layout kSpi01{16, 8, 21}, kSpi3{0, 10, 22};

    DwSsi(sc_core::sc_module_name name, double clock_hz, sc_core::sc_time access_latency,
          FrameSink sink, Layout layout = kSpi01);
    // Called with the slave-select mask when a transfer ends (SER or SSIENR written 0).
    void on_end(std::function<void(uint32_t ser)> f) { m_end = std::move(f); }
    // The SPI0 clock changed (SYSCTL): frames started from now take the new rate.
    void set_clock_hz(double hz) { m_clock_hz = hz; }
    // The DMA request (SYSCTL_DMA_SELECT_SSI0_TX_REQ): room in the TX FIFO now, while the DMA is
    // enabled for transmit (DMACR.TDMAE) and the block is; `dma_event()` is notified whenever it
    // may have grown.
    size_t tx_room();
    const sc_core::sc_event& dma_event() const { return m_dma; }
    // Notified when the last frame has left the wire (SR's BUSY falls): what a hart polling SR
    // waits for.
    const sc_core::sc_event& idle_event() const { return m_idle; }
    sim::StatGroup& stats() { return m_stats; }

    sim::Peripheral regs;

private:
    void add_registers();
    void write_dr(uint64_t v);
    void start_waiting(const sc_core::sc_time& at);  // frames queued while no slave was selected
    // Sends a frame (and, transmitting and receiving, keeps what came back).
    void send(unsigned bits, uint32_t value, const sc_core::sc_time& at);
    void receive(const sc_core::sc_time& at);  // CTRLR1.NDF + 1 frames in
    uint64_t read_dr();
    unsigned rx_level(const sc_core::sc_time& at) const;
    unsigned tmod() const;
    void end_transfer(uint64_t ser_before);
    unsigned level(const sc_core::sc_time& at);  // frames in the FIFO at `at`
    uint64_t status(const sc_core::sc_time& at);
    unsigned frame_bits() const;
    sc_core::sc_time frame_time(unsigned bits) const;
    // SC_METHOD: at each frame's start (room in the FIFO: the DMA request) and when the line
    // falls idle, then armed for the next of them.
    void tick();
    SC_HAS_PROCESS(DwSsi);
    sc_core::sc_time now() const { return regs.access_time(); }

    FrameSink m_sink;
    std::function<void(uint32_t)> m_end;
    Layout m_layout;
    double m_clock_hz;
    uint64_t m_ctrlr0 = 0, m_ctrlr1 = 0, m_ssienr = 0, m_ser = 0, m_baudr = 0, m_dmacr = 0;
    std::deque<std::pair<sc_core::sc_time, uint32_t>> m_rx;  // received frames, from their end
    std::deque<sc_core::sc_time> m_starts;  // frames sent or scheduled: their start times
    std::deque<std::pair<unsigned, uint32_t>> m_waiting;  // written while no slave was selected
    sc_core::sc_time m_line_free;                         // when the last frame ends
    sc_core::sc_event m_dma, m_idle, m_wake;
    sim::StatGroup m_stats;
    sim::Counter& m_frames;
    sim::Counter& m_bits;
    sim::Counter& m_lost;
};

}  // namespace npu::soc
