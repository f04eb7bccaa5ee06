// A CPU clock's cycle count as a function of simulated time: `base` cycles at `epoch`, one more
// every `period_ps` after it (rounded to the nearest cycle: each piece of execution takes its
// cycles' time rounded to the picosecond, and a truncated count would lose a cycle whenever
// those roundings summed below the exact time). A clock change starts a new epoch at the count
// reached. The harts' mcycle is one; the CLINT's mtime divides hart 0's (docs/firmware.md).
#pragma once

#include <cmath>
#include <cstdint>

#include <systemc>

#include "sim/tlm/sim_time.h"

namespace npu::soc {

class CycleClock {
public:
    explicit CycleClock(double period_ps)
        : m_period_ps(period_ps) {}

    double period_ps() const { return m_period_ps; }
    uint64_t cycles_at(const sc_core::sc_time& at) const {
        if (at <= m_epoch) {
            return m_base;
        }
        return m_base + static_cast<uint64_t>(
                            static_cast<double>(sim::to_ps(at - m_epoch)) / m_period_ps + 0.5);
    }
    // The first time at which cycles_at reads n (`m_epoch` if it already does there; the
    // largest time if none can).
    sc_core::sc_time time_of_cycle(uint64_t n) const {
        if (n <= m_base) {
            return m_epoch;
        }
        const double ps = std::ceil((static_cast<double>(n - m_base) - 0.5) * m_period_ps);
        const double max_ps = static_cast<double>(sim::to_ps(sc_core::sc_max_time() - m_epoch));
        if (ps >= max_ps / 2) {
            return sc_core::sc_max_time();
        }
        sc_core::sc_time t = m_epoch + sim::from_ps(ps);
        while (cycles_at(t) < n) {  // a rounding of ps or of the division
            t += sc_core::sc_time(1, sc_core::SC_PS);
        }
        return t;
    }
    // The clock runs at a new period from `at` on.
    void change(const sc_core::sc_time& at, double period_ps) {
        m_base = cycles_at(at);
        m_epoch = at;
        m_period_ps = period_ps;
    }

private:
    double m_period_ps;
    uint64_t m_base = 0;
    sc_core::sc_time m_epoch;
};

}  // namespace npu::soc
