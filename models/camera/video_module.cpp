// The video reader module (see video_module.h): OpenCV videoio behind a C interface.
#include "models/camera/video_module.h"

#include <cstdlib>
#include <memory>

#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

namespace {

// FFmpeg's options for avformat_open_input, "key;value|key;value" as OpenCV reads them: the
// containers a camera recording comes in (FFmpeg's demuxer names) and the file protocol alone.
constexpr const char* kCaptureOptions =
    "protocol_whitelist;file|format_whitelist;mov,mp4,m4a,3gp,3g2,mj2,matroska,webm,avi,asf,"
    "mpeg,mpegts,mpegvideo,flv,ogg,h264,hevc,mjpeg,yuv4mpegpipe,gif";

struct Video {
    cv::VideoCapture cap;
    cv::Mat rgb;
};

}  // namespace

extern "C" {

void* npusim_video_open(const char* path) {
    try {
        auto v = std::make_unique<Video>();
        // FFmpeg only, quietly: the refusal is the caller's to say, once (OpenCV and FFmpeg
        // would print their own lines from every backend they try).
        ::setenv("OPENCV_FFMPEG_LOGLEVEL", "-8", 0);
        // A camera file is one container of one local file: no demuxer that reads other files
        // or URLs it names (a .m3u8 playlist, ffconcat, image sequences), no protocol but the file.
        ::setenv("OPENCV_FFMPEG_CAPTURE_OPTIONS", kCaptureOptions, 1);
        const auto level = cv::utils::logging::getLogLevel();
        cv::utils::logging::setLogLevel(cv::utils::logging::LOG_LEVEL_SILENT);
        const bool opened = v->cap.open(path, cv::CAP_FFMPEG) && v->cap.isOpened();
        cv::utils::logging::setLogLevel(level);
        return opened ? v.release() : nullptr;
    } catch (...) {
        return nullptr;
    }
}

int npusim_video_read(void* video, int* width, int* height, const uint8_t** rgb) {
    try {
        auto* v = static_cast<Video*>(video);
        cv::Mat bgr;
        if (!v->cap.read(bgr) || bgr.empty()) {
            return 0;
        }
        cv::cvtColor(bgr, v->rgb, bgr.channels() == 1 ? cv::COLOR_GRAY2RGB : cv::COLOR_BGR2RGB);
        if (!v->rgb.isContinuous()) {
            v->rgb = v->rgb.clone();
        }
        *width = v->rgb.cols;
        *height = v->rgb.rows;
        *rgb = v->rgb.ptr<uint8_t>(0);
        return 1;
    } catch (...) {
        return 0;
    }
}

void npusim_video_close(void* video) {
    delete static_cast<Video*>(video);
}
}
