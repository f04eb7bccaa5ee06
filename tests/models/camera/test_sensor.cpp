// The camera sensors as the demos' drivers program them over SCCB: their IDs (OV2640 0x2642 with
// manufacturer 0x7FA2 in the sensor bank, OV5640 0x5640 at 0x300A), software reset, the frame
// time against OmniVision's published OV2640 SVGA rates (30.012, 24.99, 14.28 fps) and the OV5640
// PCLK worked by hand through the Linux driver's clock tree, and the bytes a frame is sent as.
#include <gtest/gtest.h>

#include "models/camera/sensor.h"

namespace npu::test {
namespace {

using camera::make_sensor;
using camera::PixelOrder;

uint8_t read_reg(camera::Sensor& s, std::vector<uint8_t> address) {
    s.sccb_write(address);
    return s.sccb_read();
}

TEST(CameraSensor, Ov2640AnswersWithItsIdsInTheSensorBank) {
    auto s = make_sensor("ov2640");
    EXPECT_EQ(s->address(), 0x60);
    s->sccb_write({0xff, 0x01});  // ov2640_read_id: the sensor bank
    EXPECT_EQ(read_reg(*s, {0x1c}), 0x7f);
    EXPECT_EQ(read_reg(*s, {0x1d}), 0xa2);
    EXPECT_EQ(read_reg(*s, {0x0a}), 0x26);
    EXPECT_EQ(read_reg(*s, {0x0b}), 0x42);
    s->sccb_write({0xff, 0x00});  // the DSP bank has no ID there
    EXPECT_EQ(read_reg(*s, {0x0a}), 0x00);
    s->sccb_write({0x44, 0x12});  // kept and read back
    EXPECT_EQ(read_reg(*s, {0x44}), 0x12);
}

TEST(CameraSensor, Ov5640AnswersWithItsIdAndResetsItsRegisters) {
    auto s = make_sensor("ov5640");
    EXPECT_EQ(s->address(), 0x78);
    EXPECT_EQ(read_reg(*s, {0x30, 0x0a}), 0x56);
    EXPECT_EQ(read_reg(*s, {0x30, 0x0b}), 0x40);
    s->sccb_write({0x38, 0x08, 0x01});  // DVPHO 320 (two registers)
    s->sccb_write({0x38, 0x09, 0x40});
    EXPECT_EQ(s->stream(24e6).width, 320u);
    s->sccb_write({0x30, 0x08, 0x82});  // software reset: the full 2592-pixel width again
    EXPECT_EQ(s->stream(24e6).width, 2592u);
    EXPECT_EQ(read_reg(*s, {0x30, 0x08}), 0x02);  // the reset bit clears itself
    EXPECT_THROW(make_sensor("ov7670"), std::exception);
}

TEST(CameraSensor, Ov2640FrameTimeIsOmniVisionsPublishedSvgaRate) {
    auto s = make_sensor("ov2640");
    s->sccb_write({0xff, 0x01});
    s->sccb_write({0x12, 0x40});  // COM7: SVGA
    s->sccb_write({0x11, 0x00});  // CLKRC: XCLK undivided
    EXPECT_NEAR(1.0 / s->stream(24e6).frame_s, 30.012, 0.001);
    s->sccb_write({0x46, 0x87});  // 0x87 dummy lines
    EXPECT_NEAR(1.0 / s->stream(24e6).frame_s, 24.99, 0.01);
    s->sccb_write({0x11, 0x01});  // XCLK / 2
    s->sccb_write({0x46, 0x22});
    EXPECT_NEAR(1.0 / s->stream(24e6).frame_s, 14.28, 0.01);
}

TEST(CameraSensor, Ov5640FrameTimeFollowsItsClockTree) {
    auto s = make_sensor("ov5640");
    // face_detect's ov5640_config: PLL 0x3035 0x21, 0x3036 90, 0x3037 0x12, 0x3108 0x01 (0x3034
    // left at 0x1A: 10-bit, bit divider 2.5); HTS 1880, VTS 496, 320 x 240.
    for (const std::vector<uint8_t>& w : std::vector<std::vector<uint8_t>>{{0x30, 0x35, 0x21},
                                                                           {0x30, 0x36, 90},
                                                                           {0x30, 0x37, 0x12},
                                                                           {0x31, 0x08, 0x01},
                                                                           {0x38, 0x0c, 0x07},
                                                                           {0x38, 0x0d, 0x58},
                                                                           {0x38, 0x0e, 0x01},
                                                                           {0x38, 0x0f, 0xf0},
                                                                           {0x38, 0x08, 0x01},
                                                                           {0x38, 0x09, 0x40},
                                                                           {0x38, 0x0a, 0x00},
                                                                           {0x38, 0x0b, 0xf0}}) {
        s->sccb_write(w);
    }
    // PCLK = 12 MHz / 2 x 90 / 2 / 2 / 2.5 / 1 = 54 MHz; a frame 1880 x 496 x 2 / 54 MHz.
    const camera::Stream st = s->stream(12e6);
    EXPECT_NEAR(st.frame_s, 1880.0 * 496 * 2 / 54e6, 1e-12);
    EXPECT_NEAR(st.line_s, st.frame_s / 496, 1e-15);
    EXPECT_EQ(st.width, 320u);
    EXPECT_EQ(st.height, 240u);
    EXPECT_TRUE(st.on);
    s->sccb_write({0x30, 0x08, 0x42});  // software power-down: no stream
    EXPECT_FALSE(s->stream(12e6).on);
}

// A 4 x 4 scene: pixel (x, y) = (40x + 10, 40y + 20, 200 - 30x).
sim::Tensor scene4() {
    sim::Tensor t(sim::DType::u8, {1, 3, 4, 4});
    uint8_t* p = t.data<uint8_t>();
    for (int y = 0; y < 4; ++y) {
        for (int x = 0; x < 4; ++x) {
            p[0 * 16 + y * 4 + x] = static_cast<uint8_t>(40 * x + 10);
            p[1 * 16 + y * 4 + x] = static_cast<uint8_t>(40 * y + 20);
            p[2 * 16 + y * 4 + x] = static_cast<uint8_t>(200 - 30 * x);
        }
    }
    return t;
}

uint16_t rgb565(int r, int g, int b) {
    return static_cast<uint16_t>(((r >> 3) << 11) | ((g >> 2) << 5) | (b >> 3));
}

TEST(CameraSensor, AFrameIsSentInTheProgrammedOrderMirroredAndFlipped) {
    auto s = make_sensor("ov2640");
    s->sccb_write({0xff, 0x00});
    s->sccb_write({0x5a, 0x01});  // ZMOW: 4 pixels
    s->sccb_write({0x5b, 0x01});  // ZMOH: 4 lines
    s->sccb_write({0x5c, 0x00});
    s->sccb_write({0xda, 0x08});  // IMAGE_MODE: RGB565, high byte first
    camera::Stream st = s->stream(24e6);
    ASSERT_EQ(st.order, PixelOrder::kRgb565);
    std::vector<uint8_t> b = s->render(scene4(), st);
    ASSERT_EQ(b.size(), 32u);
    uint16_t v = rgb565(10, 20, 200);  // pixel (0, 0)
    EXPECT_EQ(b[0], v >> 8);
    EXPECT_EQ(b[1], v & 0xff);
    s->sccb_write({0xff, 0x01});
    s->sccb_write({0x04, 0xc0});  // REG04: mirror and flip
    st = s->stream(24e6);
    b = s->render(scene4(), st);
    v = rgb565(130, 140, 110);  // the first pixel sent is now (3, 3)
    EXPECT_EQ(b[0], v >> 8);
    EXPECT_EQ(b[1], v & 0xff);
    s->sccb_write({0xff, 0x00});
    s->sccb_write({0xda, 0x09});  // byte swap: low byte first
    EXPECT_EQ(s->stream(24e6).order, PixelOrder::kRgb565Low);
    s->sccb_write({0xda, 0x04});  // RAW10: not modelled, sent as RGB565 with a warning
    st = s->stream(24e6);
    s->render(scene4(), st);
    ASSERT_EQ(s->warnings().size(), 1u);
    EXPECT_NE(s->warnings()[0].find("RAW"), std::string::npos);
}

TEST(CameraSensor, YuvPairsCarryEachLumaAndTheirMeanChroma) {
    const uint8_t white[3] = {255, 255, 255}, black[3] = {0, 0, 0}, red[3] = {255, 0, 0};
    uint8_t out[4];
    camera::encode_pair(PixelOrder::kYuyv, white, black, out);
    EXPECT_EQ(out[0], 255);  // Y0
    EXPECT_EQ(out[1], 128);  // U of grey
    EXPECT_EQ(out[2], 0);    // Y1
    EXPECT_EQ(out[3], 128);  // V
    camera::encode_pair(PixelOrder::kUyvy, red, red, out);
    // BT.601 full range: Y = 0.299 x 255 = 76, U = 128 - 0.1687 x 255 = 85, V = 128 + 127.5 = 255.
    EXPECT_NEAR(out[1], 76, 1);
    EXPECT_NEAR(out[0], 85, 1);
    EXPECT_EQ(out[2], 255);
}

}  // namespace
}  // namespace npu::test
