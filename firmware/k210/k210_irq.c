/* Interrupts on hart 0: mtvec at k210_trap_entry (set before main by a constructor), PLIC
   context 0 (hart 0, machine mode): priorities, enable bits, threshold 0, claim/complete. */
#include <stdio.h>
#include <stdlib.h>

#include "k210.h"

#define PLIC_PRIORITY(id) (K210_PLIC_BASE + 4u * (id))
#define PLIC_ENABLE(id) (K210_PLIC_BASE + 0x2000u + 4u * ((id) / 32u))
#define PLIC_THRESHOLD (K210_PLIC_BASE + 0x200000u)
#define PLIC_CLAIM (K210_PLIC_BASE + 0x200004u)
#define MIP_MEIP (1u << 11)
#define MSTATUS_MIE (1u << 3)
#define MCAUSE_INTERRUPT (1ull << 63)

volatile uint32_t k210_irq_count[65];
static k210_irq_handler handlers[65];
static void *contexts[65];

void k210_trap_entry(void);

__attribute__((constructor)) static void k210_irq_init(void) {
    __asm__ volatile("csrw mtvec, %0" ::"r"(&k210_trap_entry));
    mmio_write32(PLIC_THRESHOLD, 0);
    __asm__ volatile("csrs mie, %0" ::"r"(MIP_MEIP));
    __asm__ volatile("csrs mstatus, %0" ::"r"(MSTATUS_MIE));
}

void k210_irq_register(unsigned id, unsigned priority, k210_irq_handler handler, void *ctx) {
    handlers[id] = handler;
    contexts[id] = ctx;
    mmio_write32(PLIC_PRIORITY(id), priority);
    mmio_write32(PLIC_ENABLE(id), mmio_read32(PLIC_ENABLE(id)) | (1u << (id % 32u)));
}

void k210_irq_unregister(unsigned id) {
    mmio_write32(PLIC_ENABLE(id), mmio_read32(PLIC_ENABLE(id)) & ~(1u << (id % 32u)));
    handlers[id] = 0;
}

void k210_wait_flag(volatile int *flag) {
    for (;;) {
        __asm__ volatile("csrc mstatus, %0" ::"r"(MSTATUS_MIE));
        if (*flag) {
            break;
        }
        __asm__ volatile("wfi"); /* wakes on a pending interrupt even with MIE clear */
        __asm__ volatile("csrs mstatus, %0" ::"r"(MSTATUS_MIE)); /* take it */
    }
    __asm__ volatile("csrs mstatus, %0" ::"r"(MSTATUS_MIE));
}

void k210_trap(uint64_t mcause, uint64_t mepc) {
    if (mcause == (MCAUSE_INTERRUPT | 11u)) { /* machine external: the PLIC */
        const uint32_t id = mmio_read32(PLIC_CLAIM);
        if (id != 0 && id < 65) {
            ++k210_irq_count[id];
            if (handlers[id]) {
                handlers[id](contexts[id]);
            }
        }
        mmio_write32(PLIC_CLAIM, id);
        return;
    }
    fprintf(stderr, "k210: unexpected trap, mcause %#llx at mepc %#llx\n",
            (unsigned long long)mcause, (unsigned long long)mepc);
    exit(128);
}
