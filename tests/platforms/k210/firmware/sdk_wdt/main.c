/* An SDK application of ours for the watchdog, used as the SDK's watchdog demo uses it: WDT0 with
   a 2 s timeout (wdt_init answers the time to a reset), fed every 0.5 s three times, then not. Its
   interrupt comes one period after the last feed; the handler clears it the first time and spins
   the second, so the next timeout resets the chip. Times are sysctl_get_time_us (mcycle). */
#include <stdio.h>

#include "plic.h"
#include "sleep.h"
#include "sysctl.h"
#include "wdt.h"

static volatile int g_irqs;

static int on_wdt(void *ctx) {
    (void)ctx;
    ++g_irqs;
    printf("irq %d at %lu us\n", g_irqs, (unsigned long)sysctl_get_time_us());
    if (g_irqs < 2) {
        wdt_clear_interrupt(WDT_DEVICE_0);
    } else {
        while (1) {
        }
    }
    return 0;
}

int main(void) {
    plic_init();
    sysctl_enable_irq();
    printf("timeout %lu ms\n", (unsigned long)wdt_init(WDT_DEVICE_0, 2000, on_wdt, NULL));
    for (int i = 0; i < 3; ++i) {
        usleep(500000);
        wdt_feed(WDT_DEVICE_0);
    }
    printf("fed at %lu us\n", (unsigned long)sysctl_get_time_us());
    while (1) {
    }
}
