#define SC_INCLUDE_DYNAMIC_PROCESSES
#include "models/k210_dma/dmac.h"

#include <fmt/format.h>

#include "sim/tlm/quantum.h"

namespace npu::dma {

using sc_core::sc_time;
using sim::Access;
using sim::Register;

namespace {
constexpr const char* kMsgType = "npusim/k210_dmac";

Register reg(std::string name, uint64_t off, Access a, uint64_t reset = 0, unsigned size = 8) {
    return Register({std::move(name), off, size, reset, a, ~uint64_t{0}, true});
}

uint64_t msize_items(uint64_t code) {
    return code == 0 ? 1 : uint64_t{1} << (code + 1);
}
}  // namespace

// The registers of one channel, at regs::channel_base(ch).
struct Dmac::Channel {
    explicit Channel(unsigned ch)
        : sar(reg(fmt::format("CH{}_SAR", ch), b(ch) + regs::SAR, Access::RW))
        , dar(reg(fmt::format("CH{}_DAR", ch), b(ch) + regs::DAR, Access::RW))
        , block_ts(reg(fmt::format("CH{}_BLOCK_TS", ch), b(ch) + regs::BLOCK_TS, Access::RW))
        , ctl(reg(fmt::format("CH{}_CTL", ch), b(ch) + regs::CTL, Access::RW))
        , cfg(reg(fmt::format("CH{}_CFG", ch), b(ch) + regs::CH_CFG, Access::RW))
        , llp(reg(fmt::format("CH{}_LLP", ch), b(ch) + regs::LLP, Access::RW))
        , status(reg(fmt::format("CH{}_STATUS", ch), b(ch) + regs::STATUS, Access::RO))
        , swhssrc(reg(fmt::format("CH{}_SWHSSRC", ch), b(ch) + regs::SWHSSRC, Access::RW))
        , swhsdst(reg(fmt::format("CH{}_SWHSDST", ch), b(ch) + regs::SWHSDST, Access::RW))
        , blk_tfr(reg(fmt::format("CH{}_BLK_TFR_RESUMEREQ", ch), b(ch) + regs::BLK_TFR, Access::WO))
        , axi_id(reg(fmt::format("CH{}_AXI_ID", ch), b(ch) + regs::AXI_ID, Access::RW))
        , axi_qos(reg(fmt::format("CH{}_AXI_QOS", ch), b(ch) + regs::AXI_QOS, Access::RW))
        , intstatus_en(reg(fmt::format("CH{}_INTSTATUS_ENABLEREG", ch), b(ch) + regs::INTSTATUS_EN,
                           Access::RW, regs::kChannelIntEnableReset))
        , intstatus(reg(fmt::format("CH{}_INTSTATUS", ch), b(ch) + regs::CH_INTSTATUS, Access::RO))
        , intsignal_en(reg(fmt::format("CH{}_INTSIGNAL_ENABLEREG", ch), b(ch) + regs::INTSIGNAL_EN,
                           Access::RW, regs::kChannelIntEnableReset))
        , intclear(
              reg(fmt::format("CH{}_INTCLEARREG", ch), b(ch) + regs::INTCLEAR, Access::WO_RAZ)) {}
    static uint64_t b(unsigned ch) { return regs::channel_base(ch); }

    Register sar, dar, block_ts, ctl, cfg, llp, status, swhssrc, swhsdst, blk_tfr, axi_id, axi_qos,
        intstatus_en, intstatus, intsignal_en, intclear;
    bool enabled = false;
    // A burst's bytes: the channel's, not transfer()'s local — a thread stopped in a wait() at
    // the simulation's end never destroys its locals (docs/testing.md, "Sanitizers and SystemC").
    std::vector<uint8_t> buf;
};

Dmac::Dmac(sc_core::sc_module_name name, const DmacConfig& cfg, sim::TraceWriter* trace)
    : sc_module(name)
    , m_id(reg("ID", regs::ID, Access::RO, 0))
    , m_compver(reg("COMPVER", regs::COMPVER, Access::RO, 0))
    , m_dmac_cfg(reg("CFG", regs::CFG, Access::RW))
    , m_chen(reg("CHEN", regs::CHEN, Access::RW))
    , m_intstatus(reg("INTSTATUS", regs::INTSTATUS, Access::RO))
    , m_com_intclear(reg("COM_INTCLEAR", regs::COM_INTCLEAR, Access::WO_RAZ))  // SDK: RMW
    , m_com_intstatus_en(reg("COM_INTSTATUS_EN", regs::COM_INTSTATUS_EN, Access::RW))
    , m_com_intsignal_en(reg("COM_INTSIGNAL_EN", regs::COM_INTSIGNAL_EN, Access::RW))
    , m_com_intstatus(reg("COM_INTSTATUS", regs::COM_INTSTATUS, Access::RO))
    , m_reset(reg("RESET", regs::RESET, Access::RW))
    , m_bank("dmac", regs::kBlockBytes)
    , m_dma_sel0(reg("DMA_SEL0", regs::DMA_SEL0, Access::RW, 0, 4))
    , m_dma_sel1(reg("DMA_SEL1", regs::DMA_SEL1, Access::RW, 0, 4))
    , regs("regs", m_bank, sc_time(cfg.register_latency_ns, sc_core::SC_NS))
    , sysctl("sysctl", "sysctl", regs::kSysctlBytes,
             sc_time(cfg.register_latency_ns, sc_core::SC_NS))
    , axi("axi", cfg.bus)
    , irq{sim::IrqLine("irq0"), sim::IrqLine("irq1"), sim::IrqLine("irq2"),
          sim::IrqLine("irq3"), sim::IrqLine("irq4"), sim::IrqLine("irq5")}
    , m_trace(trace)
    , m_stats(basename())
    , m_transfers(m_stats.counter("transfers", "transfers", "channel transfers completed"))
    , m_bytes(m_stats.counter("bytes", "bytes", "bytes moved: Σ (block_ts + 1) · item size"))
    , m_handshake_waits(m_stats.counter(
          "handshake_waits", "bursts",
          "bursts that waited for a peripheral's request (its data, or room for it)"))
    , m_errors(m_stats.counter("errors", "transfers", "transfers stopped by a bus error")) {
    connect_registers();
    add_sysctl_registers(cfg);
    m_stats.attach(axi.stats());
    if (m_trace != nullptr) {
        m_track = m_trace->track(this->name());
    }
    for (unsigned c = 0; c < regs::kChannels; ++c) {
        sc_core::sc_spawn(sc_bind(&Dmac::run_channel, this, c), fmt::format("ch{}", c).c_str());
    }
}

// The common and channel registers in their bank and what reading or writing each does.
void Dmac::connect_registers() {
    m_bank.add_consecutive({m_id, m_compver, m_dmac_cfg, m_chen, sim::RegisterBank::Reserved{16},
                            m_intstatus, m_com_intclear, m_com_intstatus_en, m_com_intsignal_en,
                            m_com_intstatus, m_reset});
    for (unsigned c = 0; c < regs::kChannels; ++c) {
        m_ch.push_back(std::make_unique<Channel>(c));
        Channel& ch = *m_ch.back();
        m_bank.add_consecutive({ch.sar, ch.dar, ch.block_ts, ch.ctl, ch.cfg, ch.llp, ch.status,
                                ch.swhssrc, ch.swhsdst, ch.blk_tfr, ch.axi_id, ch.axi_qos});
        m_bank.add_consecutive({ch.intstatus_en, ch.intstatus, ch.intsignal_en, ch.intclear});
        ch.intclear.on_write([this, c](uint64_t v) {
            m_ch[c]->intstatus.set_value(m_ch[c]->intstatus.value() & ~v);
            update_irq(c);
        });
        ch.intsignal_en.on_write([this, c](uint64_t) { update_irq(c); });
    }
    m_chen.on_write([this](uint64_t v) { write_chen(v); });
    // dmac_rst: the whole DMAC returns to its reset values (channels stopped, enables as at reset)
    // and the bit clears itself, which dmac_init polls for (SDK dmac.c).
    m_reset.on_write([this](uint64_t v) {
        if (regs::dmac_rst::get(v) != 0) {
            software_reset();
        }
    });
    m_chen.on_read_pure([this](uint64_t) {
        uint64_t v = 0;
        for (unsigned c = 0; c < regs::kChannels; ++c) {
            v |= m_ch[c]->enabled ? uint64_t{1} << c : 0;
        }
        return v;
    });
    m_intstatus.on_read_pure([this](uint64_t) {
        uint64_t v = 0;
        for (unsigned c = 0; c < regs::kChannels; ++c) {
            v |= m_ch[c]->intstatus.value() != 0 ? uint64_t{1} << c : 0;
        }
        return v;
    });
}

Dmac::~Dmac() = default;

// The SYSCTL registers other than the DMA selectors, in the SDK's sysctl_t order (32-bit each):
// kept as written, so start-up code that sets clocks, thresholds and resets and reads them back
// works; pll_lock reads PLL0, PLL1 and PLL2 locked (as Renode's K210 does: it tags 0x50440018).
// Their reset values are the configuration's (the K210's clock registers as the boot ROM leaves
// them); on_sysctl_write's callback hears of each write.
void Dmac::add_sysctl_registers(const DmacConfig& cfg) {
    static const char* const kNames[] = {
        "git_id",      "clk_freq",    "pll0",       "pll1",       "pll2",
        "resv5",       "pll_lock",    "rom_error",  "clk_sel0",   "clk_sel1",
        "clk_en_cent", "clk_en_peri", "soft_reset", "peri_reset", "clk_th0",
        "clk_th1",     "clk_th2",     "clk_th3",    "clk_th4",    "clk_th5",
        "clk_th6",     "misc",        "peri",       "spi_sleep",  "reset_status"};
    for (size_t i = 0; i < std::size(kNames); ++i) {
        uint64_t reset = 0;
        for (const auto& [offset, value] : cfg.sysctl_reset) {
            reset = offset == 4 * i ? value : reset;
        }
        sim::Register& r = sysctl.add({kNames[i], 4 * i, 4, reset, Access::RW, 0xffffffff, true});
        r.on_write([this, i](uint64_t) {
            if (m_sysctl_write) {
                m_sysctl_write(4 * i, sysctl.access_time());
            }
        });
    }
    constexpr uint64_t kPllsLocked = 0x3 | (0x1 << 8) | (0x1 << 16);  // pll_lock0, 1, 2
    sysctl.registers_bank().find(6 * 4)->on_read([](uint64_t v) { return v | kPllsLocked; });
    sysctl.registers_bank().add_consecutive({m_dma_sel0, m_dma_sel1});
    sysctl.add({"power_sel", 0x6c, 4, 0, Access::RW, 0xffffffff, true});
}

uint32_t Dmac::sysctl_value(uint64_t offset) const {
    const sim::Register* reg = sysctl.registers_bank().find(offset);
    if (reg == nullptr || reg == &m_dma_sel0 || reg == &m_dma_sel1 || reg->offset() != offset) {
        return 0;
    }
    return static_cast<uint32_t>(reg->value());
}

void Dmac::connect_request(unsigned select, RequestSource source) {
    if (m_sources.size() <= select) {
        m_sources.resize(select + 1);
    }
    m_sources[select] = std::move(source);
}

const RequestSource* Dmac::request_for(unsigned interface) const {
    // DMA_SEL0 holds interfaces 0..4 (6 bits each), DMA_SEL1 interface 5.
    const uint64_t select =
        interface < 5 ? (m_dma_sel0.value() >> (6 * interface)) & 0x3f : m_dma_sel1.value() & 0x3f;
    if (select >= m_sources.size() || !m_sources[select].available) {
        return nullptr;
    }
    return &m_sources[select];
}

void Dmac::software_reset() {
    m_bank.reset();
    for (unsigned c = 0; c < regs::kChannels; ++c) {
        m_ch[c]->enabled = false;
        update_irq(c);
    }
}

void Dmac::write_chen(uint64_t v) {
    const uint64_t we = regs::ch_en_we::get(v);
    const uint64_t en = regs::ch_en::get(v);
    for (unsigned c = 0; c < regs::kChannels; ++c) {
        if (((we >> c) & 1) == 0) {
            continue;
        }
        const bool on = ((en >> c) & 1) != 0;
        if (on && !m_ch[c]->enabled && regs::dmac_en::get(m_dmac_cfg.value()) != 0) {
            m_ch[c]->enabled = true;
            m_start[c].notify(sc_core::SC_ZERO_TIME);
        } else if (!on) {
            m_ch[c]->enabled = false;  // a running transfer stops at its next burst
        }
    }
}

void Dmac::update_irq(unsigned c) {
    irq[c].set((m_ch[c]->intstatus.value() & m_ch[c]->intsignal_en.value()) != 0);
}

void Dmac::finish(unsigned c, uint64_t status_bits) {
    Channel& ch = *m_ch[c];
    ch.enabled = false;
    ch.intstatus.set_value(ch.intstatus.value() | (status_bits & ch.intstatus_en.value()));
    update_irq(c);
}

void Dmac::run_channel(unsigned c) {
    for (;;) {
        sc_core::wait(m_start[c]);
        transfer(c);
    }
}

// One burst of `n` items of `width` bytes from `src` to `dst` through the AXI master; a fixed
// side moves item by item. Returns 0, or the channel's error cause.
uint64_t Dmac::move_burst(uint64_t src, uint64_t dst, std::vector<uint8_t>& buf, uint64_t n,
                          uint64_t width, bool src_fixed, bool dst_fixed, sc_time& local) {
    for (uint64_t i = 0; i < (src_fixed ? n : 1); ++i) {
        const uint64_t len = src_fixed ? width : n * width;
        if (axi.read(src, buf.data() + i * width, len, local) != tlm::TLM_OK_RESPONSE) {
            return regs::src_dec_err::MASK;
        }
    }
    for (uint64_t i = 0; i < (dst_fixed ? n : 1); ++i) {
        const uint64_t len = dst_fixed ? width : n * width;
        if (axi.write(dst, buf.data() + i * width, len, local) != tlm::TLM_OK_RESPONSE) {
            return regs::dst_dec_err::MASK;
        }
    }
    return 0;
}

// Hardware handshakes: a peripheral source delivers items (its request: how many it holds), a
// peripheral destination takes them (its request: how many it has room for). False, with a
// warning, when the channel's handshake interface has no peripheral behind it.
bool Dmac::handshakes(unsigned c, uint64_t cfg, const RequestSource*& src,
                      const RequestSource*& dst) const {
    const uint64_t tt = regs::tt_fc::get(cfg);
    const bool from_periph = (tt == 2 || tt == 4) && regs::hs_sel_src::get(cfg) == 0;
    const bool to_periph = (tt == 1 || tt == 3) && regs::hs_sel_dst::get(cfg) == 0;
    src = from_periph ? request_for(static_cast<unsigned>(regs::src_per::get(cfg))) : nullptr;
    dst = to_periph ? request_for(static_cast<unsigned>(regs::dst_per::get(cfg))) : nullptr;
    if ((from_periph && src == nullptr) || (to_periph && dst == nullptr)) {
        SC_REPORT_WARNING(
            kMsgType,
            fmt::format("{}: channel {}: no peripheral drives handshake "
                        "interface {}; transfer not started",
                        name(), c, from_periph ? regs::src_per::get(cfg) : regs::dst_per::get(cfg))
                .c_str());
        return false;
    }
    return true;
}

void Dmac::transfer(unsigned c) {
    Channel& ch = *m_ch[c];
    const uint64_t ctl = ch.ctl.value(), cfg = ch.cfg.value();
    const uint64_t width = uint64_t{1} << std::min<uint64_t>(regs::src_tr_width::get(ctl), 3);
    const uint64_t items = regs::block_ts::get(ch.block_ts.value()) + 1;
    const uint64_t burst = msize_items(regs::src_msize::get(ctl));
    const bool src_fixed = regs::sinc::get(ctl) != 0, dst_fixed = regs::dinc::get(ctl) != 0;
    const RequestSource *req = nullptr, *dst_req = nullptr;
    if (!handshakes(c, cfg, req, dst_req)) {
        finish(c, 0);
        return;
    }
    sim::QuantumKeeper qk;
    const sc_time start = sc_core::sc_time_stamp();
    uint64_t src = ch.sar.value(), dst = ch.dar.value(), done = 0;
    std::vector<uint8_t>& buf = ch.buf;
    while (done < items && ch.enabled) {
        const uint64_t n = std::min(burst, items - done);
        for (const RequestSource* r : {req, dst_req}) {
            if (r != nullptr && r->available() < n) {
                ++m_handshake_waits;
                qk.sync();
                while (r->available() < n) {
                    sc_core::wait(*r->changed);
                }
            }
        }
        buf.resize(n * width);
        const uint64_t error =
            move_burst(src, dst, buf, n, width, src_fixed, dst_fixed, qk.local());
        if (error != 0) {
            ++m_errors;
            finish(c, error);
            return;
        }
        done += n;
        src += src_fixed ? 0 : n * width;
        dst += dst_fixed ? 0 : n * width;
        qk.sync_if_needed();
    }
    ch.status.set_value(regs::cmpltd_blk_size::set(0, done));
    qk.sync();
    ++m_transfers;
    m_bytes += done * width;
    if (m_trace != nullptr) {
        const auto ps = [](const sc_time& t) {
            return static_cast<uint64_t>(t.value() / sc_time(1, sc_core::SC_PS).value());
        };
        m_trace->complete(m_track, fmt::format("ch{} {} B", c, done * width), "dma", ps(start),
                          ps(sc_core::sc_time_stamp() - start));
    }
    finish(c, regs::block_tfr_done::MASK | regs::dma_tfr_done::MASK);
}

}  // namespace npu::dma
