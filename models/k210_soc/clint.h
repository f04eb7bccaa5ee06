// The K210's core-local interruptor (the SiFive CLINT the SDK's clint.h describes): a software
// interrupt bit (msip) and a timer compare (mtimecmp) per hart, and one mtime counting at the CPU
// clock divided by 50 (CLINT_CLOCK_DIV). mtime is a function of simulated time, read at the
// access's own time (a CPU running ahead of the kernel reads its own time). docs/firmware.md.
#pragma once

#include <array>
#include <deque>
#include <limits>

#include <systemc>

#include "sim/core/regs.h"
#include "sim/tlm/register_target.h"

namespace npu::soc {

class Clint : public sc_core::sc_module {
public:
    static constexpr unsigned kHarts = 2;
    static constexpr uint64_t kBytes = 0x10000;
    static constexpr uint64_t kMsip = 0x0, kMtimecmp = 0x4000, kMtime = 0xbff8;

    // `tick_ps`: one mtime count in ps (the CPU clock's period times 50 on the K210; not rounded
    // to the kernel's 1 ps).
    Clint(sc_core::sc_module_name name, double tick_ps, sc_core::sc_time access_latency);
    // The CPU clock changed at `at`: mtime counts on from its value then at the new tick.
    void set_tick(const sc_core::sc_time& at, double tick_ps);

    uint64_t mtime(const sc_core::sc_time& at) const;
    bool timer_pending(unsigned hart, const sc_core::sc_time& at) const {
        return mtime(at) >= m_mtimecmp[hart]->value();
    }
    bool software_pending(unsigned hart) const { return (m_msip[hart]->value() & 1) != 0; }
    // When hart's timer interrupt becomes pending (no later than `at` if it already is); the
    // largest time if mtimecmp cannot be reached.
    sc_core::sc_time timer_due(unsigned hart, const sc_core::sc_time& at) const;
    // Notified when msip or mtimecmp is written (a waiting hart re-evaluates).
    const sc_core::sc_event& changed() const { return m_changed; }

private:
    // mtime = m_count at m_epoch, one more every m_tick_ps (a write of mtime or a new tick moves
    // the epoch).
    double m_tick_ps;
    sc_core::sc_time m_epoch;
    uint64_t m_count = 0;
    std::deque<sim::Register> m_regs;
    std::array<sim::Register*, kHarts> m_msip{}, m_mtimecmp{};
    sim::RegisterBank m_bank;
    sc_core::sc_event m_changed;

public:
    sim::RegisterTarget regs;  // CLINT_BASE_ADDR (0x02000000)
};

}  // namespace npu::soc
