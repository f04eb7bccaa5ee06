#include "models/k210_soc/clint.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/tlm/sim_time.h"

namespace npu::soc {

using sim::Access;
using sim::Register;

Clint::Clint(sc_core::sc_module_name name, unsigned div, sc_core::sc_time access_latency)
    : sc_module(name)
    , m_div(div)
    , regs("regs", "clint", kBytes, access_latency) {
    for (unsigned h = 0; h < kHarts; ++h) {
        m_msip[h] =
            &regs.add({fmt::format("msip[{}]", h), kMsip + 4 * h, 4, 0, Access::RW, 1, true});
        m_msip[h]->on_write([this](uint64_t) { m_changed.notify(sc_core::SC_ZERO_TIME); });
        m_mtimecmp[h] = &regs.add({fmt::format("mtimecmp[{}]", h), kMtimecmp + 8 * h, 8,
                                   ~uint64_t{0}, Access::RW, ~uint64_t{0}, true});
        m_mtimecmp[h]->on_write([this](uint64_t) { m_changed.notify(sc_core::SC_ZERO_TIME); });
    }
    Register& mtime = regs.add({"mtime", kMtime, 8, 0, Access::RW, ~uint64_t{0}, true});
    mtime.on_read_pure([this](uint64_t) { return this->mtime(regs.access_time()); });
    mtime.on_write([this](uint64_t v) {
        m_offset = v - cycles_at(regs.access_time()) / m_div;
        m_changed.notify(sc_core::SC_ZERO_TIME);
    });
}

uint64_t Clint::mtime(const sc_core::sc_time& at) const {
    return cycles_at(at) / m_div + m_offset;
}

sc_core::sc_time Clint::timer_due(unsigned hart, const sc_core::sc_time& at) const {
    const uint64_t now = mtime(at), cmp = m_mtimecmp[hart]->value();
    if (now >= cmp) {
        return at;
    }
    // The first cycle at which mtime reads cmp (none if the count would pass 2^64).
    const uint64_t ticks = cmp - m_offset;
    if (m_clock == nullptr || ticks > std::numeric_limits<uint64_t>::max() / m_div) {
        return sc_core::sc_max_time();
    }
    const sc_core::sc_time due = m_clock->time_of_cycle(ticks * m_div);
    return std::max(due, at);
}

}  // namespace npu::soc
