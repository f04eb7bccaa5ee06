// The ONNX -> K210 compiler end to end: our trained digits model (platforms/k210/digits) is
// calibrated on its 64 calibration digits, compiled to a kmodel v3, and the kmodel runs on the
// functional K210 (the same layer code as the timed platform) on the 297 held-out digits.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <random>

#include <gtest/gtest.h>

#include "platforms/k210/compiler/compiler.h"
#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/npy.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"
#include "tests/platforms/k210/compiler/agreement.h"
#include "tests/platforms/k210/compiler/net.h"

namespace npu::test {
namespace {

const std::string kDir = NPUSIM_SOURCE_DIR "/platforms/k210/digits/";

std::map<std::string, onnx::Value> image(const sim::Tensor& images, int64_t i) {
    const float* p = images.data<float>() + i * 256;
    return {{"image", onnx::Value::floats({1, 1, 16, 16}, std::vector<float>(p, p + 256))}};
}

TEST(K210Compiler, DigitsModelOnTheSimulatedKpuKeepsItsAccuracy) {
    const onnx::Graph g = onnx::import_model(kDir + "digits_cnn.onnx");
    const sim::Tensor calib = sim::read_npy(kDir + "calib_images.npy");
    const sim::Tensor images = sim::read_npy(kDir + "test_images.npy");
    const sim::Tensor labels = sim::read_npy(kDir + "test_labels.npy");
    k210::CompileOptions o;
    for (int64_t i = 0; i < calib.dim(0); ++i) {
        o.calibration.push_back(image(calib, i));
    }
    const k210::CompiledModel cm = k210::compile_k210(g, o);
    std::printf("%s", k210::compile_report(cm).c_str());
    // Three KPU layers (conv+bn+relu+maxpool twice, conv1x1+relu+global average pool), then the
    // fully connected layer on the CPU.
    ASSERT_GE(cm.layers.size(), 4u);
    EXPECT_EQ(cm.layers[0].target, "KPU");
    EXPECT_EQ(cm.layers[1].target, "KPU");
    EXPECT_EQ(cm.layers[2].target, "KPU");
    EXPECT_EQ(cm.layers.back().kind, "FULLY_CONNECTED");
    for (const k210::CompiledLayer& l : cm.layers) {
        if (l.target == "KPU") {
            EXPECT_LE(l.act_error_lsb, 1) << l.nodes;
        }
    }
    const k210::Kmodel km = k210::parse_kmodel(cm.kmodel, "digits.kmodel");
    int correct_sim = 0, correct_float = 0, agree = 0;
    for (int64_t i = 0; i < images.dim(0); ++i) {
        sim::Tensor in(sim::DType::u8, {1, 1, 16, 16});
        const float* p = images.data<float>() + i * 256;
        for (int k = 0; k < 256; ++k) {
            in.data<uint8_t>()[k] = cm.input_q.quantize(static_cast<double>(p[k]));
        }
        const k210::FunctionalResult r = k210::run_functional(km, in);
        ASSERT_EQ(r.outputs.size(), 1u);
        ASSERT_EQ(r.outputs[0].numel(), 10u);
        const float* y = r.outputs[0].data<float>();
        const auto top_sim = std::max_element(y, y + 10) - y;
        const std::vector<float> f = onnx::evaluate(g, image(images, i)).at("logits").f;
        const auto top_float = std::max_element(f.begin(), f.end()) - f.begin();
        correct_sim += top_sim == labels.data<int32_t>()[i] ? 1 : 0;
        correct_float += top_float == labels.data<int32_t>()[i] ? 1 : 0;
        agree += top_sim == top_float ? 1 : 0;
    }
    std::printf("digits: float %d/297, simulated K210 %d/297, top-1 agreement %d/297\n",
                correct_float, correct_sim, agree);
    EXPECT_EQ(correct_float, 290);
    EXPECT_GE(correct_sim, 285);  // at most 5 digits lost to uint8 quantization
    EXPECT_GE(agree, 290);
}

}  // namespace
}  // namespace npu::test

namespace npu::test {
namespace {

// Every fusion: BN, LeakyRelu, average pool 2x2; depthwise with Clip (ReLU6) and max pool 4x4;
// a linear 1x1 with a fused 4x4 global average pool (mean 4x4); then Gemm + Relu
// (FULLY_CONNECTED act 1) and Softmax on the CPU.
Net fusion_net() {
    Net n({1, 3, 32, 32});
    n.conv("c1", 3, 8, 3);
    n.bn("bn1", 8);
    Net::set_float(n.node("LeakyRelu", "lr1"), "alpha", 0.1f);
    n.pool("AveragePool", "ap1", 2);  // 16x16
    n.conv("dw", 8, 8, 3, 8);
    n.node("Clip", "relu6", {n.weight("lo", {}, 0, 0), n.weight("hi", {}, 0, 6)});
    n.pool("MaxPool", "mp4", 4);  // 4x4
    n.conv("c3", 8, 16, 1);
    n.node("GlobalAveragePool", "gap");  // fused: mean 4x4
    Net::set_int(n.node("Flatten", "flat"), "axis", 1);
    onnx::Node& fc =
        n.node("Gemm", "fc", {n.weight("fc_w", {10, 16}, 0.5f), n.weight("fc_b", {10}, 0.1f)});
    Net::set_int(fc, "transB", 1);
    n.node("Relu", "fc_relu");
    n.node("Softmax", "sm");
    n.finish();
    return n;
}

TEST(K210Compiler, EveryFusionPathAgreesWithTheFloatModel) {
    Net n = fusion_net();
    const Agreement a = compile_and_compare(n);
    EXPECT_EQ(a.version, 3);
    EXPECT_EQ(a.kinds, (std::vector<std::string>{"KPU conv3x3 + bn + leaky_relu(0.1) + AveragePool",
                                                 "KPU conv3x3 dw + clip(0, 6) + MaxPool",
                                                 "KPU conv1x1 + global_avg_pool", "CPU DEQUANTIZE",
                                                 "CPU FULLY_CONNECTED + relu", "CPU SOFTMAX"}));
    std::printf("fusion net: softmax max |err| %.4f, cosine %.6f\n", a.max_abs, a.cosine);
    EXPECT_GT(a.cosine, 0.999);
    EXPECT_LT(a.max_abs, 0.05);  // probabilities
}

// Stride 2 (pool type 5), a global average pool the KPU cannot fuse (8x8: CPU), and a reshape
// between two KPU layers (the map leaves the KPU and is uploaded again: K210_UPLOAD).
Net fallback_net() {
    Net n({1, 4, 16, 16});
    n.conv("s2", 4, 8, 3, 1, 2);  // 8x8
    n.node("Relu", "r1");
    onnx::Node& rs = n.node("Reshape", "rs", {"shape"});
    n.g.initializers["shape"] = onnx::Value::ints({4}, {1, 8, 8, 8});
    (void)rs;
    n.conv("c2", 8, 8, 3);
    n.node("Relu", "r2");
    n.node("GlobalAveragePool", "gap8");  // 8x8: on the CPU
    Net::set_int(n.node("Flatten", "flat"), "axis", 1);
    onnx::Node& fc =
        n.node("Gemm", "fc", {n.weight("fc_w", {8, 5}, 0.5f), n.weight("fc_b", {5}, 0.1f)});
    (void)fc;
    n.finish();
    return n;
}

TEST(K210Compiler, FallbackPathsAgreeWithTheFloatModel) {
    Net n = fallback_net();
    const Agreement a = compile_and_compare(n);
    EXPECT_EQ(a.kinds, (std::vector<std::string>{
                           "KPU conv3x3 s2 + relu", "CPU K210_UPLOAD", "KPU conv3x3 + relu",
                           "CPU DEQUANTIZE", "CPU GLOBAL_AVERAGE_POOL2D", "CPU FULLY_CONNECTED"}));
    std::printf("fallback net: max |err| %.4f of an output range %.3f, cosine %.6f\n", a.max_abs,
                a.out_range, a.cosine);
    EXPECT_GT(a.cosine, 0.999);
    EXPECT_LT(a.max_abs, 0.03 * a.out_range);
}

// Branches: a residual block (the Add on the CPU, its Relu as the clamp of the QUANTIZE that
// takes the sum back to uint8, then K210_UPLOAD for the next KPU layer), and a channel Concat
// of a KPU layer's output with a layer that reads it too.
Net branch_net() {
    Net n({1, 3, 16, 16});
    n.conv("c1", 3, 8, 3);
    n.node("Relu", "r1");
    const std::string t1 = n.last;
    n.conv("c2", 8, 8, 3);
    n.bn("bn2", 8);
    n.node("Add", "add", {t1});
    n.node("Relu", "r3");
    n.conv("c3", 8, 4, 1);
    n.node("Relu", "r4");
    const std::string t4 = n.last;
    n.conv("c4", 4, 4, 3);
    onnx::Node& cat = n.node("Concat", "cat", {});
    cat.inputs = {t4, "c4_out"};
    Net::set_int(cat, "axis", 1);
    n.node("GlobalAveragePool", "gap");  // 16x16: on the CPU
    Net::set_int(n.node("Flatten", "flat"), "axis", 1);
    onnx::Node& fc =
        n.node("Gemm", "fc", {n.weight("fc_w", {8, 3}, 0.5f), n.weight("fc_b", {3}, 0.1f)});
    (void)fc;
    n.finish();
    return n;
}

TEST(K210Compiler, ResidualAndConcatBranchesAgreeWithTheFloatModel) {
    Net n = branch_net();
    const Agreement a = compile_and_compare(n);
    EXPECT_EQ(a.kinds, (std::vector<std::string>{
                           "KPU conv3x3 + relu", "KPU conv3x3 + bn", "CPU DEQUANTIZE",
                           "CPU DEQUANTIZE", "CPU ADD", "CPU QUANTIZE (= relu)", "CPU K210_UPLOAD",
                           "KPU conv1x1 + relu", "KPU conv3x3", "CPU DEQUANTIZE", "CPU DEQUANTIZE",
                           "CPU CONCAT", "CPU GLOBAL_AVERAGE_POOL2D", "CPU FULLY_CONNECTED"}));
    std::printf("branch net: max |err| %.4f of an output range %.3f, cosine %.6f\n", a.max_abs,
                a.out_range, a.cosine);
    EXPECT_GT(a.cosine, 0.999);
    EXPECT_LT(a.max_abs, 0.03 * a.out_range);
}

// A detector head as older PyTorch exports write x.view(x.size(0), -1, 4): the Reshape's shape
// comes from Shape -> Gather -> Unsqueeze -> Concat of the feature map itself. The chain folds
// at compile time (the map's calibrated shape is static): no layer of its own.
TEST(K210Compiler, ShapeGatherConcatHeadChainsFoldAway) {
    Net n({1, 3, 16, 16});
    n.conv("c", 3, 8, 3);
    const std::string feat = n.last;  // 1x8x16x16
    n.g.initializers["idx0"] = onnx::Value::ints({}, {0});
    n.g.initializers["axes0"] = onnx::Value::ints({1}, {0});
    n.g.initializers["rest"] = onnx::Value::ints({2}, {-1, 4});
    n.node("Shape", "shape");
    n.node("Gather", "batch", {"idx0"});
    n.node("Unsqueeze", "batch1", {"axes0"});
    Net::set_int(n.node("Concat", "dims", {"rest"}), "axis", 0);
    const std::string dims = n.last;
    n.last = feat;
    n.node("Reshape", "head", {dims});  // 1 x 512 x 4
    n.finish();
    const Agreement a = compile_and_compare(n);
    for (const std::string& k : a.kinds) {
        EXPECT_EQ(k.find("Shape"), std::string::npos) << k;
        EXPECT_EQ(k.find("Gather"), std::string::npos) << k;
    }
    std::printf("folded head chain: layers %zu, cosine %.6f\n", a.kinds.size(), a.cosine);
    EXPECT_GT(a.cosine, 0.999);
}

TEST(K210Compiler, ConvolutionsTheKpuCannotRunMakeAKmodelV4ThatAgrees) {
    Net n = cpu_conv_net();
    const Agreement a = compile_and_compare(n);
    EXPECT_EQ(a.version, 4);
    EXPECT_EQ(a.kinds, (std::vector<std::string>{
                           "CPU dequantize", "CPU conv5x5 (float) + bn + relu", "CPU quantize",
                           "CPU kpu_upload", "KPU conv3x3 + relu + MaxPool", "CPU dequantize",
                           "CPU conv3x3 (float) + clip(0, 6)", "CPU reduce_window2d max 3x3",
                           "CPU quantize", "CPU kpu_upload", "KPU conv3x3 + relu + AveragePool",
                           "CPU dequantize", "CPU conv3x3 (float) + relu",
                           "CPU reduce_window2d mean 2x2", "CPU matmul", "CPU softmax"}));
    std::printf("cpu conv net (v4): softmax max |err| %.4f, cosine %.6f\n", a.max_abs, a.cosine);
    EXPECT_GT(a.cosine, 0.999);
    EXPECT_LT(a.max_abs, 0.05);  // probabilities
}

// The three v3 networks compiled as kmodel v4 (every layer kind through nncase v0.2's nodes)
// agree with the float model as closely.
// A model exported by PyTorch (scripts/export_fallback_cnn.py) with layers the KPU cannot run:
// its Constant nodes (Clip bounds) fold into constants, its Pad of zeros before AveragePool
// passes through so the pool fuses, and the result is a kmodel v4 whose logits agree with the
// float model on 16 random images (calibrated on 16 others).
TEST(K210Compiler, PyTorchExportWithCpuLayersCompilesAndAgrees) {
    const onnx::Graph g = onnx::import_model(
        NPUSIM_SOURCE_DIR "/tests/platforms/k210/compiler/data/fallback_cnn.onnx");
    std::mt19937 rng(11);
    std::uniform_real_distribution<float> u(0, 1);
    auto sample = [&] {
        std::vector<float> x(3 * 32 * 32);
        for (float& e : x) {
            e = u(rng);
        }
        return onnx::Value::floats({1, 3, 32, 32}, x);
    };
    k210::CompileOptions o;
    for (int i = 0; i < 16; ++i) {
        o.calibration.push_back({{"image", sample()}});
    }
    const k210::CompiledModel cm = k210::compile_k210(g, o);
    EXPECT_EQ(cm.kmodel_version, 4);
    std::vector<std::string> kinds;
    for (const k210::CompiledLayer& l : cm.layers) {
        kinds.push_back(l.target + " " + l.kind);
    }
    EXPECT_EQ(kinds, (std::vector<std::string>{
                         "CPU dequantize", "CPU conv5x5 (float) + relu", "CPU quantize",
                         "CPU kpu_upload", "KPU conv3x3 + relu + MaxPool", "CPU dequantize",
                         "CPU conv3x3 (float) + clip(0, 6)", "CPU reduce_window2d max 3x3",
                         "CPU quantize", "CPU kpu_upload", "KPU conv3x3 + relu + AveragePool",
                         "KPU conv3x3 + relu + global_avg_pool", "CPU dequantize", "CPU matmul"}));
    const k210::Kmodel km = k210::parse_kmodel(cm.kmodel, "m.kmodel");
    double dot = 0, ss = 0, rr = 0;
    int agree = 0;
    for (int i = 0; i < 16; ++i) {
        const onnx::Value x = sample();
        const std::vector<float> ref = onnx::evaluate(g, {{"image", x}}).at("logits").f;
        sim::Tensor in(sim::DType::u8, {1, 3, 32, 32});
        for (size_t k = 0; k < in.numel(); ++k) {
            in.data<uint8_t>()[k] = cm.input_q.quantize(x.f[k]);
        }
        const sim::Tensor out = k210::run_functional(km, in).outputs.at(0);
        const float* y = out.data<float>();
        for (size_t k = 0; k < ref.size(); ++k) {
            const double ys = y[k], rs = ref[k];
            dot += ys * rs, ss += ys * ys, rr += rs * rs;
        }
        agree += std::max_element(y, y + 10) - y ==
                         std::max_element(ref.begin(), ref.end()) - ref.begin()
                     ? 1
                     : 0;
    }
    const double cosine = dot / std::sqrt(ss * rr);
    std::printf("PyTorch fallback CNN (v4): logits cosine %.7f, top-1 agreement %d/16\n", cosine,
                agree);
    EXPECT_GT(cosine, 0.9999);
    EXPECT_GE(agree, 15);
}

// A two-output, two-scale detector exported by PyTorch (scripts/export_detector.py): each head's
// 1x1 convolution on the KPU, then on the CPU the NHWC transpose, the concatenation of the two
// scales and the per-anchor softmax, as nncase would emit them. The graph's outputs become the
// kmodel's, in order: scores (1, 240, 2) and boxes (1, 240, 4), each agreeing with the float
// model (cosine >= 0.999) on 16 random images (calibrated on 16 others). Forced to v3 it is one
// clear error: the SDK's SOFTMAX takes a single vector.
TEST(K210Compiler, PyTorchDetectorWithTwoOutputsCompilesAndAgrees) {
    const onnx::Graph g =
        onnx::import_model(NPUSIM_SOURCE_DIR "/tests/platforms/k210/compiler/data/detector.onnx");
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(0, 1);
    auto sample = [&] {
        std::vector<float> x(3 * 32 * 32);
        for (float& e : x) {
            e = u(rng);
        }
        return onnx::Value::floats({1, 3, 32, 32}, x);
    };
    k210::CompileOptions o;
    for (int i = 0; i < 16; ++i) {
        o.calibration.push_back({{"image", sample()}});
    }
    const k210::CompiledModel cm = k210::compile_k210(g, o);
    EXPECT_EQ(cm.kmodel_version, 4);
    EXPECT_EQ(cm.output_names, (std::vector<std::string>{"scores", "boxes"}));
    const k210::Kmodel km = k210::parse_kmodel(cm.kmodel, "det.kmodel");
    ASSERT_EQ(km.outputs.size(), 2u);
    EXPECT_EQ(km.outputs[0].range.size, 240u * 2 * 4);
    EXPECT_EQ(km.outputs[1].range.size, 240u * 4 * 4);
    size_t transposes = 0;
    for (const k210::CompiledLayer& l : cm.layers) {
        transposes += l.kind == "transpose" ? 1u : 0u;
    }
    EXPECT_EQ(transposes, 4u);
    double dot[2] = {}, ss[2] = {}, rr[2] = {};
    for (int i = 0; i < 16; ++i) {
        const onnx::Value x = sample();
        const auto ref = onnx::evaluate(g, {{"image", x}});
        sim::Tensor in(sim::DType::u8, {1, 3, 32, 32});
        for (size_t k = 0; k < in.numel(); ++k) {
            in.data<uint8_t>()[k] = cm.input_q.quantize(x.f[k]);
        }
        const k210::FunctionalResult r = k210::run_functional(km, in);
        for (size_t o2 = 0; o2 < 2; ++o2) {
            const std::vector<float>& y = ref.at(cm.output_names[o2]).f;
            ASSERT_EQ(r.outputs[o2].numel(), y.size());
            for (size_t k = 0; k < y.size(); ++k) {
                const double a = r.outputs[o2].data<float>()[k], b = y[k];
                dot[o2] += a * b, ss[o2] += a * a, rr[o2] += b * b;
            }
        }
    }
    for (size_t o2 = 0; o2 < 2; ++o2) {
        const double cosine = dot[o2] / std::sqrt(ss[o2] * rr[o2]);
        std::printf("detector output %zu: cosine %.7f\n", o2, cosine);
        EXPECT_GT(cosine, 0.999) << cm.output_names[o2];
    }
    o.kmodel_version = 3;
    try {
        k210::compile_k210(g, o);
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_NE(std::string(e.what()).find("takes 240 softmaxes of 2 (the SDK's SOFTMAX takes "
                                             "one vector)"),
                  std::string::npos)
            << e.what();
    }
}

// The v4 float nodes our compiler writes (conv2d, reduce_window2d, matmul, softmax, quantize,
// dequantize, kpu_upload, kpu_conv2d), mutated byte by byte inside their bodies: every run gives
// outputs or one sim::Error naming the model (ASan checks the memory in CI).
TEST(K210Compiler, MutatedKmodelV4NodesRunOrFailCleanly) {
    Net n = cpu_conv_net();
    k210::CompileOptions o;
    o.calibration = n.samples(4);
    const k210::CompiledModel cm = k210::compile_k210(n.g, o);
    const k210::Kmodel clean = k210::parse_kmodel(cm.kmodel, "m");
    const size_t bodies = clean.layers.front().body_offset;
    sim::Tensor in(sim::DType::u8, {1, 3, 16, 16});
    std::mt19937 rng(13);
    for (size_t i = 0; i < in.numel(); ++i) {
        in.data<uint8_t>()[i] = static_cast<uint8_t>(rng());
    }
    int ran = 0, errors = 0;
    for (int t = 0; t < 400; ++t) {
        std::vector<uint8_t> b = cm.kmodel;
        for (int e = 0; e < 1 + t % 3; ++e) {
            const size_t pos = bodies + rng() % (b.size() - bodies);
            b[pos] = t % 2 == 0 ? static_cast<uint8_t>(rng())
                                : static_cast<uint8_t>(b[pos] ^ (1u << (rng() % 8)));
        }
        k210::Kmodel m;
        try {
            m = k210::parse_kmodel(b, "m");
        } catch (const sim::Error&) {
            continue;
        }
        try {
            k210::run_functional(m, in);
            ++ran;
        } catch (const sim::Error& e) {
            EXPECT_EQ(std::string(e.what()).rfind("m: ", 0), 0u) << e.what();
            ++errors;
        }
    }
    std::printf("mutated v4 models: %d ran, %d refused\n", ran, errors);
    EXPECT_GT(ran, 100);
    EXPECT_GT(errors, 20);
}

TEST(K210Compiler, TheV3NetworksAsKmodelV4AgreeToo) {
    for (Net (*make)() : {fusion_net, fallback_net, branch_net}) {
        Net n = make();
        const Agreement a3 = compile_and_compare(n, 3);
        Net n4 = make();
        const Agreement a4 = compile_and_compare(n4, 4);
        EXPECT_EQ(a3.version, 3);
        EXPECT_EQ(a4.version, 4);
        std::printf("v3 cosine %.6f max |err| %.4f; v4 cosine %.6f max |err| %.4f\n", a3.cosine,
                    a3.max_abs, a4.cosine, a4.max_abs);
        EXPECT_GT(a4.cosine, 0.999);
        EXPECT_LT(a4.max_abs, 0.03 * a4.out_range + 0.0);
    }
}

TEST(K210Compiler, BadInputsAreOneExactError) {
    {
        Net n({1, 3, 16, 16});
        n.conv("c5", 3, 4, 5);
        n.finish();
        EXPECT_EQ(compile_error(n, 2, 3),
                  "m.onnx: Conv 'c5' cannot run on the KPU (kernel 5x5 (the KPU has 1x1 and "
                  "3x3)): it needs a CPU convolution, which kmodel v3 does not have; compile for "
                  "kmodel v4 instead");
    }
    {
        Net n({1, 3, 240, 320});
        n.conv("big", 3, 64, 3);
        n.finish();
        EXPECT_EQ(compile_error(n, 1),
                  "m.onnx: the output of Conv 'big' (tensor 'big_out') needs 76800 64-byte lines "
                  "of KPU RAM at layer 0; 3600 of the 32768 lines are held by tensors still to "
                  "be read (x), the largest free block has 29168: the model does not fit the 2 "
                  "MiB KPU RAM");
    }
    {  // an unnamed node (as PyTorch exports many) is named by the tensor it writes
        Net n({1, 3, 240, 320});
        n.conv("big", 3, 64, 3).name.clear();
        n.finish();
        EXPECT_EQ(compile_error(n, 1),
                  "m.onnx: the output of Conv (output 'big_out') needs 76800 64-byte lines of KPU "
                  "RAM at layer 0; 3600 of the 32768 lines are held by tensors still to be read "
                  "(x), the largest free block has 29168: the model does not fit the 2 MiB KPU "
                  "RAM");
    }
    {
        Net n({1, 3, 16, 16});
        n.conv("c", 3, 4, 3);
        n.finish();
        EXPECT_EQ(compile_error(n, 0),
                  "m.onnx: the calibration set is empty (give at least one input sample)");
    }
    {
        // Found by fuzz_onnx_compile (UBSan: NaN converted to uint8 while quantizing weights).
        Net n({1, 3, 16, 16});
        n.conv("c", 3, 4, 3);
        n.g.initializers.at("c_w").f[5] = std::numeric_limits<float>::quiet_NaN();
        n.finish();
        EXPECT_EQ(compile_error(n),
                  "m.onnx: Conv 'c': its weights (BatchNormalization folded in) hold nan at 5: "
                  "the KPU quantizes finite values only");
    }
    {
        Net n({1, 3, 16, 16});
        n.conv("c", 3, 4, 3);
        n.node("Erf", "erf");
        n.finish();
        EXPECT_EQ(
            compile_error(n),
            "m.onnx: Erf 'erf': Erf has no K210 mapping in this compiler (mapped: Conv, "
            "Flatten, Reshape, Squeeze, Unsqueeze, Identity, Dropout, MaxPool, AveragePool, "
            "GlobalMaxPool, GlobalAveragePool, Gemm, Softmax, Concat, Transpose, Slice, "
            "Split, Resize, Upsample, Pad, ReduceMean, ReduceMax, ReduceMin, ReduceSum, Add, "
            "Sub, Mul, Div, Min, Max, Exp, Log, Neg, Abs, Floor, Ceil, Cos, Sin, Relu, Clip, "
            "LeakyRelu, Sigmoid, Tanh, HardSigmoid, HardSwish, Reciprocal, Softplus, Elu, PRelu; "
            "fused into a KPU Conv: BatchNormalization, Relu, LeakyRelu, Clip and "
            "2x2/4x4/global pooling)");
    }
}

}  // namespace
}  // namespace npu::test

namespace npu::test {
namespace {

// Seeded byte mutations of the digits model: whatever imports is compiled (calibrated on 2
// digits); the result is a kmodel that runs, or one sim::Error, never a crash or another
// exception (also run with 6000 mutations under two other seeds: clean).
TEST(K210Compiler, MutatedModelsCompileOrFailCleanly) {
    const std::vector<uint8_t> model = sim::read_file(kDir + "digits_cnn.onnx");
    const sim::Tensor calib = sim::read_npy(kDir + "calib_images.npy");
    std::mt19937 rng(5);
    int compiled = 0, refused = 0;
    for (int t = 0; t < 300; ++t) {
        std::vector<uint8_t> b = model;
        for (int e = 0; e < 1 + t % 3; ++e) {
            b[rng() % b.size()] = static_cast<uint8_t>(rng());
        }
        try {
            onnx::ImportOptions io;
            io.supported_ops = onnx::supported_ops();
            const onnx::Graph g = onnx::import_model_bytes(b, "m.onnx", io);
            k210::CompileOptions o;
            for (int64_t i = 0; i < 2; ++i) {
                o.calibration.push_back(image(calib, i));
                if (!g.inputs.empty()) {  // the input may have been renamed by the mutation
                    o.calibration.back() = {{g.inputs[0].name, o.calibration.back().at("image")}};
                }
            }
            const k210::CompiledModel cm = k210::compile_k210(g, o);
            const k210::Kmodel km = k210::parse_kmodel(cm.kmodel, "m.kmodel");
            sim::Tensor in(sim::DType::u8, {1, 1, 16, 16});
            k210::run_functional(km, in);
            ++compiled;
        } catch (const sim::Error&) {
            ++refused;
        }
    }
    std::printf("mutated digits models: %d compiled and ran, %d refused\n", compiled, refused);
    EXPECT_GT(compiled, 20);
    EXPECT_GT(refused, 20);
}

}  // namespace
}  // namespace npu::test
