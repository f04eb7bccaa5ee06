// ONNX networks on the DL processor: the compact CNN of dlhdl_published_figures.md §1 built as
// MATLAB's exportONNXNetwork writes it (the z-score normalization as Sub and Div at the input,
// Conv + BatchNormalization + Relu, MaxPool, GlobalAveragePool, Flatten + Gemm, Softmax) imports to
// the same layers, rows and cycles as its network file; a PyTorch-style residual network (no
// normalization in the graph: --mean/--std; unfused BatchNormalization, Clip 0..6, LeakyRelu,
// AveragePool with padding, MatMul + Add, Add) runs on the timed platform with outputs within
// float rounding of the ONNX reference evaluator; what the processor cannot run is one message
// naming the node.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>

#include "models/dlp/dlp_chain.h"
#include "models/dlp/dlp_exec.h"
#include "platforms/dlp/dlp_estimate.h"
#include "platforms/dlp/dlp_onnx.h"
#include "platforms/dlp/dlp_platform.h"
#include "platforms/dlp/dlp_quantize.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/image.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"
#include "tests/fuzz/fuzz_dlp_onnx.h"
#include "tests/platforms/dlp/dlhdl_onnx_models.h"
#include "tests/platforms/dlp/dlp_platform_config.h"
#include "tests/platforms/dlp/dlp_timed_run.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

using namespace dlp;

TEST(DlpOnnx, TheCompactCnnExportedAsMatlabDoesIsTheNetworkOfItsFigure) {
    const DlpPlatformConfig cfg = platform("dlp_zcu102_single.yaml");
    const NetworkFile f =
        network_from_onnx(onnx::import_model_bytes(compact_cnn(), "cnn.onnx"), "cnn.onnx", cfg);
    const NetworkFile yaml =
        load_network(NPUSIM_SOURCE_DIR "/configs/networks/dlhdl_compact_cnn.yaml", cfg);
    ASSERT_EQ(f.network.layers.size(), yaml.network.layers.size());
    const Program p = compile(f.network, cfg.dlp), py = compile(yaml.network, cfg.dlp);
    const NetworkEstimate e = estimate(f.network, p, cfg.dlp, cfg.timing);
    const NetworkEstimate ey = estimate(yaml.network, py, cfg.dlp, cfg.timing);
    for (size_t i = 0; i < e.layers.size(); ++i) {
        EXPECT_EQ(module_name(f.network.layers[i].kind), module_name(yaml.network.layers[i].kind));
        EXPECT_EQ(e.layers[i].cost.total_cycles, ey.layers[i].cost.total_cycles) << i;
    }
    EXPECT_EQ(f.network.layers[0].name, "imageinput_norm_add");
    EXPECT_EQ(f.network.layers[0].constant, std::vector<float>{-0.5f});
    EXPECT_EQ(f.network.layers[1].constant, std::vector<float>{4.0f});
    EXPECT_EQ(f.network.layers[2].name, "conv_1");
    EXPECT_EQ(f.network.layers[2].conv.activation, Activation::relu);
    EXPECT_EQ(f.network.layers[2].onnx_tensor, "conv_1_relu");  // BN and ReLU fused
    ASSERT_EQ(f.network.software.size(), 1u);                   // softmax on the host
    EXPECT_EQ(f.network.software[0].op, "softmax");
    EXPECT_LE(std::fabs(static_cast<double>(e.frame_cycles) - 90629) / 90629, 0.10);
}

// A PyTorch-style residual block: conv (BN) + Clip(0, 6), conv + LeakyRelu, their Add + Relu,
// AveragePool 3x3/1 padding 1, GAP, MatMul + Add.
std::vector<uint8_t> residual_net() {
    OnnxGraphBuilder b("residual", "input", {1, 3, 16, 16}, 13, 9);
    const std::string a = conv_bn_relu(b, "input", "c1", 3, 8);
    auto* c2 = b.node("Conv", {a, b.random("c2_W", {8, 8, 3, 3}, -0.3f, 0.3f)}, "c2");
    OnnxGraphBuilder::set(c2, "pads", std::vector<int64_t>{1, 1, 1, 1});
    b.node("Clip", {"c2", b.constant("zero", {}, {0.0f}), b.constant("six", {}, {6.0f})},
           "c2_clip");
    auto* c3 = b.node("Conv", {"c2_clip", b.random("c3_W", {8, 8, 1, 1}, -0.5f, 0.5f)}, "c3");
    (void)c3;
    auto* lr = b.node("LeakyRelu", {"c3"}, "c3_leaky");
    OnnxGraphBuilder::set(lr, "alpha", 0.1f);
    b.node("Add", {a, "c3_leaky"}, "res");
    b.node("Relu", {"res"}, "res_relu");
    auto* ap = b.node("AveragePool", {"res_relu"}, "avg");
    OnnxGraphBuilder::set(ap, "kernel_shape", std::vector<int64_t>{3, 3});
    OnnxGraphBuilder::set(ap, "pads", std::vector<int64_t>{1, 1, 1, 1});
    b.node("GlobalAveragePool", {"avg"}, "gap");
    b.node("Reshape", {"gap", "shape"}, "flat");
    ::onnx::TensorProto* s = nullptr;
    (void)s;
    b.node("MatMul", {"flat", b.random("fc_W", {8, 5}, -0.5f, 0.5f)}, "mm");
    b.node("Add", {"mm", b.random("fc_B", {5}, -0.1f, 0.1f)}, "logits");
    return b.bytes("logits", {1, 5});
}

class DlpOnnxRun : public ScTest {};

TEST_F(DlpOnnxRun, APyTorchStyleResidualNetEqualsTheOnnxReferenceOnTheTimedPlatform) {
    // Reshape's shape as an int64 initializer: the builder writes floats, so patch it in.
    std::vector<uint8_t> bytes = residual_net();
    ::onnx::ModelProto m;
    ASSERT_TRUE(m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
    ::onnx::TensorProto* shape = m.mutable_graph()->add_initializer();
    shape->set_name("shape");
    shape->set_data_type(::onnx::TensorProto::INT64);
    shape->add_dims(2);
    shape->add_int64_data(1), shape->add_int64_data(-1);
    std::string s;
    m.SerializeToString(&s);
    bytes.assign(s.begin(), s.end());
    const onnx::Graph g = onnx::import_model_bytes(bytes, "res.onnx");
    const DlpPlatformConfig cfg = platform("dlp_zcu102_single.yaml");
    OnnxNetworkOptions o;
    o.mean = {0.1f, 0.2f, 0.3f}, o.std = {0.5f, 0.5f, 0.25f};
    const NetworkFile f = network_from_onnx(g, "res.onnx", cfg, o);
    ASSERT_EQ(f.network.layers.size(), 2u + 3 + 1 + 2 + 1);  // norm 2, convs 3, add, pools 2, fc
    CompileOptions co;
    co.ddr_base_addr = cfg.ddr_base_addr;
    const Program p = compile(f.network, cfg.dlp, co);
    std::mt19937 rng(2);
    std::vector<float> x(3 * 16 * 16);
    for (float& v : x) {
        v = std::uniform_real_distribution<float>(0, 1)(rng);
    }
    DlpPlatform soc("soc", cfg);
    soc.load(p, {format_activation(x, f.network.input, cfg.dlp)}, false);
    sc_core::sc_start();
    ASSERT_TRUE(soc.result().done) << soc.result().error;
    const std::vector<float> got =
        read_activation_single(soc.result().outputs[0].data(), {5, 1, 1}, cfg.dlp, true);
    // The reference: the ONNX graph on the normalized input.
    std::vector<float> xn(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        const size_t c = i / 256;
        xn[i] = (x[i] - o.mean[c]) / o.std[c];
    }
    const auto ref = onnx::evaluate(g, {{"input", onnx::Value::floats({1, 3, 16, 16}, xn)}});
    const std::vector<float>& want = ref.at("logits").f;
    ASSERT_EQ(got.size(), want.size());
    for (size_t i = 0; i < got.size(); ++i) {
        EXPECT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(static_cast<double>(want[i])))) << i;
    }
    EXPECT_NE(got[0], got[1]);  // a meaningful comparison
}

// A photo as torchvision feeds ResNet-18: resized to size x size (OpenCV's INTER_LINEAR), RGB
// in 0..1, normalized by ImageNet's mean and std; CHW.
std::vector<float> imagenet_input(const sim::Tensor& rgb, int64_t size) {
    const sim::Tensor r = sim::resize_linear(rgb, size, size);
    const float mean[] = {0.485f, 0.456f, 0.406f}, std[] = {0.229f, 0.224f, 0.225f};
    std::vector<float> x(r.numel());
    for (size_t i = 0; i < x.size(); ++i) {
        const size_t c = i / static_cast<size_t>(size * size);
        x[i] = (r.data<uint8_t>()[i] / 255.0f - mean[c]) / std[c];
    }
    return x;
}

double cosine(const std::vector<float>& a, const std::vector<float>& b) {
    double dot = 0, aa = 0, bb = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const auto x = static_cast<double>(a[i]), y = static_cast<double>(b[i]);
        dot += x * y, aa += x * x, bb += y * y;
    }
    return dot / std::sqrt(aa * bb);
}

// ResNet-18 (torchvision's topology, seeded weights, BatchNormalization unfused) at 224x224 on the
// default int8 bitstream: calibrated on a photo and the synthetic scene, run through the SystemC
// model on another photo — its early layers exceed the conv module's 227x227x3 memories and run
// in tiles — every layer's time equal to the estimate, the output within cosine 0.99 of the ONNX
// reference's.
TEST_F(DlpOnnxRun, ResNet18At224RunsInt8InTilesAsEstimatedCloseToTheOnnxReference) {
    const std::string shared = NPUSIM_SOURCE_DIR "/../shared/k210/";
    if (!std::filesystem::exists(shared + "coco_436551.jpg")) {
        GTEST_SKIP() << "../shared/k210 (photos) is absent";
    }
    const onnx::Graph g = onnx::import_model_bytes(resnet18(224), "resnet18.onnx");
    const DlpPlatformConfig cfg = platform("dlp_zcu102_int8.yaml");
    NetworkFile f = network_from_onnx(g, "resnet18.onnx", cfg);
    ASSERT_EQ(f.network.layers.size(), 31u);  // conv1, pool, 16 + 3 convs, 8 adds, gap, fc
    quantize_network(f.network, {imagenet_input(sim::read_image(shared + "astronaut.png"), 224),
                                 imagenet_input(sim::test_scene(240, 320), 224)});
    const Network& n = f.network;
    const std::vector<float> x = imagenet_input(sim::read_image(shared + "coco_436551.jpg"), 224);
    std::vector<int8_t> q(x.size());
    for (size_t i = 0; i < x.size(); ++i) {
        q[i] = static_cast<int8_t>(
            std::clamp(std::round(std::ldexp(x[i], -n.input_exp)), -128.0f, 127.0f));
    }
    DlpPlatform soc("soc", cfg);
    const Program p = run_int8_frame(soc, n, cfg, q);
    ASSERT_TRUE(soc.result().done);
    const NetworkEstimate e = estimate(n, p, cfg.dlp, cfg.timing);
    for (const LayerRun& run : soc.dlp.runs()) {
        EXPECT_EQ(run.cost.total_cycles, e.layers[run.layer].cost.total_cycles) << run.layer;
    }
    EXPECT_GT(e.layers[0].cost.tiles, 1u);  // conv1: 112x112x64 outputs in tiles
    const std::vector<int8_t> y =
        read_activation_int8(soc.result().outputs[0].data(), {1000, 1, 1}, cfg.dlp, true);
    EXPECT_EQ(y, run_chain_int8(n, q).back());  // the timed model's values are the chain's
    std::vector<float> got;
    for (int8_t v : y) {
        got.push_back(static_cast<float>(std::ldexp(v, n.layers.back().quant.out_exp)));
    }
    const auto ref = onnx::evaluate(g, {{"input", onnx::Value::floats({1, 3, 224, 224}, x)}});
    const double cos = cosine(got, ref.at("fc").f);
    EXPECT_GE(cos, 0.99);
    std::printf("ResNet-18 224x224 int8: %llu cycles (%.3f ms at 200 MHz), output cosine %.5f\n",
                static_cast<unsigned long long>(e.frame_cycles),
                static_cast<double>(e.frame_cycles) / 200e3, cos);
}

TEST(DlpOnnx, WhatTheProcessorCannotRunIsOneMessageNamingTheNode) {
    {
        OnnxGraphBuilder b("g", "x", {1, 2, 8, 8});
        auto* c = b.node("Conv", {"x", b.random("w", {2, 2, 3, 3}, -1, 1)}, "dil");
        OnnxGraphBuilder::set(c, "dilations", std::vector<int64_t>{2, 2});
        EXPECT_EQ(onnx_error_of(b.bytes("dil", {1, 2, 4, 4})),
                  "m.onnx: Conv 'dil': dilation other than 1: the DL processor's conv module has "
                  "none");
    }
    {
        OnnxGraphBuilder b("g", "x", {1, 2, 8, 8});
        b.node("Conv", {"x", b.random("w1", {2, 2, 1, 1}, -1, 1)}, "r");
        b.node("Conv", {"x", b.random("w2", {2, 2, 1, 1}, -1, 1)}, "s");
        OnnxGraphBuilder::set(b.node("Concat", {"r", "s"}, "cat"), "axis", int64_t{1});
        const std::string e = onnx_error_of(b.bytes("cat", {1, 4, 8, 8}));
        EXPECT_NE(e.find("Concat 'cat': input 'r' has 2 channels"), std::string::npos) << e;
    }
    {
        OnnxGraphBuilder b("g", "x", {1, 2, 4, 4});
        b.node("Sigmoid", {"x"}, "s");
        b.node("Conv", {"s", b.random("w", {2, 2, 1, 1}, -1, 1)}, "c");
        EXPECT_NE(onnx_error_of(b.bytes("c", {1, 2, 4, 4}))
                      .find("Sigmoid 's': dlhdl runs it in software"),
                  std::string::npos);
    }
}

// The libFuzzer target's entry point (tests/fuzz/fuzz_dlp_onnx.h) on seeded mutations of the
// compact CNN: every one a result or one sim::Error.
TEST(DlpOnnx, MutatedModelsImportOrFailCleanly) {
    const std::vector<uint8_t> model = compact_cnn();
    const DlpPlatformConfig single = platform("dlp_zcu102_single.yaml");
    const DlpPlatformConfig int8 = platform("dlp_zcu102_int8.yaml");
    std::mt19937 rng(11);
    int ran = 0, refused = 0;
    for (int t = 0; t < 200; ++t) {
        std::vector<uint8_t> b = model;
        for (int e = 0; e < 1 + t % 3; ++e) {
            b[rng() % b.size()] = static_cast<uint8_t>(rng());
        }
        const int r = fuzz::dlp_onnx_run(b.data(), b.size(), single, int8);
        ran += r == 2 ? 1 : 0;
        refused += r < 2 ? 1 : 0;
    }
    EXPECT_GT(ran, 0);      // mutations of weights still run
    EXPECT_GT(refused, 0);  // and of structure are refused
}

}  // namespace
}  // namespace npu::test
