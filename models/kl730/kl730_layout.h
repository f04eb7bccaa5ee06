// Kneron KL730 NPU tensor layouts and their conversion to and from ONNX (float, dense NCHW):
// quantization to the NPU's fixed point, re-layout by the model's strides (or strides generated for
// a layout), the outer-channel-group and high/low-byte (HL) variants, and the inverse. Sources:
// ../shared/seeds/kl730_onnx_npu_data_conversion.md, ../shared/reference/seed_systems.md §3;
// formulas, choices and traps: docs/kl730.md. Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npu::kl730 {

// kp_model_tensor_data_layout_t (kp_struct.h, PLUS 3.2.0). Since PLUS 3.1.0, 1W16C8B and
// 1W16C8BHL are the *outer* channel-group layouts; v3.0.0's 1W16C8B is now 1W16C8B_CH_COMPACT.
enum class Layout : uint32_t {
    UNKNOWN = 0,
    L4W4C8B = 1,
    L1W16C8B = 2,
    L16W1C8B = 3,
    L8W1C16B = 4,
    L4W4C8BHL = 5,
    L1W16C8BHL = 6,
    L16W1C8BHL = 7,
    RAW_8B = 8,
    RAW_16B = 9,
    RAW_FLOAT = 10,
    L1W16C8B_CH_COMPACT = 11,
    L1W16C8BHL_CH_COMPACT = 12,
    HW4C8B_KEEP_A = 13,
    HW4C8B_DROP_A = 14,
    HW1C8B = 15,
    HW1C16B_LE = 16,
    HW1C16B_BE = 17,
};

// "1W16C8BHL", as the PLUS documentation writes it (also accepted with the
// KP_MODEL_TENSOR_DATA_LAYOUT_ prefix, any case). Throws sim::Error for an unknown name.
Layout parse_layout(const std::string& name);
const char* layout_name(Layout l);
std::vector<Layout> all_layouts();  // every known layout, enum order

// How a layout stores one value.
enum class Storage {
    int8,   // one byte
    int16,  // 16-bit little-endian word, LSB dropped (8W1C16B, RAW_16B)
    hl,     // 16-bit value split: low entry holds bits 7..1, high entry (16 bytes on) bits 15..8
    float32,
    int16_le,  // HW1C16B_LE: byte pair low, high (full 16 bits)
    int16_be,  // HW1C16B_BE: byte pair high, low
};
Storage storage_of(Layout l);
bool is_outer_group(Layout l);  // 1W16C8B, 1W16C8BHL

// One {scale, radix} pair: fixed = round(float · scale · 2^radix).
struct QuantParam {
    float scale = 1;
    int32_t radix = 0;
};

struct TensorInfo {
    Layout layout = Layout::UNKNOWN;
    std::vector<int64_t> shape;        // ONNX shape (NCHW for the generated strides)
    std::vector<int64_t> stride_onnx;  // in elements
    std::vector<int64_t> stride_npu;   // in elements (HL: in 8-bit-layout positions)
    int32_t quantized_axis = -1;       // -1: one QuantParam for the whole tensor
    std::vector<QuantParam> quant;     // 1, or shape[quantized_axis]
};

// Dense row-major strides of a shape.
std::vector<int64_t> dense_strides(const std::vector<int64_t>& shape);
// The NPU strides a compiler would emit for `layout` and a 4-D NCHW shape (docs/kl730.md table).
// Throws sim::Error when the layout cannot hold the shape (e.g. 4W4C8B with C > 4).
std::vector<int64_t> generate_npu_strides(Layout layout, const std::vector<int64_t>& shape);
// A TensorInfo with dense ONNX strides and generated NPU strides.
TensorInfo make_info(Layout layout, const std::vector<int64_t>& shape,
                     std::vector<QuantParam> quant, int32_t quantized_axis = -1);

// Checks lengths, strides, the quantization list and radix range (−31..31, scale finite and > 0);
// throws sim::Error naming what is wrong.
void validate(const TensorInfo& t);
// Bytes of the NPU buffer: up to the last entry any element touches, whole 16-byte entries.
size_t npu_bytes(const TensorInfo& t);

// Where element `index` (ONNX multi-index) lands in the NPU buffer.
struct Place {
    size_t byte = 0;       // first byte (HL: the low byte)
    size_t high_byte = 0;  // HL: byte of the high part (byte + 16); 16-bit: byte + 1
    size_t entry = 0;      // 16-byte entry of `byte`
    size_t lane = 0;       // byte within the entry
};
Place place(const TensorInfo& t, const std::vector<int64_t>& index);

// ONNX -> NPU: quantize (round half to even, clip to the storage's range; RAW_FLOAT unrounded)
// and re-layout. `x` is the ONNX tensor laid out by stride_onnx.
std::vector<uint8_t> to_npu(const TensorInfo& t, const float* x, size_t x_elements);
// NPU -> ONNX: gather the fixed-point values and divide by scale · 2^radix. Dense by stride_onnx.
std::vector<float> to_onnx(const TensorInfo& t, const uint8_t* npu, size_t npu_size);
// The fixed-point values themselves (no dequantization), ONNX order; float32 layouts are refused.
std::vector<int32_t> to_onnx_fixed(const TensorInfo& t, const uint8_t* npu, size_t npu_size);

// The 16-bit HL split and merge (seed doc): low = (q >> 1) & 0x7f, high = (q >> 8) & 0xff as
// unsigned; merge gives ((low & 0x7f) + (high << 7)) << 1 as int16 (the LSB is lost).
void hl_split(int16_t q, uint8_t& low, uint8_t& high);
int16_t hl_merge(uint8_t low, uint8_t high);

}  // namespace npu::kl730
