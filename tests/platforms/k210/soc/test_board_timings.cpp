// The K210 time model against public board measurements (../shared/reference/k210_board_timings.md
// §2; docs/k210_platform.md "CPU time model"). nncase v0.2's runtime on a board, NNCASE_DEBUG's
// per-op times: a KPU layer whose output goes to main memory, read back by the CPU, and the
// dequantize after it. Rebuilt with our kmodel writer: 320x240x3 -> a 3x3 KPU convolution whose
// output is read back -> dequantize, with 16 output channels (nncase#95, 1,228,800 bytes) and 4
// (nncase#96, 307,200 bytes: its size inferred from the same read-back/dequantize ratio).
#include <gtest/gtest.h>

#include "models/k210_kpu/kpu_layer_builder.h"
#include "models/k210_kpu/kpu_layout.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/kmodel/kmodel_writer.h"
#include "tests/platforms/k210/soc/soc_harness.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

// kpu_upload -> kpu_conv2d 3 -> `oc`, 3x3, 320x240, output to main -> dequantize.
k210::Kmodel readback_model(int oc) {
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

double ms(const k210::LayerRun& l) {
    return static_cast<double>(l.end_ps - l.start_ps) / 1e9;
}

class BoardTimings : public ScTest {};

// Board: the read-back layer 26.563 ms and the dequantize 9.357 ms (#95); 6.690 ms and 2.341 ms
// (#96). The constants come from #95; #96 checks them (within 5 %: 0.8 % and 0.1 %).
TEST_F(BoardTimings, NncaseReadbackAndDequantizeAsBoardsMeasure) {
    const struct {
        int oc;
        double layer_ms, dequantize_ms;
    } figures[] = {{16, 26.563, 9.357}, {4, 6.690, 2.341}};
    for (const auto& f : figures) {
        const k210::Kmodel m = readback_model(f.oc);
        const Inference r = infer(m, random_image(1, {1, 3, 240, 320}));
        ASSERT_TRUE(r.result.done) << r.result.error;
        ASSERT_EQ(r.result.layers.size(), 3u);
        const double layer = ms(r.result.layers[1]), deq = ms(r.result.layers[2]);
        std::printf(
            "%d channels: read-back layer %.3f ms (board %.3f), dequantize %.3f ms "
            "(board %.3f)\n",
            f.oc, layer, f.layer_ms, deq, f.dequantize_ms);
        EXPECT_NEAR(layer, f.layer_ms, 0.05 * f.layer_ms);
        EXPECT_NEAR(deq, f.dequantize_ms, 0.05 * f.dequantize_ms);
    }
}

}  // namespace
}  // namespace npu::test
