#include "models/k210_soc/dw_ssi.h"

#include <algorithm>

namespace npu::soc {

using sc_core::sc_time;
using sim::Access;

namespace {
constexpr uint64_t kFull32 = 0xffffffff;
constexpr uint64_t kSrBusy = 0x01, kSrTfnf = 0x02, kSrTfe = 0x04;
constexpr uint64_t kDmacrTdmae = 0x02;
constexpr uint32_t kIdr = 0;  // IDR: the identification code the SoC was built with (unknown)
constexpr uint32_t kVersion = 0x3430322a;  // DW_apb_ssi "402*"
constexpr unsigned kTmodTxRx = 0, kTmodRx = 2, kTmodEeprom = 3;

// The registers that keep what is written and do nothing else here.
struct Plain {
    const char* name;
    uint64_t offset;
};
constexpr Plain kPlain[] = {{"MWCR", 0x0c},           {"TXFTLR", 0x18},
                            {"RXFTLR", 0x1c},         {"IMR", 0x2c},
                            {"DMATDLR", 0x50},        {"DMARDLR", 0x54},
                            {"RX_SAMPLE_DLY", 0xf0},  {"SPI_CTRLR0", 0xf4},
                            {"XIP_MODE_BITS", 0xfc},  {"XIP_INCR_INST", 0x100},
                            {"XIP_WRAP_INST", 0x104}, {"XIP_CTRL", 0x108},
                            {"XIP_SER", 0x10c},       {"XIP_CNT_TIME_OUT", 0x114},
                            {"ENDIAN", 0x118}};
}  // namespace

DwSsi::DwSsi(sc_core::sc_module_name name, double clock_hz, sc_time access_latency, FrameSink sink,
             Layout layout)
    : sc_module(name)
    , regs("regs", "spi", kBytes, access_latency)
    , m_sink(std::move(sink))
    , m_layout(layout)
    , m_clock_hz(clock_hz)
    , m_stats(basename())
    , m_frames(m_stats.counter("frames_sent", "frames", "data frames sent on the wire"))
    , m_bits(m_stats.counter("bits_sent", "bits", "bits of the frames sent"))
    , m_lost(m_stats.counter("frames_lost", "frames",
                             "written to a full TX FIFO or while the block was disabled")) {
    add_registers();
    SC_METHOD(tick);
    sensitive << m_wake;
    dont_initialize();
}

void DwSsi::add_registers() {
    regs.add({"CTRLR0", 0x00, 4, 0, Access::RW, kFull32, true}).on_write([this](uint64_t v) {
        m_ctrlr0 = v;
    });
    regs.add({"CTRLR1", 0x04, 4, 0, Access::RW, 0xffff, true}).on_write([this](uint64_t v) {
        m_ctrlr1 = v & 0xffff;  // NDF: frames to receive - 1
    });
    regs.add({"SSIENR", 0x08, 4, 0, Access::RW, 1, true}).on_write([this](uint64_t v) {
        m_ssienr = v & 1;
        if (m_ssienr == 0) {  // disabling empties the FIFOs: frames not yet started are dropped
            const sc_time t = now();
            while (!m_starts.empty() && m_starts.back() > t) {
                m_starts.pop_back();
            }
            m_waiting.clear();
            m_rx.clear();
            end_transfer(m_ser);
        }
    });
    regs.add({"SER", 0x10, 4, 0, Access::RW, 0xf, true}).on_write([this](uint64_t v) {
        const uint64_t before = m_ser;
        m_ser = v & 0xf;
        if (m_ser != 0) {
            start_waiting(now());
        } else {
            end_transfer(before);
        }
    });
    regs.add({"BAUDR", 0x14, 4, 0, Access::RW, 0xfffe, true}).on_write([this](uint64_t v) {
        m_baudr = v & 0xfffe;  // SCKDV: even, 0 stops the clock
    });
    regs.add({"TXFLR", 0x20, 4, 0, Access::RO, 0, true}).on_read_pure([this](uint64_t) {
        return uint64_t{level(now())};
    });
    regs.add({"RXFLR", 0x24, 4, 0, Access::RO, 0, true}).on_read_pure([this](uint64_t) {
        return uint64_t{rx_level(now())};
    });
    regs.add({"SR", 0x28, 4, kSrTfnf | kSrTfe, Access::RO, 0, true}).on_read_pure([this](uint64_t) {
        return status(now());
    });
    for (const uint64_t off :
         {0x30u, 0x34u, 0x38u, 0x3cu, 0x40u, 0x44u, 0x48u}) {  // ISR .. ICR: no interrupts
        regs.add({"ISR..ICR", off, 4, 0, Access::RO, 0, true});
    }
    regs.add({"DMACR", 0x4c, 4, 0, Access::RW, 0x3, true}).on_write([this](uint64_t v) {
        m_dmacr = v & 0x3;
        m_dma.notify(sc_core::SC_ZERO_TIME);
    });
    regs.add({"IDR", 0x58, 4, kIdr, Access::RO, 0, true});
    regs.add({"SSIC_VERSION_ID", 0x5c, 4, kVersion, Access::RO, 0, true});
    for (unsigned i = 0; i < 36; ++i) {  // DR0..DR35: every one is the FIFOs
        sim::Register& dr = regs.add({"DR", 0x60 + 4u * i, 4, 0, Access::RW, kFull32, true});
        dr.on_write([this](uint64_t v) { write_dr(v); });
        dr.on_read([this](uint64_t) { return read_dr(); });
    }
    for (const Plain& p : kPlain) {
        regs.add({p.name, p.offset, 4, 0, Access::RW, kFull32, true});
    }
}

unsigned DwSsi::frame_bits() const {
    return static_cast<unsigned>((m_ctrlr0 >> m_layout.dfs_shift) & 0x1f) + 1;
}

unsigned DwSsi::tmod() const {
    return static_cast<unsigned>((m_ctrlr0 >> m_layout.tmod_shift) & 0x3);
}

sc_time DwSsi::frame_time(unsigned bits) const {
    const double sclk = m_baudr == 0 ? 0.0 : m_clock_hz / static_cast<double>(m_baudr);
    if (sclk <= 0) {
        return sc_time(1, sc_core::SC_SEC);  // no clock: the frame never really leaves
    }
    const unsigned lanes =
        1u << ((m_ctrlr0 >> m_layout.frf_shift) & 0x3);  // std, dual, quad, octal
    const double clocks = static_cast<double>((bits + lanes - 1) / lanes);
    return sc_time(clocks / sclk, sc_core::SC_SEC);
}

unsigned DwSsi::level(const sc_time& at) {
    while (!m_starts.empty() && m_starts.front() <= at) {
        m_starts.pop_front();  // on the wire or gone: out of the FIFO
    }
    return static_cast<unsigned>(m_starts.size() + m_waiting.size());
}

uint64_t DwSsi::status(const sc_time& at) {
    const unsigned l = level(at);
    uint64_t sr = 0;
    sr |= at < m_line_free ? kSrBusy : 0;
    sr |= l < kFifoDepth ? kSrTfnf : 0;
    sr |= l == 0 ? kSrTfe : 0;
    return sr;
}

size_t DwSsi::tx_room() {
    if (m_ssienr == 0 || (m_dmacr & kDmacrTdmae) == 0) {
        return 0;
    }
    return kFifoDepth - std::min<unsigned>(kFifoDepth, level(sc_core::sc_time_stamp()));
}

void DwSsi::write_dr(uint64_t v) {
    const sc_time t = now();
    const unsigned bits = frame_bits();
    const auto value = static_cast<uint32_t>(bits >= 32 ? v : v & ((uint64_t{1} << bits) - 1));
    if (m_ssienr == 0 || level(t) >= kFifoDepth) {
        ++m_lost;
        return;
    }
    if (m_ser == 0) {
        m_waiting.emplace_back(bits, value);
        return;
    }
    if (tmod() == kTmodRx) {
        receive(t);  // receiving only: the write only starts the frames in
        return;
    }
    send(bits, value, t);
}

// Frames written while no slave was selected go out now; receiving only, the first of them only
// starts the frames in; an EEPROM read receives after the frames written.
void DwSsi::start_waiting(const sc_time& at) {
    if (tmod() == kTmodRx && !m_waiting.empty()) {
        m_waiting.clear();
        receive(at);
        return;
    }
    const bool eeprom = tmod() == kTmodEeprom && !m_waiting.empty();
    while (!m_waiting.empty()) {
        const auto [bits, value] = m_waiting.front();
        m_waiting.pop_front();
        send(bits, value, at);
    }
    if (eeprom) {
        receive(at);
    }
}

void DwSsi::receive(const sc_time& at) {
    const unsigned bits = frame_bits();
    for (uint64_t i = 0; i <= m_ctrlr1; ++i) {
        const sc_time start = std::max(at, m_line_free);
        m_line_free = start + frame_time(bits);
        const uint32_t in = m_sink ? m_sink(static_cast<uint32_t>(m_ser), bits, 0, start) : 0;
        m_rx.emplace_back(m_line_free, bits >= 32 ? in : in & ((1u << bits) - 1));
        m_bits += bits;
    }
    const sc_time stamp = sc_core::sc_time_stamp();
    m_wake.notify(m_line_free > stamp ? m_line_free - stamp : sc_core::SC_ZERO_TIME);
}

unsigned DwSsi::rx_level(const sc_time& at) const {
    unsigned n = 0;
    for (const auto& [t, v] : m_rx) {
        if (t > at) {
            break;
        }
        ++n;
    }
    return n;
}

uint64_t DwSsi::read_dr() {
    if (m_rx.empty() || m_rx.front().first > now()) {
        return 0;  // nothing received yet (an underflow on the chip)
    }
    const uint32_t v = m_rx.front().second;
    m_rx.pop_front();
    return v;
}

void DwSsi::end_transfer(uint64_t ser_before) {
    if (ser_before != 0 && m_end) {
        m_end(static_cast<uint32_t>(ser_before));
    }
}

void DwSsi::send(unsigned bits, uint32_t value, const sc_time& at) {
    const sc_time start = std::max(at, m_line_free);
    m_line_free = start + frame_time(bits);
    m_starts.push_back(start);
    ++m_frames;
    m_bits += bits;
    const uint32_t in = m_sink ? m_sink(static_cast<uint32_t>(m_ser), bits, value, start) : 0;
    if (tmod() == kTmodTxRx) {
        m_rx.emplace_back(m_line_free, bits >= 32 ? in : in & ((1u << bits) - 1));
    }
    const sc_time stamp = sc_core::sc_time_stamp();
    m_wake.notify(start > stamp ? start - stamp : sc_core::SC_ZERO_TIME);
}

void DwSsi::tick() {
    const sc_time stamp = sc_core::sc_time_stamp();
    m_dma.notify(sc_core::SC_ZERO_TIME);  // a frame left the FIFO: room for the DMA
    level(stamp);                         // drops the frames started by now
    if (!m_starts.empty()) {
        m_wake.notify(m_starts.front() - stamp);
    } else if (m_line_free > stamp) {
        m_wake.notify(m_line_free - stamp);
    } else {
        m_idle.notify(sc_core::SC_ZERO_TIME);
    }
}

}  // namespace npu::soc
