/* The K210 CPU calibration's firmware (README.md): runs each kernel of the two vendor runtimes
 * (nncase v0.2's, kpu.c's kmodel v3 layers) at three sizes on the virtual K210 and prints, per
 * call, the elements it processed (in the unit of docs/k210_cpu_ops.md) and the mcycle and
 * minstret it took:
 *     kernel NAME ELEMENTS CYCLES INSTRUCTIONS
 * Buffers are in cached main memory, as both runtimes keep feature maps there; the KPU side of
 * upload and download is the AI SRAM's uncached window, as nncase v0.2 and kpu.c address it. */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cpu_kernels.h"

#define ARENA_BYTES (3u << 20)
static uint8_t arena[ARENA_BYTES] __attribute__((aligned(64)));
static uint8_t *const kpu_ram = (uint8_t *)0x40600000u; /* AI SRAM, uncached */
static uint8_t table[256];

static uint64_t mcycle(void) {
    uint64_t v;
    __asm__ volatile("csrr %0, mcycle" : "=r"(v));
    return v;
}

static uint64_t minstret(void) {
    uint64_t v;
    __asm__ volatile("csrr %0, minstret" : "=r"(v));
    return v;
}

/* Deterministic contents: bytes from an LCG, floats as dequantized bytes (a feature map's range). */
static void fill(void) {
    uint32_t x = 12345;
    for (uint32_t i = 0; i < ARENA_BYTES; ++i) {
        x = x * 1103515245u + 12345u;
        arena[i] = (uint8_t)(x >> 16);
    }
    float *f = (float *)arena;
    for (uint32_t i = 0; i < ARENA_BYTES / 8; ++i) {
        f[i] = (float)(arena[ARENA_BYTES / 2 + i] - 128) * 0.0235f;
    }
    for (int i = 0; i < 256; ++i) {
        table[i] = (uint8_t)(255 - i);
    }
}

struct sized {
    struct nk_shape s;
    uint32_t n; /* c * h * w */
};

static void report(const char *name, uint64_t elements, uint64_t c0, uint64_t i0) {
    const uint64_t c1 = mcycle(), i1 = minstret();
    printf("kernel %s %llu %llu %llu\n", name, (unsigned long long)elements,
           (unsigned long long)(c1 - c0), (unsigned long long)(i1 - i0));
}

/* Buffer offsets in the arena: A and B inputs, O the output (each up to 1 MiB). */
#define A 0u
#define B (1u << 20)
#define O (2u << 20)
#define F(off) ((float *)(arena + (off)))
#define U(off) (arena + (off))

#define TIME(name, elements, call)                  \
    do {                                            \
        const uint64_t c0_ = mcycle(), i0_ = minstret(); \
        call;                                       \
        report(name, elements, c0_, i0_);           \
    } while (0)

static void nncase_v0(const struct sized *z) {
    const struct nk_shape *s = &z->s;
    const uint32_t n = z->n;
    const uint32_t padded = (uint32_t)s->c * (s->h + 2) * (s->w + 2);
    TIME("dequantize", n, nk_dequantize(U(A), F(O), n));
    TIME("quantize", n, nk_quantize(F(A), U(O), n));
    TIME("quantized_binary", n, nk_quantized_add(U(A), U(B), U(O), s));
    TIME("binary", n, nk_binary_add(F(A), F(B), F(O), s));
    TIME("transpose", n, nk_transpose_u8(U(A), U(O), s));
    TIME("transpose_f32", n, nk_transpose_f32(F(A), F(O), s));
    TIME("concat", 8 * n, /* bytes */ nk_concat(F(A), F(B), F(O), s));
    TIME("pad", padded, nk_pad_u8(U(A), U(O), s));
    TIME("memory_copy", 4 * n, /* bytes */ nk_memory_copy(F(A), F(O), n));
    TIME("resize_image", 4 * n, nk_resize_nearest_u8(U(A), U(O), s));
    TIME("resize_bilinear", 4 * n, nk_resize_bilinear_f32(F(A), F(O), s));
    TIME("softmax", 3 * n, nk_softmax(F(A), F(O), (int32_t)(n / 2), 2));
    TIME("unary", n, nk_unary_exp(F(A), F(O), n));
    TIME("reduce_window2d", n, nk_max_pool(F(A), F(O), s)); /* outputs · 2 · 2 */
    TIME("reduce", n, nk_reduce_mean(F(A), F(O), s));        /* inputs (+ c outputs) */
    TIME("strided_slice", n / 2, nk_strided_slice(U(A), U(O), s));
    /* A 20-output fully connected layer of n / 20 inputs: n MACs (weights in B, bias after). */
    TIME("matmul", n, nk_matmul(F(A), F(B), F(B) + n, F(O), (int32_t)(n / 20), 20));
    /* 4 -> 4 channels, 3x3, padding 1 over h x w: its in-bounds taps, (3h - 2)(3w - 2) for each
     * channel pair, are the MACs (docs/k210_cpu_ops.md). */
    const uint32_t conv_macs = 16u * (3u * s->h - 2) * (3u * s->w - 2);
    TIME("conv2d", conv_macs, nk_conv2d(F(A), F(B), F(B) + 144, F(O), s->h, s->w));
    TIME("table_lookup1d", n, nk_table_lookup(U(A), U(O), n, table));
    TIME("kpu_upload", n, nk_kpu_upload(U(A), kpu_ram, s));
    TIME("kpu_download", n, nk_kpu_download(kpu_ram, U(O), s));
    /* The same maps 64 wide: nncase's other path (W % 64 == 0: std::copy of the whole map). */
    const struct nk_shape w64 = {s->c, s->h, 64};
    TIME("kpu_download_w64", (uint32_t)s->c * s->h * 64, nk_kpu_download(kpu_ram, U(O), &w64));
}

static void kpu_c(const struct sized *z) {
    const uint32_t n = z->n;
    TIME("DEQUANTIZE", n, kc_dequantize(arena, A, O, n));
    TIME("QUANTIZE", n, kc_quantize(arena, A, O, n));
    TIME("QUANTIZED_ADD", (n + 7) / 8 * 8, kc_quantized_add(arena, A, B, O, n));
    TIME("K210_UPLOAD", n, kc_upload(arena, A, &z->s));
    TIME("ADD", n, kc_add(arena, A, B, O, n));
    TIME("GLOBAL_AVERAGE_POOL2D", n, kc_global_average_pool(arena, A, O, &z->s));
    TIME("REQUANTIZE", n, kc_requantize(arena, A, O, n));
    TIME("SOFTMAX", 3 * n, kc_softmax(arena, A, O, n));
    TIME("CONCAT", 8 * n, kc_concat(arena, A, B, O, 4 * n)); /* bytes */
    TIME("TENSORFLOW_FLATTEN", n, kc_flatten(arena, A, O, &z->s));
    TIME("RESIZE_NEAREST_NEIGHBOR", 4 * n, kc_resize(arena, A, O, &z->s));
    TIME("QUANTIZED_RESIZE_NEAREST_NEIGHBOR", 4 * n, kc_quantized_resize(arena, A, O, &z->s));
    TIME("LOGISTIC", n, kc_logistic(arena, A, O, n));
    kc_fc_body(A, O, n / 20, 20);
    TIME("FULLY_CONNECTED", n, kc_fully_connected(arena)); /* MACs */
    TIME("K210_REMOVE_PADDING", n / 16, kc_remove_padding(arena, A, O, n / 16));
}

int main(void) {
    /* Three sizes of a 16-channel map 20 wide (a detector head's width at a 320x240 input), 15,
     * 60 and 240 rows: 4,800, 19,200 and 76,800 elements. One width keeps every kernel on one
     * path (kpu.c's upload takes another when the width is a multiple of 8). */
    static const struct sized sizes[] = {
        {{16, 15, 20}, 4800}, {{16, 60, 20}, 19200}, {{16, 240, 20}, 76800}};
    fill();
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        nncase_v0(&sizes[i]);
        kpu_c(&sizes[i]);
    }
    return 0;
}
