/* The K210 as npusim's firmware kit sees it: base addresses and interrupt numbers (the Kendryte
   SDK's platform.h and plic.h), MMIO accessors, interrupts through the PLIC, and the CLINT's
   mtime. Our own code, written from the register documentation (docs/firmware.md). */
#ifndef NPUSIM_K210_H
#define NPUSIM_K210_H

#include <stdint.h>

#define K210_IO_OFFSET   0x40000000u /* cached SRAM address -> its uncached alias */
#define K210_AI_IO_BASE  0x40600000u
#define K210_KPU_BASE    0x40800000u
#define K210_DMAC_BASE   0x50000000u
#define K210_SYSCTL_BASE 0x50440000u
#define K210_PLIC_BASE   0x0C000000u
#define K210_CLINT_BASE  0x02000000u
#define K210_UARTHS_BASE 0x38000000u

#define K210_IRQ_KPU   25u
#define K210_IRQ_DMAC0 27u /* + channel */
#define K210_CLINT_DIV 50u /* mtime counts the CPU clock / 50 */

static inline void mmio_write64(uintptr_t a, uint64_t v) {
    *(volatile uint64_t*)a = v;
}
static inline uint64_t mmio_read64(uintptr_t a) {
    return *(volatile uint64_t*)a;
}
static inline void mmio_write32(uintptr_t a, uint32_t v) {
    *(volatile uint32_t*)a = v;
}
static inline uint32_t mmio_read32(uintptr_t a) {
    return *(volatile uint32_t*)a;
}

/* Interrupts: `handler(ctx)` runs for PLIC source `id` (claimed before, completed after). */
typedef void (*k210_irq_handler)(void* ctx);
void k210_irq_register(unsigned id, unsigned priority, k210_irq_handler handler, void* ctx);
void k210_irq_unregister(unsigned id);
/* Sleeps (wfi) until *flag is non-zero, with no window for a lost wake-up. */
void k210_wait_flag(volatile int* flag);
/* Interrupts taken so far, by PLIC source. */
extern volatile uint32_t k210_irq_count[65];

static inline uint64_t k210_mtime(void) {
    return mmio_read64(K210_CLINT_BASE + 0xbff8);
}

#endif
