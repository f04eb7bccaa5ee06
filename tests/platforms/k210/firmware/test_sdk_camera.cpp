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
    const unsigned widths[3] = {5, 6, 5};  // RGB565, widened by repeating the top bits
    int wrong = 0;
    for (size_t c = 0; c < 3; ++c) {
        for (size_t i = 0; i < 320 * 240; ++i) {
            const unsigned bits = widths[c];
            const size_t x = i % 320, src = i - x + (mirrored ? 319 - x : x);
            const unsigned v = unsigned{w[c * 320 * 240 + src]} >> (8 - bits);
            const unsigned expect = (v << (8 - bits)) | (v >> (2 * bits - 8));
            if (g[c * 320 * 240 + i] != expect && wrong++ < 5) {
                ADD_FAILURE() << "pixel " << i % 320 << "," << i / 320 << " channel " << c << ": "
                              << int{g[c * 320 * 240 + i]} << ", want " << expect;
            }
        }
    }
    return wrong;
}

// The AI buffer the DVP writes for the photo: resized to 320 x 240, RGB565, widened back by
// repeating the top bits, planar.
sim::Tensor ai_buffer() {
    sim::Tensor t = sim::resize_linear(sim::read_image(kPhoto), 240, 320);
    uint8_t* p = t.data<uint8_t>();
    const unsigned keep[3] = {5, 6, 5};
    for (size_t c = 0; c < 3; ++c) {
        for (size_t i = 0; i < 320 * 240; ++i) {
            const unsigned v = unsigned{p[c * 320 * 240 + i]} >> (8 - keep[c]);
            p[c * 320 * 240 + i] =
                static_cast<uint8_t>((v << (8 - keep[c])) | (v >> (2 * keep[c] - 8)));
        }
    }
    return t;
}

struct Box {
    float x, y, w, h, prob;
};

// region_layer.c for face_detect: 5 anchors, 1 class, a 20 x 15 grid (output (1, 30, 15, 20));
// objectness x class probability above 0.7, then non-maximum suppression at IoU 0.3; corners
// in the 320 x 240 image as the firmware's uint32 (negatives: 0, as fcvt.wu.s gives).
std::vector<std::array<uint32_t, 4>> face_boxes(const sim::Tensor& out) {
    const float anchor[10] = {1.889f,  2.5245f,   2.9465f,  3.94056f,  3.99987f,
                              5.3658f, 5.155437f, 6.92275f, 6.718375f, 9.01025f};
    const float* x = out.data<float>();
    const int wh = 20 * 15;
    const auto sig = [](float v) {
        return 1.f / (1.f + std::exp(-v));
    };
    std::vector<Box> boxes;
    for (int n = 0; n < 5; ++n) {
        for (int i = 0; i < wh; ++i) {
            const float* e = x + n * 6 * wh + i;
            const float prob = sig(e[4 * wh]);  // one class: its softmax is 1
            boxes.push_back({(static_cast<float>(i % 20) + sig(e[0])) / 20.f,
                             (static_cast<float>(i / 20) + sig(e[wh])) / 15.f,
                             std::exp(e[2 * wh]) * anchor[2 * n] / 20.f,
                             std::exp(e[3 * wh]) * anchor[2 * n + 1] / 15.f,
                             prob > 0.7f ? prob : 0.f});
        }
    }
    std::vector<size_t> order(boxes.size());
    for (size_t i = 0; i < order.size(); ++i) {
        order[i] = i;
    }
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return boxes[a].prob > boxes[b].prob; });
    const auto iou = [](const Box& a, const Box& b) {
        const auto overlap = [](float x1, float w1, float x2, float w2) {
            return std::min(x1 + w1 / 2, x2 + w2 / 2) - std::max(x1 - w1 / 2, x2 - w2 / 2);
        };
        const float w = overlap(a.x, a.w, b.x, b.w), h = overlap(a.y, a.h, b.y, b.h);
        const float inter = w < 0 || h < 0 ? 0 : w * h;
        return inter / (a.w * a.h + b.w * b.h - inter);
    };
    for (size_t i = 0; i < order.size(); ++i) {
        if (boxes[order[i]].prob == 0) {
            continue;
        }
        for (size_t j = i + 1; j < order.size(); ++j) {
            if (iou(boxes[order[i]], boxes[order[j]]) > 0.3f) {
                boxes[order[j]].prob = 0;
            }
        }
    }
    const auto u32 = [](float v) {
        return v <= 0 ? 0u : static_cast<uint32_t>(v);
    };
    std::vector<std::array<uint32_t, 4>> found;
    for (const Box& b : boxes) {
        if (b.prob > 0.7f) {
            found.push_back({u32(b.x * 320 - b.w * 320 / 2), u32(b.y * 240 - b.h * 240 / 2),
                             u32(b.x * 320 + b.w * 320 / 2), u32(b.y * 240 + b.h * 240 / 2)});
        }
    }
    return found;
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
    sim::write_npy((dir / "ai.npy").string(), ai_buffer());
    const Result m =
        run("run --model " NPUSIM_SHARED_DIR "/k210/face_detect_v3.kmodel --input " +
            (dir / "ai.npy").string() + " --functional --out " + (dir / "model").string());
    ASSERT_EQ(m.rc, 0) << m.out << m.err;
    const auto faces = face_boxes(sim::read_npy((dir / "model" / "output_0.npy").string()));
    ASSERT_EQ(faces.size(), 1u);  // the astronaut
    // The demo: its first camera frame on the LCD (0000 is its lcd_clear) at 1054 ms.
    const fs::path out = dir / "face_out";
    const Result r = run("run --firmware " + elf.string() + " --camera " + kPhoto +
                         " --max-time 1060ms --out " + out.string());
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
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
        std::array<uint32_t, 4> b = faces[0];
        for (int k = 0, q = d; k < 4; ++k, q /= 3) {
            b[static_cast<size_t>(k)] += q % 3 == 0 ? 0u : q % 3 == 1 ? ~0u : 1u;  // 0, -1, +1
        }
        if (edge_pixels(b) == red) {
            marks = red;
            ::testing::Test::RecordProperty("corner_offsets", d);  // 0: none
        }
    }
    EXPECT_FALSE(marks.empty()) << "no marks at " << faces[0][0] << "," << faces[0][1] << " - "
                                << faces[0][2] << "," << faces[0][3] << "; " << red.size()
                                << " red pixels";
    // Everywhere else: the photo as the camera sent it.
    const sim::Tensor photo = ai_buffer();  // the same widened RGB565 values
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
