/* kpu.c (kpu_load_kmodel, kpu_run_kmodel, ...) calls the nncase runtime for kmodel v4 models,
   which is C++ (Debian has no libstdc++ for riscv64-unknown-elf): these stubs, declared by the
   SDK's own nncase.h, refuse a v4 model (-1); kmodel v3 firmware never reaches them. */
#include "nncase.h"

int nncase_load_kmodel(kpu_model_context_t *ctx, const uint8_t *buffer) {
    (void)ctx, (void)buffer;
    return -1;
}

int nncase_get_output(kpu_model_context_t *ctx, uint32_t index, uint8_t **data, size_t *size) {
    (void)ctx, (void)index, (void)data, (void)size;
    return -1;
}

void nncase_model_free(kpu_model_context_t *ctx) {
    (void)ctx;
}

int nncase_run_kmodel(kpu_model_context_t *ctx, const uint8_t *src, dmac_channel_number_t dma_ch,
                      kpu_done_callback_t done_callback, void *userdata) {
    (void)ctx, (void)src, (void)dma_ch, (void)done_callback, (void)userdata;
    return -1;
}
