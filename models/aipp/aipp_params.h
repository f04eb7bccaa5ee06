// Ascend AIPP (the AI Core's load-image preprocessing): the parameters of SetAippFunctions
// (AippParams<U>) and LoadImageToLocal (LoadImageToLocalParams), as the Ascend C API defines them,
// plus the switches for what the sources leave ambiguous. Source: ../shared/reference/
// seed_systems.md §2 and ../shared/seeds/ascend_set_aipp_functions.txt; docs/aipp.md. Pure C++.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace npu::aipp {

enum class InputFormat : uint8_t { YUV420SP_U8 = 0, XRGB8888_U8 = 1, RGB888_U8 = 4, YUV400_U8 = 9 };
// The output element type U: uint8 (pass-through), int8 (v − mean) or half.
enum class OutputType : uint8_t { u8, i8, f16 };

const char* format_name(InputFormat f);
const char* output_type_name(OutputType t);
size_t output_bytes(OutputType t);  // 1, 1, 2

// AippParams<U>. Values of type U (padding values, cPaddingValue) are stored as their bit
// patterns: u8/i8 in the low byte, half as IEEE binary16.
struct Params {
    InputFormat format = InputFormat::RGB888_U8;
    OutputType output = OutputType::u8;
    // paddingParams
    uint32_t padding_mode = 0;  // 0 constant (left/right only), 1 replicate, 2 block, 3 mirror
    std::array<uint16_t, 4> padding_value{};  // paddingValueCh0..3
    // swapParams
    bool swap_rb = false, swap_uv = false, swap_ax = false;
    // singleLineParams
    bool single_line = false;
    // dtcParams
    std::array<uint8_t, 3> dtc_mean{};
    std::array<uint16_t, 3> dtc_min{};                        // half bits, default 0
    std::array<uint16_t, 3> dtc_var{0x3c00, 0x3c00, 0x3c00};  // half bits, default 1.0
    uint32_t dtc_round_mode = 0;  // 0 round, 1 rint: Atlas 200I/500 A2 only (not modelled)
    // cPaddingParams
    uint32_t c_padding_mode = 0;  // 0: to 32 bytes per pixel, 1: to 4 channels
    uint16_t c_padding_value = 0;
    // cscParams
    bool csc_enable = false;
    std::array<int16_t, 9> csc_matrix{};  // row-major R0C0 .. R2C2, Q8 (256 = 1.0)
    std::array<uint8_t, 3> csc_bias_in{}, csc_bias_out{};
};

// LoadImageToLocalParams.
struct LoadParams {
    uint32_t horiz_size = 0, vert_size = 0;                          // crop width, height: 2..4095
    uint32_t horiz_start = 0, vert_start = 0;                        // crop origin: 0..4095
    uint32_t src_horiz_size = 0;                                     // source image width: 2..4095
    uint32_t top_pad = 0, bot_pad = 0, left_pad = 0, right_pad = 0;  // 0..32
    uint32_t sid = 0;
};

// What the sources disagree on (seed_systems.md §2.6). Defaults: the vendor's C reference model.
struct Fidelity {
    // CSC rounding: true (model) (Σ + 128) / 256 with C truncation; false (ACL text) Σ >> 8.
    bool csc_round_add_128 = true;
    // Out-of-range results: false (model) CSC wraps modulo 256 and (v − mean) wraps into int8;
    // true (the doc's "limited to [−128, 127]", likely the hardware) both saturate.
    bool saturate = false;
    // Bias roles: false (model, ACL) subtract cscBiasIn from YUV inputs, add cscBiasOut to
    // RGB→YUV results; true (the API doc's labels) subtract cscBiasOut from YUV inputs, add
    // cscBiasIn to RGB→YUV results.
    bool bias_roles_as_labelled = false;
    // Chroma of YUV400 with CSC enabled: 0 (model) or 128 (neutral chroma).
    uint8_t yuv400_chroma = 0;
};

// Where the source lies: src0 (RGB / XRGB / Y plane) and, for YUV420SP, src1 (interleaved UV,
// (H/2) rows of src_horiz_size bytes). Sizes in bytes, so every read can be checked up front.
struct Source {
    const uint8_t* src0 = nullptr;
    size_t src0_bytes = 0;
    const uint8_t* src1 = nullptr;
    size_t src1_bytes = 0;
};

// The destination tile: H_out × W_out pixels of C0 elements, element n = (i · W_out + j) · C0 + k.
struct Geometry {
    uint32_t height = 0, width = 0;     // H_out = vert + top + bot, W_out = horiz + left + right
    uint32_t c0 = 0;                    // elements per pixel: 32 B / sizeof(U), or 4
    uint32_t channels = 0;              // image channels: 3, or 1 for YUV400 without CSC
    uint32_t vert_size = 0;             // effective crop height (1 in single-line mode)
    uint32_t top_pad = 0, bot_pad = 0;  // effective (0 in padding mode 0)
    size_t elements() const { return size_t{height} * width * c0; }
};
Geometry geometry(const Params& p, const LoadParams& l);

// Every out-of-range parameter, one line each: "<name> is <value>, expected <range>". Empty when
// the call is valid. `src_height` (rows of the source) bounds the crop when known (0: unknown).
std::vector<std::string> check(const Params& p, const LoadParams& l, uint32_t src_height = 0);
// The source alignment rules: YUV420SP src0 and src1 2-byte aligned, XRGB8888 src0 4-byte
// aligned, RGB888 and YUV400 free. One line per problem, as check().
std::vector<std::string> check_source_alignment(const Params& p, uint64_t src0_addr,
                                                uint64_t src1_addr);
// Bytes of src0 / src1 the call reads (the crop's last row and column included).
size_t src0_bytes_needed(const Params& p, const LoadParams& l);
size_t src1_bytes_needed(const Params& p, const LoadParams& l);

}  // namespace npu::aipp
