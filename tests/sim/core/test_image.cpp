// Input images as the Python ecosystem reads them: JPEG decoding against OpenCV's own decoder
// (imdecode, an independent code path over libjpeg-turbo), and the resize against values worked
// by hand from OpenCV's INTER_LINEAR definition.
#include <filesystem>
#include <random>
#include <vector>

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>
#include <stb/stb_image_write.h>
#include <unistd.h>

#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/image.h"
#include "sim/core/jpeg.h"

namespace npu::sim {
namespace {

// Our decode (RGB, NCHW) equals OpenCV's (BGR, HWC), byte for byte.
void expect_same_as_opencv(const std::vector<uint8_t>& jpeg, const std::string& name) {
    const Tensor ours = decode_jpeg(jpeg, name);
    const cv::Mat theirs = cv::imdecode(jpeg, cv::IMREAD_COLOR | cv::IMREAD_IGNORE_ORIENTATION);
    ASSERT_FALSE(theirs.empty()) << name;
    ASSERT_EQ(ours.dim(2), theirs.rows) << name;
    ASSERT_EQ(ours.dim(3), theirs.cols) << name;
    const size_t plane = static_cast<size_t>(theirs.rows) * static_cast<size_t>(theirs.cols);
    size_t differ = 0;
    for (size_t i = 0; i < plane; ++i) {
        for (size_t c = 0; c < 3; ++c) {
            differ += ours.data<uint8_t>()[c * plane + i] != theirs.data[3 * i + (2 - c)] ? 1u : 0u;
        }
    }
    EXPECT_EQ(differ, 0u) << name << ": bytes that differ from OpenCV's decode";
}

cv::Mat scene(int h, int w, int channels) {
    cv::Mat m(h, w, CV_8UC(channels));
    std::mt19937 rng(1);
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            for (int c = 0; c < channels; ++c) {
                // Smooth gradients plus noise: chroma subsampling and the IDCT both matter.
                m.ptr<uint8_t>(y)[x * channels + c] = static_cast<uint8_t>(
                    (x * 3 + y * (c + 1) * 2 + static_cast<int>(rng() % 24)) & 255);
            }
        }
    }
    return m;
}

TEST(Image, JpegDecodesAsOpenCvDoes) {
    for (const auto& [channels, quality] : {std::pair{3, 90}, std::pair{3, 50}, std::pair{1, 75}}) {
        std::vector<uint8_t> jpeg;
        ASSERT_TRUE(cv::imencode(".jpg", scene(61, 97, channels), jpeg,
                                 {cv::IMWRITE_JPEG_QUALITY, quality}));
        expect_same_as_opencv(jpeg, fmt::format("{} channels, quality {}", channels, quality));
    }
    const std::string photo = std::string(NPUSIM_SHARED_DIR) + "/k210/coco_436551.jpg";
    if (std::filesystem::exists(photo)) {
        expect_same_as_opencv(read_file(photo), photo);
    }
}

TEST(Image, CorruptOrTruncatedJpegIsOneClearError) {
    std::vector<uint8_t> jpeg;
    ASSERT_TRUE(cv::imencode(".jpg", scene(40, 40, 3), jpeg));
    std::vector<uint8_t> cut(jpeg.begin(),
                             jpeg.begin() + static_cast<std::ptrdiff_t>(jpeg.size() / 2));
    try {
        decode_jpeg(cut, "cut.jpg");
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(
            e.what(),
            "cut.jpg: cannot decode JPEG: the file ends before the image does (truncated)");
    }
    const std::vector<uint8_t> junk = {0xFF, 0xD8, 0xFF, 0x00, 0x01, 0x02};
    EXPECT_THROW(decode_jpeg(junk, "junk.jpg"), Error);
    EXPECT_TRUE(is_jpeg(jpeg));
    EXPECT_FALSE(is_jpeg({0x89, 'P', 'N', 'G'}));
}

// A header that claims a gigapixel scene (a 54-byte BMP of 60000 x 60000, 24-bit) is refused from
// its header, before a decoder allocates 10 GB for it.
TEST(Image, AnImageHeaderClaimingGigapixelsIsRefusedBeforeDecoding) {
    std::vector<uint8_t> bmp(54, 0);
    auto put32 = [&](size_t at, uint32_t v) {
        for (size_t k = 0; k < 4; ++k) {
            bmp[at + k] = static_cast<uint8_t>(v >> (8 * k));
        }
    };
    bmp[0] = 'B', bmp[1] = 'M';
    put32(2, 54), put32(10, 54), put32(14, 40), put32(18, 60000), put32(22, 60000);
    bmp[26] = 1, bmp[28] = 24;  // planes, bits per pixel
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("npusim_image_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    const std::string big = (dir / "big.bmp").string();
    write_file_atomic(big, bmp.data(), bmp.size());
    try {
        read_image(big);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  big + ": 60000x60000 pixels is more than the 2^28 accepted");
    }
    std::filesystem::remove_all(dir);
}

// A BMP, PPM and PGM written by OpenCV and a TGA written by stb_image_write (plain and
// run-length), each cut short: one error naming the file, where stb_image alone would have read
// the missing bytes as black pixels. Whole, each decodes.
TEST(Image, ATruncatedBmpTgaOrPnmIsRefusedNotFilledWithBlack) {
    const cv::Mat rgb = scene(37, 29, 3);  // odd sizes: BMP rows padded to 4 bytes
    cv::Mat gray;
    cv::cvtColor(rgb, gray, cv::COLOR_BGR2GRAY);
    std::vector<std::pair<std::string, std::vector<uint8_t>>> files;
    for (const char* ext : {".bmp", ".ppm"}) {
        std::vector<uint8_t> b;
        ASSERT_TRUE(cv::imencode(ext, rgb, b));
        files.emplace_back(ext, b);
    }
    std::vector<uint8_t> pgm;
    ASSERT_TRUE(cv::imencode(".pgm", gray, pgm));
    files.emplace_back(".pgm", pgm);
    for (int rle : {0, 1}) {
        cv::Mat rgb_order;
        cv::cvtColor(rgb, rgb_order, cv::COLOR_BGR2RGB);
        std::vector<uint8_t> tga;
        stbi_write_tga_with_rle = rle;
        ASSERT_NE(stbi_write_tga_to_func(
                      [](void* ctx, void* data, int n) {
                          auto* v = static_cast<std::vector<uint8_t>*>(ctx);
                          v->insert(v->end(), static_cast<uint8_t*>(data),
                                    static_cast<uint8_t*>(data) + n);
                      },
                      &tga, rgb.cols, rgb.rows, 3, rgb_order.data),
                  0);
        files.emplace_back(rle != 0 ? ".rle.tga" : ".tga", tga);
    }
    stbi_write_tga_with_rle = 1;
    const std::filesystem::path dir =
        std::filesystem::temp_directory_path() / ("npusim_trunc_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    for (const auto& [ext, bytes] : files) {
        const std::string whole = (dir / ("whole" + ext)).string();
        write_file_atomic(whole, bytes.data(), bytes.size());
        const Tensor t = read_image(whole);
        EXPECT_EQ(t.dim(2), 37) << ext;
        EXPECT_EQ(t.dim(3), 29) << ext;
        for (size_t cut : {size_t{1}, bytes.size() / 2}) {
            const std::string part = (dir / ("cut" + std::to_string(cut) + ext)).string();
            write_file_atomic(part, bytes.data(), bytes.size() - cut);
            for (int call = 0; call < 2; ++call) {
                try {
                    call == 0 ? (void)read_image(part) : check_image(part);
                    ADD_FAILURE() << ext << " cut by " << cut << ": no error";
                } catch (const Error& e) {
                    const std::string want = part + ": truncated image: its 29x37 header needs ";
                    EXPECT_EQ(std::string(e.what()).rfind(want, 0), 0u) << e.what();
                }
            }
        }
    }
    std::filesystem::remove_all(dir);
}

// A BMP cut inside its own header (33 bytes: stb_image's header check passes, the compression
// field is past the end; found by fuzz_image, which read past the input): truncated, and nothing
// read beyond the bytes (the ASan suite would say).
// A TGA's header cut at 17 of its 18 bytes claiming 16160 x 12810 run-length pixels (found by
// fuzz_image: stb_image decoded 207 M pixels of zeros in 10 s): truncated, at once.
TEST(Image, ATgaCutInsideItsHeaderIsTruncated) {
    const std::vector<uint8_t> tga = {0x00, 0x00, 0x0a, 0x86, 0x00, 0x00, 0x00, 0x00, 0x50,
                                      0x36, 0x0a, 0x23, 0x20, 0x3f, 0x0a, 0x32, 0x20};
    try {
        decode_image(tga, "cut.tga");
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(
            std::string(e.what()).rfind("cut.tga: truncated image: its 16160x12810 header", 0), 0u)
            << e.what();
    }
}

// A BMP whose compression field says neither plain nor RLE (0x81810000) claiming 65543 x 2560
// pixels in 85 bytes (found by fuzz_image: stb_image reads such a file as plain rows and decoded
// 168 M pixels of zeros in 11 s): truncated.
TEST(Image, ABmpOfAnUnknownCompressionIsCheckedAsPlainRows) {
    std::vector<uint8_t> bmp(85, 0x81);
    const uint8_t header[] = {'B', 'M', 0xae, 0, 0, 0, 0, 0,    0, 0x80, 0x36, 0, 0,    0, 0x28, 0,
                              0,   0,   7,    0, 1, 0, 0, 0x0a, 0, 0,    1,    0, 0x18, 0, 0,    0};
    std::copy(std::begin(header), std::end(header), bmp.begin());
    try {
        decode_image(bmp, "odd.bmp");
        ADD_FAILURE() << "no error";
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()).rfind("odd.bmp: truncated image: its 65543x2560 header", 0),
                  0u)
            << e.what();
    }
}

TEST(Image, ABmpCutInsideItsHeaderIsTruncatedNotReadPast) {
    std::vector<uint8_t> bmp;
    ASSERT_TRUE(cv::imencode(".bmp", scene(5, 7, 3), bmp));
    for (size_t n : {size_t{20}, size_t{26}, size_t{33}}) {  // (20: past the core header's size)
        const std::vector<uint8_t> cut(bmp.begin(), bmp.begin() + static_cast<std::ptrdiff_t>(n));
        try {
            decode_image(cut, "cut.bmp");
            ADD_FAILURE() << n << " bytes: no error";
        } catch (const Error& e) {
            EXPECT_NE(std::string(e.what()).find("cut.bmp: "), std::string::npos) << e.what();
        }
    }
}

// cv2.resize INTER_LINEAR of the row {0, 100} to 4 columns: source x = (x + 0.5) / 2 − 0.5 =
// −0.25 (clamped to 0), 0.25, 0.75, 1.25 (clamped to the last pixel), in 11-bit fixed point:
// 0; (1536·0 + 512·100)·2048 + 2^21 >> 22 = 25; 75; 100. A 1x4 -> 1x2 halving averages pairs
// ({10, 30, 50, 70} -> x = 0.5, 2.5: 20, 60).
TEST(Image, ResizeIsOpenCvsInterLinear) {
    Tensor row(DType::u8, {1, 1, 1, 2});
    row.data<uint8_t>()[0] = 0;
    row.data<uint8_t>()[1] = 100;
    const Tensor up = resize_linear(row, 1, 4);
    EXPECT_EQ(std::vector<uint8_t>(up.data<uint8_t>(), up.data<uint8_t>() + 4),
              (std::vector<uint8_t>{0, 25, 75, 100}));
    Tensor four(DType::u8, {1, 1, 1, 4});
    for (int i = 0; i < 4; ++i) {
        four.data<uint8_t>()[i] = static_cast<uint8_t>(10 + 20 * i);
    }
    const Tensor down = resize_linear(four, 1, 2);
    EXPECT_EQ(std::vector<uint8_t>(down.data<uint8_t>(), down.data<uint8_t>() + 2),
              (std::vector<uint8_t>{20, 60}));
}

}  // namespace
}  // namespace npu::sim
