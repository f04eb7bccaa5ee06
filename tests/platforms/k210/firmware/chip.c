/* Firmware that checks a chip behaviour the Kendryte SDK depends on, one per argument (the last
   word of the command line), printing what it saw:
   mip: mip.MEIP reads 1 while an external interrupt is pending (the SDK's handle_irq_m_ext claims
   from the PLIC only then, plic.c). With MIE clear, the KPU's almost-full event is made pending
   through the PLIC, and mip is read until it shows MEIP (or 100,000 reads pass). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "k210.h"
#include "kpu.h"

#define MIP_MEIP (1u << 11)
#define MSTATUS_MIE (1u << 3)
#define KPU_IRQ 25u

static void ignore(void *ctx) {
    (void)ctx;
}

static int mip_case(void) {
    uint64_t mip = 0;
    __asm__ volatile("csrc mstatus, %0" ::"r"(MSTATUS_MIE));
    __asm__ volatile("csrr %0, mip" : "=r"(mip));
    printf("mip.MEIP before: %d\n", (int)((mip & MIP_MEIP) != 0));
    k210_irq_register(KPU_IRQ, 1, ignore, 0);
    mmio_write64(K210_KPU_BASE + KPU_INTERRUPT_CLEAR, KPU_INT_ALL);
    mmio_write64(K210_KPU_BASE + KPU_FIFO_THRESHOLD, 1u | (0u << 4)); /* full at 1 layer */
    mmio_write64(K210_KPU_BASE + KPU_INTERRUPT_MASK, KPU_INT_ALL & ~4u); /* almost full only */
    for (int i = 0; i < 12; ++i) { /* one layer (refused by the KPU: all-zero words) */
        mmio_write64(K210_KPU_BASE + KPU_LAYER_ARGUMENT_FIFO, 0);
    }
    long reads = 0;
    do {
        __asm__ volatile("csrr %0, mip" : "=r"(mip));
    } while ((mip & MIP_MEIP) == 0 && ++reads < 100000);
    printf("mip.MEIP while pending: %d\n", (int)((mip & MIP_MEIP) != 0));
    mmio_write64(K210_KPU_BASE + KPU_INTERRUPT_MASK, KPU_INT_ALL);
    mmio_write64(K210_KPU_BASE + KPU_INTERRUPT_CLEAR, 0xf);
    k210_irq_unregister(KPU_IRQ);
    return 0;
}

int main(int argc, char **argv) {
    const char *what = argv[argc - 1];
    if (strcmp(what, "mip") == 0) {
        return mip_case();
    }
    printf("chip: unknown case %s\n", what);
    return 2;
}
