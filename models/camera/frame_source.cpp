#include "models/camera/frame_source.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

#include <fmt/format.h>

#include "models/camera/video_module.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/image.h"

namespace npu::camera {

namespace fs = std::filesystem;

// An open video in the video reader module.
struct FrameSource::Video {
    const VideoModule& module = video_module();
    void* handle = nullptr;
    ~Video() {
        if (handle != nullptr) {
            module.close(handle);
        }
    }
};

bool is_image_file(const std::string& path) {
    std::string ext = fs::path(path).extension().string();
    std::transform(ext.begin(), ext.end(), ext.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    for (const char* e : {".png", ".jpg", ".jpeg", ".bmp", ".ppm", ".pgm", ".tga"}) {
        if (ext == e) {
            return true;
        }
    }
    return false;
}

FrameSource::FrameSource(const std::string& path)
    : m_path(path) {
    std::error_code ec;
    if (!fs::exists(path, ec)) {
        throw sim::Error(fmt::format("--camera {}: no such file or folder", path));
    }
    if (fs::is_directory(path, ec)) {
        m_kind = Kind::kFolder;
        fs::directory_iterator it(path, ec), end;
        for (; !ec && it != end; it.increment(ec)) {
            if (it->is_regular_file() && is_image_file(it->path().string())) {
                m_files.push_back(it->path().string());
            }
        }
        if (ec) {
            throw sim::Error(
                fmt::format("--camera {}: cannot read the folder: {}", path, ec.message()));
        }
        std::sort(m_files.begin(), m_files.end());
        if (m_files.empty()) {
            throw sim::Error(
                fmt::format("--camera {}: the folder holds no image (.png, .jpg, .jpeg, .bmp, "
                            ".ppm, .pgm, .tga)",
                            path));
        }
        for (const std::string& f : m_files) {  // every header now: a bad file fails before
            sim::check_image(f);                // the run, not when the camera reaches it
        }
    } else if (is_image_file(path)) {
        m_kind = Kind::kImage;
        m_current = sim::read_image(path);  // read now: a bad file fails before the run
        m_index = 0;
        m_read = 1;
    } else {
        sim::check_input_file(path, sim::kMaxInputBytes);  // a device or a FIFO is no video
        m_kind = Kind::kVideo;
        m_video = std::make_unique<Video>();
        m_video->handle = m_video->module.open(path.c_str());
        if (m_video->handle == nullptr) {
            throw sim::Error(fmt::format(
                "--camera {}: not an image (by its extension) and no OpenCV video backend opens "
                "it (a damaged file, or a codec or container not supported here)",
                path));
        }
        read_video_until(0);
    }
}

FrameSource::FrameSource()
    : m_kind(Kind::kImage)
    , m_current(sim::test_scene(480, 640))
    , m_index(0)
    , m_read(1) {
}

FrameSource::~FrameSource() = default;

void FrameSource::read_video_until(size_t n) {
    while (!m_ended && (m_index == static_cast<size_t>(-1) || m_index < n)) {
        int w = 0, h = 0;
        const uint8_t* rgb = nullptr;
        if (m_video->module.read(m_video->handle, &w, &h, &rgb) == 0) {
            if (m_index == static_cast<size_t>(-1)) {
                throw sim::Error(
                    fmt::format("--camera {}: the video has no frame OpenCV can decode", m_path));
            }
            m_ended = true;
            return;
        }
        sim::Tensor t(sim::DType::u8, {1, 3, h, w});
        uint8_t* out = t.data<uint8_t>();
        const size_t plane = static_cast<size_t>(h) * static_cast<size_t>(w);
        for (size_t i = 0; i < plane; ++i) {
            for (size_t c = 0; c < 3; ++c) {
                out[c * plane + i] = rgb[3 * i + c];
            }
        }
        m_current = std::move(t);
        ++m_index;
        ++m_read;
    }
}

const sim::Tensor& FrameSource::frame(size_t n) {
    switch (m_kind) {
    case Kind::kImage: m_ended = true; break;
    case Kind::kFolder:
        if (n >= m_files.size()) {
            m_ended = true;
            n = m_files.size() - 1;
        }
        if (n != m_index) {
            m_current = sim::read_image(m_files[n]);
            m_index = n;
            ++m_read;
        }
        break;
    case Kind::kVideo: read_video_until(n); break;
    }
    return m_current;
}

std::string FrameSource::describe() const {
    switch (m_kind) {
    case Kind::kImage:
        return m_path.empty() ? "the built-in test scene (no --camera)"
                              : fmt::format("image {}", m_path);
    case Kind::kFolder: return fmt::format("folder {} ({} images)", m_path, m_files.size());
    case Kind::kVideo: break;
    }
    return fmt::format("video {}", m_path);
}

}  // namespace npu::camera
