#include "models/k210_soc/timer.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

namespace npu::soc {

using sc_core::sc_time;
using sim::Access;

namespace {
constexpr uint64_t kFull32 = 0xffffffff;
constexpr uint64_t kEnable = 0x1, kUserMode = 0x2, kMasked = 0x4, kPwm = 0x8;
}  // namespace

DwTimer::DwTimer(sc_core::sc_module_name name, sc_time tick, sc_time access_latency)
    : sc_module(name)
    , irq_a("irq_a")
    , irq_b("irq_b")
    , m_tick(tick)
    , regs("regs", "timer", kBytes, access_latency) {
    for (unsigned c = 0; c < kChannels; ++c) {
        add_channel(c);
    }
    regs.add({"intr_stat", 0xa0, 4, 0, Access::RO_WI, 0, true}).on_read_pure([this](uint64_t) {
        return status(true);
    });
    regs.add({"eoi", 0xa4, 4, 0, Access::RW, 0, true}).on_read([this](uint64_t) {
        for (Channel& ch : m_ch) {
            ch.raw = false;  // reading the block's eoi acknowledges every channel
        }
        update_lines();
        return uint64_t{0};
    });
    regs.add({"raw_intr_stat", 0xa8, 4, 0, Access::RO_WI, 0, true}).on_read_pure([this](uint64_t) {
        return status(false);
    });
    regs.add({"comp_version", 0xac, 4, 0, Access::RO_WI, 0, true});
    for (unsigned c = 0; c < kChannels; ++c) {
        m_ch[c].load_count2 = &regs.add(
            {fmt::format("load_count2[{}]", c), 0xb0 + 4 * c, 4, 0, Access::RW, kFull32, true});
        m_ch[c].load_count2->on_write([this, c](uint64_t) { pwm_changed(c); });
        m_ch[c].load_count->on_write([this, c](uint64_t) { pwm_changed(c); });
    }
    SC_HAS_PROCESS(DwTimer);
    SC_METHOD(expire);
    sensitive << m_wake;
    dont_initialize();
}

void DwTimer::add_channel(unsigned c) {
    const uint64_t base = 0x14 * c;
    Channel& ch = m_ch[c];
    ch.load_count = &regs.add(
        {fmt::format("channel[{}].load_count", c), base, 4, 0, Access::RW, kFull32, true});
    ch.current_value = &regs.add(
        {fmt::format("channel[{}].current_value", c), base + 4, 4, 0, Access::RO_WI, 0, true});
    ch.current_value->on_read_pure([this, c](uint64_t) { return current(c, regs.access_time()); });
    ch.control =
        &regs.add({fmt::format("channel[{}].control", c), base + 8, 4, 0, Access::RW, 0xf, true});
    ch.control->on_write([this, c](uint64_t) { control_written(c); });
    regs.add({fmt::format("channel[{}].eoi", c), base + 12, 4, 0, Access::RW, 0, true})
        .on_read([this, c](uint64_t) {
            m_ch[c].raw = false;  // reading a channel's eoi acknowledges it
            update_lines();
            return uint64_t{0};
        });
    regs.add({fmt::format("channel[{}].intr_stat", c), base + 16, 4, 0, Access::RO_WI, 0, true})
        .on_read_pure([this, c](uint64_t) {
            return uint64_t{m_ch[c].raw && (m_ch[c].control->value() & kMasked) == 0};
        });
}

sc_time DwTimer::period(unsigned c, bool first) const {
    const Channel& ch = m_ch[c];
    const bool user = (ch.control->value() & kUserMode) != 0;
    const uint64_t counts = first || user ? ch.load_count->value() + 1 : uint64_t{1} << 32;
    return m_tick * static_cast<double>(counts);
}

void DwTimer::control_written(unsigned c) {
    Channel& ch = m_ch[c];
    const bool on = (ch.control->value() & kEnable) != 0;
    if (on && !ch.running) {  // enabled: counts down from load_count, from the write's time
        ch.start = regs.access_time();
        ch.due = ch.start + period(c, true);
    }
    ch.running = on;
    update_lines();
    m_wake.notify(sc_core::SC_ZERO_TIME);
    pwm_changed(c);
}

// A channel enabled in user-defined mode with PWM enable drives its toggle output: high for
// load_count2 + 1 counts, low for load_count + 1 (DW_apb_timers' PWM mode; the SDK's
// pwm_set_frequency sets load_count2 to duty x period). Turned on or off at once; new counts of a
// running output take effect at the end of its current period, when the timer reloads them (so
// the SDK's two writes are one change). Reported when it changes, at the time it does.
void DwTimer::pwm_changed(unsigned c) {
    Channel& ch = m_ch[c];
    const uint64_t ctl = ch.control->value();
    Pwm now;
    if ((ctl & kEnable) != 0 && (ctl & kPwm) != 0 && (ctl & kUserMode) != 0) {
        now.high = ch.load_count2->value() + 1;
        now.low = ch.load_count->value() + 1;
    }
    if (now.high == ch.pwm.high && now.low == ch.pwm.low) {
        return;
    }
    sc_time at = regs.access_time();
    if (now.high != 0 && ch.pwm.high != 0) {  // at the end of the running period
        if (at <= ch.pwm_since) {
            at = ch.pwm_since;  // a change already waits for that end: this one joins it
        } else {
            const sc_time period = m_tick * static_cast<double>(ch.pwm.high + ch.pwm.low);
            at = ch.pwm_since + period * std::ceil((at - ch.pwm_since) / period);
        }
    }
    ch.pwm = now;
    ch.pwm_since = at;
    report_pwm(c, at);
}

void DwTimer::report_pwm(unsigned c, const sc_time& at) {
    const Pwm& now = m_ch[c].pwm;
    if (m_pwm_sink) {
        const double counts = static_cast<double>(now.high + now.low);
        m_pwm_sink(c, now.high != 0, now.high == 0 ? 0.0 : 1.0 / (m_tick.to_seconds() * counts),
                   now.high == 0 ? 0.0 : static_cast<double>(now.high) / counts, at);
    }
}

void DwTimer::set_tick(const sc_time& at, const sc_time& tick) {
    if (tick == m_tick) {
        return;
    }
    for (unsigned c = 0; c < kChannels; ++c) {
        Channel& ch = m_ch[c];
        if (ch.running && ch.due > at) {
            const double left = (ch.due - at) / m_tick;  // counts to go, at the old tick
            ch.due = at + tick * left;
        }
    }
    m_tick = tick;
    for (unsigned c = 0; c < kChannels; ++c) {
        if (m_ch[c].pwm.high != 0) {
            m_ch[c].pwm_since = at;
            report_pwm(c, at);
        }
    }
    m_wake.notify(sc_core::SC_ZERO_TIME);
}

uint64_t DwTimer::current(unsigned c, const sc_time& at) const {
    const Channel& ch = m_ch[c];
    if (!ch.running) {
        return ch.load_count->value();
    }
    // Counts still to go before the next expiry (at its due time the count is 0).
    const sc_time left = ch.due > at ? ch.due - at : sc_core::SC_ZERO_TIME;
    return std::min<uint64_t>(static_cast<uint64_t>(left / m_tick), kFull32);
}

uint64_t DwTimer::status(bool masked) const {
    uint64_t bits = 0;
    for (unsigned c = 0; c < kChannels; ++c) {
        const bool unmasked = (m_ch[c].control->value() & kMasked) == 0;
        bits |= m_ch[c].raw && (!masked || unmasked) ? uint64_t{1} << c : 0;
    }
    return bits;
}

void DwTimer::update_lines() {
    const uint64_t s = status(true);
    irq_a.set((s & 0x3) != 0);
    irq_b.set((s & 0xc) != 0);
}

void DwTimer::expire() {
    const sc_time now = sc_core::sc_time_stamp();
    sc_time next = sc_core::sc_max_time();
    for (unsigned c = 0; c < kChannels; ++c) {
        Channel& ch = m_ch[c];
        if (!ch.running) {
            continue;
        }
        if (ch.due <= now) {
            ch.raw = true;
            while (ch.due <= now) {  // reloads: load_count again (user mode) or 2^32 counts
                ch.due += period(c, false);
            }
        }
        next = std::min(next, ch.due);
    }
    update_lines();
    if (next != sc_core::sc_max_time()) {
        next_trigger(next - now, m_wake);
    }
}

}  // namespace npu::soc
