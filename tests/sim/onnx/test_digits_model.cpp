// The project's own trained model (platforms/k210/digits, made by scripts/train_digits.py from
// scikit-learn's handwritten digits): our importer and reference evaluator against PyTorch's own
// float outputs for the 297 held-out digits (test_logits.npy, written by the training script).
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "sim/core/npy.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"

namespace npu::test {
namespace {

const std::string kDir = NPUSIM_SOURCE_DIR "/platforms/k210/digits/";

TEST(DigitsModel, EvaluatorMatchesPyTorchOnAllHeldOutDigits) {
    const onnx::Graph g = onnx::import_model(kDir + "digits_cnn.onnx");
    const sim::Tensor images = sim::read_npy(kDir + "test_images.npy");
    const sim::Tensor labels = sim::read_npy(kDir + "test_labels.npy");
    const sim::Tensor torch_logits = sim::read_npy(kDir + "test_logits.npy");
    ASSERT_EQ(images.shape(), (sim::Shape{297, 1, 16, 16}));
    ASSERT_EQ(torch_logits.shape(), (sim::Shape{297, 10}));
    double max_diff = 0;
    int correct = 0, agree = 0;
    for (int64_t i = 0; i < 297; ++i) {
        const float* px = images.data<float>() + i * 256;
        std::map<std::string, onnx::Value> in;
        in["image"] = onnx::Value::floats({1, 1, 16, 16}, std::vector<float>(px, px + 256));
        const std::vector<float> ours = onnx::evaluate(g, in).at("logits").f;
        ASSERT_EQ(ours.size(), 10u);
        const float* theirs = torch_logits.data<float>() + i * 10;
        for (size_t k = 0; k < 10; ++k) {
            max_diff = std::max(max_diff, std::fabs(static_cast<double>(ours[k] - theirs[k])));
        }
        const auto top = std::max_element(ours.begin(), ours.end()) - ours.begin();
        correct += top == labels.data<int32_t>()[i] ? 1 : 0;
        agree += top == std::max_element(theirs, theirs + 10) - theirs ? 1 : 0;
    }
    std::printf("digits: max |ours - PyTorch| = %.3g, accuracy %d/297, top-1 agreement %d/297\n",
                max_diff, correct, agree);
    EXPECT_LT(max_diff, 1e-4);
    EXPECT_EQ(agree, 297);
    EXPECT_EQ(correct, 290);  // the training script's float accuracy, 0.9764
}

}  // namespace
}  // namespace npu::test
