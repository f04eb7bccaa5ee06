// The K210 platform running real kmodels (../shared/k210, skipped when absent): to completion,
// deterministically, bit-identical to the pure datapath, and with the v3 and v4 compilations of
// the same network agreeing.
#include <cmath>
#include <filesystem>
#include <random>

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include "models/k210_kpu/kpu_func.h"
#include "platforms/k210/compiler/compiler.h"
#include "platforms/k210/kmodel/cpu_ops.h"
#include "platforms/k210/kmodel/demo_model.h"
#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/soc/driver.h"
#include "platforms/k210/soc/k210_platform.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/tlm/kernel.h"
#include "tests/platforms/k210/compiler/net.h"
#include "tests/platforms/k210/soc/soc_harness.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

std::string shared_file(const char* name) {
    return std::string(NPUSIM_SHARED_DIR) + "/k210/" + name;
}

// The same network through run_layer() alone: every KPU layer chained in one RAM, then the
// final CPU dequantize. No bus, no registers, no DMA, no driver.
std::vector<float> pure(const k210::Kmodel& m, const sim::Tensor& input) {
    std::vector<uint8_t> ram(kpu::kRamBytes);
    const kpu::LayerArgs& first = m.convs.front().args;
    kpu::upload(input.bytes(), kpu::input_geometry(first),
                ram.data() + uint64_t{first.image_src_addr} * 64);
    std::vector<uint8_t> last;
    for (const k210::KpuConvLayer& c : m.convs) {
        last = kpu::run_layer(c.args, k210::conv_params(m, c), m.eight_bit, {}, ram.data())
                   .dense_output;
    }
    sim::ByteReader r = k210::body_reader(m, m.layers.back(), "dequantize");
    std::vector<float> out(last.size());
    if (m.version == 3) {
        const k210::V3Dequantize d = k210::read_v3_dequantize(r);
        k210::dequantize_v3(last.data(), last.size(), d.scale, d.bias, out.data());
    } else {
        const k210::V4QuantParam d = k210::read_v4_quant_param(r, "dequantize");
        k210::dequantize_v4(last.data(), last.size(), d.zero_point, d.scale, out.data());
    }
    return out;
}

#define MODEL_OR_SKIP(var, file)                                                \
    if (!std::filesystem::exists(shared_file(file))) {                          \
        GTEST_SKIP() << shared_file(file) << " is absent (../shared not here)"; \
    }                                                                           \
    const k210::Kmodel var = k210::load_kmodel(shared_file(file))

class K210Platform : public ScTest {};

TEST_F(K210Platform, EveryRunnableModelEqualsThePureDatapathBitForBit) {
    for (const char* name : {"face_detect_v3.kmodel", "yolo20_v3.kmodel", "yolo20_v4.kmodel"}) {
        if (!std::filesystem::exists(shared_file(name))) {
            GTEST_SKIP() << "../shared/k210 is absent";
        }
        const k210::Kmodel m = k210::load_kmodel(shared_file(name));
        const sim::Tensor img = random_image(7);
        const Inference run = infer(m, img);
        ASSERT_TRUE(run.result.done) << name;
        ASSERT_EQ(run.result.outputs.size(), 1u);
        const std::vector<float> want = pure(m, img);
        const sim::Tensor& got = run.result.outputs[0];
        ASSERT_EQ(got.numel(), want.size()) << name;
        EXPECT_EQ(0, std::memcmp(got.bytes(), want.data(), want.size() * 4)) << name;
        EXPECT_EQ(run.result.layers.size(), m.layers.size());
    }
}

// --dump-all on the timed platform: each KPU layer's result equals kpu::run_layer's dense output
// chained on its own (no bus, no driver), the final DEQUANTIZE's equals the model output, and the
// run takes exactly as long as without dumps (they are read by debug transport).
TEST_F(K210Platform, DumpAllGivesEachLayerTheDatapathsOutputAtNoTime) {
    for (const char* name : {"yolo20_v3.kmodel", "yolo20_v4.kmodel"}) {
        if (!std::filesystem::exists(shared_file(name))) {
            GTEST_SKIP() << "../shared/k210 is absent";
        }
        const k210::Kmodel m = k210::load_kmodel(shared_file(name));
        const sim::Tensor img = random_image(11);
        const Inference plain = infer(m, img);
        const Inference dumped = infer(m, img, true);
        ASSERT_TRUE(dumped.result.done) << dumped.result.error;
        EXPECT_EQ(plain.result.end_ps, dumped.result.end_ps) << name;
        EXPECT_TRUE(plain.result.dumps.empty());
        ASSERT_EQ(dumped.result.dumps.size(), m.layers.size()) << name;
        std::vector<uint8_t> ram(kpu::kRamBytes);
        const kpu::LayerArgs& first = m.convs.front().args;
        kpu::upload(img.bytes(), kpu::input_geometry(first),
                    ram.data() + uint64_t{first.image_src_addr} * 64);
        for (const k210::KpuConvLayer& c : m.convs) {
            const std::vector<uint8_t> want =
                kpu::run_layer(c.args, k210::conv_params(m, c), m.eight_bit, {}, ram.data())
                    .dense_output;
            const k210::LayerDump& d = dumped.result.dumps.at(c.layer_index);
            ASSERT_EQ(d.tensor.size_bytes(), want.size()) << name << " layer " << c.layer_index;
            EXPECT_EQ(0, std::memcmp(d.tensor.bytes(), want.data(), want.size()))
                << name << " layer " << c.layer_index;
        }
        const k210::LayerDump& last = dumped.result.dumps.back();
        EXPECT_EQ(last.file, fmt::format("layer_{:03}_{}.npy", m.layers.size() - 1,
                                         m.layers.back().type_name));
        ASSERT_EQ(last.tensor.size_bytes(), dumped.result.outputs[0].size_bytes());
        EXPECT_EQ(0, std::memcmp(last.tensor.bytes(), dumped.result.outputs[0].bytes(),
                                 last.tensor.size_bytes()));
    }
}

TEST_F(K210Platform, RunsAreDeterministic) {
    MODEL_OR_SKIP(m, "face_detect_v3.kmodel");
    const sim::Tensor img = random_image(3);
    const Inference a = infer(m, img);
    const Inference b = infer(m, img);
    EXPECT_TRUE(a.result.outputs[0] == b.result.outputs[0]);
    EXPECT_EQ(a.result.end_ps, b.result.end_ps);
    EXPECT_EQ(a.kpu_cycles, b.kpu_cycles);
    ASSERT_EQ(a.result.layers.size(), b.result.layers.size());
    for (size_t i = 0; i < a.result.layers.size(); ++i) {
        EXPECT_EQ(a.result.layers[i].end_ps, b.result.layers[i].end_ps) << i;
    }
}

TEST_F(K210Platform, V3AndV4CompilationsOfYoloAgree) {
    // The same 20-class YOLO compiled by nncase v0.1 (v3) and v0.2 (v4): different quantization,
    // so not bit-identical, but the dequantized outputs must agree closely.
    MODEL_OR_SKIP(v3, "yolo20_v3.kmodel");
    MODEL_OR_SKIP(v4, "yolo20_v4.kmodel");
    const sim::Tensor img = random_image(11);
    const sim::Tensor a = infer(v3, img).result.outputs[0];
    const sim::Tensor b = infer(v4, img).result.outputs[0];
    ASSERT_EQ(a.numel(), 8750u);  // 125 x 7 x 10
    ASSERT_EQ(b.numel(), 8750u);
    double sa = 0, sb = 0, sab = 0, saa = 0, sbb = 0;
    const double n = static_cast<double>(a.numel());
    for (size_t i = 0; i < a.numel(); ++i) {
        const double x = a.get_f64(i), y = b.get_f64(i);
        sa += x, sb += y, sab += x * y, saa += x * x, sbb += y * y;
    }
    const double corr = (sab - sa * sb / n) / std::sqrt((saa - sa * sa / n) * (sbb - sb * sb / n));
    EXPECT_GT(corr, 0.99);
}

TEST_F(K210Platform, EveryModelEqualsTheFunctionalRunBitForBit) {
    // The full path (bus, MMIO, layer FIFO, interrupts, DMA, CPU layers over the bus) against the
    // functional executor (plain buffers, no SystemC): every output, every byte.
    for (const char* name : {"face_detect_v3.kmodel", "yolo20_v3.kmodel", "yolo20_v4.kmodel",
                             "ulffd_landmark_v4.kmodel"}) {
        if (!std::filesystem::exists(shared_file(name))) {
            GTEST_SKIP() << "../shared/k210 is absent";
        }
        const k210::Kmodel m = k210::load_kmodel(shared_file(name));
        const sim::Tensor img = random_image(5);
        const Inference run = infer(m, img);
        ASSERT_TRUE(run.result.done) << name << ": " << run.result.error;
        const k210::FunctionalResult want = k210::run_functional(m, img);
        ASSERT_EQ(run.result.outputs.size(), want.outputs.size()) << name;
        for (size_t i = 0; i < want.outputs.size(); ++i) {
            EXPECT_TRUE(run.result.outputs[i] == want.outputs[i]) << name << " output " << i;
        }
        EXPECT_EQ(run.result.layers.size(), m.layers.size());
    }
}

TEST_F(K210Platform, UlffdLandmarkRunsWithItsNeutralNodes) {
    // 99 nodes: 43 kpu_conv2d, and the CPU nodes concat, quantize, quantized_binary, kpu_upload,
    // transpose, dequantize, memory_copy, pad. Outputs: boxes (3160 x 4), landmarks (3160 x 10),
    // scores (3160 x 2) for the 30x40 + 15x20 + 8x10 anchor grids, 2 anchors each.
    MODEL_OR_SKIP(m, "ulffd_landmark_v4.kmodel");
    const Inference r = infer(m, random_image(1));
    ASSERT_TRUE(r.result.done) << r.result.error;
    ASSERT_EQ(r.result.outputs.size(), 3u);
    EXPECT_EQ(r.result.outputs[0].numel(), 3160u * 4);
    EXPECT_EQ(r.result.outputs[1].numel(), 3160u * 10);
    EXPECT_EQ(r.result.outputs[2].numel(), 3160u * 2);
    size_t cpu_layers = 0;
    for (const k210::LayerRun& l : r.result.layers) {
        cpu_layers += l.kpu_layer < 0 ? 1u : 0u;
    }
    EXPECT_EQ(cpu_layers, 99u - 43u);
}

// yolo20_v4 with node `node`'s kpu_conv2d batches (u32 at body + 16) set to `batches`.
k210::Kmodel with_batches(const k210::Kmodel& m, size_t node, uint32_t batches) {
    std::vector<uint8_t> bytes = m.bytes;
    uint8_t* at = bytes.data() + m.layers.at(node).body_offset + 16;
    EXPECT_EQ(boost::endian::load_little_u32(at), 1u);
    boost::endian::store_little_u32(at, batches);
    return k210::parse_kmodel(bytes, "batched.kmodel");
}

TEST_F(K210Platform, V4BatchesRunOneKpuLayerPerBatch) {
    // Node 14 (1024x7x10 -> 512x7x10) with 2 batches: the second reads the map after the first
    // input and writes after the first output, which nothing later reads: the outputs stay those
    // of the unbatched model, the KPU runs one more layer, and the functional run agrees.
    MODEL_OR_SKIP(m, "yolo20_v4.kmodel");
    const k210::Kmodel b = with_batches(m, 14, 2);
    const sim::Tensor img = random_image(4);
    const Inference one = infer(m, img), two = infer(b, img);
    ASSERT_TRUE(two.result.done) << two.result.error;
    EXPECT_EQ(two.kpu_layers, one.kpu_layers + 1);
    EXPECT_EQ(two.result.layers[14].kpu_layers, 2);
    EXPECT_GT(two.kpu_cycles, one.kpu_cycles);
    EXPECT_TRUE(two.result.outputs[0] == one.result.outputs[0]);
    EXPECT_TRUE(k210::run_functional(b, img).outputs[0] == two.result.outputs[0]);
}

TEST_F(K210Platform, BatchesThatOverflowTheMainOutputAreAClearError) {
    // Node 15 downloads its 125x7x10 output into a main_mem_output of 8750 bytes: 2 batches
    // need 17500.
    MODEL_OR_SKIP(m, "yolo20_v4.kmodel");
    const k210::Kmodel b = with_batches(m, 15, 2);
    const Inference r = infer(b, random_image(4));
    EXPECT_FALSE(r.result.done);
    EXPECT_EQ(r.result.error,
              fmt::format("batched.kmodel: kpu_conv2d at byte {:#x}: the main_mem_output range "
                          "holds 8750 bytes, the operation needs 17500",
                          m.layers[15].body_offset));
}

TEST_F(K210Platform, UnsupportedLayerIsAClearError) {
    // The bundled demo with its first DEQUANTIZE (layer 2) relabelled GLOBAL_MAX_POOL2D (type 3,
    // which kpu.c does not run): the layer header table starts after 7 header words and 2
    // outputs of 8 bytes.
    std::vector<uint8_t> bytes = k210::build_demo_model().kmodel;
    ASSERT_EQ(boost::endian::load_little_u32(bytes.data() + 44 + 2 * 8), 12u);
    boost::endian::store_little_u32(bytes.data() + 44 + 2 * 8, 3);
    const k210::Kmodel m = k210::parse_kmodel(bytes, "demo.kmodel");
    sim::Tensor img(sim::DType::u8, {1, 3, 120, 160});
    const Inference r = infer(m, img);
    EXPECT_FALSE(r.result.done);
    EXPECT_EQ(r.result.error,
              "demo.kmodel: layer 2 is GLOBAL_MAX_POOL2D (type 0x3): the Kendryte SDK's kpu.c "
              "does not run this layer type, nor does the simulator");
}

TEST_F(K210Platform, InputOfTheWrongShapeIsRefused) {
    MODEL_OR_SKIP(m, "face_detect_v3.kmodel");
    sim::TraceWriter trace(false);
    k210::K210Platform soc("k210", k210_config(), trace);
    k210::K210Driver driver("driver", soc, trace);
    try {
        driver.load(m, sim::Tensor(sim::DType::f32, {1, 3, 240, 320}));
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "input is (1, 3, 240, 320) of f32, the model expects u8 (1, 3, 240, 320) "
                     "(or (3, 240, 320))");
    }
}

// A kmodel v4 from our compiler, with float CPU convolutions (5x5 on the image, dilated, 3x3 on a
// 2x2 map), CPU pooling, matmul and softmax between two KPU layers: the timed platform equals the
// functional run bit for bit, and the 5x5 layer's CPU time is the documented formula worked by
// hand: 8 x 16 x 16 = 2048 outputs; with 2 rows/columns of padding the in-bounds taps per axis
// are 3 + 4 + 12 x 5 + 4 + 3 = 74, so MACs = 8 x 74 x 74 x 3 = 131424, and cycles =
// 500 + 4 x 2048 + 3 x 131424 = 402964 (layer_dispatch_cycles 500, cycles_per_element 4,
// cycles_per_mac 3).
TEST_F(K210Platform, CompiledKmodelV4WithCpuConvolutionsRunsAsFunctionally) {
    Net n = cpu_conv_net();
    k210::CompileOptions o;
    o.calibration = n.samples(8);
    o.model_name = "m.onnx";
    const k210::CompiledModel cm = k210::compile_k210(n.g, o);
    ASSERT_EQ(cm.kmodel_version, 4);
    const k210::Kmodel m = k210::parse_kmodel(cm.kmodel, "m.kmodel");
    sim::Tensor img(sim::DType::u8, {1, 3, 16, 16});
    std::mt19937 rng(3);
    for (size_t i = 0; i < img.numel(); ++i) {
        img.data<uint8_t>()[i] = static_cast<uint8_t>(rng());
    }
    const Inference run = infer(m, img);
    ASSERT_TRUE(run.result.done) << run.result.error;
    const k210::FunctionalResult want = k210::run_functional(m, img);
    ASSERT_EQ(run.result.outputs.size(), 1u);
    EXPECT_TRUE(run.result.outputs[0] == want.outputs[0]);
    EXPECT_EQ(run.kpu_layers, 2u);
    ASSERT_GT(run.result.layers.size(), 1u);
    EXPECT_EQ(run.result.layers[1].type, "conv2d");
    // 500 dispatch + ⌈4 · 2,048 outputs + 36.867 · 131,424 MACs⌉ (cycles_per_element,
    // cycles_per_mac: docs/k210_platform.md "CPU time model").
    EXPECT_EQ(run.result.layers[1].cpu_cycles, 4853901u);
    EXPECT_EQ(cm.layers[1].macs, 131424u);  // the compiler counts the same taps
    EXPECT_EQ(cm.layers[1].est_cycles, 4853901u);
}

}  // namespace
}  // namespace npu::test
