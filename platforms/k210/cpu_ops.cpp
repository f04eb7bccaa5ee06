#include "platforms/k210/cpu_ops.h"

namespace npu::k210 {

V3Dequantize read_v3_dequantize(sim::ByteReader& r) {
    V3Dequantize d;
    r.u32("DEQUANTIZE flags");
    d.in_address = r.u32("main_mem_in_address");
    d.out_address = r.u32("main_mem_out_address");
    d.count = r.u32("count");
    d.scale = r.f32("scale");
    d.bias = r.f32("bias");
    return d;
}

V4Dequantize read_v4_dequantize(sim::ByteReader& r) {
    V4Dequantize d;
    d.in = read_memory_range(r, "dequantize input");
    d.out = read_memory_range(r, "dequantize output");
    d.zero_point = r.i32("zero_point");
    d.scale = r.f32("scale");
    return d;
}

V4Upload read_v4_upload(sim::ByteReader& r) {
    V4Upload u;
    u.in = read_memory_range(r, "kpu_upload input");
    u.out = read_memory_range(r, "kpu_upload output");
    for (int32_t& d : u.shape) {
        d = r.i32("kpu_upload shape");
    }
    return u;
}

void dequantize_v3(const uint8_t* q, size_t count, float scale, float bias, float* out) {
    for (size_t i = 0; i < count; ++i) {
        out[i] = static_cast<float>(q[i]) * scale + bias;
    }
}

void dequantize_v4(const uint8_t* q, size_t count, int32_t zero_point, float scale, float* out) {
    for (size_t i = 0; i < count; ++i) {
        out[i] = static_cast<float>(static_cast<int32_t>(q[i]) - zero_point) / scale;
    }
}

}  // namespace npu::k210
