/* An SDK application of ours for SYSCTL's clocks, setting them as the SDK's face_detect and kpu
   demos do (PLL0 800 MHz, PLL1 400 MHz): what sysctl_clock_get_freq answers at boot and after,
   and the cycles (mcycle) and CLINT ticks (mtime) a usleep(10000) takes at each CPU clock. */
#include <stdio.h>

#include "clint.h"
#include "encoding.h"
#include "sleep.h"
#include "sysctl.h"

static void clocks(const char* when) {
    printf("%s: cpu %u apb0 %u ai %u\n", when, (unsigned)sysctl_clock_get_freq(SYSCTL_CLOCK_CPU),
           (unsigned)sysctl_clock_get_freq(SYSCTL_CLOCK_APB0),
           (unsigned)sysctl_clock_get_freq(SYSCTL_CLOCK_AI));
}

static void sleep_10ms(void) {
    uint64_t c0 = read_cycle(), t0 = clint->mtime;
    usleep(10000);
    uint64_t c1 = read_cycle(), t1 = clint->mtime;
    printf("usleep(10000): %lu cycles, %lu ticks\n", (unsigned long)(c1 - c0),
           (unsigned long)(t1 - t0));
}

int main(void) {
    clocks("boot");
    sleep_10ms();
    uint32_t pll0 = sysctl_pll_set_freq(SYSCTL_PLL0, 800000000UL);
    uint32_t pll1 = sysctl_pll_set_freq(SYSCTL_PLL1, 400000000UL);
    printf("set: pll0 %u pll1 %u\n", (unsigned)pll0, (unsigned)pll1);
    clocks("now");
    sleep_10ms();
    return 0;
}
