// What the DVP writes for a line: the display buffer with every 4 stream bytes reversed (a
// little-endian word filled MSB first: the LCD's 32-bit SPI frames send them in stream order),
// the AI planes in raster order with RGB565 widened by repeating its top bits, YUV422 converted
// (BT.601 full range), Y format into the R plane. Worked by hand.
#include <gtest/gtest.h>

#include "models/k210_dvp/dvp_pixels.h"

namespace npu::test {
namespace {

using dvp::convert_line;
using dvp::Format;

TEST(DvpPixels, TheDisplayBufferHoldsEachWordsBytesReversed) {
    const uint8_t stream[8] = {0xf8, 0x00, 0x07, 0xe0, 0x84, 0x10, 0x00, 0x1f};
    uint8_t display[8], r[4], g[4], b[4];
    convert_line(Format::kRgb565, stream, 4, display, r, g, b);
    const uint8_t want[8] = {0xe0, 0x07, 0x00, 0xf8, 0x1f, 0x00, 0x10, 0x84};
    for (int i = 0; i < 8; ++i) {
        EXPECT_EQ(display[i], want[i]) << i;
    }
    // Red, green, grey 0x8410 (r 16, g 32, b 16), blue.
    EXPECT_EQ(r[0], 255);
    EXPECT_EQ(g[0], 0);
    EXPECT_EQ(g[1], 255);
    EXPECT_EQ(r[2], (16 << 3) | (16 >> 2));  // 132
    EXPECT_EQ(g[2], (32 << 2) | (32 >> 4));  // 130
    EXPECT_EQ(b[3], 255);
    EXPECT_EQ(r[3], 0);
}

TEST(DvpPixels, YuvIsConvertedAndYFormatFillsTheRPlane) {
    const uint8_t grey[4] = {128, 128, 128, 128};  // Y0 U Y1 V
    uint8_t display[4], r[2], g[2], b[2];
    convert_line(Format::kYuv422, grey, 2, display, r, g, b);
    EXPECT_EQ(r[0], 128);
    EXPECT_EQ(g[1], 128);
    EXPECT_EQ(b[0], 128);
    // RGB565 of (128, 128, 128) is 0x8410, twice, reversed in the word.
    const uint8_t want[4] = {0x10, 0x84, 0x10, 0x84};
    for (int i = 0; i < 4; ++i) {
        EXPECT_EQ(display[i], want[i]);
    }
    const uint8_t yuyv[4] = {10, 99, 200, 77};
    convert_line(Format::kY, yuyv, 2, nullptr, r, nullptr, nullptr);
    EXPECT_EQ(r[0], 10);
    EXPECT_EQ(r[1], 200);
}

}  // namespace
}  // namespace npu::test
