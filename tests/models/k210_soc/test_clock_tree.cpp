// The K210 clock tree (models/k210_soc/clock_tree.h): frequencies worked by hand from the
// register fields as the SDK's sysctl.h lays them out and sysctl_clock_get_freq combines them.
#include <gtest/gtest.h>

#include "models/k210_soc/clock_tree.h"

namespace npu::soc {
namespace {

// PLL word: clkr, clkf, clkod in bits 0-3, 4-9, 10-13; powered, output enabled.
uint32_t pll(uint32_t clkr, uint32_t clkf, uint32_t clkod) {
    return clkr | (clkf << 4) | (clkod << 10) | PllFields::kPowered | PllFields::kOutputEnable;
}

TEST(ClockTree, BootClocksAreTheRomsThreeNinetyMegahertz) {
    const Clocks c = clocks_of(SysctlClockRegs::at_boot());
    EXPECT_DOUBLE_EQ(c.pll[0], 780e6);  // 26 MHz x 60 / 2
    EXPECT_EQ(c.pll[1], 0.0);           // powered down
    EXPECT_DOUBLE_EQ(c[Clock::kCpu], 390e6);
    EXPECT_DOUBLE_EQ(c[Clock::kApb0], 195e6);
    EXPECT_EQ(c[Clock::kAi], 0.0);
    EXPECT_DOUBLE_EQ(c[Clock::kTimer0], 13e6);  // IN0 / 2
    EXPECT_DOUBLE_EQ(c[Clock::kWdt1], 13e6);    // IN0 / 2
    EXPECT_STREQ(clock_name(Clock::kTimer2), "timer2");
    EXPECT_STREQ(clock_name(Clock::kWdt1), "wdt1");
}

// What the SDK's sysctl_pll_set_freq writes for the demos' 800 and 400 MHz (MaixPy's log reads
// back 806 MHz and 398.67 MHz): PLL0 26 MHz x 31, PLL1 26 MHz x 46 / 3.
TEST(ClockTree, TheDemosPllsAndTheDividers) {
    SysctlClockRegs r = SysctlClockRegs::at_boot();
    r.pll[0] = pll(0, 30, 0);
    r.pll[1] = pll(0, 45, 2);
    Clocks c = clocks_of(r);
    EXPECT_DOUBLE_EQ(c[Clock::kCpu], 403e6);
    EXPECT_DOUBLE_EQ(c[Clock::kApb0], 201.5e6);
    EXPECT_NEAR(c[Clock::kAi], 398666666.67, 0.01);
    r.clk_sel0 = 1u | (1u << 1) | (3u << 3) | (1u << 13);  // ACLK / 4, APB0 / 4, TIMER0 on PLL0
    r.clk_th[0] = 1u << 8;                                 // AI threshold 1
    r.clk_th[2] = 3;                                       // TIMER0 threshold 3
    c = clocks_of(r);
    EXPECT_DOUBLE_EQ(c[Clock::kCpu], 806e6 / 4);
    EXPECT_DOUBLE_EQ(c[Clock::kApb0], 806e6 / 4 / 4);
    EXPECT_NEAR(c[Clock::kAi], 398666666.67 / 2, 0.01);
    EXPECT_DOUBLE_EQ(c[Clock::kTimer0], 806e6 / (4 * 2));
    EXPECT_DOUBLE_EQ(c[Clock::kTimer1], 13e6);
    r.clk_sel0 = 0;  // ACLK from IN0, as sysctl_pll_set_freq switches it while PLL0 changes
    EXPECT_DOUBLE_EQ(clocks_of(r)[Clock::kCpu], 26e6);
}

TEST(ClockTree, BypassResetAndPowerDownAndPll2sInput) {
    const uint32_t p = pll(0, 45, 2);
    EXPECT_DOUBLE_EQ(pll_hz(p | PllFields::kBypass, 26e6), 26e6);
    EXPECT_EQ(pll_hz(p | PllFields::kReset, 26e6), 0.0);
    EXPECT_EQ(pll_hz(p & ~PllFields::kPowered, 26e6), 0.0);
    EXPECT_EQ(pll_hz(p & ~PllFields::kOutputEnable, 26e6), 0.0);
    SysctlClockRegs r = SysctlClockRegs::at_boot();
    r.pll[2] = pll(1, 3, 0) | (1u << 26);  // from PLL0: 780 MHz x 4 / 2
    EXPECT_DOUBLE_EQ(clocks_of(r).pll[2], 1560e6);
}

TEST(ClockTree, RegisterOffsetsAreTheSdks) {
    SysctlClockRegs r;
    EXPECT_EQ(r.word(0x08), &r.pll[0]);
    EXPECT_EQ(r.word(0x10), &r.pll[2]);
    EXPECT_EQ(r.word(0x20), &r.clk_sel0);
    EXPECT_EQ(r.word(0x2c), &r.clk_en_peri);
    EXPECT_EQ(r.word(0x38), &r.clk_th[0]);
    EXPECT_EQ(r.word(0x50), &r.clk_th[6]);
    EXPECT_EQ(r.word(0x18), nullptr);  // pll_lock
    EXPECT_EQ(r.word(0x54), nullptr);  // misc
}

}  // namespace
}  // namespace npu::soc
