// The AIPP load-image function: hand-worked vectors for every step and padding mode, the
// optimized function against the element-by-element transcription of the vendor's C model on
// random configurations (all four formats x three output types x every mode and switch),
// properties, and the exact error for every out-of-range parameter.
#include <random>

#include <gtest/gtest.h>

#include "models/aipp/aipp_func.h"
#include "sim/core/error.h"
#include "sim/core/tensor.h"
#include "tests/models/aipp/aipp_reference.h"

namespace npu::test {
namespace {

using aipp::InputFormat;
using aipp::OutputType;

// Runs the optimized function; output elements as bit patterns.
std::vector<uint16_t> run(const aipp::Params& p, const aipp::LoadParams& l,
                          const std::vector<uint8_t>& src0, const std::vector<uint8_t>& src1 = {},
                          const aipp::Fidelity& f = {}) {
    const aipp::Geometry g = aipp::geometry(p, l);
    std::vector<uint16_t> out(g.elements());
    aipp::Source s{src0.data(), src0.size(), src1.empty() ? nullptr : src1.data(), src1.size()};
    if (p.output == OutputType::f16) {
        aipp::load_image(p, l, f, s, out.data());
    } else {
        std::vector<uint8_t> bytes(g.elements());
        aipp::load_image(p, l, f, s, bytes.data());
        std::copy(bytes.begin(), bytes.end(), out.begin());
    }
    return out;
}

aipp::LoadParams crop(uint32_t w, uint32_t h, uint32_t x, uint32_t y, uint32_t src_w) {
    aipp::LoadParams l;
    l.horiz_size = w, l.vert_size = h, l.horiz_start = x, l.vert_start = y;
    l.src_horiz_size = src_w;
    return l;
}

// Channel 0..3 of each pixel (C0 = 4 layouts).
std::vector<uint16_t> channel(const std::vector<uint16_t>& out, uint32_t c0, uint32_t k) {
    std::vector<uint16_t> v;
    for (size_t i = k; i < out.size(); i += c0) {
        v.push_back(out[i]);
    }
    return v;
}

TEST(AippFunc, Rgb888CropWithChannelPaddingToFour) {
    // 4x2 RGB source, pixel (x, y) = (10x + y, 100 + x, 200 + y); crop 2x2 at (2, 0).
    std::vector<uint8_t> src;
    for (int y = 0; y < 2; ++y) {
        for (int x = 0; x < 4; ++x) {
            src.insert(src.end(), {static_cast<uint8_t>(10 * x + y), static_cast<uint8_t>(100 + x),
                                   static_cast<uint8_t>(200 + y)});
        }
    }
    aipp::Params p;
    p.c_padding_mode = 1, p.c_padding_value = 7;
    const std::vector<uint16_t> want = {20, 102, 200, 7, 30, 103, 200, 7,
                                        21, 102, 201, 7, 31, 103, 201, 7};
    EXPECT_EQ(run(p, crop(2, 2, 2, 0, 4), src), want);
    // swap R and B
    p.swap_rb = true;
    const std::vector<uint16_t> swapped = {200, 102, 20, 7, 200, 103, 30, 7,
                                           201, 102, 21, 7, 201, 103, 31, 7};
    EXPECT_EQ(run(p, crop(2, 2, 2, 0, 4), src), swapped);
}

TEST(AippFunc, XrgbDropsTheFourthByteOrMovesXBack) {
    const std::vector<uint8_t> src = {1, 2, 3, 4, 5, 6, 7, 8};  // two XRGB pixels, 2x1... as 2 rows
    aipp::Params p;
    p.format = InputFormat::XRGB8888_U8;
    p.c_padding_mode = 1;
    aipp::LoadParams l = crop(2, 1, 0, 0, 2);
    p.single_line = true;
    l.vert_size = 2;  // single line: one row only
    EXPECT_EQ(run(p, l, src), (std::vector<uint16_t>{1, 2, 3, 0, 5, 6, 7, 0}));  // RGBX: X dropped
    p.swap_ax = true;  // XRGB: skip byte 0
    EXPECT_EQ(run(p, l, src), (std::vector<uint16_t>{2, 3, 4, 0, 6, 7, 8, 0}));
    p.swap_rb = true;  // XBGR -> R, G, B from bytes 3, 2, 1
    EXPECT_EQ(run(p, l, src), (std::vector<uint16_t>{4, 3, 2, 0, 8, 7, 6, 0}));
}

TEST(AippFunc, Nv12CopiesYAndItsSubsampledChroma) {
    // 4x2 NV12: Y = 0..7, UV row = (50, 60), (70, 80).
    const std::vector<uint8_t> y = {0, 1, 2, 3, 4, 5, 6, 7}, uv = {50, 60, 70, 80};
    aipp::Params p;
    p.format = InputFormat::YUV420SP_U8;
    p.c_padding_mode = 1;
    const std::vector<uint16_t> out = run(p, crop(4, 2, 0, 0, 4), y, uv);
    EXPECT_EQ(channel(out, 4, 0), (std::vector<uint16_t>{0, 1, 2, 3, 4, 5, 6, 7}));
    EXPECT_EQ(channel(out, 4, 1), (std::vector<uint16_t>{50, 50, 70, 70, 50, 50, 70, 70}));
    EXPECT_EQ(channel(out, 4, 2), (std::vector<uint16_t>{60, 60, 80, 80, 60, 60, 80, 80}));
    p.swap_uv = true;  // NV21
    const std::vector<uint16_t> nv21 = run(p, crop(4, 2, 0, 0, 4), y, uv);
    EXPECT_EQ(channel(nv21, 4, 1), channel(out, 4, 2));
    EXPECT_EQ(channel(nv21, 4, 2), channel(out, 4, 1));
}

TEST(AippFunc, CscYuvToRgbWorkedByHand) {
    // JPEG full-range YUV -> RGB, input bias (0, 128, 128). Y = 100, U = 90, V = 200:
    // R = (100·256 + 72·359 + 128) / 256 = 51576 / 256 = 201
    // G = (100·256 − 38·−88 + 72·−183 + 128) / 256 = 15896 / 256 = 62
    // B = (100·256 − 38·454 + 128) / 256 = 8476 / 256 = 33
    aipp::Params p;
    p.format = InputFormat::YUV420SP_U8;
    p.csc_enable = true;
    p.csc_matrix = {256, 0, 359, 256, -88, -183, 256, 454, 0};
    p.csc_bias_in = {0, 128, 128};
    p.c_padding_mode = 1;
    const std::vector<uint8_t> y = {100, 100, 100, 100}, uv = {90, 200};
    const std::vector<uint16_t> out = run(p, crop(2, 2, 0, 0, 2), y, uv);
    EXPECT_EQ((std::vector<uint16_t>(out.begin(), out.begin() + 4)),
              (std::vector<uint16_t>{201, 62, 33, 0}));
    // Y = 255, V = 255: R = (65280 + 127·359 + 128) / 256 = 110999 / 256 = 433 -> wraps to 177,
    // or saturates to 255.
    const std::vector<uint8_t> y2 = {255, 255, 255, 255}, uv2 = {128, 255};
    EXPECT_EQ(run(p, crop(2, 2, 0, 0, 2), y2, uv2)[0], 177);
    aipp::Fidelity sat;
    sat.saturate = true;
    EXPECT_EQ(run(p, crop(2, 2, 0, 0, 2), y2, uv2, sat)[0], 255);
}

TEST(AippFunc, CscRgbToYuvAddsTheOutputBias) {
    // BT.601 full range: Y = (77R + 150G + 29B + 128) / 256; U = (−43R − 85G + 128B + 128) / 256
    // + 128. R, G, B = 200, 100, 50: Y = (15400 + 15000 + 1450 + 128) / 256 = 31978 / 256 = 124;
    // U = (−8600 − 8500 + 6400 + 128) / 256 + 128 = −10572 / 256 + 128 = −41 + 128 = 87 (C
    // truncation: −41.3 -> −41); with >> 8 (floor): −42 + 128 = 86.
    aipp::Params p;
    p.csc_enable = true;
    p.csc_matrix = {77, 150, 29, -43, -85, 128, 128, -107, -21};
    p.csc_bias_out = {0, 128, 128};
    p.c_padding_mode = 1;
    const std::vector<uint8_t> src(12, 0);
    std::vector<uint8_t> px = {200, 100, 50, 200, 100, 50, 200, 100, 50, 200, 100, 50};
    const std::vector<uint16_t> out = run(p, crop(2, 2, 0, 0, 2), px);
    EXPECT_EQ(out[0], 124);
    EXPECT_EQ(out[1], 87);
    aipp::Fidelity shift;
    shift.csc_round_add_128 = false;
    EXPECT_EQ(run(p, crop(2, 2, 0, 0, 2), px, {}, shift)[1], 86);
}

TEST(AippFunc, DataTypeConversion) {
    aipp::Params p;
    p.format = InputFormat::YUV400_U8;
    p.c_padding_mode = 1;
    p.output = OutputType::i8;
    p.dtc_mean = {200, 0, 0};
    const std::vector<uint8_t> y = {10, 255, 200, 0};
    // int8: 10 − 200 = −190 wraps to 66; 255 − 200 = 55; 0; −200 wraps to 56
    EXPECT_EQ(channel(run(p, crop(2, 2, 0, 0, 2), y), 4, 0),
              (std::vector<uint16_t>{66, 55, 0, 56}));
    aipp::Fidelity sat;
    sat.saturate = true;  // −190 -> −128 (0x80), −200 -> −128
    EXPECT_EQ(channel(run(p, crop(2, 2, 0, 0, 2), y, {}, sat), 4, 0),
              (std::vector<uint16_t>{0x80, 55, 0, 0x80}));
    // half: ((v − 100) − 0.5) · 0.25; v = 200: 99.5 · 0.25 = 24.875 = 0x4e38
    p.output = OutputType::f16;
    p.dtc_mean = {100, 0, 0};
    p.dtc_min = {0x3800, 0, 0};            // 0.5
    p.dtc_var = {0x3400, 0x3c00, 0x3c00};  // 0.25
    const std::vector<uint16_t> h = run(p, crop(2, 2, 0, 0, 2), y);
    EXPECT_EQ(h[8], 0x4e38);                                       // pixel 2 (v = 200)
    EXPECT_EQ(sim::half_to_float(h[0]), (10 - 100 - 0.5) * 0.25);  // −22.625, exact in half
    // uint8 ignores the mean
    p.output = OutputType::u8;
    EXPECT_EQ(channel(run(p, crop(2, 2, 0, 0, 2), y), 4, 0),
              (std::vector<uint16_t>{10, 255, 200, 0}));
}

// A 3x2 YUV400 image [[1, 2, 3], [4, 5, 6]] padded left 1, right 2, top 1, bottom 1; channel 0.
std::vector<uint16_t> padded(uint32_t mode) {
    aipp::Params p;
    p.format = InputFormat::YUV400_U8;
    p.c_padding_mode = 1;
    p.padding_mode = mode;
    p.padding_value = {9, 8, 7, 6};
    aipp::LoadParams l = crop(3, 2, 0, 0, 3);
    l.left_pad = 1, l.right_pad = 2, l.top_pad = 1, l.bot_pad = 1;
    return run(p, l, {1, 2, 3, 4, 5, 6});
}

TEST(AippFunc, PaddingModesWorkedByHand) {
    // mode 1, replicate the edge
    EXPECT_EQ(channel(padded(1), 4, 0),
              (std::vector<uint16_t>{1, 1, 2, 3, 3, 3, 1, 1, 2, 3, 3, 3,  //
                                     4, 4, 5, 6, 6, 6, 4, 4, 5, 6, 6, 6}));
    // mode 2, copy the block next to the edge: left j -> 1 + j, right j -> j − 2, top i -> 1 + i,
    // bottom i -> i − 1
    EXPECT_EQ(channel(padded(2), 4, 0),
              (std::vector<uint16_t>{1, 1, 2, 3, 2, 3, 1, 1, 2, 3, 2, 3,  //
                                     4, 4, 5, 6, 5, 6, 4, 4, 5, 6, 5, 6}));
    // mode 3, mirror including the edge: left j -> 1 − j, right j -> 7 − j, top i -> 1 − i,
    // bottom i -> 5 − i
    EXPECT_EQ(channel(padded(3), 4, 0),
              (std::vector<uint16_t>{1, 1, 2, 3, 3, 2, 1, 1, 2, 3, 3, 2,  //
                                     4, 4, 5, 6, 6, 5, 4, 4, 5, 6, 6, 5}));
    // mode 0: left/right only (top and bottom dropped), the four padding values in channels 0..3
    // of border pixels; image pixels keep cPaddingValue (0) in channels 1..3
    const std::vector<uint16_t> c = padded(0);
    ASSERT_EQ(c.size(), 2u * 6 * 4);
    EXPECT_EQ(channel(c, 4, 0), (std::vector<uint16_t>{9, 1, 2, 3, 9, 9, 9, 4, 5, 6, 9, 9}));
    EXPECT_EQ(channel(c, 4, 3), (std::vector<uint16_t>{6, 0, 0, 0, 6, 6, 6, 0, 0, 0, 6, 6}));
}

TEST(AippFunc, ChannelPaddingFillsTo32Bytes) {
    aipp::Params p;  // RGB888 -> uint8, cPaddingMode 0: 32 elements per pixel
    p.c_padding_value = 0x5a;
    const std::vector<uint16_t> out = run(p, crop(2, 2, 0, 0, 2), std::vector<uint8_t>(12, 3));
    ASSERT_EQ(out.size(), 4u * 32);
    for (size_t n = 0; n < out.size(); ++n) {
        EXPECT_EQ(out[n], n % 32 < 3 ? 3 : 0x5a) << n;
    }
    p.output = OutputType::f16;  // half: 16 elements per pixel
    EXPECT_EQ(aipp::geometry(p, crop(2, 2, 0, 0, 2)).c0, 16u);
}

TEST(AippFunc, MatchesTheVendorModelOnRandomConfigurations) {
    std::mt19937 rng(17);
    auto pick = [&](uint32_t lo, uint32_t hi) {
        return lo + static_cast<uint32_t>(rng() % (hi - lo + 1));
    };
    const InputFormat formats[] = {InputFormat::YUV420SP_U8, InputFormat::XRGB8888_U8,
                                   InputFormat::RGB888_U8, InputFormat::YUV400_U8};
    int runs = 0;
    for (int t = 0; t < 600; ++t) {
        aipp::Params p;
        p.format = formats[t % 4];
        p.output = static_cast<OutputType>((t / 4) % 3);
        p.padding_mode = pick(0, 3);
        for (uint16_t& v : p.padding_value) {
            v = static_cast<uint16_t>(p.output == OutputType::f16 ? rng() & 0x7bff : rng() & 0xff);
        }
        p.swap_rb = rng() & 1, p.swap_uv = rng() & 1, p.swap_ax = rng() & 1;
        p.single_line = pick(0, 7) == 0;
        for (size_t k = 0; k < 3; ++k) {
            p.dtc_mean[k] = static_cast<uint8_t>(rng());
            p.dtc_min[k] = sim::float_to_half(static_cast<float>(pick(0, 400)) / 8 - 25);
            p.dtc_var[k] = sim::float_to_half(static_cast<float>(pick(1, 400)) / 64);
        }
        p.c_padding_mode = pick(0, 1);
        p.c_padding_value =
            static_cast<uint16_t>(p.output == OutputType::f16 ? rng() & 0x7bff : rng() & 0xff);
        p.csc_enable = rng() & 1;
        for (int16_t& m : p.csc_matrix) {
            m = static_cast<int16_t>(static_cast<int>(pick(0, 1200)) - 600);
        }
        for (size_t k = 0; k < 3; ++k) {
            p.csc_bias_in[k] = static_cast<uint8_t>(rng());
            p.csc_bias_out[k] = static_cast<uint8_t>(rng());
        }
        aipp::Fidelity f;
        f.csc_round_add_128 = rng() & 1, f.saturate = rng() & 1;
        f.bias_roles_as_labelled = rng() & 1, f.yuv400_chroma = rng() & 1 ? 128 : 0;
        const uint32_t src_w = pick(6, 40) * 2, src_h = pick(6, 30) * 2;
        aipp::LoadParams l = crop(pick(2, 16), pick(2, 12), pick(0, 4) * 2, pick(0, 4) * 2, src_w);
        l.horiz_size = std::min(l.horiz_size, src_w - l.horiz_start);
        l.vert_size = std::min(l.vert_size, src_h - l.vert_start);
        const uint32_t vert = p.single_line ? 1 : l.vert_size;
        l.left_pad = pick(0, std::min(l.horiz_size, 6u)),
        l.right_pad = pick(0, std::min(l.horiz_size, 6u));
        l.top_pad = pick(0, std::min(vert, 5u)), l.bot_pad = pick(0, std::min(vert, 5u));
        ASSERT_TRUE(aipp::check(p, l, src_h).empty()) << aipp::check(p, l, src_h).front();
        const size_t stride = p.format == InputFormat::RGB888_U8     ? 3
                              : p.format == InputFormat::XRGB8888_U8 ? 4
                                                                     : 1;
        std::vector<uint8_t> src0(size_t{src_w} * src_h * stride), src1;
        for (uint8_t& b : src0) {
            b = static_cast<uint8_t>(rng());
        }
        if (p.format == InputFormat::YUV420SP_U8) {
            src1.resize(size_t{src_w} * src_h / 2);
            for (uint8_t& b : src1) {
                b = static_cast<uint8_t>(rng());
            }
        }
        const std::vector<uint16_t> want = aipp_reference(p, l, f, src0, src1);
        const std::vector<uint16_t> got = run(p, l, src0, src1, f);
        ASSERT_EQ(got, want) << "case " << t << ": " << aipp::format_name(p.format) << " -> "
                             << aipp::output_type_name(p.output) << ", padding mode "
                             << p.padding_mode << ", csc " << p.csc_enable;
        ++runs;
    }
    EXPECT_EQ(runs, 600);
}

TEST(AippFunc, CropOfACropIsOneCrop) {
    std::mt19937 rng(3);
    std::vector<uint8_t> src(64 * 48 * 3);
    for (uint8_t& b : src) {
        b = static_cast<uint8_t>(rng());
    }
    aipp::Params p;
    p.c_padding_mode = 1;
    // First crop 30x20 at (10, 6); take its RGB back as an image; crop 12x8 at (4, 5) of it.
    const std::vector<uint16_t> a = run(p, crop(30, 20, 10, 6, 64), src);
    std::vector<uint8_t> rgb;
    for (size_t i = 0; i < a.size(); i += 4) {
        rgb.insert(rgb.end(), {static_cast<uint8_t>(a[i]), static_cast<uint8_t>(a[i + 1]),
                               static_cast<uint8_t>(a[i + 2])});
    }
    EXPECT_EQ(run(p, crop(12, 8, 4, 5, 30), rgb), run(p, crop(12, 8, 14, 11, 64), src));
}

TEST(AippFunc, OnePixelBordersAgreeInModesOneToThree) {
    // With one pixel of padding, replicating the edge, copying the block next to it and
    // mirroring it all copy the edge pixel.
    std::vector<uint8_t> src(10 * 8 * 3);
    std::mt19937 rng(8);
    for (uint8_t& b : src) {
        b = static_cast<uint8_t>(rng());
    }
    aipp::Params p;
    aipp::LoadParams l = crop(6, 5, 2, 1, 10);
    l.left_pad = l.right_pad = l.top_pad = l.bot_pad = 1;
    p.padding_mode = 1;
    const std::vector<uint16_t> one = run(p, l, src);
    p.padding_mode = 2;
    EXPECT_EQ(run(p, l, src), one);
    p.padding_mode = 3;
    EXPECT_EQ(run(p, l, src), one);
}

TEST(AippFunc, ChannelPaddingNeverTouchesImageChannels) {
    std::vector<uint8_t> src(8 * 4 * 3, 77);
    aipp::Params p;
    p.padding_mode = 1;
    aipp::LoadParams l = crop(4, 2, 2, 1, 8);
    l.left_pad = l.top_pad = 2;
    const std::vector<uint16_t> a = run(p, l, src);
    p.c_padding_value = 0xff;
    const std::vector<uint16_t> b = run(p, l, src);
    for (size_t n = 0; n < a.size(); ++n) {
        if (n % 32 < 3) {
            ASSERT_EQ(a[n], 77) << n;
            ASSERT_EQ(b[n], 77) << n;
        } else {
            ASSERT_EQ(a[n], 0) << n;
            ASSERT_EQ(b[n], 0xff) << n;
        }
    }
}

std::string error_of(const aipp::Params& p, const aipp::LoadParams& l,
                     const std::vector<uint8_t>& src) {
    try {
        run(p, l, src);
    } catch (const sim::Error& e) {
        return e.what();
    }
    return "no error";
}

TEST(AippFunc, EveryOutOfRangeParameterIsNamedWithItsRange) {
    const std::vector<uint8_t> src(64 * 64 * 3);
    aipp::Params p;
    aipp::LoadParams l = crop(1, 4096, 3, 0, 64);
    EXPECT_EQ(error_of(p, l, src),
              "AIPP parameters: horizSize is 1, expected 2..4095; vertSize is 4096, expected "
              "2..4095; horizStartPos is 3, expected an even value (every input format)");
    l = crop(8, 8, 0, 0, 64);
    l.left_pad = 33;
    p.padding_mode = 4;
    p.c_padding_mode = 2;
    EXPECT_EQ(error_of(p, l, src),
              "AIPP parameters: paddingMode is 4, expected 0..3; cPaddingMode is 2, expected "
              "0..1; leftPadSize is 33, expected 0..32");
    p = {};
    p.padding_mode = 2;
    l = crop(8, 4, 0, 0, 64);
    l.top_pad = 5;
    EXPECT_EQ(error_of(p, l, src),
              "AIPP parameters: topPadSize is 5, expected at most vertSize = 4 (padding modes 2 "
              "and 3 copy blocks of the image)");
    p = {};
    p.format = InputFormat::YUV420SP_U8;
    l = crop(8, 4, 0, 3, 63);
    EXPECT_EQ(error_of(p, l, src),
              "AIPP parameters: vertStartPos is 3, expected an even value (YUV420SP); "
              "srcHorizSize is 63, expected an even value (YUV420SP)");
    p = {};
    l = crop(8, 4, 60, 0, 64);
    EXPECT_EQ(error_of(p, l, src),
              "AIPP parameters: horizStartPos + horizSize is 68, expected at most srcHorizSize "
              "= 64 (the crop must lie inside the source rows)");
    EXPECT_EQ(aipp::check(p, crop(8, 4, 0, 62, 64), 64).back(),
              "vertStartPos + vertSize is 66, expected at most the source height = 64 (the crop "
              "must lie inside the source)");
    l = crop(8, 4, 0, 0, 64);
    EXPECT_EQ(error_of(p, l, std::vector<uint8_t>(100)),
              "AIPP source: src0 holds 100 bytes, the crop reads 600");  // (3·64 + 8)·3
}

}  // namespace
}  // namespace npu::test
