/* Firmware that goes wrong on purpose, one way per argument (the last word of the command line):
   illegal (an instruction that does not exist), fault (a load where nothing is mapped), loop (never
   ends), sleep (waits for an interrupt nothing raises), kpu (a layer whose arguments the KPU
   refuses: its error path, then a clean exit), exit3 (exits with 3), refused (a store the PLIC
   answers with a bus error: no register at that offset), spi1 (a load from SPI1, a block npusim
   does not model). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "k210.h"
#include "kpu.h"

int main(int argc, char **argv) {
    const char *what = argv[argc - 1];
    if (strcmp(what, "illegal") == 0) {
        __asm__ volatile(".word 0xffffffff");
    } else if (strcmp(what, "fault") == 0) {
        return (int)mmio_read32(0x60000000u);
    } else if (strcmp(what, "spi1") == 0) {
        return (int)mmio_read32(0x53000008u); /* SPI1's ssienr */
    } else if (strcmp(what, "loop") == 0) {
        for (volatile int i = 0;; ++i) {
        }
    } else if (strcmp(what, "sleep") == 0) {
        static volatile int never;
        k210_wait_flag(&never);
    } else if (strcmp(what, "kpu") == 0) {
        kpu_init(1, 5);
        mmio_write64(K210_KPU_BASE + KPU_INTERRUPT_MASK, KPU_INT_ALL & ~1u);
        for (int i = 0; i < 12; ++i) { /* all-zero words: no tables, a 1x1 map */
            mmio_write64(K210_KPU_BASE + KPU_LAYER_ARGUMENT_FIFO, 0);
        }
        printf("kpu: status %llu\n",
               (unsigned long long)mmio_read64(K210_KPU_BASE + KPU_INTERRUPT_STATUS));
        return 0;
    } else if (strcmp(what, "refused") == 0) {
        mmio_write32(0x0C003000u, 1);
        printf("refused: went on\n");
        return 0;
    } else if (strcmp(what, "exit3") == 0) {
        return 3;
    }
    printf("faults: unknown case %s\n", what);
    return 2;
}
