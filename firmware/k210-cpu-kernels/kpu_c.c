/* The Kendryte SDK kpu.c's own kmodel v3 CPU layers, for the K210 CPU calibration (README.md).
 * Its layer functions are static, so this file includes the SDK's kpu.c (from the SDK given to
 * scripts/k210-cpu-kernels, never copied) and exposes the ones measured; the linker's
 * --gc-sections drops the rest of the driver. Each takes its offsets in one arena, as kpu.c takes
 * them in a model's main buffer. */
#include "kpu.c"

#include "cpu_kernels.h"

static kpu_model_context_t context_of(uint8_t *arena) {
    kpu_model_context_t ctx;
    memset(&ctx, 0, sizeof ctx);
    ctx.main_buffer = arena;
    return ctx;
}

void kc_dequantize(uint8_t *arena, uint32_t in, uint32_t out, uint32_t count) {
    kpu_model_dequantize_layer_argument_t arg = {0, in, out, count, {0.0235f, -0.07f}};
    kpu_model_context_t ctx = context_of(arena);
    kpu_kmodel_dequantize(&arg, &ctx);
}

void kc_quantize(uint8_t *arena, uint32_t in, uint32_t out, uint32_t count) {
    kpu_model_quantize_layer_argument_t arg = {0, in, out, count, {0.0235f, -0.07f}};
    kpu_model_context_t ctx = context_of(arena);
    kpu_quantize(&arg, &ctx);
}

void kc_quantized_add(uint8_t *arena, uint32_t a, uint32_t b, uint32_t out, uint32_t count) {
    kpu_model_quant_add_layer_argument_t arg = {0, a, b, out, count, -3, 1717, 9, -5, 1519, 9,
                                                4, 1283, 11};
    kpu_model_context_t ctx = context_of(arena);
    kpu_quantized_add(&arg, &ctx);
}

void kc_upload(uint8_t *arena, uint32_t in, const struct nk_shape *s) {
    kpu_model_upload_layer_argument_t arg = {0, in, 0, (uint32_t)s->w, (uint32_t)s->h,
                                             (uint32_t)s->c};
    kpu_model_context_t ctx = context_of(arena);
    kpu_upload(&arg, &ctx);
}

void kc_add(uint8_t *arena, uint32_t a, uint32_t b, uint32_t out, uint32_t count) {
    kpu_model_add_layer_argument_t arg = {0, a, b, out, count};
    kpu_model_context_t ctx = context_of(arena);
    kpu_kmodel_add(&arg, &ctx);
}

void kc_global_average_pool(uint8_t *arena, uint32_t in, uint32_t out, const struct nk_shape *s) {
    kpu_model_gap2d_layer_argument_t arg = {0, in, out, (uint32_t)(s->h * s->w), (uint32_t)s->c};
    kpu_model_context_t ctx = context_of(arena);
    kpu_global_average_pool2d(&arg, &ctx);
}

void kc_requantize(uint8_t *arena, uint32_t in, uint32_t out, uint32_t count) {
    static kpu_model_requantize_layer_argument_t arg;
    arg.main_mem_in_address = in, arg.main_mem_out_address = out, arg.count = count;
    for (int i = 0; i < 256; ++i) {
        arg.table[i] = (uint8_t)(255 - i);
    }
    kpu_model_context_t ctx = context_of(arena);
    kpu_requantize(&arg, &ctx);
}

void kc_softmax(uint8_t *arena, uint32_t in, uint32_t out, uint32_t channels) {
    kpu_model_softmax_layer_argument_t arg = {0, in, out, channels};
    kpu_model_context_t ctx = context_of(arena);
    kpu_softmax(&arg, &ctx);
}

void kc_concat(uint8_t *arena, uint32_t a, uint32_t b, uint32_t out, uint32_t bytes) {
    static union {
        kpu_model_concat_layer_argument_t arg;
        uint8_t room[sizeof(kpu_model_concat_layer_argument_t) + 2 * sizeof(kpu_model_memory_range_t)];
    } u;
    u.arg.main_mem_out_address = out, u.arg.input_count = 2;
    u.arg.inputs_mem[0].start = a, u.arg.inputs_mem[0].size = bytes;
    u.arg.inputs_mem[1].start = b, u.arg.inputs_mem[1].size = bytes;
    kpu_model_context_t ctx = context_of(arena);
    kpu_concat(&u.arg, &ctx);
}

void kc_flatten(uint8_t *arena, uint32_t in, uint32_t out, const struct nk_shape *s) {
    kpu_model_tf_flatten_layer_argument_t arg = {
        0, in, out, {(uint32_t)s->w, (uint32_t)s->h, (uint32_t)s->c}};
    kpu_model_context_t ctx = context_of(arena);
    kpu_tf_flatten(&arg, &ctx);
}

void kc_resize(uint8_t *arena, uint32_t in, uint32_t out, const struct nk_shape *s) {
    kpu_model_resize_nearest_neighbor_layer_argument_t arg = {
        0, in, out, {(uint32_t)s->w, (uint32_t)s->h, (uint32_t)s->c}, (uint32_t)s->w * 2,
        (uint32_t)s->h * 2, 0};
    kpu_model_context_t ctx = context_of(arena);
    kpu_resize_nearest_neighbor(&arg, &ctx);
}

void kc_quantized_resize(uint8_t *arena, uint32_t in, uint32_t out, const struct nk_shape *s) {
    kpu_model_quant_resize_nearest_neighbor_layer_argument_t arg = {
        0, in, out, {(uint32_t)s->w, (uint32_t)s->h, (uint32_t)s->c}, (uint32_t)s->w * 2,
        (uint32_t)s->h * 2, 0};
    kpu_model_context_t ctx = context_of(arena);
    kpu_quant_resize_nearest_neighbor(&arg, &ctx);
}

void kc_logistic(uint8_t *arena, uint32_t in, uint32_t out, uint32_t channels) {
    kpu_model_logistic_layer_argument_t arg = {0, in, out, channels};
    kpu_model_context_t ctx = context_of(arena);
    kpu_logistic(&arg, &ctx);
}

void kc_remove_padding(uint8_t *arena, uint32_t in, uint32_t out, uint32_t channels) {
    kpu_model_remove_padding_layer_argument_t arg = {0, in, out, channels};
    kpu_model_context_t ctx = context_of(arena);
    kpu_remove_padding(&arg, &ctx);
}

/* FULLY_CONNECTED: the layer's body carries its weights and biases (kpu.c copies them into the
 * heap on every call, as the SDK does); kc_fc_body fills them, outside the timing. */
static union {
    kpu_model_fully_connected_layer_argument_t arg;
    uint8_t room[sizeof(kpu_model_fully_connected_layer_argument_t) + 4 * (4800 * 20 + 20)];
} fc;

void kc_fc_body(uint32_t in, uint32_t out, uint32_t in_channels, uint32_t out_channels) {
    fc.arg.main_mem_in_address = in, fc.arg.main_mem_out_address = out;
    fc.arg.in_channels = in_channels, fc.arg.out_channels = out_channels;
    fc.arg.act = KLA_LINEAR;
    for (uint32_t i = 0; i < in_channels * out_channels + out_channels; ++i) {
        fc.arg.weights[i] = (float)(i % 17) * 0.01f - 0.08f;
    }
}

void kc_fully_connected(uint8_t *arena) {
    kpu_model_context_t ctx = context_of(arena);
    kpu_kmodel_fully_connected(&fc.arg, &ctx);
}
