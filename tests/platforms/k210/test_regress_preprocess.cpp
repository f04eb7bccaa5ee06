// npusim regress on a kmodel without a compile report: the ONNX input made from the kmodel's
// raw input, worked by hand.
#include <gtest/gtest.h>

#include "platforms/k210/regress_common.h"
#include "sim/core/error.h"

namespace npu::k210 {
namespace {

// raw (1, 3, 1, 2): channels {1, 2}, {3, 4}, {5, 6}. bgr, scale 2, mean (1, 2, 3), std (1, 1, 2):
// ONNX channel 0 from raw channel 2: 5·2 − 1 = 9, 6·2 − 1 = 11; channel 1: 3·2 − 2 = 4, 6;
// channel 2 from raw channel 0: (1·2 − 3) / 2 = −0.5, 0.5. NHWC: pixel by pixel.
TEST(RegressPreprocess, BgrNhwcWithMeanStdAndScale) {
    const onnx::Value raw = onnx::Value::floats({1, 3, 1, 2}, {1, 2, 3, 4, 5, 6});
    platform::Preprocessing p;
    p.mean = {1, 2, 3};
    p.std = {1, 1, 2};
    p.scale = 2;
    p.channel_order = "bgr";
    p.layout = "nhwc";
    const onnx::Value x = regress::onnx_input(raw, p, {"in", 1, {-1, 1, 2, 3}});
    EXPECT_EQ(x.shape, (std::vector<int64_t>{1, 1, 2, 3}));
    EXPECT_EQ(x.f, (std::vector<float>{9, 4, -0.5f, 11, 6, 0.5f}));
    // The defaults: rgb, nchw, no mean, std 1, scale 1 leave the raw values as they are.
    const onnx::Value same = regress::onnx_input(raw, {}, {"in", 1, {1, 3, 1, 2}});
    EXPECT_EQ(same.f, raw.f);
}

TEST(RegressPreprocess, ListsOfTheWrongLengthAndOtherSizesAreClearErrors) {
    const onnx::Value raw = onnx::Value::floats({1, 3, 1, 2}, {1, 2, 3, 4, 5, 6});
    platform::Preprocessing p;
    p.mean = {1, 2};
    try {
        regress::onnx_input(raw, p, {"in", 1, {1, 3, 1, 2}});
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(), "preprocessing mean: 2 values for an input of 3 channels");
    }
    try {
        regress::onnx_input(raw, {}, {"in", 1, {1, 3, 2, 2}});
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(), "the ONNX input 'in' holds 12 values, the kmodel's input 6");
    }
}

}  // namespace
}  // namespace npu::k210
