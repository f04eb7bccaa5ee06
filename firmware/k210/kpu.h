/* A small KPU driver for npusim's firmware kit, written from the register documentation
   (../shared/reference/k210_kpu.md; the SDK's kpu.h layouts): init, and one layer through the
   12-word layer-argument FIFO, its completion by the KPU's calc_done interrupt or, when its output
   streams to main memory, by the DMAC channel draining fifo_data_out. */
#ifndef NPUSIM_KPU_H
#define NPUSIM_KPU_H

#include <stdint.h>

/* Registers (64-bit) at K210_KPU_BASE. */
#define KPU_LAYER_ARGUMENT_FIFO 0x00u
#define KPU_INTERRUPT_STATUS    0x08u
#define KPU_INTERRUPT_MASK      0x18u
#define KPU_INTERRUPT_CLEAR     0x20u
#define KPU_FIFO_THRESHOLD      0x28u
#define KPU_FIFO_DATA_OUT       0x30u
#define KPU_EIGHT_BIT_MODE      0x40u
#define KPU_INT_ALL             7u /* calc_done, layer FIFO almost empty, almost full */

/* Starts PLL1 (the KPU's clock) if the boot ROM left it off; clears and masks the interrupts,
   sets the FIFO thresholds (full 10, empty 1) and the 8-bit mode; registers the interrupt handlers
   (KPU and DMAC `dma_channel`). */
void kpu_init(int eight_bit, unsigned dma_channel);
/* Runs one layer: `args` are its 12 words (addresses already bus addresses). With `dst_main`
   non-zero, the output stream (dma_total_byte + 1 bytes) is DMAed to that uncached address. */
void kpu_run_layer(const uint64_t args[12], uintptr_t dst_main);
/* Register writes the driver made to the KPU (all of them, and layer-FIFO words). */
extern uint32_t kpu_register_writes, kpu_fifo_words;

#endif
