/* The firmware kit's example: runs a kmodel v3 on the K210's KPU with interrupts and DMA, the way
   the Kendryte SDK's kpu_run_kmodel does, reading the model and its input from the host and
   writing the output back (semihosting):

     npusim run --firmware kmodel_run.elf --out out --semihosting -- MODEL.kmodel INPUT.bin OUTPUT.bin

   (--semihosting: MODEL and INPUT are read from the working folder, OUTPUT is written into
   out/files/; docs/firmware.md "Semihosting and trust".)

   INPUT.bin: the first layer's u8 input, C x H x W bytes (NCHW). OUTPUT.bin: output 0's bytes.
   Prints the layers, the interrupts taken and the time by the CLINT's mtime. */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "k210.h"
#include "kmodel_v3.h"
#include "kpu.h"

#define DMA_CHANNEL 5u /* the SDK demos' DMAC_CHANNEL5 */

/* Page-aligned buffers from the top of the heap, downwards (picolibc's malloc, from the bottom,
   zero-fills what it hands out one byte per store: millions of instructions for a model). */
extern char __heap_start[], __heap_end[];
static uintptr_t heap_top;
static uint8_t *take(size_t n) {
    if (heap_top == 0) {
        heap_top = (uintptr_t)__heap_end & ~(uintptr_t)4095;
    }
    const uintptr_t at = (heap_top - n) & ~(uintptr_t)4095;
    if (n > heap_top || at < (uintptr_t)__heap_start + 65536) { /* leave malloc 64 KiB */
        return 0;
    }
    heap_top = at;
    return (uint8_t *)at;
}

/* The whole file in a 4 KiB-aligned buffer (as the C++ driver places models: page-aligned), by
   one read() (one semihosting call; stdio would read it a few bytes per call). */
static uint8_t *read_file(const char *path, size_t *size) {
    const int fd = open(path, O_RDONLY);
    if (fd < 0) {
        fprintf(stderr, "kmodel_run: cannot open %s\n", path);
        return 0;
    }
    *size = (size_t)lseek(fd, 0, SEEK_END);
    lseek(fd, 0, SEEK_SET);
    uint8_t *buf = take(*size);
    const size_t got = buf ? (size_t)read(fd, buf, *size) : 0;
    close(fd);
    if (got != *size) {
        fprintf(stderr, "kmodel_run: cannot read %s (%zu bytes)\n", path, *size);
        return 0;
    }
    return buf;
}

int main(int argc, char **argv) {
    /* The last three words: Debian's picolibc 1.8 puts "program-name" before the semihosting
       command line, which itself starts with the firmware's name (docs/firmware.md). */
    if (argc < 4) {
        fprintf(stderr, "usage: kmodel_run MODEL.kmodel INPUT.bin OUTPUT.bin\n");
        return 2;
    }
    argv += argc - 4;
    size_t model_size = 0, input_size = 0;
    uint8_t *model = read_file(argv[1], &model_size);
    uint8_t *input = model ? read_file(argv[2], &input_size) : 0;
    if (!input) {
        return 2;
    }
    kmodel_v3 m;
    const char *err = kmodel_v3_load(&m, model, model_size, 0);
    uint8_t *main_mem = err ? 0 : take(m.main_mem_usage);
    if (!err && !main_mem) {
        err = "no memory for the working buffer";
    }
    if (!err && input_size != kmodel_v3_input_bytes(&m)) {
        fprintf(stderr, "kmodel_run: %s is %zu bytes; the model takes %zu\n", argv[2], input_size,
                kmodel_v3_input_bytes(&m));
        return 2;
    }
    m.main_mem = main_mem;
    const uint64_t start = k210_mtime();
    if (!err) {
        err = kmodel_v3_run(&m, input, DMA_CHANNEL);
    }
    if (err) {
        fprintf(stderr, "kmodel_run: %s: %s\n", argv[1], err);
        return 1;
    }
    const uint64_t ticks = k210_mtime() - start;
    uint32_t size = 0;
    const uint8_t *out = kmodel_v3_output(&m, 0, &size);
    const int fd = open(argv[3], O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd < 0 || write(fd, out, size) != (ssize_t)size || close(fd) != 0) {
        fprintf(stderr, "kmodel_run: cannot write %s\n", argv[3]);
        return 1;
    }
    printf("kmodel_run: %s: %u layers, %u KPU layer words, %u KPU and %u DMA interrupts, "
           "%llu mtime ticks; wrote %u bytes to %s\n",
           argv[1], (unsigned)m.layers, (unsigned)kpu_fifo_words,
           (unsigned)k210_irq_count[K210_IRQ_KPU],
           (unsigned)k210_irq_count[K210_IRQ_DMAC0 + DMA_CHANNEL], (unsigned long long)ticks,
           (unsigned)size, argv[3]);
    return 0;
}
