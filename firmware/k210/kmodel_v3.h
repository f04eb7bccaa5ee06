/* Kendryte kmodel v3 (nncase v0.1, the SDK's kpu_load_kmodel/kpu_run_kmodel format) for npusim's
   firmware kit: parse, upload the input into the AI SRAM, run the layers (K210_CONV on the KPU,
   DEQUANTIZE on the CPU), and find the outputs. Layer types beyond these two are refused. */
#ifndef NPUSIM_KMODEL_V3_H
#define NPUSIM_KMODEL_V3_H

#include <stddef.h>
#include <stdint.h>

typedef struct {
    const uint8_t* file; /* the model, in SRAM (cached address) */
    size_t size;
    uint32_t flags, layers, main_mem_usage, outputs;
    const uint32_t* output_ranges; /* {address, size} per output, in main memory */
    const uint32_t* layer_headers; /* {type, body_size} per layer */
    const uint8_t* bodies;
    uint8_t* main_mem; /* the working buffer (main_mem_usage bytes) */
} kmodel_v3;

/* 0, or a message naming what is wrong with the file. */
const char* kmodel_v3_load(kmodel_v3* m, const uint8_t* file, size_t size, uint8_t* main_mem);
/* The u8 input the first K210_CONV takes: its bytes (C x H x W). */
size_t kmodel_v3_input_bytes(const kmodel_v3* m);
/* Runs the model on `input` (kmodel_v3_input_bytes of NCHW u8); 0 or a message. */
const char* kmodel_v3_run(kmodel_v3* m, const uint8_t* input, unsigned dma_channel);
/* Output i: its bytes in main memory. */
const uint8_t* kmodel_v3_output(const kmodel_v3* m, uint32_t i, uint32_t* size);

#endif
