/* The entry points of the calibration's kernels (nncase_v0_kernels.cpp: nncase v0.2's own; kpu_c.c:
 * the SDK kpu.c's kmodel v3 layers), called and timed by main.c. */
#ifndef NPUSIM_CPU_KERNELS_H
#define NPUSIM_CPU_KERNELS_H
#include <stddef.h>
#include <stdint.h>
#ifdef __cplusplus
extern "C" {
#endif

struct nk_shape {
    int c, h, w;
};

void nk_dequantize(const uint8_t* in, float* out, size_t n);
void nk_quantize(const float* in, uint8_t* out, size_t n);
void nk_quantized_add(const uint8_t* a, const uint8_t* b, uint8_t* out, const struct nk_shape* s);
void nk_binary_add(const float* a, const float* b, float* out, const struct nk_shape* s);
void nk_transpose_f32(const float* in, float* out, const struct nk_shape* s);
void nk_transpose_u8(const uint8_t* in, uint8_t* out, const struct nk_shape* s);
void nk_concat(const float* a, const float* b, float* out, const struct nk_shape* s);
void nk_pad_u8(const uint8_t* in, uint8_t* out, const struct nk_shape* s);
void nk_memory_copy(const float* in, float* out, size_t n);
void nk_resize_nearest_u8(const uint8_t* in, uint8_t* out, const struct nk_shape* s);
void nk_resize_bilinear_f32(const float* in, float* out, const struct nk_shape* s);
void nk_softmax(const float* in, float* out, int32_t outer, size_t inner);
void nk_unary_exp(const float* in, float* out, size_t n);
void nk_table_lookup(const uint8_t* in, uint8_t* out, size_t n, const uint8_t* table);
void nk_max_pool(const float* in, float* out, const struct nk_shape* s);
void nk_reduce_mean(const float* in, float* out, const struct nk_shape* s);
void nk_strided_slice(const uint8_t* in, uint8_t* out, const struct nk_shape* s);
void nk_matmul(const float* in, const float* weights, const float* bias, float* out, int32_t cols,
               int32_t b_cols);
void nk_conv2d(const float* in, const float* weights, const float* bias, float* out, int32_t h,
               int32_t w);
void nk_kpu_upload(const uint8_t* in, uint8_t* kpu, const struct nk_shape* s);
void nk_kpu_download(const uint8_t* kpu, uint8_t* out, const struct nk_shape* s);

/* kpu_c.c: offsets in `arena`, as kpu.c's layers take them in a model's main buffer. */
void kc_dequantize(uint8_t* arena, uint32_t in, uint32_t out, uint32_t count);
void kc_quantize(uint8_t* arena, uint32_t in, uint32_t out, uint32_t count);
void kc_quantized_add(uint8_t* arena, uint32_t a, uint32_t b, uint32_t out, uint32_t count);
void kc_upload(uint8_t* arena, uint32_t in, const struct nk_shape* s);
void kc_add(uint8_t* arena, uint32_t a, uint32_t b, uint32_t out, uint32_t count);
void kc_global_average_pool(uint8_t* arena, uint32_t in, uint32_t out, const struct nk_shape* s);
void kc_requantize(uint8_t* arena, uint32_t in, uint32_t out, uint32_t count);
void kc_softmax(uint8_t* arena, uint32_t in, uint32_t out, uint32_t channels);
void kc_concat(uint8_t* arena, uint32_t a, uint32_t b, uint32_t out, uint32_t bytes);
void kc_flatten(uint8_t* arena, uint32_t in, uint32_t out, const struct nk_shape* s);
void kc_resize(uint8_t* arena, uint32_t in, uint32_t out, const struct nk_shape* s);
void kc_quantized_resize(uint8_t* arena, uint32_t in, uint32_t out, const struct nk_shape* s);
void kc_logistic(uint8_t* arena, uint32_t in, uint32_t out, uint32_t channels);
void kc_fc_body(uint32_t in, uint32_t out, uint32_t in_channels, uint32_t out_channels);
void kc_fully_connected(uint8_t* arena);
void kc_remove_padding(uint8_t* arena, uint32_t in, uint32_t out, uint32_t channels);

#ifdef __cplusplus
}
#endif
#endif
