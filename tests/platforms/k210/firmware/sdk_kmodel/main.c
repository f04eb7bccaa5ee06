/* An SDK application of ours, as a K210 developer writes one: the kmodel next to this file
   (model.kmodel, placed there by the test) is included into the image, loaded with the SDK's
   kpu_load_kmodel and run with kpu_run_kmodel on DMA channel 5, with the clocks those demos set
   (PLL0 800 MHz, PLL1 400 MHz: the KPU's clock), as the SDK's face_detect and kpu demos do; the input is a pattern anyone can recompute. It prints each output's size and the
   FNV-1a 64-bit hash of its bytes, then returns (the SDK's exit spins, as on the chip). */
#include <stdint.h>
#include <stdio.h>

#include "dmac.h"
#include "kpu.h"
#include "sysctl.h"

/* The model, 256-byte aligned as the KPU's active_addr needs (what the SDK demos' INCBIN does). */
__asm__(".section .rodata\n"
        ".balign 256\n"
        ".global g_model\n"
        "g_model:\n"
        ".incbin \"model.kmodel\"\n"
        ".previous\n");
extern const uint8_t g_model[];

#define INPUT_BYTES (3 * 240 * 320)
static uint8_t g_input[INPUT_BYTES] __attribute__((aligned(128)));
static volatile int g_done;

static void on_done(void *ctx) {
    (void)ctx;
    g_done = 1;
}

static uint64_t fnv1a64(const uint8_t *p, size_t n) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ p[i]) * 0x100000001b3ull;
    }
    return h;
}

int main(void) {
    sysctl_pll_set_freq(SYSCTL_PLL0, 800000000UL);
    sysctl_pll_set_freq(SYSCTL_PLL1, 400000000UL);
    for (uint32_t i = 0; i < INPUT_BYTES; ++i) { /* the input: (i * 7 + i / 256) mod 256 */
        g_input[i] = (uint8_t)(i * 7u + (i >> 8));
    }
    kpu_model_context_t task;
    if (kpu_load_kmodel(&task, g_model) != 0) {
        printf("kpu_load_kmodel failed\n");
        return 1;
    }
    g_done = 0;
    if (kpu_run_kmodel(&task, g_input, DMAC_CHANNEL5, on_done, NULL) != 0) {
        printf("kpu_run_kmodel failed\n");
        return 1;
    }
    while (!g_done) {
    }
    for (uint32_t i = 0; i < task.output_count; ++i) {
        uint8_t *out = NULL;
        size_t size = 0;
        kpu_get_output(&task, i, &out, &size);
        printf("output %u: %u bytes, fnv1a64 %016llx\n", (unsigned)i, (unsigned)size,
               (unsigned long long)fnv1a64(out, size));
    }
    return 0;
}
