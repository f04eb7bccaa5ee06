// The Kendryte SDK's lcd demo (../shared/vendor/kendryte-standalone-demo/lcd), unmodified, on the
// virtual K210: SPI0 in octal mode fed by the DMAC, the D/C line on a GPIOHS pin through the
// FPIOA, the KD233's NT35310. Judged by the frame it leaves on the screen, against what its
// main.c draws worked out here independently: lcd_clear(RED), lcd_draw_picture(0, 0, 240, 160)
// of a zeroed buffer (black), "Canaan" in red at (16, 40) and "Kendryte K210" in blue at (16, 80)
// in the demo's own 8x16 font (read from its font.h); and the lcd_image demo, whose photo
// (its image.h: RGB565 pixels two to a word, the first in the high half, as 32-bit frames send
// them) fills the 320 x 240 landscape screen. Skips without ../shared/vendor.
#include <string>
#include <vector>

#include "sim/core/image.h"
#include "tests/platforms/k210/firmware/firmware_fixture.h"

namespace npu::test {
namespace {

struct Rgb {
    int r, g, b;
    bool operator==(const Rgb& o) const { return r == o.r && g == o.g && b == o.b; }
};

TEST_F(Firmware, SdkLcdDemoDrawsItsPictureAndText) {
    const fs::path elf = sdk_demo("lcd");
    if (elf.empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    const fs::path out = dir / "lcd_out";
    // The demo ends in while (1): its screen is complete at 716 ms of simulated time.
    const Result r =
        run("run --firmware " + elf.string() + " --max-time 750ms --out " + out.string());
    EXPECT_EQ(r.rc, 1) << r.out << r.err;  // it never exits
    EXPECT_NE(r.out.find("lcd test"), std::string::npos) << r.out;
    ASSERT_TRUE(fs::exists(out / "lcd" / "0000.png")) << r.out;
    const std::string frames = slurp(out / "lcd" / "frames.txt");
    EXPECT_EQ(frames.substr(0, 2), "0 ") << frames;
    EXPECT_NE(frames.find(" 240x320 on"), std::string::npos) << frames;
    const sim::Tensor img = sim::read_image((out / "lcd" / "0000.png").string());
    ASSERT_EQ(img.numel(), 3u * 320u * 240u);
    const uint8_t* p = img.data<uint8_t>();
    const auto at = [&](int x, int y) {
        const size_t i = static_cast<size_t>(y) * 240 + static_cast<size_t>(x);
        return Rgb{p[i], p[320 * 240 + i], p[2 * 320 * 240 + i]};
    };
    const Rgb red{255, 0, 0}, blue{0, 0, 255}, black{0, 0, 0};
    // What main.c draws, pixel by pixel.
    const std::vector<uint32_t> font =
        demo_table(NPUSIM_SHARED_DIR "/vendor/kendryte-standalone-demo/lcd/font.h", 2);
    ASSERT_GE(font.size(), 128u * 16u);
    std::vector<Rgb> want(240 * 320, red);
    for (int y = 0; y < 160; ++y) {
        for (int x = 0; x < 240; ++x) {
            want[static_cast<size_t>(y * 240 + x)] = black;
        }
    }
    const auto text = [&](int x0, int y0, const std::string& s, Rgb c) {
        for (size_t k = 0; k < s.size(); ++k) {
            for (int row = 0; row < 16; ++row) {
                const uint32_t bits =
                    font[static_cast<size_t>(s[k]) * 16 + static_cast<size_t>(row)];
                for (int col = 0; col < 8; ++col) {
                    if ((bits & (0x80u >> col)) != 0) {
                        want[static_cast<size_t>((y0 + row) * 240 + x0 + static_cast<int>(k) * 8 +
                                                 col)] = c;
                    }
                }
            }
        }
    };
    text(16, 40, "Canaan", red);
    text(16, 80, "Kendryte K210", blue);
    int wrong = 0;
    for (int y = 0; y < 320; ++y) {
        for (int x = 0; x < 240; ++x) {
            if (!(at(x, y) == want[static_cast<size_t>(y * 240 + x)]) && wrong++ < 5) {
                ADD_FAILURE() << "pixel (" << x << ", " << y << ") is " << at(x, y).r << ","
                              << at(x, y).g << "," << at(x, y).b;
            }
        }
    }
    EXPECT_EQ(wrong, 0);
}

TEST_F(Firmware, SdkLcdImageDemoShowsItsPhoto) {
    const fs::path elf = sdk_demo("lcd_image");
    if (elf.empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    const fs::path out = dir / "lcd_image_out";
    // It draws the photo, then sleeps a second between redraws: on screen at 591 ms.
    const Result r =
        run("run --firmware " + elf.string() + " --max-time 700ms --out " + out.string());
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    ASSERT_TRUE(fs::exists(out / "lcd" / "0000.png")) << r.out;
    EXPECT_NE(slurp(out / "lcd" / "frames.txt").find(" 320x240 on"), std::string::npos);
    const std::vector<uint32_t> words =
        demo_table(NPUSIM_SHARED_DIR "/vendor/kendryte-standalone-demo/lcd_image/image.h", 8);
    ASSERT_EQ(words.size(), 320u * 240u / 2u);
    const sim::Tensor img = sim::read_image((out / "lcd" / "0000.png").string());
    ASSERT_EQ(img.numel(), 3u * 320u * 240u);
    const uint8_t* p = img.data<uint8_t>();
    const size_t n = 320 * 240;
    int wrong = 0;
    for (size_t i = 0; i < n; ++i) {
        const uint32_t w = words[i / 2];
        const uint32_t v = i % 2 == 0 ? w >> 16 : w & 0xffff;  // the high half goes first
        const uint32_t r5 = v >> 11, g6 = (v >> 5) & 0x3f, b5 = v & 0x1f;
        const uint32_t want[] = {r5 << 3 | r5 >> 2, g6 << 2 | g6 >> 4, b5 << 3 | b5 >> 2};
        for (size_t c = 0; c < 3; ++c) {
            if (p[c * n + i] != want[c] && wrong++ < 5) {
                ADD_FAILURE() << "pixel " << i << " channel " << c << ": " << int{p[c * n + i]}
                              << ", want " << want[c];
            }
        }
    }
    EXPECT_EQ(wrong, 0);
}

}  // namespace
}  // namespace npu::test
