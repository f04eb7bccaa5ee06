#include "models/k210_soc/clint.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "sim/tlm/sim_time.h"

namespace npu::soc {

using sim::Access;
using sim::Register;

Clint::Clint(sc_core::sc_module_name name, double tick_ps, sc_core::sc_time access_latency)
    : sc_module(name)
    , m_tick_ps(tick_ps)
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
        m_epoch = regs.access_time();
        m_count = v;
        m_changed.notify(sc_core::SC_ZERO_TIME);
    });
}

void Clint::set_tick(const sc_core::sc_time& at, double tick_ps) {
    m_count = mtime(at);
    m_epoch = at;
    m_tick_ps = tick_ps;
    m_changed.notify(sc_core::SC_ZERO_TIME);
}

uint64_t Clint::mtime(const sc_core::sc_time& at) const {
    const uint64_t t = sim::to_ps(at), e = sim::to_ps(m_epoch);
    if (t >= e) {
        return m_count + static_cast<uint64_t>(static_cast<double>(t - e) / m_tick_ps);
    }
    // A hart reading behind the epoch.
    return m_count - static_cast<uint64_t>(std::ceil(static_cast<double>(e - t) / m_tick_ps));
}

sc_core::sc_time Clint::timer_due(unsigned hart, const sc_core::sc_time& at) const {
    const uint64_t now = mtime(at), cmp = m_mtimecmp[hart]->value();
    if (now >= cmp) {
        return at;
    }
    // The first ps at which mtime reads cmp.
    const double e = static_cast<double>(sim::to_ps(m_epoch));
    const double due = e + std::ceil(static_cast<double>(cmp - m_count) * m_tick_ps);
    if (cmp < m_count) {  // due before the epoch (`at` is behind it)
        const double before = e - std::floor(static_cast<double>(m_count - cmp) * m_tick_ps);
        return sim::from_ps(std::max(before, 0.0));
    }
    if (due >= static_cast<double>(sim::to_ps(sc_core::sc_max_time()))) {
        return sc_core::sc_max_time();
    }
    return sim::from_ps(due);
}

}  // namespace npu::soc
