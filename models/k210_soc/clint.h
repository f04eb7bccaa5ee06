// The K210's core-local interruptor (the SiFive CLINT the SDK's clint.h describes): a software
// interrupt bit (msip) and a timer compare (mtimecmp) per hart, and one mtime counting the CPU's
// cycles divided by 50 (CLINT_CLOCK_DIV): one prescaler on the CPU clock, so mtime = mcycle / 50
// when both are read at one time, across clock changes. mtime is read at the access's own time
// (a CPU running ahead of the kernel reads its own time). docs/firmware.md.
#pragma once

#include <array>
#include <deque>
#include <limits>

#include <systemc>

#include "models/k210_soc/cycle_clock.h"
#include "sim/core/regs.h"
#include "sim/tlm/peripheral.h"
#include "sim/tlm/register_target.h"

namespace npu::soc {

class Clint : public sc_core::sc_module {
public:
    static constexpr unsigned kHarts = 2;
    static constexpr uint64_t kBytes = 0x10000;
    static constexpr uint64_t kMsip = 0x0, kMtimecmp = 0x4000, kMtime = 0xbff8;

    // mtime counts a CPU clock's cycles over `div`: the one `count` names (the caller keeps it
    // alive; the K210's is hart 0's mcycle). Until then mtime reads its offset.
    Clint(sc_core::sc_module_name name, unsigned div, sc_core::sc_time access_latency);
    void count(const CycleClock& clock) { m_clock = &clock; }
    // The clock changed its period: a waiting hart re-evaluates when its timer falls due.
    void clock_changed() { m_changed.notify(sc_core::SC_ZERO_TIME); }

    uint64_t mtime(const sc_core::sc_time& at) const;
    bool timer_pending(unsigned hart, const sc_core::sc_time& at) const {
        return mtime(at) >= m_mtimecmp[hart]->value();
    }
    bool software_pending(unsigned hart) const { return (m_msip[hart]->value() & 1) != 0; }
    // When hart's timer interrupt becomes pending (no later than `at` if it already is); the
    // largest time if mtimecmp cannot be reached.
    sc_core::sc_time timer_due(unsigned hart, const sc_core::sc_time& at) const;
    // Notified when msip, mtimecmp or mtime is written or the clock changes (a waiting hart
    // re-evaluates).
    const sc_core::sc_event& changed() const { return m_changed; }

private:
    // mtime = cycles / m_div + m_offset (a write of mtime sets the offset; modulo 2^64).
    uint64_t cycles_at(const sc_core::sc_time& at) const {
        return m_clock != nullptr ? m_clock->cycles_at(at) : 0;
    }
    const CycleClock* m_clock = nullptr;
    uint64_t m_div;
    uint64_t m_offset = 0;
    std::array<sim::Register*, kHarts> m_msip{}, m_mtimecmp{};
    sc_core::sc_event m_changed;

public:
    sim::Peripheral regs;  // CLINT_BASE_ADDR (0x02000000)
};

}  // namespace npu::soc
