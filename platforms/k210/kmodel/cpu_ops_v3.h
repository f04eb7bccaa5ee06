// The kmodel v3 CPU layers of the Kendryte SDK's kpu.c beyond the float basics of cpu_ops.h:
// quantized add, the pools, requantize, L2 normalization, TF flatten, nearest-neighbour resize,
// channel-wise dequantize, logistic and the KPU padding helpers. Bodies as kpu.h declares them
// (all start with a u32 flags word), values as kpu.c computes them on the K210
// (docs/k210_cpu_ops.md). Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "platforms/k210/kmodel/cpu_ops.h"

namespace npu::k210 {

// kpu_model_shape_t: width, height, channels (CHW data).
struct V3Shape {
    uint32_t width = 0, height = 0, channels = 0;
    // Saturates at UINT64_MAX (three dimensions of up to 2^24 overflow 64 bits).
    uint64_t elements() const {
        const uint64_t plane = uint64_t{width} * height;  // < 2^48
        return channels != 0 && plane > UINT64_MAX / channels ? UINT64_MAX : plane * channels;
    }
};

// QUANTIZED_ADD {flags, in_a, in_b, out, count, in_a_offset, in_a_mul, in_a_shift, in_b_offset,
// in_b_mul, in_b_shift, out_offset, out_mul, out_shift}: kpu_quantized_add runs
// ALIGN_UP(count, 8) elements in 64 bits: a' = (a + off_a)·mul_a, b' likewise; with equal shifts
// v = (a' + b') >> sh_a, else v = (a' >> sh_a) + (b' >> sh_b); then v = carry_shift(v · out_mul,
// out_shift) + out_offset, clamped to 0..255.
struct V3QuantizedAdd {
    uint32_t a_address = 0, b_address = 0, out_address = 0, count = 0;
    int32_t a_offset = 0, a_mul = 0, a_shift = 0, b_offset = 0, b_mul = 0, b_shift = 0;
    int32_t out_offset = 0, out_mul = 0, out_shift = 0;
    uint64_t aligned_count() const { return (uint64_t{count} + 7) / 8 * 8; }
};
V3QuantizedAdd read_v3_quantized_add(sim::ByteReader& r);
void quantized_add_v3(const uint8_t* a, const uint8_t* b, const V3QuantizedAdd& p, uint8_t* out);
// kpu.c's kpu_carry_shift: value >> (shift − 1), then an odd value rounds away from zero by
// (v >> 1) ± 1 (for negatives one below the true rounding, as the SDK computes it).
int64_t kpu_carry_shift(int64_t value, uint32_t shift);

// QUANTIZED_MAX_POOL2D (u8) and AVERAGE_POOL2D (f32, + an act field the SDK never applies)
// {flags, in, out, in_shape, out_shape, kernel_width, kernel_height, stride_width,
// stride_height, padding_width, padding_height}: per output, the window's in-bounds taps
// (max from 0; the average's sum in order divided by the float count of taps).
struct V3Pool {
    uint32_t in_address = 0, out_address = 0;
    V3Shape in_shape, out_shape;
    uint32_t kernel_w = 1, kernel_h = 1, stride_w = 1, stride_h = 1, pad_w = 0, pad_h = 0;
    uint32_t act = 0;
};
V3Pool read_v3_pool(sim::ByteReader& r, bool average);
// The one-past-last tap kpu.c computes along an axis: min(kernel, size − origin) in unsigned
// 32-bit arithmetic (an origin past the input wraps to `kernel`: the caller refuses that).
int64_t v3_pool_tap_end(uint32_t kernel, uint32_t size, int32_t origin);
void max_pool_v3(const uint8_t* in, const V3Pool& p, uint8_t* out);
void average_pool_v3(const float* in, const V3Pool& p, float* out);

// REQUANTIZE {flags, in, out, count, u8 table[256]}: out[i] = table[in[i]].
struct V3Requantize {
    uint32_t in_address = 0, out_address = 0, count = 0;
    std::vector<uint8_t> table;  // 256 entries
};
V3Requantize read_v3_requantize(sim::ByteReader& r);

// L2_NORMALIZATION, LOGISTIC, K210_REMOVE_PADDING and K210_ADD_PADDING {flags, in, out,
// channels} (ADD_PADDING's out is a KPU line).
struct V3Channels {
    uint32_t in_address = 0, out_address = 0, channels = 0;
};
V3Channels read_v3_channels(sim::ByteReader& r, const char* layer);
// sum of squares (fmadd.s with `fma`), at least 1e-10, then x · (1 / sqrtf(sum)).
void l2_normalization_v3(const float* in, size_t n, float* out, bool fma = true);
// 1 / (1 + expf(−x)).
void logistic_v3(const float* in, size_t n, float* out);

// TENSORFLOW_FLATTEN {flags, in, out, shape}: CHW floats to HWC.
struct V3Flatten {
    uint32_t in_address = 0, out_address = 0;
    V3Shape shape;
};
V3Flatten read_v3_flatten(sim::ByteReader& r);
void flatten_v3(const float* in, const V3Shape& s, float* out);

// RESIZE_NEAREST_NEIGHBOR (f32) and QUANTIZED_RESIZE_NEAREST_NEIGHBOR (u8) {flags, in, out,
// in_shape, out_width, out_height, align_corners (unused by the SDK)}: the arithmetic of v4's
// nearest resize_image.
struct V3Resize {
    uint32_t in_address = 0, out_address = 0;
    V3Shape in_shape;
    uint32_t out_width = 1, out_height = 1;
};
V3Resize read_v3_resize(sim::ByteReader& r);

// CHANNELWISE_DEQUANTIZE {flags, in, out, channels, channel_size, {scale, bias}[channels]}:
// x = fma(q, scale_c, bias_c).
struct V3ChannelwiseDequantize {
    uint32_t in_address = 0, out_address = 0, channels = 0, channel_size = 0;
    std::vector<float> scale, bias;
};
V3ChannelwiseDequantize read_v3_channelwise_dequantize(sim::ByteReader& r);
void channelwise_dequantize_v3(const uint8_t* in, const V3ChannelwiseDequantize& p, float* out,
                               bool fma = true);

}  // namespace npu::k210
