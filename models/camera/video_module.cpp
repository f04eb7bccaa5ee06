// The video reader module (see video_module.h): OpenCV videoio behind a C interface.
#include "models/camera/video_module.h"

#include <cstdlib>
#include <memory>

#include <opencv2/core/utils/logger.hpp>
#include <opencv2/imgproc.hpp>
#include <opencv2/videoio.hpp>

namespace {

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
