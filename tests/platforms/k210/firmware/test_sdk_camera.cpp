// The Kendryte SDK's camera demos (../shared/vendor/kendryte-standalone-demo), unmodified, on the
// virtual K210 with a photo in front of the camera (--camera): dvp_ov programs the sensor over
// SCCB, converts each frame from the DVP's FRAME_START interrupt and sends the display buffer to
// the LCD. Its frame on the screen must be the photo as the sensor sends it: resized to 320 x 240
// (OpenCV INTER_LINEAR), RGB565, every pixel. On the KD233 with the OV5640 (the demos' default:
// no mirror: the photo as it is) and, built with board_config.h switched, on the LicheeDan with
// the OV2640 and an ST7789: its ov2640.c sets REG04 0x88 (bit 7: the sensor mirrors), so the frame
// — the screen as the application addresses it (docs/k210_lcd.md) — holds the photo mirrored left
// to right (the LicheeDan's DIR_YX_RLDU then reverses the panel's scan on the glass). Skips
// without ../shared/vendor.
#include <regex>

#include "sim/core/image.h"
#include "tests/platforms/k210/firmware/firmware_fixture.h"

namespace npu::test {
namespace {

const std::string kPhoto = NPUSIM_SHARED_DIR "/k210/astronaut.png";

// Pixels of the LCD frame `png` that differ from the photo as the camera sends it (`mirrored`:
// left to right).
int wrong_pixels(const fs::path& png, bool mirrored = false) {
    const sim::Tensor want = sim::resize_linear(sim::read_image(kPhoto), 240, 320);
    const sim::Tensor got = sim::read_image(png.string());
    EXPECT_EQ(got.numel(), want.numel());
    if (got.numel() != want.numel()) {
        return -1;
    }
    const uint8_t* w = want.data<uint8_t>();
    const uint8_t* g = got.data<uint8_t>();
    const int widths[3] = {5, 6, 5};  // RGB565, widened by repeating the top bits
    int wrong = 0;
    for (size_t c = 0; c < 3; ++c) {
        for (size_t i = 0; i < 320 * 240; ++i) {
            const int bits = widths[c];
            const size_t x = i % 320, src = i - x + (mirrored ? 319 - x : x);
            const unsigned v = w[c * 320 * 240 + src] >> (8 - bits);
            const unsigned expect = (v << (8 - bits)) | (v >> (2 * bits - 8));
            if (g[c * 320 * 240 + i] != expect && wrong++ < 5) {
                ADD_FAILURE() << "pixel " << i % 320 << "," << i / 320 << " channel " << c << ": "
                              << int{g[c * 320 * 240 + i]} << ", want " << expect;
            }
        }
    }
    return wrong;
}

TEST_F(Firmware, SdkDvpOvDemoShowsThePhotoInFrontOfTheCamera) {
    const fs::path elf = sdk_demo("dvp_ov");
    if (elf.empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    const fs::path out = dir / "dvp_ov_out";
    // The sensor is set up by 1.0 s (its driver's delays); a frame every 15.4 ms after that.
    const Result r = run("run --firmware " + elf.string() + " --camera " + kPhoto +
                         " --max-time 1060ms --out " + out.string());
    EXPECT_EQ(r.rc, 1) << r.out << r.err;                           // it never exits
    EXPECT_NE(r.out.find("ID: 5640"), std::string::npos) << r.out;  // read over SCCB
    EXPECT_NE(r.out.find("captured by the DVP"), std::string::npos) << r.out;
    ASSERT_TRUE(fs::exists(out / "lcd" / "0001.png")) << r.out;  // 0000: lcd_clear(BLACK)
    EXPECT_EQ(wrong_pixels(out / "lcd" / "0001.png"), 0);
    const std::string frames = slurp(out / "camera" / "frames.txt");
    EXPECT_NE(frames.find(" captured 0"), std::string::npos) << frames;
}

TEST_F(Firmware, SdkDvpOvDemoOnTheLicheeDanWithAnOv2640) {
    const std::string demo = NPUSIM_SHARED_DIR "/vendor/kendryte-standalone-demo/dvp_ov";
    if (!fs::exists(demo)) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    const fs::path app = dir / "dvp_ov_licheedan";
    fs::copy(demo, app, fs::copy_options::recursive);
    std::string config = slurp(app / "board_config.h");
    for (const auto& [from, to] :
         {std::pair<std::string, std::string>{"OV5640             1", "OV5640             0"},
          {"OV2640             0", "OV2640             1"},
          {"BOARD_KD233        1", "BOARD_KD233        0"},
          {"BOARD_LICHEEDAN    0", "BOARD_LICHEEDAN    1"}}) {
        const size_t at = config.find(from);
        ASSERT_NE(at, std::string::npos) << from;
        config.replace(at, from.size(), to);
    }
    std::ofstream(app / "board_config.h") << config;
    const fs::path elf = dir / "dvp_ov_licheedan.elf";
    const Result b = shell(std::string(NPUSIM_SOURCE_DIR "/scripts/k210-sdk-app --sdk ") +
                           NPUSIM_SHARED_DIR "/vendor/kendryte-standalone-sdk " + app.string() +
                           " -o " + elf.string());
    ASSERT_EQ(b.rc, 0) << b.out << b.err;
    const fs::path out = dir / "licheedan_out";
    const Result r = run("run --firmware " + elf.string() + " --camera " + kPhoto +
                         " --set camera.sensor=ov2640 --set lcd.controller=st7789"
                         " --set lcd.dcx_pad=38 --set lcd.bgr=false --max-time 1250ms --out " +
                         out.string());
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("manuf_id:0x7fa2,device_id:0x2642"), std::string::npos) << r.out;
    ASSERT_TRUE(fs::exists(out / "lcd" / "0001.png")) << r.out;  // 0000: lcd_clear(BLACK)
    EXPECT_EQ(wrong_pixels(out / "lcd" / "0001.png", true), 0);
}

}  // namespace
}  // namespace npu::test
