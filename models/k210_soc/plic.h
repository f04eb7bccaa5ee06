// The K210's platform-level interrupt controller, as the Kendryte SDK's plic.h lays it out (the
// SiFive PLIC): sources 1-65 (0 means none; KPU 25, DMAC channels 27-32, GPIOHS 34-65), priorities
// 0-7, four contexts (each core's machine and supervisor mode: the SDK's target[core] is context
// 2·core, enables 0x100 and targets 0x2000 apart) with enable bits, a threshold and claim/complete.
// Level gateways: a source is pending while its line is high and it is not claimed; completing it
// lets a line still high pend again. docs/firmware.md, "The SoC".
#pragma once

#include <array>
#include <deque>
#include <vector>

#include <systemc>

#include "sim/core/regs.h"
#include "sim/core/stats.h"
#include "sim/tlm/irq.h"
#include "sim/tlm/peripheral.h"
#include "sim/tlm/register_target.h"

namespace npu::soc {

class Plic : public sc_core::sc_module {
public:
    static constexpr unsigned kSources = 66, kContexts = 4, kWords = (kSources + 31) / 32;
    static constexpr uint64_t kBytes = 0x4000000;
    static constexpr uint64_t kPending = 0x1000, kEnables = 0x2000, kEnableStride = 0x80;
    static constexpr uint64_t kTargets = 0x200000, kTargetStride = 0x1000;

    // The machine-mode context of hart `hart`.
    static constexpr unsigned machine_context(unsigned hart) { return 2 * hart; }

    Plic(sc_core::sc_module_name name, sc_core::sc_time access_latency);

    // Source `id` (1..65) follows `line`.
    void connect(unsigned id, const sim::IrqLine& line);
    // Whether context `ctx` has a source above its threshold to claim (its hart's MEIP).
    bool interrupt_pending(unsigned ctx) const { return best(ctx) != 0; }
    const std::vector<const sim::IrqLine*>& lines() const { return m_connected; }
    uint64_t claims() const { return m_claims.value(); }
    sim::StatGroup& stats() { return m_stats; }

private:
    bool pending(unsigned id) const;
    // The enabled pending source of highest priority above the threshold (lowest id on a tie).
    unsigned best(unsigned ctx) const;
    unsigned claim(unsigned ctx);

    std::array<const sim::IrqLine*, kSources> m_lines{};
    std::array<bool, kSources> m_in_service{};
    std::vector<const sim::IrqLine*> m_connected;
    std::array<sim::Register*, kSources> m_priority{};
    std::array<std::array<sim::Register*, kWords>, kContexts> m_enable{};
    std::array<sim::Register*, kContexts> m_threshold{};

public:
    sim::Peripheral regs;  // PLIC_BASE_ADDR (0x0C000000)

private:
    sim::StatGroup m_stats;
    sim::Counter& m_claims;
};

}  // namespace npu::soc
