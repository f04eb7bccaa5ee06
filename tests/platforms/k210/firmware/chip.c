/* Firmware that checks a chip behaviour the Kendryte SDK depends on, one per argument (the last
   word of the command line), printing what it saw:
   mip: mip.MEIP reads 1 while an external interrupt is pending (the SDK's handle_irq_m_ext claims
   from the PLIC only then, plic.c). With MIE clear, the KPU's almost-full event is made pending
   through the PLIC, and mip is read until it shows MEIP (or 100,000 reads pass).
   counters: mcycle, minstret and time read twice around a loop of 1000 iterations: simulated
   values, the same on every run (Unicorn alone answers with the host's clock); then mcycle and
   time read together 500 times after an uncached byte: time = mcycle / 50 in every pair.
   uncached: mcycle around nncase v0.2's two byte loops over the AI SRAM's uncached window
   (k210_kernels.h: kpu_download reads a KPU map byte by byte into main memory; the upload node's
   row copy stores it back), 4096 bytes each, written here as the same loops in C.
   spin: TIMER0 channel 0 set to expire in 1 ms (13 MHz: load_count 12999), its interrupt
   handler sets a flag main spins on (while (!flag);); prints the cycles from the start to the
   loop's end.
   nopad: GPIOHS pin 7 driven and a byte sent on UART1 with no FPIOA pad carrying either (the
   simulator warns: on a board nothing would leave the chip).
   delay: two loops on mcycle to 1,000,000 cycles: one as usleep's (nothing but the counter from
   turn to turn: waited out), one counting its turns (a register carried from turn to turn: run);
   prints the cycles each took and the second one's turns. */
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

static int counters_case(void) {
    uint64_t c0, i0, t0, c1, i1, t1;
    __asm__ volatile("csrr %0, mcycle" : "=r"(c0));
    __asm__ volatile("csrr %0, minstret" : "=r"(i0));
    __asm__ volatile("rdtime %0" : "=r"(t0));
    for (volatile int i = 0; i < 1000; ++i) {
    }
    __asm__ volatile("rdcycle %0" : "=r"(c1));
    __asm__ volatile("rdinstret %0" : "=r"(i1));
    __asm__ volatile("csrr %0, time" : "=r"(t1));
    printf("counters: mcycle %llu -> %llu, minstret %llu -> %llu, time %llu -> %llu\n",
           (unsigned long long)c0, (unsigned long long)c1, (unsigned long long)i0,
           (unsigned long long)i1, (unsigned long long)t0, (unsigned long long)t1);
    /* mcycle and time read together after a byte over the uncached window (a bus wait that
       need not end on a clock edge): time is mcycle / 50 every time. */
    const volatile uint8_t *uncached = (const volatile uint8_t *)0x40600000u;
    int agree = 0;
    for (int k = 0; k < 500; ++k) {
        (void)uncached[k];
        uint64_t c, t;
        __asm__ volatile("csrr %0, mcycle\n\tcsrr %1, time" : "=r"(c), "=r"(t));
        agree += t == c / 50;
    }
    printf("counters: time = mcycle / 50 in %d of 500 reads\n", agree);
    return 0;
}

static uint64_t cycles_now(void) {
    uint64_t c;
    __asm__ volatile("csrr %0, mcycle" : "=r"(c));
    return c;
}

static int delay_case(void) {
    const uint64_t n = 1000000;
    uint64_t start = cycles_now();
    while (cycles_now() - start < n) {
    }
    const uint64_t first = cycles_now() - start;
    unsigned long turns = 0;
    start = cycles_now();
    while (cycles_now() - start < n) {
        ++turns;
    }
    const uint64_t second = cycles_now() - start;
    printf("delay: %llu cycles, then %llu cycles in %lu turns\n", (unsigned long long)first,
           (unsigned long long)second, turns);
    return 0;
}

static uint8_t main_buffer[4096];

static int uncached_case(void) {
    enum { kBytes = 4096 };
    const volatile uint8_t *kpu_in = (const volatile uint8_t *)0x40600000u;
    volatile uint8_t *kpu_out = (volatile uint8_t *)0x40610000u;
    uint64_t c0, c1, c2;
    __asm__ volatile("csrr %0, mcycle" : "=r"(c0));
    for (int x = 0; x < kBytes; ++x) {
        main_buffer[x] = kpu_in[x];
    }
    __asm__ volatile("csrr %0, mcycle" : "=r"(c1));
    for (int x = 0; x < kBytes; ++x) {
        kpu_out[x] = main_buffer[x];
    }
    __asm__ volatile("csrr %0, mcycle" : "=r"(c2));
    printf("uncached: %d bytes read in %llu cycles, stored in %llu cycles\n", kBytes,
           (unsigned long long)(c1 - c0), (unsigned long long)(c2 - c1));
    return 0;
}

static volatile int timer_flag;

static void on_timer(void *ctx) {
    volatile uint32_t *timer0 = (volatile uint32_t *)ctx;
    (void)timer0[3]; /* channel 0 eoi: acknowledged */
    timer0[2] = 0x4; /* disabled, masked */
    timer_flag = 1;
}

static int spin_case(void) {
    volatile uint32_t *timer0 = (volatile uint32_t *)0x502D0000;
    uint64_t c0, c1;
    k210_irq_register(14, 1, on_timer, (void *)timer0);
    timer0[0] = 12999; /* load_count: 13,000 ticks of 13 MHz */
    __asm__ volatile("csrr %0, mcycle" : "=r"(c0));
    timer0[2] = 0x3; /* user-defined mode, enabled */
    while (!timer_flag) {
    }
    __asm__ volatile("csrr %0, mcycle" : "=r"(c1));
    printf("spin: the flag after %llu cycles\n", (unsigned long long)(c1 - c0));
    k210_irq_unregister(14);
    return 0;
}

static int nopad_case(void) {
    volatile uint32_t *gpiohs = (volatile uint32_t *)0x38001000;
    volatile uint32_t *uart1 = (volatile uint32_t *)0x50210000;
    gpiohs[2] |= 1u << 7; /* output_en */
    gpiohs[3] |= 1u << 7; /* output_val */
    uart1[3] = 0x80;      /* LCR.DLAB: the divisor latch */
    uart1[0] = 14;        /* DLL: 115200 baud from 26 MHz (with DLF 1, as the SDK sets it) */
    uart1[1] = 0;         /* DLH */
    uart1[3] = 0x03;      /* 8N1 */
    uart1[0] = 'x';       /* THR */
    while ((uart1[5] & 0x40) == 0) { /* LSR.TEMT: the byte has left */
    }
    return 0;
}

/* Six characters into UART1's FIFO (pads routed), then exit at once: they are still in the FIFO
 * and the shift register when the run ends. */
static int unflushed_case(void) {
    volatile uint32_t *fpioa = (volatile uint32_t *)0x502B0000;
    volatile uint32_t *uart1 = (volatile uint32_t *)0x50210000;
    fpioa[5] = 65; /* io5: FUNC_UART1_TX (ch_sel; the rest of the word as at reset) */
    uart1[3] = 0x80; /* LCR.DLAB: the divisor latch */
    uart1[0] = 14;   /* DLL */
    uart1[1] = 0;    /* DLH */
    uart1[3] = 0x03; /* 8N1 */
    uart1[2] = 0x01; /* FCR: FIFOs on */
    for (const char *c = "abcdef"; *c != 0; ++c) {
        uart1[0] = (uint8_t)*c;
    }
    return 0;
}

/* Counts for ever (ended by --max-time or a signal). */
static int forever_case(void) {
    volatile uint64_t n = 0;
    for (;;) {
        n = n + 1;
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *what = argv[argc - 1];
    if (strcmp(what, "mip") == 0) {
        return mip_case();
    }
    if (strcmp(what, "counters") == 0) {
        return counters_case();
    }
    if (strcmp(what, "uncached") == 0) {
        return uncached_case();
    }
    if (strcmp(what, "spin") == 0) {
        return spin_case();
    }
    if (strcmp(what, "nopad") == 0) {
        return nopad_case();
    }
    if (strcmp(what, "delay") == 0) {
        return delay_case();
    }
    if (strcmp(what, "unflushed") == 0) {
        return unflushed_case();
    }
    if (strcmp(what, "forever") == 0) {
        return forever_case();
    }
    printf("chip: unknown case %s\n", what);
    return 2;
}
