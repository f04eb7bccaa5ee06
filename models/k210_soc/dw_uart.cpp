#include "models/k210_soc/dw_uart.h"

#include <algorithm>

#include <fmt/format.h>

namespace npu::soc {

using sc_core::sc_time;
using sim::Access;

namespace {
constexpr uint64_t kDlab = 0x80;
constexpr uint64_t kIerErbfi = 0x01, kIerEtbei = 0x02, kIerPtime = 0x80;
constexpr uint64_t kIirNone = 0x01, kIirThre = 0x02, kIirRda = 0x04, kIirTimeout = 0x0c;
constexpr uint64_t kIirFifos = 0xc0;
constexpr uint64_t kLsrDr = 0x01, kLsrOe = 0x02, kLsrThre = 0x20, kLsrTemt = 0x40;
constexpr uint64_t kUsrBusy = 0x01, kUsrTfnf = 0x02, kUsrTfe = 0x04, kUsrRfne = 0x08,
                   kUsrRff = 0x10;
constexpr uint64_t kFull32 = 0xffffffff;
constexpr unsigned kRxTrigger[] = {1, 4, 8, 14};  // FCR[7:6] / SRT: 1 char, 1/4, 1/2, 2 short
constexpr unsigned kTxTrigger[] = {0, 2, 4, 8};   // FCR[5:4] / STET: empty, 2 chars, 1/4, 1/2
constexpr uint32_t kCtr = 0x44570110;             // "DW" 0x0110: DesignWare peripheral type

// The registers the SDK's uart_t names that hold what is written and do nothing else here.
struct Plain {
    const char* name;
    uint64_t offset;
};
constexpr Plain kPlain[] = {{"MCR", 0x10},  {"SCR", 0x1c},   {"LPDLL", 0x20}, {"LPDLH", 0x24},
                            {"FAR", 0x70},  {"TFR", 0x74},   {"RFW", 0x78},   {"SRTS", 0x8c},
                            {"SBCR", 0x90}, {"SDMAM", 0x94}, {"HTX", 0xa4},   {"DMASA", 0xa8},
                            {"TCR", 0xac},  {"DE_EN", 0xb0}, {"RE_EN", 0xb4}, {"DET", 0xb8},
                            {"TAT", 0xbc},  {"RAR", 0xc4},   {"TAR", 0xc8},   {"LCR_EXT", 0xcc}};
}  // namespace

DwApbUart::DwApbUart(sc_core::sc_module_name name, double clock_hz, sc_time access_latency,
                     ByteSink sink)
    : sc_module(name)
    , irq("irq")
    , m_sink(std::move(sink))
    , m_clock_hz(clock_hz)
    , m_stats(basename())
    , m_sent(m_stats.counter("bytes_sent", "bytes", "bytes transmitted (their stop bit ended)"))
    , m_received(m_stats.counter("bytes_received", "bytes", "bytes the line brought"))
    , m_lost(m_stats.counter("bytes_lost", "bytes",
                             "received into a full RX FIFO (overrun) or written to a full TX "
                             "FIFO or with no baud rate set"))
    , regs("regs", "uart", kBytes, access_latency) {
    add_registers();
    add_line_registers();
    add_control_registers();
    SC_METHOD(tick);
    sensitive << m_wake;
    dont_initialize();
}

sc_time DwApbUart::now() const {
    return regs.access_time();
}

// RBR/THR/DLL, IER/DLH, IIR/FCR, LCR and the shadow registers.
void DwApbUart::add_registers() {
    {
        sim::Register& r = regs.add({"RBR/THR/DLL", 0x00, 4, 0, Access::RW, kFull32, true});
        r.on_read([this](uint64_t) { return (m_lcr & kDlab) != 0 ? m_dll : read_rbr(); });
        r.on_write(
            [this](uint64_t v) { (m_lcr & kDlab) != 0 ? void(m_dll = v & 0xff) : write_thr(v); });
    }
    {
        sim::Register& r = regs.add({"IER/DLH", 0x04, 4, 0, Access::RW, kFull32, true});
        r.on_read_pure([this](uint64_t) { return (m_lcr & kDlab) != 0 ? m_dlh : m_ier; });
        r.on_write(
            [this](uint64_t v) { (m_lcr & kDlab) != 0 ? void(m_dlh = v & 0xff) : write_ier(v); });
    }
    {
        sim::Register& r = regs.add({"IIR/FCR", 0x08, 4, kIirNone, Access::RW, kFull32, true});
        r.on_read([this](uint64_t) {
            settle(now());
            const uint64_t id = interrupt_id();
            if (id == kIirThre) {
                m_thre_pending = false;  // reading IIR acknowledges a THR-empty interrupt
            }
            after_access();
            return id | (m_fifo_enabled ? kIirFifos : 0);
        });
        r.on_write([this](uint64_t v) { write_fcr(v); });
    }
    {
        sim::Register& r = regs.add({"LCR", 0x0c, 4, 0, Access::RW, 0xff, true});
        r.on_read_pure([this](uint64_t) { return m_lcr; });
        r.on_write([this](uint64_t v) { write_lcr(v); });
    }
    for (uint64_t i = 0; i < 16; ++i) {  // SRBR/STHR: RBR and THR at 16 addresses
        {
            sim::Register& r = regs.add(
                {fmt::format("SRBR/STHR[{}]", i), 0x30 + 4 * i, 4, 0, Access::RW, kFull32, true});
            r.on_read([this](uint64_t) { return read_rbr(); });
            r.on_write([this](uint64_t v) { write_thr(v); });
        }
    }
    for (const Plain& p : kPlain) {
        regs.add({p.name, p.offset, 4, 0, Access::RW, kFull32, true});
    }
    for (uint64_t at :
         {0x28u, 0x2cu, 0xd0u, 0xd4u, 0xd8u, 0xdcu, 0xe0u, 0xe4u, 0xe8u, 0xecu, 0xf0u}) {
        regs.add({fmt::format("reserved_{:02x}", at), at, 4, 0, Access::RO_WI, 0, true});
    }
}

// LSR, MSR, USR and the FIFO levels.
void DwApbUart::add_line_registers() {
    {
        sim::Register& r = regs.add({"LSR", 0x14, 4, kLsrThre | kLsrTemt, Access::RO_WI, 0, true});
        r.on_read([this](uint64_t) {
            settle(now());
            const unsigned level = tx_level(now());
            uint64_t v = (m_rx.empty() ? 0 : kLsrDr) | (m_overrun ? kLsrOe : 0);
            // THRE: the FIFO full in programmable THRE mode (the SDK's putc spins on it), else
            // the THR/FIFO empty; TEMT: nothing left to send.
            v |= (ptime() ? level >= depth() : level == 0) ? kLsrThre : 0;
            v |= level == 0 && now() >= m_tx_free ? kLsrTemt : 0;
            m_overrun = false;  // reading LSR clears the error bits
            after_access();
            return v;
        });
    }
    regs.add({"MSR", 0x18, 4, 0, Access::RO_WI, 0, true});
    {
        sim::Register& r = regs.add({"USR", 0x7c, 4, kUsrTfnf | kUsrTfe, Access::RO_WI, 0, true});
        r.on_read([this](uint64_t) {
            settle(now());
            const unsigned level = tx_level(now());
            return (level < depth() ? kUsrTfnf : 0) | (level == 0 ? kUsrTfe : 0) |
                   (m_rx.empty() ? 0 : kUsrRfne) | (m_rx.size() >= depth() ? kUsrRff : 0) |
                   (level > 0 || now() < m_tx_free ? kUsrBusy : 0);
        });
    }
    regs.add({"TFL", 0x80, 4, 0, Access::RO_WI, 0, true}).on_read([this](uint64_t) {
        settle(now());
        return uint64_t{tx_level(now())};
    });
    regs.add({"RFL", 0x84, 4, 0, Access::RO_WI, 0, true}).on_read([this](uint64_t) {
        settle(now());
        return uint64_t{m_rx.size()};
    });
}

// SRR, the shadow FIFO controls, DLF and the component registers.
void DwApbUart::add_control_registers() {
    regs.add({"SRR", 0x88, 4, 0, Access::WO_RAZ, 0x7, true}).on_write([this](uint64_t v) {
        // UR: the whole UART to its reset state (both FIFOs too); RFR, XFR: the RX, TX FIFO.
        settle(now());
        const bool ur = (v & 1) != 0;
        reset_fifos(ur || (v & 2) != 0, ur || (v & 4) != 0);
        if (ur) {
            m_ier = m_lcr = 0;
            m_fifo_enabled = m_thre_pending = false;
            m_rx_trigger = m_tx_trigger = 0;
        }
        after_access();
    });
    {
        sim::Register& r = regs.add({"SFE", 0x98, 4, 0, Access::RW, 1, true});
        r.on_read([this](uint64_t) { return uint64_t{m_fifo_enabled}; });
        r.on_write([this](uint64_t v) {
            m_fifo_enabled = (v & 1) != 0;
            after_access();
        });
    }
    {
        sim::Register& r = regs.add({"SRT", 0x9c, 4, 0, Access::RW, 3, true});
        r.on_read([this](uint64_t) { return uint64_t{m_rx_trigger}; });
        r.on_write([this](uint64_t v) {
            m_rx_trigger = static_cast<unsigned>(v & 3);
            after_access();
        });
    }
    {
        sim::Register& r = regs.add({"STET", 0xa0, 4, 0, Access::RW, 3, true});
        r.on_read([this](uint64_t) { return uint64_t{m_tx_trigger}; });
        r.on_write([this](uint64_t v) {
            m_tx_trigger = static_cast<unsigned>(v & 3);
            after_access();
        });
    }
    regs.add({"DLF", 0xc0, 4, 0, Access::RW, 0xf, true}).on_write([this](uint64_t v) {
        m_dlf = v & 0xf;
    });
    regs.add({"CPR", 0xf4, 4, 0, Access::RO_WI, 0, true});
    regs.add({"UCV", 0xf8, 4, 0, Access::RO_WI, 0, true});
    regs.add({"CTR", 0xfc, 4, kCtr, Access::RO_WI, 0, true});
}

// (start + data + parity + stop bits) · (16 · divisor + DLF) clocks; zero without a divisor.
sc_time DwApbUart::char_time() const {
    const uint64_t divisor = 16 * ((m_dlh << 8) | m_dll) + m_dlf;
    if (divisor == 0 || m_clock_hz <= 0) {
        return sc_core::SC_ZERO_TIME;
    }
    const double data = 5.0 + static_cast<double>(m_lcr & 3);
    const double stop = (m_lcr & 4) == 0 ? 1 : ((m_lcr & 3) == 0 ? 1.5 : 2);
    const double parity = (m_lcr & 8) != 0 ? 1 : 0;
    return sc_time((1 + data + parity + stop) * static_cast<double>(divisor) / m_clock_hz,
                   sc_core::SC_SEC);
}

bool DwApbUart::ptime() const {
    return (m_ier & kIerPtime) != 0 && m_fifo_enabled;
}

unsigned DwApbUart::tx_threshold() const {
    return ptime() ? kTxTrigger[m_tx_trigger] : 0;
}

unsigned DwApbUart::rx_trigger() const {
    return m_fifo_enabled ? kRxTrigger[m_rx_trigger] : 1;
}

// Bytes waiting in the TX FIFO at `at` (written, not yet in the shift register).
unsigned DwApbUart::tx_level(const sc_time& at) const {
    return static_cast<unsigned>(
        std::count_if(m_tx.begin(), m_tx.end(), [&](const TxByte& b) { return b.start > at; }));
}

void DwApbUart::settle(const sc_time& at) {
    settle_tx(at);
    settle_rx(at);
}

// Each byte that went into the shift register since the last settle may have brought the FIFO
// down to its threshold (a THR-empty interrupt); each whose stop bit ended reaches the sink.
void DwApbUart::settle_tx(const sc_time& at) {
    if (at <= m_tx_settled) {
        return;
    }
    for (size_t i = 0; i < m_tx.size(); ++i) {
        const TxByte& b = m_tx[i];
        if (b.start > m_tx_settled && b.start <= at && m_tx.size() - 1 - i == tx_threshold()) {
            m_thre_pending = true;
        }
    }
    m_tx_settled = at;
    while (!m_tx.empty() && m_tx.front().done <= at) {
        ++m_sent;
        m_sink(m_tx.front().value);
        m_tx.pop_front();
    }
}

DwApbUart::Drained DwApbUart::drain_tx(const sc_time& end) {
    settle(end);
    Drained d{m_tx.size(), end};
    for (const TxByte& b : m_tx) {
        ++m_sent;
        m_sink(b.value);
        d.last = b.done;
    }
    m_tx.clear();
    return d;
}

// Bytes that arrived up to `at` (in order; a full FIFO loses them: overrun), and the character
// timeout: data waiting and nothing received or read for 4 character times.
void DwApbUart::settle_rx(const sc_time& at) {
    if (!m_rx_started) {
        return;
    }
    while (m_next_input < m_input.size()) {
        const sc_time arrival = m_rx_activity + char_time();
        if (arrival > at || char_time() == sc_core::SC_ZERO_TIME) {
            break;
        }
        if (!m_rx.empty() && m_rx_activity + 4 * char_time() <= arrival) {
            m_timeout = true;
        }
        ++m_received;
        if (m_rx.size() < depth()) {
            m_rx.push_back(m_input[m_next_input]);
        } else {
            m_overrun = true;
            ++m_lost;
        }
        ++m_next_input;
        m_rx_activity = arrival;
    }
    if (!m_rx.empty() && m_rx_activity + 4 * char_time() <= at) {
        m_timeout = true;
    }
}

uint64_t DwApbUart::interrupt_id() const {
    if ((m_ier & kIerErbfi) != 0 && m_rx.size() >= rx_trigger()) {
        return kIirRda;
    }
    if ((m_ier & kIerErbfi) != 0 && m_timeout && !m_rx.empty()) {
        return kIirTimeout;
    }
    if ((m_ier & kIerEtbei) != 0 && m_thre_pending) {
        return kIirThre;
    }
    return kIirNone;
}

void DwApbUart::update_irq() {
    irq.set(interrupt_id() != kIirNone);
}

void DwApbUart::after_access() {
    update_irq();
    m_wake.notify(sc_core::SC_ZERO_TIME);
}

uint64_t DwApbUart::read_rbr() {
    settle(now());
    uint64_t v = 0;
    if (!m_rx.empty()) {
        v = m_rx.front();
        m_rx.pop_front();
    }
    m_rx_activity = std::max(m_rx_activity, now());
    m_timeout = false;
    after_access();
    return v;
}

void DwApbUart::write_thr(uint64_t v) {
    const sc_time t = now();
    settle(t);
    const sc_time c = char_time();
    if (tx_level(t) >= depth() || c == sc_core::SC_ZERO_TIME) {
        ++m_lost;  // a full FIFO, or no baud rate: the byte is not sent
    } else {
        const sc_time start = std::max(t, m_tx_free);
        m_tx_free = start + c;
        m_tx.push_back({static_cast<uint8_t>(v), start, m_tx_free});
    }
    // Writing THR acknowledges a THR-empty interrupt; in programmable THRE mode, a FIFO above
    // its threshold does.
    if (!ptime() || tx_level(t) > tx_threshold()) {
        m_thre_pending = false;
    }
    if (!ptime() && tx_level(t) == 0) {
        m_thre_pending = true;  // straight into the shift register: the THR is empty again
    }
    after_access();
}

void DwApbUart::write_ier(uint64_t v) {
    settle(now());
    const bool was = (m_ier & kIerEtbei) != 0;
    m_ier = v & 0x8f;
    if (!was && (m_ier & kIerEtbei) != 0 && tx_level(now()) <= tx_threshold()) {
        m_thre_pending = true;  // enabling the interrupt with the THR empty raises it
    }
    after_access();
}

// An RX FIFO reset empties it; a TX FIFO reset drops the bytes not yet in the shift register.
void DwApbUart::reset_fifos(bool rx, bool tx) {
    if (rx) {
        m_rx.clear();
        m_timeout = false;
    }
    if (tx) {
        const sc_time t = now();
        m_tx.erase(
            std::remove_if(m_tx.begin(), m_tx.end(), [&](const TxByte& b) { return b.start > t; }),
            m_tx.end());
        m_tx_free = m_tx.empty() ? t : std::max(t, m_tx.back().done);
    }
}

void DwApbUart::write_fcr(uint64_t v) {
    settle(now());
    m_fifo_enabled = (v & 1) != 0;
    reset_fifos((v & 2) != 0, (v & 4) != 0);
    m_tx_trigger = static_cast<unsigned>((v >> 4) & 3);
    m_rx_trigger = static_cast<unsigned>((v >> 6) & 3);
    after_access();
}

// The line starts bringing input when the firmware first leaves the divisor latch with a baud
// rate set (uart_configure).
void DwApbUart::write_lcr(uint64_t v) {
    settle(now());
    m_lcr = v & 0xff;
    if (!m_rx_started && (m_lcr & kDlab) == 0 && char_time() != sc_core::SC_ZERO_TIME) {
        m_rx_started = true;
        m_rx_activity = now();
    }
    after_access();
}

size_t DwApbUart::rx_available() {
    settle(sc_core::sc_time_stamp());
    return m_rx.size();
}

size_t DwApbUart::tx_room() {
    const sc_time t = std::max(sc_core::sc_time_stamp(), m_tx_settled);
    settle(t);
    return depth() - std::min<size_t>(depth(), tx_level(t));
}

// At the line's next event: a byte into the shift register or out of it, a byte arriving, a
// timeout falling due.
void DwApbUart::tick() {
    const sc_time t = sc_core::sc_time_stamp();
    settle(t);
    update_irq();
    m_dma.notify(sc_core::SC_ZERO_TIME);  // a DMA request may have grown
    sc_time next = sc_core::sc_max_time();
    for (const TxByte& b : m_tx) {
        next = std::min(next, b.start > t ? b.start : b.done);
    }
    const sc_time c = char_time();
    if (m_rx_started && c != sc_core::SC_ZERO_TIME) {
        if (m_next_input < m_input.size()) {
            next = std::min(next, m_rx_activity + c);
        }
        if (!m_rx.empty() && !m_timeout) {
            next = std::min(next, m_rx_activity + 4 * c);
        }
    }
    if (next != sc_core::sc_max_time() && next > t) {
        next_trigger(next - t, m_wake);
    }
}

}  // namespace npu::soc
