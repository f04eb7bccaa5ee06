#include "models/k210_soc/wdt.h"

namespace npu::soc {

using sc_core::sc_time;
using sim::Access;

namespace {
constexpr uint64_t kEnable = 0x1, kInterruptMode = 0x2;
}  // namespace

DwWdt::DwWdt(sc_core::sc_module_name name, sc_time tick, sc_time access_latency)
    : sc_module(name)
    , irq("irq")
    , m_tick(tick)
    , regs("regs", "wdt", kBytes, access_latency) {
    m_cr = &regs.add({"cr", 0x00, 4, 0, Access::RW, 0x1f, true});
    m_cr->on_write([this](uint64_t) {
        if (enabled() && !m_running) {  // enabled: counting from now
            restart(regs.access_time());
        }
        m_running = enabled();
        m_wake.notify(sc_core::SC_ZERO_TIME);
    });
    m_torr = &regs.add({"torr", 0x04, 4, 0, Access::RW, 0xff, true});
    regs.add({"ccvr", 0x08, 4, 0, Access::RO_WI, 0, true}).on_read_pure([this](uint64_t) {
        const sc_time at = regs.access_time();
        if (!m_running || m_due <= at) {
            return uint64_t{0};
        }
        return static_cast<uint64_t>((m_due - at) / m_tick);
    });
    regs.add({"crr", 0x0c, 4, 0, Access::WO_RAZ, 0xff, true}).on_write([this](uint64_t v) {
        if (v == kRestart && m_running) {
            restart(regs.access_time());  // wdt_feed: count again, interrupt cleared
            m_wake.notify(sc_core::SC_ZERO_TIME);
        }
    });
    regs.add({"stat", 0x10, 4, 0, Access::RO_WI, 0, true}).on_read_pure([this](uint64_t) {
        return uint64_t{m_raised};
    });
    regs.add({"eoi", 0x14, 4, 0, Access::RO_WI, 0, true}).on_read([this](uint64_t) {
        m_raised = false;
        irq.set(false);
        return uint64_t{0};
    });
    regs.add({"prot_level", 0x1c, 4, 0x2, Access::RW, 0x7, true});
    // DW_apb_wdt's identification: version 1.10a, type "DW" 0x0120.
    regs.add({"comp_version", 0xf8, 4, 0x3131302a, Access::RO_WI, 0, true});
    regs.add({"comp_type", 0xfc, 4, 0x44570120, Access::RO_WI, 0, true});
    SC_HAS_PROCESS(DwWdt);
    SC_METHOD(expire);
    sensitive << m_wake;
    dont_initialize();
}

bool DwWdt::enabled() const {
    return (m_cr->value() & kEnable) != 0;
}

uint64_t DwWdt::period_counts() const {
    return uint64_t{1} << (16 + (m_torr->value() & 0xf));
}

void DwWdt::restart(const sc_time& at) {
    m_due = at + m_tick * static_cast<double>(period_counts());
    m_raised = false;
    irq.set(false);
}

void DwWdt::set_tick(const sc_time& at, const sc_time& tick) {
    if (m_running && m_due > at) {
        m_due = at + tick * ((m_due - at) / m_tick);
    }
    m_tick = tick;
    m_wake.notify(sc_core::SC_ZERO_TIME);
}

void DwWdt::expire() {
    const sc_time now = sc_core::sc_time_stamp();
    if (!m_running) {
        return;
    }
    if (m_due > now) {
        next_trigger(m_due - now, m_wake);
        return;
    }
    if ((m_cr->value() & kInterruptMode) != 0 && !m_raised) {
        const sc_time due = m_due;
        restart(due);  // the count starts again; the interrupt stays until eoi or a restart
        m_raised = true;
        irq.set(true);
        next_trigger(m_due - now, m_wake);
        return;
    }
    if (m_reset) {
        m_reset(m_due);
    }
}

}  // namespace npu::soc
