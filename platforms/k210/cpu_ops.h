// The CPU side of a K210 kmodel: layer bodies the runtime executes on the RISC-V cores, as pure
// functions over buffers (formulas from ../shared/reference/k210_kpu.md §4), and the body
// formats they are read from. Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "platforms/k210/kmodel.h"
#include "sim/core/bytes.h"

namespace npu::k210 {

// v3 DEQUANTIZE {flags, main_mem_in_address, main_mem_out_address, count, scale, bias}:
// x = q · scale + bias.
struct V3Dequantize {
    uint32_t in_address = 0, out_address = 0, count = 0;
    float scale = 0, bias = 0;
};
V3Dequantize read_v3_dequantize(sim::ByteReader& r);

// v4 dequantize {memory_range in, memory_range out, zero_point, scale}: x = (q − zp) / scale
// (nncase v0.2 stores the inverse step).
struct V4Dequantize {
    MemoryRange in, out;
    int32_t zero_point = 0;
    float scale = 1;
};
V4Dequantize read_v4_dequantize(sim::ByteReader& r);

// v4 kpu_upload {memory_range in (main), memory_range out (kpu), shape n, c, h, w}.
struct V4Upload {
    MemoryRange in, out;
    int32_t shape[4] = {};
};
V4Upload read_v4_upload(sim::ByteReader& r);

void dequantize_v3(const uint8_t* q, size_t count, float scale, float bias, float* out);
void dequantize_v4(const uint8_t* q, size_t count, int32_t zero_point, float scale, float* out);

}  // namespace npu::k210
