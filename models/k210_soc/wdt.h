// A K210 watchdog (WDT0-1: DesignWare DW_apb_wdt; the SDK's wdt_t) as the SDK's wdt.c drives it:
// enabled (cr.WDT_EN) its counter counts 2^(16 + TOP) clocks of the WDT clock (torr.TOP, 0-15),
// restarted by writing 0x76 to crr (wdt_feed), which also clears the interrupt. At zero: in
// interrupt mode (cr.RMOD, as wdt_init sets it) the first timeout raises the interrupt (stat, PLIC
// 21 + n) and the count starts again; a second timeout while it is still raised resets the chip,
// as does the first in reset mode. Reading eoi clears the interrupt (the SDK's read-then-write of
// eoi: the write is ignored). A reset is reported to the SoC, which ends the run there (npusim does
// not restart the firmware). docs/firmware.md.
#pragma once

#include <functional>

#include <systemc>

#include "models/k210_soc/uart.h"
#include "sim/tlm/irq.h"
#include "sim/tlm/peripheral.h"
#include "sim/tlm/register_target.h"

namespace npu::soc {

class DwWdt : public sc_core::sc_module {
public:
    static constexpr uint64_t kBytes = 0x100;
    static constexpr uint64_t kRestart = 0x76;  // crr's key (WDT_CRR_MASK)
    // `tick`: one count of the WDT clock.
    DwWdt(sc_core::sc_module_name name, sc_core::sc_time tick, sc_core::sc_time access_latency);

    sim::IrqLine irq;
    // Called when the watchdog resets the chip, with the time.
    void on_reset(std::function<void(const sc_core::sc_time&)> f) { m_reset = std::move(f); }
    // The WDT clock changed at `at`: the running count goes on at the new tick.
    void set_tick(const sc_core::sc_time& at, const sc_core::sc_time& tick);

private:
    bool enabled() const;
    uint64_t period_counts() const;  // 2^(16 + TOP)
    void restart(const sc_core::sc_time& at);
    void expire();  // SC_METHOD: at the due time

    sc_core::sc_time m_tick;
    sim::Register *m_cr = nullptr, *m_torr = nullptr;
    bool m_raised = false, m_running = false;
    sc_core::sc_time m_due;  // the running count's timeout
    sc_core::sc_event m_wake;
    std::function<void(const sc_core::sc_time&)> m_reset;

public:
    sim::Peripheral regs;
};

}  // namespace npu::soc
