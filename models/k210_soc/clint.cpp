#include "models/k210_soc/clint.h"

#include <fmt/format.h>

namespace npu::soc {

using sim::Access;
using sim::Register;

Clint::Clint(sc_core::sc_module_name name, sc_core::sc_time tick, sc_core::sc_time access_latency)
    : sc_module(name)
    , m_tick(tick)
    , m_bank("clint", kBytes)
    , regs("regs", m_bank, access_latency) {
    auto add = [this](Register::Spec spec) -> Register& {
        m_bank.add(m_regs.emplace_back(std::move(spec)));
        return m_regs.back();
    };
    for (unsigned h = 0; h < kHarts; ++h) {
        m_msip[h] = &add({fmt::format("msip[{}]", h), kMsip + 4 * h, 4, 0, Access::RW, 1, true});
        m_msip[h]->on_write([this](uint64_t) { m_changed.notify(sc_core::SC_ZERO_TIME); });
        m_mtimecmp[h] = &add({fmt::format("mtimecmp[{}]", h), kMtimecmp + 8 * h, 8, ~uint64_t{0},
                              Access::RW, ~uint64_t{0}, true});
        m_mtimecmp[h]->on_write([this](uint64_t) { m_changed.notify(sc_core::SC_ZERO_TIME); });
    }
    Register& mtime = add({"mtime", kMtime, 8, 0, Access::RW, ~uint64_t{0}, true});
    mtime.on_read_pure([this](uint64_t) { return this->mtime(regs.access_time()); });
    mtime.on_write([this](uint64_t v) {
        m_offset = v - (this->mtime(regs.access_time()) - m_offset);
        m_changed.notify(sc_core::SC_ZERO_TIME);
    });
}

uint64_t Clint::mtime(const sc_core::sc_time& at) const {
    return static_cast<uint64_t>(at.value() / m_tick.value()) + m_offset;
}

sc_core::sc_time Clint::timer_due(unsigned hart, const sc_core::sc_time& at) const {
    const uint64_t now = mtime(at), cmp = m_mtimecmp[hart]->value();
    if (now >= cmp) {
        return at;
    }
    const uint64_t ticks = cmp - m_offset;  // the count since time zero that reaches cmp
    if (cmp < m_offset || ticks > std::numeric_limits<uint64_t>::max() / m_tick.value()) {
        return sc_core::sc_max_time();
    }
    return sc_core::sc_time::from_value(ticks * m_tick.value());
}

}  // namespace npu::soc
