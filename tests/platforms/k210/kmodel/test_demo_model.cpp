// Our kmodel writer and the bundled demo network: what the writer writes, the parser reads back;
// and the demo's maps are what their kernels say, checked against a float computation of the same
// blur and Sobel edges (no KPU arithmetic involved), within the quantization error.
#include <cmath>

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "models/k210_kpu/kpu_func.h"
#include "platforms/k210/kmodel/cpu_ops.h"
#include "platforms/k210/kmodel/demo_model.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "platforms/k210/kmodel/kmodel_writer.h"
#include "sim/core/error.h"
#include "sim/core/image.h"

namespace npu::k210 {
namespace {

TEST(KmodelWriter, WhatIsWrittenParsesBack) {
    const DemoModel d = build_demo_model();
    const Kmodel m = parse_kmodel(d.kmodel, "demo.kmodel");
    EXPECT_EQ(m.version, 3);
    EXPECT_TRUE(m.eight_bit);
    ASSERT_EQ(m.layers.size(), 5u);
    ASSERT_EQ(m.convs.size(), 3u);
    EXPECT_STREQ(m.layers[2].type_name, "DEQUANTIZE");
    EXPECT_EQ(m.outputs.size(), 2u);
    EXPECT_EQ(m.outputs[1].range.size, 4800u * 4);
    // The format's alignment rules: args 8, weights 128, BN 128, activation 256.
    for (const KpuConvLayer& c : m.convs) {
        EXPECT_EQ(c.args_offset % 8, 0u);
        EXPECT_EQ(c.weights_offset % 128, 0u);
        EXPECT_EQ(c.bn_offset % 128, 0u);
        EXPECT_EQ(c.act_offset % 256, 0u);
        EXPECT_TRUE(kpu::validate(c.runtime_args(0x40000000), true).empty());
    }
    EXPECT_TRUE(m.convs[1].main_mem_out);
    EXPECT_EQ(m.convs[2].args.pool_type, 1u);
    EXPECT_EQ(m.bytes.size() % 8, 0u);
}

// Runs the demo's layers through the pure datapath (as the platform tests prove the platform does).
std::vector<std::vector<float>> run_demo(const DemoModel& d) {
    const Kmodel m = parse_kmodel(d.kmodel, "demo.kmodel");
    std::vector<uint8_t> ram(kpu::kRamBytes);
    const kpu::LayerArgs& a0 = m.convs[0].args;
    kpu::upload(d.input.bytes(), kpu::input_geometry(a0),
                ram.data() + uint64_t{a0.image_src_addr} * 64);
    std::vector<std::vector<float>> outs;
    for (const KpuConvLayer& c : m.convs) {
        const kpu::LayerResult r = kpu::run_layer(c.args, conv_params(m, c), true, {}, ram.data());
        if (c.main_mem_out) {
            std::vector<float> f(r.dense_output.size());
            dequantize_v3(r.dense_output.data(), f.size(), 1.0f / 255, 0, f.data());
            outs.push_back(f);
        }
    }
    return outs;
}

TEST(DemoModel, MapsAreTheBlurAndEdgesTheirKernelsDescribe) {
    const DemoModel d = build_demo_model();
    const auto outs = run_demo(d);
    ASSERT_EQ(outs.size(), 2u);
    const int h = 120, w = 160;
    const uint8_t* img = d.input.bytes();
    auto lum = [&](int y, int x) -> double {  // zero outside, as the layer's pad_value 0
        if (y < 0 || y >= h || x < 0 || x >= w) {
            return 0;
        }
        const size_t i = static_cast<size_t>(y * w + x), plane = static_cast<size_t>(h * w);
        return 0.299 * img[i] + 0.587 * img[plane + i] + 0.114 * img[2 * plane + i];
    };
    double max_blur_err = 0, max_edge_err = 0;
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            double blur = 0, gx = 0, gy = 0;
            const double g[3] = {1, 2, 1};
            for (int dy = -1; dy <= 1; ++dy) {
                for (int dx = -1; dx <= 1; ++dx) {
                    const double v = lum(y + dy, x + dx);
                    blur += v * g[dy + 1] * g[dx + 1] / 16;
                    gx += v * dx * g[dy + 1];
                    gy += v * dy * g[dx + 1];
                }
            }
            // Each half-edge saturates at 255 in layer 0, their sum / 2 again in layer 1.
            auto half = [](double v) {
                return std::min(255.0, std::max(0.0, v) / 2);
            };
            const double edges = std::min(255.0, (half(gx) + half(-gx) + half(gy) + half(-gy)) / 2);
            const size_t i = static_cast<size_t>(y * w + x);
            const double got_blur = static_cast<double>(outs[0][i]) * 255;
            const double got_edges =
                static_cast<double>(outs[0][static_cast<size_t>(h * w) + i]) * 255;
            max_blur_err = std::max(max_blur_err, std::abs(got_blur - blur));
            max_edge_err = std::max(max_edge_err, std::abs(got_edges - edges));
        }
    }
    // Per-channel 8-bit weights (rounding ~1 %), and BN's floor shift in each 8-bit stage (up to
    // 1 LSB per stage): measured 2.4 LSB (blur, one stage) and 3.3 LSB (edges, two stages).
    EXPECT_LE(max_blur_err, 3.0);
    EXPECT_LE(max_edge_err, 4.0);
    // The pooled map is the 2x2 max of the full-size edge map (same channel sum, same scale).
    for (int y = 0; y < h / 2; ++y) {
        for (int x = 0; x < w / 2; ++x) {
            float m = 0;
            for (int dy = 0; dy < 2; ++dy) {
                for (int dx = 0; dx < 2; ++dx) {
                    m = std::max(
                        m, outs[0][static_cast<size_t>(h * w + (2 * y + dy) * w + 2 * x + dx)]);
                }
            }
            ASSERT_NEAR(outs[1][static_cast<size_t>(y * (w / 2) + x)], m, 1.5 / 255)
                << y << "," << x;
        }
    }
}

TEST(DemoModel, SceneIsDeterministicAndHasItsShapes) {
    const sim::Tensor a = sim::test_scene(120, 160), b = sim::test_scene(120, 160);
    EXPECT_TRUE(a == b);
    const size_t plane = 120 * 160;
    // The red disk's centre (x = 0.28 · 160, y = 0.4 · 120) and a green box pixel.
    const size_t disk = 48 * 160 + 45, box = 80 * 160 + 110;
    EXPECT_EQ(a.bytes()[disk], 220);
    EXPECT_EQ(a.bytes()[plane + disk], 40);
    EXPECT_EQ(a.bytes()[plane + box], 170);
}

// An input of the model's element count in another shape would be read in the wrong order: an
// HWC photo for an NCHW model, a flattened image. Refused with the shape it needs; NCHW and CHW
// are the model's shape.
TEST(DemoModel, AnInputOfTheRightSizeButAnotherShapeIsRefused) {
    const DemoModel d = build_demo_model();
    const Kmodel m = parse_kmodel(d.kmodel, "demo.kmodel");
    const sim::Shape want = model_input_shape(m);
    ASSERT_EQ(want.size(), 4u);
    const int64_t c = want[1], h = want[2], w = want[3];
    auto error = [&](const sim::Shape& s) {
        try {
            check_input(m, sim::Tensor(sim::DType::u8, s));
        } catch (const sim::Error& e) {
            return std::string(e.what());
        }
        return std::string("accepted");
    };
    EXPECT_EQ(error(want), "accepted");
    EXPECT_EQ(error({c, h, w}), "accepted");
    const std::string expects =
        fmt::format("the model expects u8 (1, {}, {}, {}) (or ({}, {}, {}))", c, h, w, c, h, w);
    EXPECT_EQ(error({h, w, c}),
              fmt::format("input is ({}, {}, {}) of u8, ", h, w, c) + expects +
                  ": an HWC image needs its channels first (numpy: x.transpose(2, 0, 1))");
    EXPECT_EQ(error({c * h * w}), fmt::format("input is ({},) of u8, ", c * h * w) + expects);
    EXPECT_EQ(error({1, c * h, w}),
              fmt::format("input is (1, {}, {}) of u8, ", c * h, w) + expects);
}

}  // namespace
}  // namespace npu::k210
