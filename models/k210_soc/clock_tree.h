// The K210's clock tree: the frequencies SYSCTL's registers give the blocks npusim times (the
// CPU and what runs on ACLK, the APB buses, the KPU's AI clock, TIMER0-2, WDT0-1), computed as the
// Kendryte SDK's sysctl_clock_get_freq computes them, and SYSCTL's state when the boot ROM hands
// over. Plain C++. Sources and assumptions: docs/firmware.md, "Clocks".
#pragma once

#include <array>
#include <cstdint>
#include <vector>

namespace npu::soc {

// SYSCTL's clock registers (the SDK's sysctl_t), 32 bits each.
struct SysctlClockRegs {
    static constexpr uint64_t kPll0 = 0x08, kClkSel0 = 0x20, kClkSel1 = 0x24;
    static constexpr uint64_t kClkEnCent = 0x28, kClkEnPeri = 0x2c, kClkTh0 = 0x38;
    static constexpr unsigned kThresholds = 7;  // clk_th0..clk_th6
    std::array<uint32_t, 3> pll{};              // pll0..pll2 (0x08, 0x0c, 0x10)
    uint32_t clk_sel0 = 0, clk_sel1 = 0, clk_en_cent = 0, clk_en_peri = 0;
    std::array<uint32_t, kThresholds> clk_th{};

    // What the boot ROM leaves: PLL0 at 780 MHz (26 MHz x 60 / 2), ACLK = PLL0 / 2 = 390 MHz,
    // APB0-2 = ACLK / 2; PLL1 and PLL2 powered down; thresholds 0 (timers: IN0 / 2 = 13 MHz).
    static SysctlClockRegs at_boot();
    // The register at `offset` (pll0..clk_th6), or nullptr for any other offset.
    uint32_t* word(uint64_t offset);
    // Every clock register's offset, and the registers read by offset (`value(offset)`).
    static std::vector<uint64_t> offsets();
    template <class Read>
    static SysctlClockRegs read(Read value) {
        SysctlClockRegs r;
        for (uint64_t offset : offsets()) {
            *r.word(offset) = value(offset);
        }
        return r;
    }
};

// PLL register fields (sysctl_pll0_t).
struct PllFields {
    static constexpr uint32_t kReset = 1u << 20, kPowered = 1u << 21, kBypass = 1u << 23;
    static constexpr uint32_t kOutputEnable = 1u << 25;
};

enum class Clock : unsigned {
    kCpu,
    kApb0,
    kApb1,
    kApb2,
    kAi,
    kTimer0,
    kTimer1,
    kTimer2,
    kWdt0,
    kWdt1,
    kSpi0,
    kSpi3,
    kCount
};
constexpr unsigned kClockCount = static_cast<unsigned>(Clock::kCount);
const char* clock_name(Clock c);  // "cpu", "apb0", ..., "ai", "timer0", ..., "wdt1", "spi0", "spi3"

constexpr double kIn0Hz = 26'000'000;  // the board's oscillator (SYSCTRL_CLOCK_FREQ_IN0)

struct Clocks {
    std::array<double, 3> pll{};  // Hz; 0 while a PLL is off
    std::array<double, kClockCount> hz{};
    double operator[](Clock c) const { return hz[static_cast<unsigned>(c)]; }
};

// A PLL's output: IN0 x (clkf + 1) / ((clkr + 1) x (clkod + 1)) (PLL2's input by pll_ckin_sel),
// IN0 when bypassed, 0 when powered down, held in reset or its output disabled.
double pll_hz(uint32_t pll_reg, double input_hz);
// Every clock the registers give (sysctl_clock_get_freq's formulas).
Clocks clocks_of(const SysctlClockRegs& regs);

}  // namespace npu::soc
