#include "models/k210_soc/uart.h"

#include <fmt/format.h>

namespace npu::soc {

using sim::Access;

namespace {
constexpr uint64_t kFull32 = 0xffffffff;
// DesignWare UART: LCR.DLAB switches offsets 0 and 4 to the divisor latch; LSR bits THRE and TEMT
// (transmitter empty); USR bits TFNF and TFE (FIFO not full, FIFO empty); IIR "no interrupt".
constexpr uint64_t kThr = 0x00, kIer = 0x04, kIir = 0x08, kLcr = 0x0c, kLsr = 0x14, kUsr = 0x7c;
constexpr uint64_t kDlab = 0x80, kUsrIdle = 0x06, kIirNone = 0x01;
constexpr uint64_t kIerPtime = 0x80, kFcrFifoEnable = 0x01;
constexpr uint64_t kLsrThre = 0x20, kLsrTemt = 0x40;
}  // namespace

UartHs::UartHs(sc_core::sc_module_name name, sc_core::sc_time access_latency, ByteSink sink)
    : sc_module(name)
    , m_file("uarths", kBytes)
    , m_sink(std::move(sink))
    , m_stats(basename())
    , m_sent(m_stats.counter("bytes_sent", "bytes", "bytes the firmware transmitted"))
    , regs("regs", m_file.bank, access_latency) {
    // txdata: a write sends its low byte; a read says "not full" (bit 31 clear).
    m_file.add({"txdata", 0x00, 4, 0, Access::RW, 0, true}).on_write([this](uint64_t v) {
        ++m_sent;
        m_sink(static_cast<uint8_t>(v));
    });
    m_file.add({"rxdata", 0x04, 4, uint64_t{1} << 31, Access::RO, 0, true});  // always empty
    const char* names[] = {"txctrl", "rxctrl", "ie", "ip", "div"};
    for (uint64_t i = 0; i < 5; ++i) {
        // ip: read only (txwm: the transmit queue is below its watermark); uarths_init writes it
        // anyway (SDK uarths.c), and the write is ignored, not an error.
        m_file.add({names[i], 0x08 + 4 * i, 4, uint64_t{i == 3 ? 1u : 0u},
                    i == 3 ? Access::RO_WI : Access::RW, kFull32, true});
    }
}

DwUart::DwUart(sc_core::sc_module_name name, sc_core::sc_time access_latency, ByteSink sink)
    : sc_module(name)
    , m_file("uart", kBytes)
    , m_sink(std::move(sink))
    , m_stats(basename())
    , m_sent(m_stats.counter("bytes_sent", "bytes", "bytes the firmware transmitted"))
    , regs("regs", m_file.bank, access_latency) {
    for (uint64_t at = 0; at < kBytes; at += 4) {
        sim::Register& r =
            m_file.add({fmt::format("reg_{:02x}", at), at, 4, 0, Access::RW, kFull32, true});
        if (at == kLcr) {
            m_lcr = &r;
        } else if (at == kThr) {
            r.on_write([this](uint64_t v) {
                if ((m_lcr->value() & kDlab) == 0) {
                    ++m_sent;
                    m_sink(static_cast<uint8_t>(v));
                }
            });
            r.on_read([](uint64_t) { return uint64_t{0}; });  // RBR: nothing received
        } else if (at == kIer) {
            r.on_write([this](uint64_t v) { ((m_lcr->value() & kDlab) == 0 ? m_ier : m_dlh) = v; });
            r.on_read([this](uint64_t) { return (m_lcr->value() & kDlab) == 0 ? m_ier : m_dlh; });
        } else if (at == kIir) {  // reads IIR, writes FCR
            r.on_write([this](uint64_t v) { m_fcr = v; });
            r.on_read([](uint64_t) { return kIirNone; });
        } else if (at == kLsr) {
            // Transmission is instantaneous: the transmitter is empty (TEMT). Bit 5 is THRE, 1 =
            // room to write, unless programmable THRE mode is on (IER.PTIME with FIFOs enabled, as
            // the SDK's uart_init sets them): then it means "TX FIFO full", 0 here. The SDK's
            // uart_channel_putc spins while bit 5 is set (DesignWare DW_apb_uart LSR.THRE).
            r.on_read([this](uint64_t) {
                const bool ptime = (m_ier & kIerPtime) != 0 && (m_fcr & kFcrFifoEnable) != 0;
                return kLsrTemt | (ptime ? 0 : kLsrThre);
            });
        } else if (at == kUsr) {
            r.on_read([](uint64_t) { return kUsrIdle; });
        }
    }
}

Fpioa::Fpioa(sc_core::sc_module_name name, sc_core::sc_time access_latency)
    : sc_module(name)
    , m_file("fpioa", kBytes)
    , regs("regs", m_file.bank, access_latency) {
    for (uint64_t at = 0; at < kBytes; at += 4) {
        const std::string n = at < 48 * 4   ? fmt::format("io[{}]", at / 4)
                              : at < 52 * 4 ? fmt::format("tie_en[{}]", at / 4 - 48)
                              : at < 56 * 4 ? fmt::format("tie_val[{}]", at / 4 - 52)
                                            : fmt::format("reserved[{}]", at / 4 - 56);
        m_file.add({n, at, 4, 0, Access::RW, kFull32, true});
    }
}

}  // namespace npu::soc
