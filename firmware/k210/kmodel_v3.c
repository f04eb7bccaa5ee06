/* kmodel v3 on the K210 (kmodel_v3.h). Layout (nncase v0.1's writer): header {version 3, flags,
   arch 0, layers_length, max_start_address, main_mem_usage, output_count}, output ranges,
   layer headers {type, body_size}, bodies. K210_CONV body {flags (1: output to main memory),
   main_mem_out_address, layer_offset (its 12 words), weights_offset, bn_offset, act_offset};
   DEQUANTIZE body {flags, main_mem_in_address, main_mem_out_address, count, scale, bias}. */
#include "kmodel_v3.h"

#include <string.h>

#include "k210.h"
#include "kpu.h"

#define LAYER_DEQUANTIZE 0x0cu
#define LAYER_K210_CONV 0x2800u

static uint32_t u32_at(const uint8_t *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static const uint8_t *body(const kmodel_v3 *m, uint32_t i) {
    const uint8_t *b = m->bodies;
    for (uint32_t k = 0; k < i; ++k) {
        b += m->layer_headers[2 * k + 1];
    }
    return b;
}

const char *kmodel_v3_load(kmodel_v3 *m, const uint8_t *file, size_t size, uint8_t *main_mem) {
    if (size < 28 || u32_at(file) != 3 || u32_at(file + 8) != 0) {
        return "not a kmodel v3 (version 3, arch 0)";
    }
    m->file = file;
    m->size = size;
    m->flags = u32_at(file + 4);
    m->layers = u32_at(file + 12);
    m->main_mem_usage = u32_at(file + 20);
    m->outputs = u32_at(file + 24);
    const size_t heads = 28 + 8ull * m->outputs;
    if (m->layers == 0 || heads + 8ull * m->layers > size) {
        return "the layer table runs past the end of the file";
    }
    m->output_ranges = (const uint32_t *)(file + 28);
    m->layer_headers = (const uint32_t *)(file + heads);
    m->bodies = file + heads + 8ull * m->layers;
    m->main_mem = main_mem;
    if (m->layer_headers[0] != LAYER_K210_CONV) {
        return "the first layer is not K210_CONV";
    }
    return 0;
}

static const uint64_t *conv_args(const kmodel_v3 *m, const uint8_t *b) {
    return (const uint64_t *)(m->file + u32_at(b + 8));
}

size_t kmodel_v3_input_bytes(const kmodel_v3 *m) {
    const uint64_t *a = conv_args(m, body(m, 0));
    const size_t c = (a[2] & 0x3ff) + 1, w = (a[3] & 0x3ff) + 1, h = ((a[3] >> 10) & 0x1ff) + 1;
    return c * h * w;
}

/* A row into the AI SRAM: 8 bytes per store where both sides allow (picolibc's memcpy moves
   one byte per store, and every store to the uncached window is a bus access). */
static void copy_row(uint8_t *dst, const uint8_t *src, uint32_t n) {
    uint32_t i = 0;
    if ((((uintptr_t)dst | (uintptr_t)src) & 7u) == 0) {
        for (; i + 8 <= n; i += 8) {
            *(volatile uint64_t *)(dst + i) = *(const uint64_t *)(src + i);
        }
    }
    for (; i < n; ++i) {
        dst[i] = src[i];
    }
}

/* The input in the KPU's layout at the first layer's image_src_addr: rows of `w` bytes, `groups`
   channels side by side in a 64-byte line, row_switch_addr lines per row, channel_switch_addr
   lines per channel block. Written through the AI SRAM's uncached window, as the SDK does. */
static void upload(const kmodel_v3 *m, const uint8_t *in) {
    const uint64_t *a = conv_args(m, body(m, 0));
    const uint32_t c = (uint32_t)(a[2] & 0x3ff) + 1, w = (uint32_t)(a[3] & 0x3ff) + 1;
    const uint32_t h = (uint32_t)((a[3] >> 10) & 0x1ff) + 1;
    const uint32_t groups = (uint32_t)((a[7] >> 28) & 7), row_lines = (uint32_t)((a[7] >> 16) & 15);
    const uint32_t ch_lines = (uint32_t)(a[7] & 0x7fff), pitch = 64u / groups;
    uint8_t *base = (uint8_t *)(uintptr_t)(K210_AI_IO_BASE + 64u * (uint32_t)(a[1] & 0x7fff));
    for (uint32_t ch = 0; ch < c; ++ch) {
        for (uint32_t y = 0; y < h; ++y) {
            uint8_t *row = base + 64u * ((ch / groups) * ch_lines + y * row_lines) +
                           (ch % groups) * pitch;
            copy_row(row, in, w);
            in += w;
        }
    }
}

/* K210_CONV: the layer's words with the tables' bus addresses (the model's uncached alias). */
static void conv(kmodel_v3 *m, const uint8_t *b) {
    uint64_t w[12];
    memcpy(w, conv_args(m, b), sizeof w);
    const uint64_t io = (uintptr_t)m->file - K210_IO_OFFSET, low = 0xffffffffull;
    w[4] = (w[4] & low) | ((io + u32_at(b + 16)) << 32); /* bwsx_base_addr: bn_offset */
    w[5] = (w[5] & low) | ((io + u32_at(b + 12)) << 32); /* para_start_addr: weights_offset */
    w[7] = (w[7] & low) | ((io + u32_at(b + 20)) << 32); /* active_addr: act_offset */
    const int to_main = (u32_at(b) & 1u) != 0;
    const uintptr_t dst = to_main ? (uintptr_t)(m->main_mem + u32_at(b + 4)) - K210_IO_OFFSET : 0;
    kpu_run_layer(w, dst);
}

/* DEQUANTIZE: x = q * scale + bias (GCC contracts it to one fmadd.s, as the SDK's build does). */
static void dequantize(kmodel_v3 *m, const uint8_t *b) {
    const uint8_t *q = m->main_mem + u32_at(b + 4);
    float *x = (float *)(m->main_mem + u32_at(b + 8));
    const uint32_t n = u32_at(b + 12);
    float scale, bias;
    memcpy(&scale, b + 16, 4);
    memcpy(&bias, b + 20, 4);
    for (uint32_t i = 0; i < n; ++i) {
        x[i] = (float)q[i] * scale + bias;
    }
}

const char *kmodel_v3_run(kmodel_v3 *m, const uint8_t *input, unsigned dma_channel) {
    kpu_init((int)(m->flags & 1u), dma_channel);
    upload(m, input);
    const uint8_t *b = m->bodies;
    for (uint32_t i = 0; i < m->layers; ++i) {
        const uint32_t type = m->layer_headers[2 * i];
        if (type == LAYER_K210_CONV) {
            conv(m, b);
        } else if (type == LAYER_DEQUANTIZE) {
            dequantize(m, b);
        } else {
            return "a layer type this runtime does not run (K210_CONV and DEQUANTIZE only)";
        }
        b += m->layer_headers[2 * i + 1];
    }
    return 0;
}

const uint8_t *kmodel_v3_output(const kmodel_v3 *m, uint32_t i, uint32_t *size) {
    *size = m->output_ranges[2 * i + 1];
    return m->main_mem + m->output_ranges[2 * i];
}
