// The ONNX -> K210 compiler end to end: our trained digits model (platforms/k210/digits) is
// calibrated on its 64 calibration digits, compiled to a kmodel v3, and the kmodel runs on the
// functional K210 (the same layer code as the timed platform) on the 297 held-out digits.
#include <algorithm>
#include <cstdio>

#include <gtest/gtest.h>

#include "platforms/k210/compiler.h"
#include "platforms/k210/functional.h"
#include "platforms/k210/kmodel.h"
#include "sim/core/npy.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"

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
