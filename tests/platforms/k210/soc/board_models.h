// Models rebuilt with our kmodel writer after the public board profiles
// (../shared/reference/k210_board_timings.md §2): the tests that compare with board figures and
// the calibration tests share them.
#pragma once

#include "models/k210_kpu/kpu_layer_builder.h"
#include "models/k210_kpu/kpu_layout.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/kmodel/kmodel_writer.h"

namespace npu::test::board {

// A KPU convolution of `shape` from line `in` to line `out`, weights 130 (zero point 128 → 2) and
// an identity batch norm: values do not matter to the timing tests.
inline k210::ConvLayerSpec conv(kpu::LayerShape shape, uint32_t in, uint32_t out) {
    k210::ConvLayerSpec c;
    c.args = kpu::build_layer(shape, in, out);
    c.weights.assign(static_cast<size_t>(shape.out_channels * shape.in_channels * 9), 130);
    c.bn.assign(static_cast<size_t>(shape.out_channels), {1, 0, 0});
    return c;
}

// kpu_upload -> kpu_conv2d 3 -> `oc`, 3x3, 320x240, output to main -> dequantize.
inline k210::Kmodel readback_model(int oc) {
    const uint32_t in_bytes = 3 * 240 * 320, out_bytes = static_cast<uint32_t>(oc) * 240 * 320;
    k210::ConvLayerSpec c;
    const uint32_t in_line = 0;
    const auto out_line = static_cast<uint32_t>(kpu::fmap_lines(3, 320, 240));
    c.args = kpu::build_layer({3, 240, 320, oc, 3, false, 0, true}, in_line, out_line);
    c.weights.assign(static_cast<size_t>(oc) * 27, 130);
    c.bn.assign(static_cast<size_t>(oc), {1, 0, 0});
    // The working buffer as nncase would lay it out within the K210's 6 MiB: the float output
    // over the input (dead once uploaded), then the read-back bytes.
    const uint32_t u8_at = out_bytes * 4;
    c.main_mem_out = true;
    c.main_mem_out_address = u8_at;
    k210::V4ModelSpec s;
    s.main_mem = u8_at + out_bytes;
    s.inputs = {{{k210::kMainMemory, k210::kUint8, 0, in_bytes}, {1, 3, 240, 320}}};
    s.outputs = {{k210::kMainMemory, k210::kFloat32, 0, out_bytes * 4}};
    s.nodes = {
        k210::v4_upload_node({k210::kMainMemory, k210::kUint8, 0, in_bytes},
                             {k210::kKpuMemory, k210::kUint8, 0, in_bytes}, {1, 3, 240, 320}),
        c,
        k210::v4_dequantize_node({k210::kMainMemory, k210::kUint8, u8_at, out_bytes},
                                 {k210::kMainMemory, k210::kFloat32, 0, out_bytes * 4}, 0, 1.0f)};
    return k210::parse_kmodel(k210::write_kmodel_v4(s), "readback.kmodel");
}

// ---------------------------------------------------------------- nncase v0.2 profiles
// The models of nncase#95, #96 and #97 (one user's, NNCASE_DEBUG per node) rebuilt from what
// their threads and their times say (docs/k210_platform.md "CPU time model": why the maps are
// 160x120 and 80x60). The input sits in KPU RAM (the runtime uploads it before the interpreter
// starts its clock); a stride-2 layer is a KPU convolution with the left-top 2x2 pool.
constexpr uint32_t kLeftTop2 = 5;  // kpu_pool_left_top_2_s2

inline uint32_t lines(int c, int h, int w) {
    return static_cast<uint32_t>(kpu::fmap_lines(c, w, h));
}
inline k210::KmodelIo kpu_input(int c, int h, int w) {
    const auto bytes = static_cast<uint32_t>(c * h * w);
    return {{k210::kKpuMemory, k210::kUint8, 0, bytes}, {1, c, h, w}};
}
// `c` also downloaded by the CPU to main memory at `at`.
inline k210::ConvLayerSpec to_main(k210::ConvLayerSpec c, uint32_t at) {
    c.main_mem_out = true;
    c.main_mem_out_address = at;
    return c;
}

// #95: 3 -> 16 3x3 stride 2 (0.210 ms), two 16 -> 16 3x3 at 160x120 (0.268, 0.268), a third read
// back to main memory (26.563), dequantize of its 307,200 bytes (9.357).
inline k210::Kmodel nncase95_model() {
    const uint32_t a = lines(3, 240, 320), b = a + lines(16, 120, 160), out = 16 * 120 * 160;
    k210::V4ModelSpec s;
    s.main_mem = out * 5;
    s.inputs = {kpu_input(3, 240, 320)};
    s.outputs = {{k210::kMainMemory, k210::kFloat32, 0, out * 4}};
    const kpu::LayerShape mid{16, 120, 160, 16, 3, false, 0, true};
    s.nodes = {conv({3, 240, 320, 16, 3, false, kLeftTop2, true}, 0, a), conv(mid, a, b),
               conv(mid, b, a), to_main(conv(mid, a, b), out * 4),
               k210::v4_dequantize_node({k210::kMainMemory, k210::kUint8, out * 4, out},
                                        {k210::kMainMemory, k210::kFloat32, 0, out * 4}, 0, 1.0f)};
    return k210::parse_kmodel(k210::write_kmodel_v4(s), "nncase95.kmodel");
}

// #96: 3 -> 16 stride 2 (0.211), 16 -> 16 at 160x120 stride 2 (0.269), three 16 -> 16 at 80x60
// (0.099, 0.098, 0.099), a fourth read back (6.690), dequantize of 76,800 bytes (2.341).
inline k210::Kmodel nncase96_model() {
    const uint32_t a = lines(3, 240, 320), b = a + lines(16, 120, 160), c = b + lines(16, 60, 80);
    const uint32_t out = 16 * 60 * 80;
    k210::V4ModelSpec s;
    s.main_mem = out * 5;
    s.inputs = {kpu_input(3, 240, 320)};
    s.outputs = {{k210::kMainMemory, k210::kFloat32, 0, out * 4}};
    const kpu::LayerShape small{16, 60, 80, 16, 3, false, 0, true};
    s.nodes = {conv({3, 240, 320, 16, 3, false, kLeftTop2, true}, 0, a),
               conv({16, 120, 160, 16, 3, false, kLeftTop2, true}, a, b),
               conv(small, b, c),
               conv(small, c, b),
               conv(small, b, c),
               to_main(conv(small, c, b), out * 4),
               k210::v4_dequantize_node({k210::kMainMemory, k210::kUint8, out * 4, out},
                                        {k210::kMainMemory, k210::kFloat32, 0, out * 4}, 0, 1.0f)};
    return k210::parse_kmodel(k210::write_kmodel_v4(s), "nncase96.kmodel");
}

// The residual add of #97 over two u8 maps of `shape` in main memory at `x` and `y`, into `z`.
inline k210::RawLayerSpec residual_add(k210::Shape4 shape, uint32_t x, uint32_t y, uint32_t z) {
    const auto n = static_cast<uint32_t>(shape[0] * shape[1] * shape[2] * shape[3]);
    k210::V4QuantizedBinary q;
    q.a = {k210::kMainMemory, k210::kUint8, x, n};
    q.b = {k210::kMainMemory, k210::kUint8, y, n};
    q.out = {k210::kMainMemory, k210::kUint8, z, n};
    q.a_shape = q.b_shape = q.out_shape = shape;
    q.a_mul = q.b_mul = q.out_mul = 1;
    return k210::v4_node(q);
}

// #97 with its bottleneck add: 3 -> 16 stride 2 read back (26.508), depthwise 16 at 160x120
// (0.042), 16 -> 16 at 160x120 read back (26.561), the add of the two 307,200-byte maps (58.699)
// and its upload into KPU RAM for the next layer (20.367).
inline k210::Kmodel nncase97_bottleneck_model() {
    const uint32_t a = lines(3, 240, 320), b = a + lines(16, 120, 160), c = b + lines(16, 120, 160);
    const uint32_t n = 16 * 120 * 160;
    k210::V4ModelSpec s;
    s.main_mem = n * 3;
    s.inputs = {kpu_input(3, 240, 320)};
    s.outputs = {{k210::kMainMemory, k210::kUint8, 2 * n, n}};
    s.nodes = {
        to_main(conv({3, 240, 320, 16, 3, false, kLeftTop2, true}, 0, a), 0),
        conv({16, 120, 160, 16, 3, true, 0, true}, a, b),
        to_main(conv({16, 120, 160, 16, 3, false, 0, true}, b, c), n),
        residual_add({1, 16, 120, 160}, 0, n, 2 * n),
        k210::v4_upload_node({k210::kMainMemory, k210::kUint8, 2 * n, n},
                             {k210::kKpuMemory, k210::kUint8, b * 64, n}, {1, 16, 120, 160})};
    return k210::parse_kmodel(k210::write_kmodel_v4(s), "nncase97b.kmodel");
}

// #97 without it, the part after the KPU layers whose shapes the thread does not give: two maps
// of 16x60x80 read back, their add (15.974) and a dequantize of the sum (2.342).
inline k210::Kmodel nncase97_model() {
    const uint32_t a = lines(16, 60, 80), b = 2 * a, n = 16 * 60 * 80;
    k210::V4ModelSpec s;
    s.main_mem = n * 7;
    s.inputs = {kpu_input(16, 60, 80)};
    s.outputs = {{k210::kMainMemory, k210::kFloat32, 3 * n, n * 4}};
    const kpu::LayerShape small{16, 60, 80, 16, 3, false, 0, true};
    s.nodes = {
        to_main(conv(small, 0, a), 0), to_main(conv(small, a, b), n),
        residual_add({1, 16, 60, 80}, 0, n, 2 * n),
        k210::v4_dequantize_node({k210::kMainMemory, k210::kUint8, 2 * n, n},
                                 {k210::kMainMemory, k210::kFloat32, 3 * n, n * 4}, 0, 1.0f)};
    return k210::parse_kmodel(k210::write_kmodel_v4(s), "nncase97.kmodel");
}

}  // namespace npu::test::board
