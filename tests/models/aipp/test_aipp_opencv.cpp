// The AIPP CSC against an independent implementation: OpenCV's cvtColor with the BT.601 matrices
// the Ascend ATC documentation gives in Q8 (../shared/reference/seed_systems.md §2.4). OpenCV
// computes in finer fixed point, so the results differ by the Q8 quantization of the
// coefficients; the bound is measured here and stated in docs/aipp.md.
#include <random>

#include <gtest/gtest.h>
#include <opencv2/imgproc.hpp>

#include "models/aipp/aipp_func.h"

namespace npu::test {
namespace {

int max_abs_diff(const std::vector<uint8_t>& a, const std::vector<uint8_t>& b) {
    int worst = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        worst = std::max(worst, std::abs(static_cast<int>(a[i]) - static_cast<int>(b[i])));
    }
    return worst;
}

// Channels 0..2 of a C0 = 4 tile.
std::vector<uint8_t> three_channels(const std::vector<uint8_t>& tile) {
    std::vector<uint8_t> out;
    for (size_t i = 0; i < tile.size(); i += 4) {
        out.insert(out.end(), tile.begin() + static_cast<std::ptrdiff_t>(i),
                   tile.begin() + static_cast<std::ptrdiff_t>(i + 3));
    }
    return out;
}

TEST(AippOpenCv, Nv12ToBgrBt601NarrowRange) {
    const int w = 64, h = 48;
    std::mt19937 rng(2);
    std::vector<uint8_t> nv12(w * h * 3 / 2);
    for (size_t i = 0; i < nv12.size(); ++i) {  // every legal video-range value
        nv12[i] = static_cast<uint8_t>(i < size_t{w * h} ? 16 + rng() % 220 : 16 + rng() % 225);
    }
    cv::Mat yuv(h * 3 / 2, w, CV_8UC1, nv12.data()), bgr;
    cv::cvtColor(yuv, bgr, cv::COLOR_YUV2BGR_NV12);
    const std::vector<uint8_t> want(bgr.data, bgr.data + w * h * 3);

    aipp::Params p;
    p.format = aipp::InputFormat::YUV420SP_U8;
    p.csc_enable = true;
    p.csc_matrix = {298, 516, 0, 298, -100, -208, 298, 0, 409};  // rows B, G, R
    p.csc_bias_in = {16, 128, 128};
    p.c_padding_mode = 1;
    aipp::LoadParams l;
    l.horiz_size = w, l.vert_size = h, l.src_horiz_size = w;
    aipp::Fidelity f;
    f.saturate = true;  // OpenCV saturates; video-range input can still exceed 0..255
    std::vector<uint8_t> tile(aipp::geometry(p, l).elements());
    aipp::load_image(p, l, f, {nv12.data(), size_t{w * h}, nv12.data() + w * h, size_t{w * h / 2}},
                     tile.data());
    EXPECT_LE(max_abs_diff(three_channels(tile), want), 1);  // measured: 1
}

TEST(AippOpenCv, RgbToYCrCbBt601FullRange) {
    const int w = 40, h = 30;
    std::mt19937 rng(6);
    std::vector<uint8_t> rgb(w * h * 3);
    for (uint8_t& b : rgb) {
        b = static_cast<uint8_t>(rng());
    }
    cv::Mat in(h, w, CV_8UC3, rgb.data()), yuv;
    cv::cvtColor(in, yuv, cv::COLOR_RGB2YCrCb);  // JPEG: Y, Cr, Cb
    const std::vector<uint8_t> want(yuv.data, yuv.data + w * h * 3);

    aipp::Params p;
    p.csc_enable = true;
    p.csc_matrix = {77, 150, 29, 128, -107, -21, -43, -85, 128};  // rows Y, Cr, Cb
    p.csc_bias_out = {0, 128, 128};
    p.c_padding_mode = 1;
    aipp::LoadParams l;
    l.horiz_size = w, l.vert_size = h, l.src_horiz_size = w;
    aipp::Fidelity f;
    f.saturate = true;
    std::vector<uint8_t> tile(aipp::geometry(p, l).elements());
    aipp::load_image(p, l, f, {rgb.data(), rgb.size()}, tile.data());
    EXPECT_LE(max_abs_diff(three_channels(tile), want),
              2);  // measured: 2 (C truncation of negative chroma sums)
}

}  // namespace
}  // namespace npu::test
