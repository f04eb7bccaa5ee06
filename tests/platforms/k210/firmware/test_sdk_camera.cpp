// The Kendryte SDK's camera demos (../shared/vendor/kendryte-standalone-demo), unmodified, on the
// virtual K210 with a photo in front of the camera (--camera): dvp_ov programs the sensor over
// SCCB, converts each frame from the DVP's FRAME_START interrupt and sends the display buffer to
// the LCD. Its frame on the screen must be the photo as the sensor sends it: resized to 320 x 240
// (OpenCV INTER_LINEAR), RGB565, every pixel. On the KD233 with the OV5640 (the demos' default:
// no mirror: the photo as it is) and, built with board_config.h switched, on the LicheeDan with
// the OV2640 and an ST7789: its ov2640.c sets REG04 0x88 (bit 7: the sensor mirrors), so the frame
// — the screen as the application addresses it (docs/k210_lcd.md) — holds the photo mirrored left
// to right (the LicheeDan's DIR_YX_RLDU then reverses the panel's scan on the glass).
// face_detect and kpu, unmodified (KD233, OV5640; they set up the board's SPI3 flash first), run
// their KPU detectors on each frame's AI buffer and draw what they find: face_detect red corner
// marks into the display buffer, kpu a class-coloured rectangle and a label on the LCD. Their
// frames must be the photo with those drawings exactly where the region layer puts them, worked
// out here from `npusim run --model` on the same AI-buffer input and region_layer.c's formulas
// (region_layer_ref.h). Skips without ../shared/vendor.
#include <map>
#include <set>

#include "sim/core/image.h"
#include "sim/core/npy.h"
#include "tests/platforms/k210/firmware/firmware_fixture.h"
#include "tests/platforms/k210/firmware/region_layer_ref.h"

namespace npu::test {
namespace {

const std::string kPhoto = NPUSIM_SHARED_DIR "/k210/astronaut.png";

// Pixels of the LCD frame `png` that differ from the photo as the camera sends it (`mirrored`:
// left to right).
int wrong_pixels(const fs::path& png, bool mirrored = false) {
    const sim::Tensor want = ai_buffer(kPhoto);  // the photo in RGB565, widened
    const sim::Tensor got = sim::read_image(png.string());
    EXPECT_EQ(got.numel(), want.numel());
    if (got.numel() != want.numel()) {
        return -1;
    }
    const uint8_t* w = want.data<uint8_t>();
    const uint8_t* g = got.data<uint8_t>();
    int wrong = 0;
    for (size_t c = 0; c < 3; ++c) {
        for (size_t i = 0; i < 320 * 240; ++i) {
            const size_t x = i % 320, src = i - x + (mirrored ? 319 - x : x);
            const unsigned expect = w[c * 320 * 240 + src];
            if (g[c * 320 * 240 + i] != expect && wrong++ < 5) {
                ADD_FAILURE() << "pixel " << i % 320 << "," << i / 320 << " channel " << c << ": "
                              << int{g[c * 320 * 240 + i]} << ", want " << expect;
            }
        }
    }
    return wrong;
}

// The pixels face_detect's draw_edge paints for a box: 4 words (8 pixels) of two rows at each
// corner, and 8 rows of one word (2 pixels) down from each corner (its clamps included).
std::set<size_t> edge_pixels(std::array<uint32_t, 4> b) {
    uint32_t x1 = b[0], y1 = b[1], x2 = b[2], y2 = b[3];
    x1 = x1 == 0 ? 1 : x1;
    x2 = x2 >= 319 ? 318 : x2;
    y1 = y1 == 0 ? 1 : y1;
    y2 = y2 >= 239 ? 238 : y2;
    std::set<size_t> px;
    const auto word = [&](size_t w) {
        px.insert(2 * w);
        px.insert(2 * w + 1);
    };
    const size_t a1 = (320 * y1 + x1) / 2, a2 = (320 * y1 + x2 - 8) / 2;
    const size_t a3 = (320 * (y2 - 1) + x1) / 2, a4 = (320 * (y2 - 1) + x2 - 8) / 2;
    for (size_t i = 0; i < 4; ++i) {
        for (size_t a : {a1, a2, a3, a4}) {
            word(a + i);
            word(a + i + 160);
        }
    }
    const size_t v1 = (320 * y1 + x1) / 2, v2 = (320 * y1 + x2 - 2) / 2;
    const size_t v3 = (320 * (y2 - 8) + x1) / 2, v4 = (320 * (y2 - 8) + x2 - 2) / 2;
    for (size_t i = 0; i < 8; ++i) {
        for (size_t a : {v1, v2, v3, v4}) {
            word(a + 160 * i);
        }
    }
    return px;
}

TEST_F(Firmware, SdkFaceDetectDemoMarksTheFaceWhereItsModelFindsIt) {
    const fs::path elf = sdk_demo("face_detect");
    if (elf.empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    // What the model finds on the AI buffer, decoded here.
    sim::write_npy((dir / "ai.npy").string(), ai_buffer(kPhoto));
    const Result m =
        run("run --model " NPUSIM_SHARED_DIR "/k210/face_detect_v3.kmodel --input " +
            (dir / "ai.npy").string() + " --functional --out " + (dir / "model").string());
    ASSERT_EQ(m.rc, 0) << m.out << m.err;
    const sim::Tensor found = sim::read_npy((dir / "model" / "output_0.npy").string());
    const std::vector<Detection> faces =
        region_layer(found.data<float>(), 20, 15, 1,
                     {1.889f, 2.5245f, 2.9465f, 3.94056f, 3.99987f, 5.3658f, 5.155437f, 6.92275f,
                      6.718375f, 9.01025f},
                     0.7f, 0.3f);  // face_detect's main.c
    ASSERT_EQ(faces.size(), 1u);   // the astronaut
    // The demo: its first camera frame on the LCD (0000 is its lcd_clear), then a second; the run
    // ends when the third begins (--max-frames 3) and passes.
    const fs::path out = dir / "face_out";
    const Result r = run("run --firmware " + elf.string() + " --camera " + kPhoto +
                         " --max-frames 3 --trace --out " + out.string());
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("stopped after 3 LCD frames (--max-frames)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("note: the scene's 512x512 frames are resized to the sensor's 320x240"),
              std::string::npos)
        << r.out;  // the astronaut is square
    // The trace: the LCD's three frames, the camera's captured ones and the KPU's inferences on
    // their own tracks.
    size_t lcd_spans = 0, captured = 0, inferences = 0;
    const json trace = json::parse(slurp(out / "trace.json"));
    for (const json& e : trace["traceEvents"]) {
        lcd_spans += e.value("cat", "") == "lcd" ? 1u : 0u;
        captured += e.value("cat", "") == "camera" && e["dur"].get<double>() > 0 ? 1u : 0u;
        inferences += e.value("name", "").find("23 layers, shown in frame") == 0 ? 1u : 0u;
    }
    EXPECT_EQ(lcd_spans, 3u);
    EXPECT_GE(captured, 2u);
    EXPECT_EQ(inferences, 2u);  // face_detect_v3's 23 KPU layers before each camera frame shown
    // report.html: the frames as a strip, each with its time.
    const std::string page = slurp(out / "report.html");
    EXPECT_NE(page.find("id=\"lcd-strip\""), std::string::npos);
    const double shown_ms =
        report("face_out")["extra"]["frames"]["lcd"][1]["last_pixel_us"].get<double>() / 1e3;
    EXPECT_NE(page.find(fmt::format("lcd/0001.png at {:.3f} ms", shown_ms)), std::string::npos);
    // npusim report draws the same page again from the folder (its lcd/ frames included).
    fs::rename(out / "report.html", out / "first.html");
    ASSERT_EQ(run("report " + out.string()).rc, 0);
    EXPECT_EQ(slurp(out / "report.html"), page);
    // Frame to frame: it converts every other camera frame (it re-arms the DVP after drawing),
    // two OV5640 frames of 1880 x 496 x 2 / 56.672 MHz (its XCLK 201.5 MHz / 16 x 4.5): 65.816
    // ms; in it the camera's capture, the KPU's layers, the LCD's transfer.
    const json frames = report("face_out")["extra"]["frames"];
    ASSERT_EQ(frames["lcd"].size(), 3u);
    ASSERT_EQ(frames["frame_times"].size(), 2u);
    const json& steady = frames["frame_times"][1];
    const double camera_frame_us = 1880.0 * 496 * 2 / (201.5e6 / 16 * 4.5) * 1e6;
    EXPECT_NEAR(steady["frame_time_us"].get<double>(), 2 * camera_frame_us, 1.0);
    EXPECT_GT(steady["kpu_us"].get<double>(), 5000);  // face_detect_v3 at 398.7 MHz
    EXPECT_GT(steady["lcd_us"].get<double>(), 1000);
    EXPECT_NE(r.out.find("frame time (LCD frame to frame, mean of 1): 65.8"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("System start"), std::string::npos) << r.out;
    ASSERT_TRUE(fs::exists(out / "lcd" / "0001.png")) << r.out;
    const sim::Tensor got = sim::read_image((out / "lcd" / "0001.png").string());
    const uint8_t* g = got.data<uint8_t>();
    std::set<size_t> red;
    for (size_t i = 0; i < 320 * 240; ++i) {
        if (g[i] == 255 && g[320 * 240 + i] == 0 && g[2 * 320 * 240 + i] == 0) {
            red.insert(i);
        }
    }
    // The marks where the decoded box puts them (a corner one pixel off allowed: the firmware's
    // expf is picolibc's, ours the host's; offsets tried from none).
    std::set<size_t> marks;
    for (int d = 0; d < 81 && marks.empty(); ++d) {
        std::array<uint32_t, 4> b = faces[0].corners;
        for (int k = 0, q = d; k < 4; ++k, q /= 3) {
            b[static_cast<size_t>(k)] += q % 3 == 0 ? 0u : q % 3 == 1 ? ~0u : 1u;  // 0, -1, +1
        }
        if (edge_pixels(b) == red) {
            marks = red;
            ::testing::Test::RecordProperty("corner_offsets", d);  // 0: none
        }
    }
    const std::array<uint32_t, 4>& at = faces[0].corners;
    EXPECT_FALSE(marks.empty()) << "no marks at " << at[0] << "," << at[1] << " - " << at[2] << ","
                                << at[3] << "; " << red.size() << " red pixels";
    // Everywhere else: the photo as the camera sent it.
    const sim::Tensor photo = ai_buffer(kPhoto);  // the same widened RGB565 values
    const uint8_t* w = photo.data<uint8_t>();
    int wrong = 0;
    for (size_t i = 0; i < 320 * 240; ++i) {
        for (size_t c = 0; c < 3 && marks.count(i) == 0; ++c) {
            wrong += g[c * 320 * 240 + i] != w[c * 320 * 240 + i] ? 1 : 0;
        }
    }
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(r.out.find("warning"), std::string::npos) << r.out;
}

// What the kpu demo draws for a detection (drawboxes): lcd_draw_rectangle, 2 pixels wide, in the
// class's colour, then the class's label (its font, black on the colour, 8 x 16 a letter) at
// (x1 + 1, y1 + 1). `img`: planar RGB, 320 x 240, drawn on.
void draw_detection(uint8_t* img, const Detection& d, const std::vector<uint32_t>& font) {
    static const char* const kNames[20] = {
        "aeroplane", "bicycle",     "bird",  "boat",        "bottle", "bus",      "car",
        "cat",       "chair",       "cow",   "diningtable", "dog",    "horse",    "motorbike",
        "person",    "pottedplant", "sheep", "sofa",        "train",  "tvmonitor"};
    const std::map<unsigned, uint16_t> kColours{
        {4, 0xF81F}, {8, 0xFD20}, {14, 0xF800}, {19, 0xF9B6}};
    const uint16_t colour = kColours.count(d.cls) != 0 ? kColours.at(d.cls) : uint16_t{0x07E0};
    const auto put = [&](uint32_t x, uint32_t y, uint16_t v) {
        if (x < 320 && y < 240) {
            const unsigned r = v >> 11, g = (v >> 5) & 0x3f, b = v & 0x1f;
            const size_t i = y * 320 + x;
            img[i] = static_cast<uint8_t>(r << 3 | r >> 2);
            img[320 * 240 + i] = static_cast<uint8_t>(g << 2 | g >> 4);
            img[2 * 320 * 240 + i] = static_cast<uint8_t>(b << 3 | b >> 2);
        }
    };
    std::array<uint32_t, 4> c = d.corners;
    for (size_t k = 0; k < 4; ++k) {
        c[k] = std::min(c[k], k % 2 == 0 ? 319u : 239u);
    }
    for (uint32_t y = c[1]; y <= c[3]; ++y) {
        for (uint32_t x = c[0]; x <= c[2]; ++x) {
            if (y <= c[1] + 1 || y + 1 >= c[3] || x <= c[0] + 1 || x + 1 >= c[2]) {
                put(x, y, colour);
            }
        }
    }
    const std::string name = kNames[d.cls];
    for (size_t k = 0; k < name.size(); ++k) {
        for (uint32_t row = 0; row < 16; ++row) {
            const uint32_t bits = font[static_cast<size_t>(name[k]) * 16 + row];
            for (uint32_t col = 0; col < 8; ++col) {
                put(c[0] + 1 + 8 * static_cast<uint32_t>(k) + col, c[1] + 1 + row,
                    (bits & (0x80u >> col)) != 0 ? uint16_t{0} : colour);
            }
        }
    }
}

TEST_F(Firmware, SdkKpuDemoBoxesAndLabelsWhatItsModelFinds) {
    const fs::path elf = sdk_demo("kpu");
    if (elf.empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    const std::string photo = NPUSIM_SHARED_DIR "/k210/coco_436551.jpg";
    sim::write_npy((dir / "ai.npy").string(), ai_buffer(photo));
    const Result m =
        run("run --model " NPUSIM_SHARED_DIR "/k210/yolo20_v3.kmodel --input " +
            (dir / "ai.npy").string() + " --functional --out " + (dir / "model").string());
    ASSERT_EQ(m.rc, 0) << m.out << m.err;
    const sim::Tensor out = sim::read_npy((dir / "model" / "output_0.npy").string());
    const std::vector<Detection> found =
        region_layer(out.data<float>(), 10, 7, 20,
                     {1.08f, 1.19f, 3.42f, 4.41f, 6.63f, 11.38f, 9.42f, 5.11f, 16.62f, 10.52f},
                     0.7f, 0.3f);  // kpu/main.c
    ASSERT_FALSE(found.empty());
    EXPECT_EQ(found[0].cls, 2u);  // a bird: the black swan
    // The demo: the camera picture, then its boxes, on the LCD by 1.40 s (its second frame; the
    // first is its "DEMO 1" screen).
    const fs::path run_out = dir / "kpu_out";
    const Result r = run("run --firmware " + elf.string() + " --camera " + photo +
                         " --max-time 1420ms --out " + run_out.string());
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    ASSERT_TRUE(fs::exists(run_out / "lcd" / "0001.png")) << r.out;
    sim::Tensor want = ai_buffer(photo);
    const std::vector<uint32_t> font =
        demo_table(NPUSIM_SHARED_DIR "/vendor/kendryte-standalone-demo/kpu/font.h", 2);
    ASSERT_GE(font.size(), 128u * 16u);
    for (const Detection& d : found) {
        draw_detection(want.data<uint8_t>(), d, font);
    }
    const sim::Tensor got = sim::read_image((run_out / "lcd" / "0001.png").string());
    ASSERT_EQ(got.numel(), want.numel());
    int wrong = 0;
    for (size_t i = 0; i < want.numel(); ++i) {
        if (got.data<uint8_t>()[i] != want.data<uint8_t>()[i] && wrong++ < 5) {
            ADD_FAILURE() << "pixel " << i % 320 << "," << (i / 320) % 240 << " channel "
                          << i / (320 * 240);
        }
    }
    EXPECT_EQ(wrong, 0) << found.size() << " detections, the first at " << found[0].corners[0]
                        << "," << found[0].corners[1] << " - " << found[0].corners[2] << ","
                        << found[0].corners[3];
}

TEST_F(Firmware, SdkDvpOvDemoShowsThePhotoInFrontOfTheCamera) {
    const fs::path elf = sdk_demo("dvp_ov");
    if (elf.empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    const fs::path out = dir / "dvp_ov_out";
    // The sensor is set up by 1.0 s (its driver's delays); a frame every 15.4 ms after that. Every
    // other LCD frame written (--lcd-every 2), the run ended after three.
    const Result r = run("run --firmware " + elf.string() + " --camera " + kPhoto +
                         " --lcd-every 2 --max-frames 3 --out " + out.string());
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_FALSE(fs::exists(out / "lcd" / "0001.png"));
    EXPECT_EQ(report("dvp_ov_out")["extra"]["frames"]["lcd"][1]["file"], nullptr);
    EXPECT_NE(r.out.find("ID: 5640"), std::string::npos) << r.out;  // read over SCCB
    EXPECT_NE(r.out.find("captured by the DVP"), std::string::npos) << r.out;
    ASSERT_TRUE(fs::exists(out / "lcd" / "0002.png")) << r.out;  // 0000: lcd_clear(BLACK)
    EXPECT_EQ(wrong_pixels(out / "lcd" / "0002.png"), 0);
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
