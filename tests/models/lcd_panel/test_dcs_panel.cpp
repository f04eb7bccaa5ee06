// The DCS panel controller driven with the byte sequences the Kendryte demos' lcd.c and
// nt35310.c send (../shared/vendor/kendryte-standalone-demo/lcd), worked by hand: lcd_init, then
// lcd_clear, lcd_draw_point, lcd_set_direction.
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "models/lcd_panel/dcs_panel.h"

namespace npu::test {
namespace {

using lcd::DcsPanel;

void cmd(DcsPanel& p, uint8_t c, std::vector<uint8_t> params = {}) {
    p.command(c);
    p.data(params.data(), params.size());
}

// lcd_init on the KD233: SWRESET, SLPOUT, COLMOD 0x55, MADCTL DIR_XY_LRUD | 0x08, DISPON.
void lcd_init(DcsPanel& p, uint8_t dir = 0x40 | 0x08) {
    cmd(p, 0x01);
    cmd(p, 0x11);
    cmd(p, 0x3A, {0x55});
    cmd(p, 0x36, {dir});
    cmd(p, 0x29);
}

// lcd_set_area(x1, y1, x2, y2): CASET, RASET (big-endian pairs), RAMWR.
void set_area(DcsPanel& p, int x1, int y1, int x2, int y2) {
    const auto hi = [](int v) {
        return static_cast<uint8_t>(v >> 8);
    };
    const auto lo = [](int v) {
        return static_cast<uint8_t>(v);
    };
    cmd(p, 0x2A, {hi(x1), lo(x1), hi(x2), lo(x2)});
    cmd(p, 0x2B, {hi(y1), lo(y1), hi(y2), lo(y2)});
    p.command(0x2C);
}

void pixels(DcsPanel& p, uint16_t color, size_t n) {
    std::vector<uint8_t> b;
    for (size_t i = 0; i < n; ++i) {
        b.push_back(static_cast<uint8_t>(color >> 8));
        b.push_back(static_cast<uint8_t>(color));
    }
    p.data(b.data(), b.size());
}

TEST(DcsPanel, TheLcdDemosInitAndClearShowRed) {
    DcsPanel p;
    EXPECT_TRUE(p.sleeping());
    lcd_init(p);
    EXPECT_FALSE(p.sleeping());
    EXPECT_TRUE(p.display_on());
    EXPECT_EQ(p.width(), 240);
    EXPECT_EQ(p.height(), 320);
    set_area(p, 0, 0, 239, 319);
    pixels(p, 0xF800, 240 * 320);  // lcd_clear(RED)
    const lcd::Frame f = p.current();
    ASSERT_EQ(f.rgb565.size(), 240u * 320u);
    EXPECT_TRUE(f.displayed);
    for (uint16_t v : f.rgb565) {
        ASSERT_EQ(v, 0xF800);
    }
    EXPECT_TRUE(p.warnings().empty());
}

// lcd_draw_point(16, 40, BLUE) under MADCTL 0x48 (MX): the application's (16, 40) is native
// column 239 − 16 = 223, row 40.
TEST(DcsPanel, APointLandsWhereTheApplicationAddressesIt) {
    DcsPanel p;
    lcd_init(p);
    set_area(p, 16, 40, 16, 40);
    pixels(p, 0x001F, 1);
    EXPECT_EQ(p.gram(223, 40), 0x001F);
    const lcd::Frame f = p.current();
    EXPECT_EQ(f.rgb565[40 * 240 + 16], 0x001F);
    EXPECT_EQ(f.rgb565[40 * 240 + 17], 0x0000);
}

// lcd_set_direction(DIR_YX_RLDU) (0xA0 | 0x08: MY, MV): the application sees 320 x 240; its
// (300, 10) is native column 10, row 319 − 300 = 19.
TEST(DcsPanel, RowColumnExchangeMakesALandscapeScreen) {
    DcsPanel p;
    lcd_init(p, 0xA0 | 0x08);
    EXPECT_EQ(p.width(), 320);
    EXPECT_EQ(p.height(), 240);
    set_area(p, 300, 10, 301, 10);
    pixels(p, 0x07E0, 2);
    EXPECT_EQ(p.gram(10, 19), 0x07E0);
    EXPECT_EQ(p.gram(10, 18), 0x07E0);  // x = 301
    const lcd::Frame f = p.current();
    EXPECT_EQ(f.width, 320);
    EXPECT_EQ(f.rgb565[10 * 320 + 300], 0x07E0);
    EXPECT_EQ(f.rgb565[10 * 320 + 301], 0x07E0);
}

// A panel whose colour order is RGB (Maix's ST7789) shows RGB565 as sent without MADCTL's BGR
// bit; with it, red and blue trade places.
TEST(DcsPanel, TheBgrBitAgainstThePanelsOrder) {
    DcsPanel p({"st7789", 240, 320, false});
    lcd_init(p, 0x40);
    set_area(p, 0, 0, 0, 0);
    pixels(p, 0xF800, 1);
    EXPECT_EQ(p.current().rgb565[0], 0xF800);
    cmd(p, 0x36, {0x48});
    EXPECT_EQ(p.current().rgb565[0], 0x001F);
}

// A frame is finished when a memory write over the whole screen begins: what was drawn after the
// last one (a picture, then a box over it) is in it.
TEST(DcsPanel, AFrameEndsWhenTheNextWholeScreenWriteBegins) {
    DcsPanel p;
    std::vector<lcd::Frame> frames;
    p.on_frame = [&](const lcd::Frame& f) {
        frames.push_back(f);
    };
    lcd_init(p);
    set_area(p, 0, 0, 239, 319);
    pixels(p, 0x1234, 240 * 320);
    set_area(p, 5, 5, 5, 5);
    pixels(p, 0xFFFF, 1);
    EXPECT_TRUE(frames.empty());
    set_area(p, 0, 0, 239, 319);
    ASSERT_EQ(frames.size(), 1u);
    EXPECT_EQ(frames[0].index, 0u);
    EXPECT_EQ(frames[0].rgb565[5 * 240 + 5], 0xFFFF);
    EXPECT_EQ(frames[0].rgb565[0], 0x1234);
    pixels(p, 0x0000, 10);
    set_area(p, 0, 0, 239, 319);
    ASSERT_EQ(frames.size(), 2u);
    EXPECT_EQ(frames[1].index, 1u);
    EXPECT_EQ(frames[1].rgb565[0], 0x0000);
    EXPECT_EQ(frames[1].rgb565[10], 0x1234);
}

// What a firmware gets wrong is kept as warnings naming it, each once with a count.
TEST(DcsPanel, UnmodelledCommandsAndPixelsPastTheWindowAreWarnings) {
    DcsPanel p;
    lcd_init(p);
    cmd(p, 0xB1, {0x00, 0x1B});  // a vendor command (frame rate control)
    set_area(p, 0, 0, 1, 0);
    pixels(p, 0xFFFF, 5);                    // two fit
    cmd(p, 0x2A, {0x00, 0x00, 0x01, 0x00});  // column 256 of 240
    const std::vector<std::string> w = p.warnings();
    ASSERT_EQ(w.size(), 3u);
    EXPECT_EQ(w[0], "nt35310: command 0xb1 is not modelled (its parameters are ignored)");
    EXPECT_EQ(w[1], "nt35310: pixels written past the end of the window (3 times)");
    EXPECT_EQ(w[2], "nt35310: CASET columns 0..256 outside 0..239: clamped");
    EXPECT_EQ(p.current().rgb565[2], 0x0000);
}

// Whatever bytes a firmware sends (random commands, parameters and pixels, seeded), the panel
// stays consistent: frames have the size MADCTL gives, no write leaves the GRAM.
TEST(DcsPanel, RandomByteStreamsKeepThePanelConsistent) {
    std::mt19937 rng(3);
    for (int run = 0; run < 20; ++run) {
        DcsPanel p;
        size_t frames = 0;
        p.on_frame = [&](const lcd::Frame& f) {
            ++frames;
            ASSERT_EQ(f.rgb565.size(),
                      static_cast<size_t>(f.width) * static_cast<size_t>(f.height));
        };
        for (int i = 0; i < 20000; ++i) {
            const auto b = static_cast<uint8_t>(rng());
            if (rng() % 8 == 0) {
                p.command(rng() % 2 == 0 ? b : static_cast<uint8_t>(0x2A + rng() % 3));
            } else {
                p.data(&b, 1);
            }
        }
        const lcd::Frame f = p.current();
        EXPECT_TRUE((f.width == 240 && f.height == 320) || (f.width == 320 && f.height == 240));
        EXPECT_EQ(f.rgb565.size(), 240u * 320u);
    }
}

}  // namespace
}  // namespace npu::test
