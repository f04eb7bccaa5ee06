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

}  // namespace npu::test::board
