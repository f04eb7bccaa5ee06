// The Kendryte SDK's lcd demo (../shared/vendor/kendryte-standalone-demo/lcd), unmodified, on the
// virtual K210: SPI0 in octal mode fed by the DMAC, the D/C line on a GPIOHS pin through the
// FPIOA, the KD233's NT35310. Judged by the frame it leaves on the screen, against what its
// main.c draws worked out here independently: lcd_clear(RED), lcd_draw_picture(0, 0, 240, 160)
// of a zeroed buffer (black), "Canaan" in red at (16, 40) and "Kendryte K210" in blue at (16, 80)
// in the demo's own 8x16 font (read from its font.h). Skips without ../shared/vendor.
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include "sim/core/image.h"
#include "tests/platforms/k210/firmware/firmware_fixture.h"

namespace npu::test {
namespace {

// The demo's ascii0816 table: 16 rows of 8 pixels per character, MSB left.
std::vector<uint8_t> demo_font(const fs::path& font_h) {
    std::ifstream in(font_h);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    std::vector<uint8_t> font;
    const std::regex hex("0x([0-9A-Fa-f]{2})");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), hex);
         it != std::sregex_iterator(); ++it) {
        font.push_back(static_cast<uint8_t>(std::stoi((*it)[1].str(), nullptr, 16)));
    }
    return font;
}

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
    const std::vector<uint8_t> font =
        demo_font(NPUSIM_SHARED_DIR "/vendor/kendryte-standalone-demo/lcd/font.h");
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
                const uint8_t bits =
                    font[static_cast<size_t>(s[k]) * 16 + static_cast<size_t>(row)];
                for (int col = 0; col < 8; ++col) {
                    if ((bits & (0x80 >> col)) != 0) {
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

}  // namespace
}  // namespace npu::test
