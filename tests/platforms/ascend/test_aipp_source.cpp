// Preparing AIPP sources from user files: the RGB -> NV12 / luma conversions worked by hand, and
// the exact errors for arrays and raw files that do not fit the format.
#include <functional>

#include <gtest/gtest.h>

#include "platforms/ascend/aipp_source.h"
#include "sim/core/error.h"

namespace npu::test {
namespace {

using aipp::InputFormat;

sim::Tensor uniform_rgb(int h, int w, uint8_t r, uint8_t g, uint8_t b) {
    sim::Tensor t(sim::DType::u8, {1, 3, h, w});
    const size_t plane = static_cast<size_t>(h * w);
    for (size_t i = 0; i < plane; ++i) {
        t.data<uint8_t>()[i] = r, t.data<uint8_t>()[plane + i] = g;
        t.data<uint8_t>()[2 * plane + i] = b;
    }
    return t;
}

TEST(AippSource, RgbToNv12WorkedByHand) {
    // (200, 100, 50): Y = (15400 + 15000 + 1450 + 128) >> 8 = 124;
    // U = ((−8600 − 8500 + 6400 + 128) >> 8) + 128 = (−10572 >> 8) + 128 = −42 + 128 = 86;
    // V = ((25600 − 10700 − 1050 + 128) >> 8) + 128 = (13978 >> 8) + 128 = 54 + 128 = 182.
    // A 5x3 image gives NV12 4x2 (odd sizes drop the last row and column).
    const ascend::SourceImage s =
        ascend::from_rgb(uniform_rgb(3, 5, 200, 100, 50), InputFormat::YUV420SP_U8);
    EXPECT_EQ(s.width, 4u);
    EXPECT_EQ(s.height, 2u);
    EXPECT_EQ(s.src0, std::vector<uint8_t>(8, 124));
    EXPECT_EQ(s.src1, (std::vector<uint8_t>{86, 182, 86, 182}));
    const ascend::SourceImage g =
        ascend::from_rgb(uniform_rgb(2, 2, 200, 100, 50), InputFormat::YUV400_U8);
    EXPECT_EQ(g.src0, std::vector<uint8_t>(4, 124));
    const ascend::SourceImage x =
        ascend::from_rgb(uniform_rgb(1, 2, 1, 2, 3), InputFormat::XRGB8888_U8);
    EXPECT_EQ(x.src0, (std::vector<uint8_t>{0, 1, 2, 3, 0, 1, 2, 3}));
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const sim::Error& e) {
        return e.what();
    }
    return "no error";
}

TEST(AippSource, ArraysAndRawFilesMustFitTheFormat) {
    const ascend::SourceImage nv12 =
        ascend::from_array(sim::Tensor(sim::DType::u8, {6, 4}), InputFormat::YUV420SP_U8, "a.npy");
    EXPECT_EQ(nv12.height, 4u);
    EXPECT_EQ(nv12.src0.size(), 16u);
    EXPECT_EQ(nv12.src1.size(), 8u);
    EXPECT_EQ(error_of([] {
                  ascend::from_array(sim::Tensor(sim::DType::u8, {4, 6}), InputFormat::YUV420SP_U8,
                                     "a.npy");
              }),
              "a.npy: array is (4, 6) of u8, YUV420SP_U8 expects uint8 (H * 3 / 2, W): the Y "
              "plane, then the UV plane");
    EXPECT_EQ(error_of([] {
                  ascend::from_array(sim::Tensor(sim::DType::f32, {4, 6, 3}),
                                     InputFormat::RGB888_U8, "b.npy");
              }),
              "b.npy: array is (4, 6, 3) of f32, RGB888_U8 expects uint8 (H, W, 3)");
    EXPECT_EQ(error_of([] {
                  ascend::from_raw(std::vector<uint8_t>(10), InputFormat::YUV420SP_U8, 4, 2,
                                   "x.nv12");
              }),
              "x.nv12: 10 bytes, a 4x2 YUV420SP_U8 image has 12");
    EXPECT_EQ(error_of([] {
                  ascend::from_raw(std::vector<uint8_t>(10), InputFormat::YUV400_U8, 0, 0, "x.yuv");
              }),
              "x.yuv: a raw input needs its size: source: {width, height} in the AIPP config");
}

}  // namespace
}  // namespace npu::test
