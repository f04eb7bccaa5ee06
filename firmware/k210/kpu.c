/* The KPU driver (kpu.h). The order of register writes is the Kendryte SDK's kpu.c's for a
   kmodel v3 layer (docs/firmware.md, "The firmware kit"). */
#include "kpu.h"

#include "k210.h"

/* DMAC (DesignWare AXI DMAC) registers and fields used for the KPU's output stream. */
#define DMAC_CFG 0x10u
#define DMAC_CHEN 0x18u
#define DMAC_CH(ch) (0x100u + 0x100u * (ch))
#define DMAC_SAR 0x00u
#define DMAC_DAR 0x08u
#define DMAC_BLOCK_TS 0x10u
#define DMAC_CTL 0x18u
#define DMAC_CH_CFG 0x20u
#define DMAC_INTSTATUS_EN 0x80u
#define DMAC_INTSIGNAL_EN 0x90u
#define DMAC_INTCLEAR 0x98u
#define DMAC_TFR_DONE 2u /* dma_tfr_done */
#define SYSCTL_DMA_SEL0 0x64u
#define SYSCTL_DMA_SEL1 0x68u
#define SYSCTL_DMA_SELECT_AI_RX_REQ 22u
#define SYSCTL_PLL1 0x0cu
#define SYSCTL_PLL_LOCK 0x18u
#define PLL1_LOCKED (1u << 8)  /* pll_lock1 */
#define PLL_RESET (1u << 20)
#define PLL_POWERED (1u << 21) /* pll_pwrd: 1 is on */
#define PLL_BYPASS (1u << 23)
#define PLL_OUTPUT_ENABLE (1u << 25)

uint32_t kpu_register_writes, kpu_fifo_words;
static volatile int layer_done;
static unsigned channel;

static void kpu_write(uint32_t reg, uint64_t v) {
    mmio_write64(K210_KPU_BASE + reg, v);
    ++kpu_register_writes;
}
static void dma_write(uint32_t reg, uint64_t v) { mmio_write64(K210_DMAC_BASE + reg, v); }

static void on_kpu(void *ctx) {
    (void)ctx;
    kpu_write(KPU_INTERRUPT_CLEAR, KPU_INT_ALL);
    kpu_write(KPU_INTERRUPT_MASK, KPU_INT_ALL);
    layer_done = 1;
}

static void on_dma(void *ctx) {
    (void)ctx;
    dma_write(DMAC_CH(channel) + DMAC_INTCLEAR, ~0ull);
    layer_done = 1;
}

/* PLL1, the KPU's clock (the boot ROM leaves it off), as the SDK's
   sysctl_pll_set_freq(SYSCTL_PLL1, 400000000) leaves it: 26 MHz x 46 / 3 = 398.67 MHz (clkr 0,
   clkf 45, clkod 2, bwadj 45), powered, reset pulsed, locked, output enabled, not bypassed. */
static void start_pll1(void) {
    const uintptr_t pll1 = K210_SYSCTL_BASE + SYSCTL_PLL1;
    uint32_t v = mmio_read32(pll1);
    if ((v & PLL_POWERED) != 0 && (v & PLL_OUTPUT_ENABLE) != 0) {
        return;  /* started already */
    }
    v = (v & ~(0xfffffu | PLL_BYPASS | PLL_RESET)) | (45u << 4) | (2u << 10) | (45u << 14);
    mmio_write32(pll1, v | PLL_POWERED);
    mmio_write32(pll1, v | PLL_POWERED | PLL_RESET);
    mmio_write32(pll1, v | PLL_POWERED);
    while ((mmio_read32(K210_SYSCTL_BASE + SYSCTL_PLL_LOCK) & PLL1_LOCKED) == 0) {
    }
    mmio_write32(pll1, v | PLL_POWERED | PLL_OUTPUT_ENABLE);
}

void kpu_init(int eight_bit, unsigned dma_channel) {
    start_pll1();
    channel = dma_channel;
    kpu_write(KPU_INTERRUPT_CLEAR, KPU_INT_ALL);
    kpu_write(KPU_INTERRUPT_MASK, KPU_INT_ALL);
    kpu_write(KPU_FIFO_THRESHOLD, 10u | (1u << 4));
    kpu_write(KPU_EIGHT_BIT_MODE, eight_bit ? 1u : 0u);
    k210_irq_register(K210_IRQ_KPU, 1, on_kpu, 0);
    k210_irq_register(K210_IRQ_DMAC0 + dma_channel, 1, on_dma, 0);
}

/* sysctl_dma_select(channel, AI_RX_REQ), then a single-block peripheral-to-memory transfer of
   8-byte items from fifo_data_out (fixed source) to `dst`, interrupting when done. */
static void dma_from_kpu(uintptr_t dst, uint32_t total_byte) {
    const uintptr_t sel = K210_SYSCTL_BASE + (channel < 5 ? SYSCTL_DMA_SEL0 : SYSCTL_DMA_SEL1);
    const unsigned shift = channel < 5 ? 6u * channel : 0u;
    uint32_t v = mmio_read32(sel);
    v = (v & ~(0x3fu << shift)) | (SYSCTL_DMA_SELECT_AI_RX_REQ << shift);
    mmio_write32(sel, v);
    const uint32_t ch = DMAC_CH(channel);
    dma_write(DMAC_CFG, 3u); /* dmac_en, int_en */
    dma_write(ch + DMAC_INTCLEAR, ~0ull);
    dma_write(ch + DMAC_INTSTATUS_EN, DMAC_TFR_DONE);
    dma_write(ch + DMAC_INTSIGNAL_EN, DMAC_TFR_DONE);
    dma_write(ch + DMAC_SAR, K210_KPU_BASE + KPU_FIFO_DATA_OUT);
    dma_write(ch + DMAC_DAR, dst);
    dma_write(ch + DMAC_BLOCK_TS, (total_byte + 8u) / 8u - 1u); /* items - 1 */
    /* sinc (fixed source), 8-byte items both sides, bursts of 8 items */
    dma_write(ch + DMAC_CTL, (1u << 4) | (3u << 8) | (3u << 11) | (2u << 14) | (2u << 18));
    dma_write(ch + DMAC_CH_CFG, (2ull << 32) | ((uint64_t)channel << 39)); /* periph->mem */
    dma_write(DMAC_CHEN, (1ull << channel) | (1ull << (channel + 8u)));
}

void kpu_run_layer(const uint64_t args[12], uintptr_t dst_main) {
    uint64_t w[12];
    for (int i = 0; i < 12; ++i) {
        w[i] = args[i];
    }
    layer_done = 0;
    if (dst_main != 0) {
        w[0] &= ~1ull;  /* int_en: completion by the DMA */
        w[11] |= 1ull;  /* send_data_out */
        dma_from_kpu(dst_main, (uint32_t)(w[11] >> 32)); /* dma_total_byte */
        kpu_write(KPU_INTERRUPT_MASK, KPU_INT_ALL);
    } else {
        w[0] |= 1ull;
        w[11] &= ~1ull;
        kpu_write(KPU_INTERRUPT_CLEAR, KPU_INT_ALL);
        kpu_write(KPU_INTERRUPT_MASK, KPU_INT_ALL & ~1u); /* calc_done only */
    }
    for (int i = 0; i < 12; ++i) {
        kpu_write(KPU_LAYER_ARGUMENT_FIFO, w[i]);
        ++kpu_fifo_words;
    }
    k210_wait_flag(&layer_done);
}
