#include "models/k210_soc/clock_tree.h"

namespace npu::soc {

namespace {
uint32_t bits(uint32_t word, unsigned lsb, unsigned width) {
    return (word >> lsb) & ((1u << width) - 1);
}

// PLL0 as the boot ROM leaves it (read on boards: NuttX's k210_clockconfig and the k210-hal
// crate derive 390 MHz for the CPU from it; Linux's K210 device tree counts its timebase at
// 7.8 MHz = 390 MHz / 50): clkr 0, clkf 59, clkod 1, bwadj 59, powered, output enabled.
constexpr uint32_t kBootPll0 =
    0u | (59u << 4) | (1u << 10) | (59u << 14) | PllFields::kPowered | PllFields::kOutputEnable;
// ACLK from PLL0 (aclk_sel 1, divider 0: PLL0 / 2); APB0 = ACLK / 2 (apb0_clk_sel 1, as the
// k210-hal crate's clocks at start-up, 195 MHz); APB1 and APB2 assumed the same.
constexpr uint32_t kBootClkSel0 = 1u | (1u << 3) | (1u << 6) | (1u << 9);
}  // namespace

SysctlClockRegs SysctlClockRegs::at_boot() {
    SysctlClockRegs r;
    r.pll = {kBootPll0, 0, 0};  // PLL1 off: Linux enables it itself "to make the KPU SRAM useable"
    r.clk_sel0 = kBootClkSel0;
    r.clk_en_cent = 0x3f;  // CPU, SRAM0/1, APB0-2 (gating is not modelled)
    return r;
}

uint32_t* SysctlClockRegs::word(uint64_t offset) {
    if (offset >= kPll0 && offset < kPll0 + 4 * pll.size() && offset % 4 == 0) {
        return &pll[(offset - kPll0) / 4];
    }
    if (offset >= kClkTh0 && offset < kClkTh0 + 4 * kThresholds && offset % 4 == 0) {
        return &clk_th[(offset - kClkTh0) / 4];
    }
    switch (offset) {
    case kClkSel0: return &clk_sel0;
    case kClkSel1: return &clk_sel1;
    case kClkEnCent: return &clk_en_cent;
    case kClkEnPeri: return &clk_en_peri;
    default: return nullptr;
    }
}

std::vector<uint64_t> SysctlClockRegs::offsets() {
    std::vector<uint64_t> o{kClkSel0, kClkSel1, kClkEnCent, kClkEnPeri};
    for (uint64_t i = 0; i < 3; ++i) {
        o.push_back(kPll0 + 4 * i);
    }
    for (uint64_t i = 0; i < kThresholds; ++i) {
        o.push_back(kClkTh0 + 4 * i);
    }
    return o;
}

const char* clock_name(Clock c) {
    static const char* const kNames[] = {"cpu",    "apb0",   "apb1", "apb2", "ai",   "timer0",
                                         "timer1", "timer2", "wdt0", "wdt1", "spi0", "spi3"};
    return kNames[static_cast<unsigned>(c)];
}

double pll_hz(uint32_t reg, double input_hz) {
    if ((reg & PllFields::kBypass) != 0) {
        return input_hz;
    }
    if ((reg & PllFields::kPowered) == 0 || (reg & PllFields::kReset) != 0 ||
        (reg & PllFields::kOutputEnable) == 0) {
        return 0;
    }
    const double nr = bits(reg, 0, 4) + 1, nf = bits(reg, 4, 6) + 1, od = bits(reg, 10, 4) + 1;
    return input_hz / nr * nf / od;
}

Clocks clocks_of(const SysctlClockRegs& r) {
    Clocks c;
    c.pll[0] = pll_hz(r.pll[0], kIn0Hz);
    c.pll[1] = pll_hz(r.pll[1], kIn0Hz);
    const uint32_t pll2_in = bits(r.pll[2], 26, 2);  // pll_ckin_sel2: IN0, PLL0, PLL1
    c.pll[2] = pll2_in > 2 ? 0 : pll_hz(r.pll[2], pll2_in == 0 ? kIn0Hz : c.pll[pll2_in - 1]);
    // ACLK (the CPU, DMA, FFT): IN0, or PLL0 / (2 << aclk_divider_sel).
    const double aclk = bits(r.clk_sel0, 0, 1) == 0
                            ? kIn0Hz
                            : c.pll[0] / static_cast<double>(2u << bits(r.clk_sel0, 1, 2));
    auto set = [&c](Clock k, double hz) {
        c.hz[static_cast<unsigned>(k)] = hz;
    };
    set(Clock::kCpu, aclk);
    for (unsigned b = 0; b < 3; ++b) {  // APBn: ACLK / (apbn_clk_sel + 1)
        set(static_cast<Clock>(static_cast<unsigned>(Clock::kApb0) + b),
            aclk / (bits(r.clk_sel0, 3 + 3 * b, 3) + 1));
    }
    set(Clock::kAi, c.pll[1] / (bits(r.clk_th[0], 8, 4) + 1));  // PLL1 / (ai threshold + 1)
    for (unsigned t = 0; t < 3; ++t) {  // TIMERn: (IN0 or PLL0) / ((threshold + 1) x 2)
        const double source = bits(r.clk_sel0, 13 + t, 1) == 0 ? kIn0Hz : c.pll[0];
        set(static_cast<Clock>(static_cast<unsigned>(Clock::kTimer0) + t),
            source / ((bits(r.clk_th[2], 8 * t, 8) + 1) * 2.0));
    }
    for (unsigned w = 0; w < 2; ++w) {  // WDTn: IN0 / ((threshold + 1) x 2)
        set(static_cast<Clock>(static_cast<unsigned>(Clock::kWdt0) + w),
            kIn0Hz / ((bits(r.clk_th[6], 8 * w, 8) + 1) * 2.0));
    }
    // SPI0: PLL0 / ((spi0 threshold + 1) x 2)
    set(Clock::kSpi0, c.pll[0] / ((bits(r.clk_th[1], 0, 8) + 1) * 2.0));
    // SPI3: (IN0 or PLL0, spi3_clk_sel) / ((spi3 threshold + 1) x 2)
    set(Clock::kSpi3, (bits(r.clk_sel0, 12, 1) == 0 ? kIn0Hz : c.pll[0]) /
                          ((bits(r.clk_th[1], 24, 8) + 1) * 2.0));
    return c;
}

}  // namespace npu::soc
