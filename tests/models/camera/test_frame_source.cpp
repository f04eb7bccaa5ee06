// The scene in front of the camera (--camera): an image, a folder of images in name order (the
// last one held), a video through OpenCV videoio (written here with OpenCV's own MJPEG writer),
// and one error naming the path for each bad input.
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>
#include <opencv2/core.hpp>
#include <opencv2/videoio.hpp>
#include <unistd.h>

#include "models/camera/frame_source.h"
#include "sim/core/image.h"

namespace npu::test {
namespace {

namespace fs = std::filesystem;

struct FrameSourceTest : ::testing::Test {
    fs::path dir =
        fs::temp_directory_path() /
        ("npusim-frames-" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
         "-" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    void SetUp() override { fs::create_directories(dir); }
    void TearDown() override { fs::remove_all(dir); }
    // A 4 x 2 PNG of one colour.
    void png(const std::string& name, uint8_t r, uint8_t g, uint8_t b) {
        std::vector<uint8_t> planes(24);
        for (size_t i = 0; i < 8; ++i) {
            planes[i] = r, planes[8 + i] = g, planes[16 + i] = b;
        }
        const std::vector<uint8_t> bytes = sim::encode_png(planes.data(), 3, 2, 4);
        std::ofstream(dir / name, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()),
                   static_cast<std::streamsize>(bytes.size()));
    }
    static int red(const sim::Tensor& t) { return t.data<uint8_t>()[0]; }
};

std::string error_of(const std::string& path) {
    try {
        camera::FrameSource s(path);
    } catch (const std::exception& e) {
        return e.what();
    }
    return "";
}

TEST_F(FrameSourceTest, AFolderGivesItsImagesInNameOrderThenHoldsTheLast) {
    png("b.png", 20, 0, 0);
    png("a.png", 10, 0, 0);
    png("c.png", 30, 0, 0);
    std::ofstream(dir / "notes.txt") << "not an image";
    camera::FrameSource s(dir.string());
    EXPECT_EQ(red(s.frame(0)), 10);
    EXPECT_EQ(red(s.frame(1)), 20);
    EXPECT_FALSE(s.ended());
    EXPECT_EQ(red(s.frame(2)), 30);
    EXPECT_EQ(red(s.frame(7)), 30);
    EXPECT_TRUE(s.ended());
    EXPECT_EQ(s.frames_read(), 3u);
    EXPECT_NE(s.describe().find("(3 images)"), std::string::npos);
}

TEST_F(FrameSourceTest, AVideoGivesItsFramesThenHoldsTheLast) {
    const std::string path = (dir / "v.avi").string();
    cv::VideoWriter w(path, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10, cv::Size(64, 48));
    ASSERT_TRUE(w.isOpened());
    for (int i = 0; i < 3; ++i) {
        w.write(cv::Mat(48, 64, CV_8UC3, cv::Scalar(0, 0, 40 + 80 * i)));  // BGR: red rises
    }
    w.release();
    camera::FrameSource s(path);
    for (int i = 0; i < 3; ++i) {
        const sim::Tensor& t = s.frame(static_cast<size_t>(i));
        EXPECT_EQ(t.shape()[2], 48);
        EXPECT_EQ(t.shape()[3], 64);
        EXPECT_NEAR(red(t), 40 + 80 * i, 3) << i;  // JPEG: within a few LSB
    }
    EXPECT_NEAR(red(s.frame(9)), 200, 3);
    EXPECT_TRUE(s.ended());
    EXPECT_EQ(s.describe(), "video " + path);
}

// A folder it may not read is said so, not "holds no image".
TEST_F(FrameSourceTest, AFolderItMayNotReadIsSaidSo) {
    if (::geteuid() == 0) {
        GTEST_SKIP() << "run as root, which reads any folder";
    }
    fs::create_directories(dir / "locked");
    fs::permissions(dir / "locked", fs::perms::none);
    const std::string locked = error_of((dir / "locked").string());
    fs::permissions(dir / "locked", fs::perms::owner_all);
    EXPECT_NE(locked.find("cannot read the folder: Permission denied"), std::string::npos)
        << locked;
}

// A playlist names other files (and could name URLs): refused as a camera file, though the video
// it names opens by itself.
TEST_F(FrameSourceTest, APlaylistIsNoCameraFile) {
    const std::string clip = (dir / "clip.avi").string();
    cv::VideoWriter w(clip, cv::VideoWriter::fourcc('M', 'J', 'P', 'G'), 10, cv::Size(64, 48));
    ASSERT_TRUE(w.isOpened());
    w.write(cv::Mat(48, 64, CV_8UC3, cv::Scalar(0, 0, 40)));
    w.release();
    EXPECT_EQ(camera::FrameSource(clip).frame(0).shape()[3], 64);
    std::ofstream(dir / "list.m3u8") << "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:1\n"
                                        "#EXTINF:0.1,\nclip.avi\n#EXT-X-ENDLIST\n";
    const std::string playlist = error_of((dir / "list.m3u8").string());
    EXPECT_NE(playlist.find("list.m3u8: not an image (by its extension) and no OpenCV video "
                            "backend opens it"),
              std::string::npos)
        << playlist;
}

TEST_F(FrameSourceTest, BadInputIsOneErrorNamingIt) {
    EXPECT_NE(error_of((dir / "missing.png").string()).find("no such file or folder"),
              std::string::npos);
    EXPECT_NE(error_of(dir.string()).find("holds no image"), std::string::npos);

    std::ofstream(dir / "broken.png") << "not a png";
    const std::string broken = error_of((dir / "broken.png").string());
    EXPECT_NE(broken.find("broken.png"), std::string::npos) << broken;
    std::ofstream(dir / "clip.mp4") << "not a video";
    const std::string clip = error_of((dir / "clip.mp4").string());
    EXPECT_NE(clip.find("clip.mp4"), std::string::npos) << clip;
    EXPECT_NE(clip.find("video"), std::string::npos) << clip;
    camera::FrameSource scene;  // no --camera: the test scene
    EXPECT_EQ(scene.frame(3).shape()[3], 640);
}

// A folder's images are checked before the run (the docs promise it): a bad one among good ones
// fails the constructor naming it, not the run when the camera reaches it; a device is no video.
TEST_F(FrameSourceTest, AFolderWithABadImageFailsBeforeTheRun) {
    png("a.png", 10, 0, 0);
    png("b.png", 20, 0, 0);
    std::ofstream(dir / "c.png") << "not a png";
    const std::string e = error_of(dir.string());
    EXPECT_NE(e.find("c.png: cannot decode image"), std::string::npos) << e;
    const std::string dev = error_of("/dev/zero");
    EXPECT_NE(dev.find("not a regular file"), std::string::npos) << dev;
}

}  // namespace
}  // namespace npu::test
