// Hand-built kmodels that chain every CPU layer type and opcode added for vendor models, written
// by our kmodel writer and run on the timed platform (every access a bus transaction, costed per
// layer) and by the functional executor: the two agree bit for bit, and each layer is costed by
// the documented formula. Plus the real iris_v4 (float input, CPU only) from ../shared.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

#include <boost/endian/conversion.hpp>
#include <gtest/gtest.h>

#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/kmodel/kmodel_writer.h"
#include "sim/core/error.h"
#include "tests/platforms/k210/kmodel/node_harness.h"
#include "tests/platforms/k210/soc/soc_harness.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

constexpr uint32_t kConst = 0, kMain = 1, kF32 = 0, kU8 = 1;
constexpr float kLowest = std::numeric_limits<float>::lowest();
constexpr float kMax = std::numeric_limits<float>::max();

k210::RawLayerSpec node(uint32_t opcode, const Body& b) {
    return {opcode, b.bytes};
}

Body io(uint32_t in_type, uint32_t in_at, uint32_t in_bytes, uint32_t out_type, uint32_t out_at,
        uint32_t out_bytes, uint32_t in_mem = kMain) {
    Body b;
    b.range(in_mem, in_type, in_at, in_bytes).range(kMain, out_type, out_at, out_bytes);
    return b;
}

Body floats(Body b, size_t n, float start, float step) {
    for (size_t i = 0; i < n; ++i) {
        b.f32(start + step * static_cast<float>(i));
    }
    return b;
}

// input u8 (1,2,4,4) -> dequantize -> unary sin -> nnil x²+2 -> reduce mean over H (output 0)
// -> resize_image bilinear 6x6 -> strided_slice by 2 (output 1) -> conv2d_transpose 2x2/2
// -> cpu_conv2d 3x3 -> cpu_depthwise_conv2d 3x3/2 -> cpu_reduce_window2d max (output 2)
// -> quantize -> quantized_conv2d -> quantized_matmul -> table_lookup1d -> cpu_quantized_conv2d
// -> cpu_quantized_depthwise_conv2d -> resize_image u8 nearest -> dequantize (output 3).
std::vector<uint8_t> v4_chain() {
    k210::V4ModelSpec s;
    s.main_mem = 1792;
    s.inputs = {{{kMain, kU8, 0, 32}, {1, 2, 4, 4}}};
    s.outputs = {{kMain, kF32, 448, 32},
                 {kMain, kF32, 800, 72},
                 {kMain, kF32, 1536, 32},
                 {kMain, kF32, 1664, 32}};
    s.constants.resize(272);
    for (size_t i = 0; i < 12; ++i) {
        s.constants[i] = static_cast<uint8_t>(100 + 5 * i);  // the matmul's B (3x4)
    }
    for (size_t i = 0; i < 256; ++i) {
        s.constants[16 + i] = static_cast<uint8_t>(255 - i);  // the lookup table
    }
    Body relu6;
    s.nodes = {
        node(0x03, io(kU8, 0, 32, kF32, 64, 128).i32(0).f32(16.0f)),
        node(0x0E, io(kF32, 64, 128, kF32, 192, 128).u32(8)),
        node(0x14, io(kF32, 192, 128, kF32, 320, 128)
                       .u8(0x03)
                       .u8(0x01)
                       .u8(0x42)
                       .u8(0x06)
                       .f32(2.0f)
                       .u8(0x40)
                       .u8(0xA0)),
        node(
            0x07,
            io(kF32, 320, 128, kF32, 448, 32).u32(0).shape(1, 2, 4, 4).shape(1, 2, 1, 4).f32(0.0f)),
        node(0x0A, io(kF32, 320, 128, kF32, 512, 288)
                       .shape(1, 2, 4, 4)
                       .i32(6)
                       .i32(6)
                       .u32(0)
                       .u8(0)
                       .u8(0)
                       .u8(0)
                       .u8(0)),
        node(0x0D, io(kF32, 512, 288, kF32, 800, 72)
                       .shape(1, 2, 6, 6)
                       .shape(0, 0, 0, 0)
                       .shape(1, 2, 6, 6)
                       .shape(1, 1, 2, 2)
                       .i32(0)
                       .i32(0)
                       .i32(0)
                       .i32(0)
                       .i32(0)),
        node(0x13, floats(io(kF32, 800, 72, kF32, 896, 144)
                              .shape(1, 2, 3, 3)
                              .shape(1, 1, 6, 6)
                              .i32(1)
                              .window(2, 2, 2, 0)
                              .f32(kLowest)
                              .f32(kMax),
                          9, 0.5f, -0.25f)),
        node(0x1001, floats(io(kF32, 896, 144, kF32, 1088, 288)
                                .shape(1, 6, 6, 1)
                                .i32(2)
                                .window(3, 3, 1, 1)
                                .f32(0.0f)
                                .f32(6.0f),
                            20, -0.5f, 0.1f)),
        node(0x1002, floats(io(kF32, 1088, 288, kF32, 1408, 72)
                                .shape(1, 6, 6, 2)
                                .window(3, 3, 2, 1)
                                .f32(kLowest)
                                .f32(kMax),
                            20, 0.3f, -0.05f)),
        node(0x1003, io(kF32, 1408, 72, kF32, 1536, 32)
                         .u32(2)
                         .shape(1, 3, 3, 2)
                         .window(2, 2, 1, 0)
                         .f32(kLowest)
                         .f32(kLowest)
                         .f32(kMax)),
        node(0x06, io(kF32, 1536, 32, kU8, 1600, 8).i32(128).f32(10.0f)),
    };
    Body qconv = io(kU8, 1600, 8, kU8, 1616, 3).shape(1, 2, 2, 2).i32(1).i32(3).window(2, 2, 1, 0);
    qconv.i32(-128).i32(-128).i32(1).i32(8).i32(128).i32(10).i32(-20).i32(30);
    for (int i = 0; i < 24; ++i) {
        qconv.u8(static_cast<uint8_t>(100 + 7 * i));
    }
    Body qmm;
    qmm.range(kMain, kU8, 1616, 3).range(kConst, kU8, 0, 12).range(kMain, kU8, 1624, 4);
    qmm.i32(1).i32(3).i32(4).i32(-128).i32(-128).i32(1).i32(6).i32(128);
    qmm.i32(0).i32(50).i32(-50).i32(100);
    Body lut;
    lut.range(kMain, kU8, 1624, 4).range(kConst, kU8, 16, 256).range(kMain, kU8, 1632, 4);
    Body cq = io(kU8, 1632, 4, kU8, 1640, 2).shape(1, 1, 1, 4).i32(2).window(1, 1, 1, 0);
    cq.i32(128).i32(128).i32(1).i32(7).i32(128);
    for (int w : {130, 120, 140, 110, 90, 200, 128, 129}) {
        cq.u8(static_cast<uint8_t>(w));
    }
    cq.i32(5).i32(-5);
    Body cqd = io(kU8, 1640, 2, kU8, 1648, 2).shape(1, 1, 1, 2).window(1, 1, 1, 0);
    cqd.i32(128).i32(128).i32(3).i32(2).i32(20).u8(200).u8(60).i32(7).i32(-7);
    s.nodes.insert(s.nodes.end(), {node(0x0F, qconv), node(0x10, qmm), node(0x12, lut),
                                   node(0x1004, cq), node(0x1005, cqd),
                                   node(0x0A, io(kU8, 1648, 2, kU8, 1656, 8)
                                                  .shape(1, 2, 1, 1)
                                                  .i32(2)
                                                  .i32(2)
                                                  .u32(1)
                                                  .u8(0)
                                                  .u8(0)
                                                  .u8(0)
                                                  .u8(0)),
                                   node(0x03, io(kU8, 1656, 8, kF32, 1664, 32).i32(0).f32(1.0f))});
    return k210::write_kmodel_v4(s);
}

// input f32 8 -> FULLY_CONNECTED 8x8 -> L2_NORMALIZATION -> LOGISTIC -> TENSORFLOW_FLATTEN
// (2x2x2) -> RESIZE_NEAREST_NEIGHBOR 4x4 -> AVERAGE_POOL2D 2x2/2 -> QUANTIZE -> QUANTIZED_ADD
// -> QUANTIZED_MAX_POOL2D -> REQUANTIZE -> QUANTIZED_RESIZE_NEAREST_NEIGHBOR -> QUANTIZED_CONCAT
// -> CHANNELWISE_DEQUANTIZE (output 0); K210_ADD_PADDING to the KPU; K210_REMOVE_PADDING ->
// DEQUANTIZE (output 1).
std::vector<uint8_t> v3_chain() {
    std::vector<float> w(64), bias(8);
    for (size_t i = 0; i < 64; ++i) {
        w[i] = static_cast<float>(static_cast<int>(i % 9) - 4) * 0.25f;
    }
    for (size_t i = 0; i < 8; ++i) {
        bias[i] = 0.1f * static_cast<float>(i);
    }
    const auto raw = [](uint32_t type, const Body& b) {
        return k210::RawLayerSpec{type, b.bytes};
    };
    const auto chans = [](uint32_t in, uint32_t out, uint32_t c) {
        Body b;
        b.u32(0).u32(in).u32(out).u32(c);
        return b;
    };
    Body flatten, resize, avg, quant, qadd, qmax, requant, qresize, qconcat, cwdq;
    flatten.u32(0).u32(96).u32(128).u32(2).u32(2).u32(2);
    resize.u32(0).u32(128).u32(160).u32(2).u32(2).u32(2).u32(4).u32(4).u32(0);
    avg.u32(0).u32(160).u32(288).u32(4).u32(4).u32(2).u32(2).u32(2).u32(2);
    avg.u32(2).u32(2).u32(2).u32(2).u32(0).u32(0).u32(0);
    quant.u32(0).u32(288).u32(320).u32(8).f32(1.0f / 255).f32(0.0f);
    qadd.u32(0).u32(320).u32(320).u32(336).u32(8);
    qadd.i32(-10).i32(3).i32(1).i32(0).i32(2).i32(2).i32(5).i32(7).i32(4);
    qmax.u32(0).u32(336).u32(344).u32(2).u32(2).u32(2).u32(1).u32(1).u32(2);
    qmax.u32(2).u32(2).u32(1).u32(1).u32(0).u32(0);
    requant.u32(0).u32(344).u32(352).u32(2);
    for (int i = 0; i < 256; ++i) {
        requant.u8(static_cast<uint8_t>((i * 7) & 255));
    }
    qresize.u32(0).u32(352).u32(360).u32(1).u32(1).u32(2).u32(2).u32(2).u32(0);
    qconcat.u32(0).u32(368).u32(2).u32(360).u32(8).u32(320).u32(8);
    cwdq.u32(0).u32(368).u32(384).u32(2).u32(8).f32(0.5f).f32(-3.0f).f32(0.25f).f32(1.5f);
    k210::V3ModelSpec s;
    s.main_mem_usage = 512;
    s.outputs = {{384, 64}, {456, 8}};
    s.layers = {k210::fully_connected_layer(0, 32, 8, 8, 0, w, bias),
                raw(14, chans(32, 64, 8)),
                raw(25, chans(64, 96, 8)),
                raw(20, flatten),
                raw(22, resize),
                raw(9, avg),
                raw(11, quant),
                raw(2, qadd),
                raw(8, qmax),
                raw(13, requant),
                raw(23, qresize),
                raw(17, qconcat),
                raw(24, cwdq),
                raw(10241, chans(368, 100, 4)),
                raw(10242, chans(368, 452, 2)),
                k210::DequantizeSpec{452, 456, 2, 0.5f, 1.0f}};
    return k210::write_kmodel_v3(s);
}

class VendorOpModels : public ScTest {};

void expect_timed_equals_functional(const k210::Kmodel& m, const sim::Tensor& in,
                                    const std::vector<std::string>& types) {
    const Inference timed = infer(m, in);
    ASSERT_TRUE(timed.result.done) << timed.result.error;
    const k210::FunctionalResult f = k210::run_functional(m, in);
    ASSERT_EQ(timed.result.outputs.size(), f.outputs.size());
    for (size_t i = 0; i < f.outputs.size(); ++i) {
        EXPECT_TRUE(timed.result.outputs[i] == f.outputs[i]) << "output " << i;
    }
    ASSERT_EQ(timed.result.layers.size(), types.size());
    const k210::K210Config c = k210_config();
    for (size_t i = 0; i < types.size(); ++i) {
        const k210::LayerRun& l = timed.result.layers[i];
        const k210::FunctionalLayer& work = f.layers[i];
        EXPECT_EQ(l.type, types[i]) << "layer " << i;
        // docs/k210_platform.md "CPU time model": dispatch + ⌈per element · elements + per MAC ·
        // MACs⌉ for every CPU layer, with the work the functional run counted.
        const double want =
            static_cast<double>(c.cpu.layer_dispatch_cycles) +
            std::ceil(c.cpu.cycles_per_element * static_cast<double>(work.elements) +
                      c.cpu.cycles_per_mac * static_cast<double>(work.cpu_macs));
        EXPECT_EQ(static_cast<double>(l.cpu_cycles), want) << "layer " << i;
        EXPECT_GT(work.elements, 0u) << "layer " << i;
    }
}

TEST_F(VendorOpModels, EveryNewV4OpcodeRunsTimedAsFunctionally) {
    const k210::Kmodel m = k210::parse_kmodel(v4_chain(), "chain_v4.kmodel");
    expect_timed_equals_functional(
        m, random_image(7, {1, 2, 4, 4}),
        {"dequantize", "unary", "nnil_unary_method", "reduce", "resize_image", "strided_slice",
         "conv2d_transpose", "cpu_conv2d", "cpu_depthwise_conv2d", "cpu_reduce_window2d",
         "quantize", "quantized_conv2d", "quantized_matmul", "table_lookup1d",
         "cpu_quantized_conv2d", "cpu_quantized_depthwise_conv2d", "resize_image", "dequantize"});
}

TEST_F(VendorOpModels, EveryNewV3LayerTypeRunsTimedAsFunctionally) {
    const k210::Kmodel m = k210::parse_kmodel(v3_chain(), "chain_v3.kmodel");
    sim::Tensor in(sim::DType::f32, {1, 8, 1, 1});
    std::mt19937 rng(5);
    std::normal_distribution<float> nd(0.0f, 2.0f);
    for (size_t i = 0; i < 8; ++i) {
        in.data<float>()[i] = nd(rng);
    }
    expect_timed_equals_functional(
        m, in,
        {"FULLY_CONNECTED", "L2_NORMALIZATION", "LOGISTIC", "TENSORFLOW_FLATTEN",
         "RESIZE_NEAREST_NEIGHBOR", "AVERAGE_POOL2D", "QUANTIZE", "QUANTIZED_ADD",
         "QUANTIZED_MAX_POOL2D", "REQUANTIZE", "QUANTIZED_RESIZE_NEAREST_NEIGHBOR",
         "QUANTIZED_CONCAT", "CHANNELWISE_DEQUANTIZE", "K210_ADD_PADDING", "K210_REMOVE_PADDING",
         "DEQUANTIZE"});
}

// nncase pads each body to 8 bytes by seeking, so a real file's last body can lack up to 7
// declared bytes: the chain's last node (a 40-byte dequantize) declared 44 bytes and cut 4
// short loads and runs; a body 8 bytes short is refused at load.
TEST_F(VendorOpModels, ALastBodyShortOfItsPaddingLoads) {
    std::vector<uint8_t> bytes = v4_chain();
    const k210::Kmodel full = k210::parse_kmodel(bytes, "chain_v4.kmodel");
    const size_t last_header = full.layers.front().body_offset - 8;
    ASSERT_EQ(full.layers.back().body_size, 40u);
    boost::endian::store_little_u32(bytes.data() + last_header + 4, 44);
    const k210::Kmodel m = k210::parse_kmodel(bytes, "short.kmodel");
    EXPECT_EQ(m.layers.back().body_size, 44u);
    EXPECT_EQ(m.bytes.size(), full.bytes.size());  // 4 declared bytes past the end of the file
    const k210::FunctionalResult f = k210::run_functional(m, random_image(7, {1, 2, 4, 4}));
    EXPECT_TRUE(f.outputs[3] ==
                k210::run_functional(full, random_image(7, {1, 2, 4, 4})).outputs[3]);
    boost::endian::store_little_u32(bytes.data() + last_header + 4, 48);
    EXPECT_THROW(k210::parse_kmodel(bytes, "short.kmodel"), sim::Error);
}

// nncase's iris example: 4 float features -> 3 class scores, on the CPU only. Fisher's iris
// data: sample 1 (5.1, 3.5, 1.4, 0.2) is setosa, 51 (7.0, 3.2, 4.7, 1.4) versicolor, 101
// (6.3, 3.3, 6.0, 2.5) virginica: the model's largest score names each; timed = functional.
TEST_F(VendorOpModels, IrisClassifiesFishersSamples) {
    const std::string path = std::string(NPUSIM_SHARED_DIR) + "/k210/iris_v4.kmodel";
    if (!std::filesystem::exists(path)) {
        GTEST_SKIP() << path << " is absent (../shared not here)";
    }
    const k210::Kmodel m = k210::load_kmodel(path);
    EXPECT_EQ(k210::model_input_dtype(m), sim::DType::f32);
    const float samples[3][4] = {
        {5.1f, 3.5f, 1.4f, 0.2f}, {7.0f, 3.2f, 4.7f, 1.4f}, {6.3f, 3.3f, 6.0f, 2.5f}};
    for (int species = 0; species < 3; ++species) {
        sim::Tensor in(sim::DType::f32, {1, 1, 1, 4});
        std::copy(samples[species], samples[species] + 4, in.data<float>());
        const Inference timed = infer(m, in);
        ASSERT_TRUE(timed.result.done) << timed.result.error;
        const sim::Tensor& scores = timed.result.outputs.at(0);
        ASSERT_EQ(scores.numel(), 3u);
        const float* s = scores.data<float>();
        EXPECT_EQ(std::max_element(s, s + 3) - s, species);
        EXPECT_TRUE(scores == k210::run_functional(m, in).outputs.at(0));
    }
}

}  // namespace
}  // namespace npu::test
