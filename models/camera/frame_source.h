// The scene in front of the camera, from the user: `npusim run --firmware APP.elf --camera PATH`,
// PATH an image (every frame the same), a folder of images (one per frame, in name order) or a
// video file (OpenCV videoio, one video frame per camera frame). After the last frame the last one
// stays in front of the camera. Frames are u8 (1, 3, H, W) RGB of their own size; the sensor
// resizes them to its output (Sensor::render). Pure C++, no SystemC. docs/k210_camera.md.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "sim/core/tensor.h"

namespace npu::camera {

class FrameSource {
public:
    // Throws sim::Error naming PATH when it is missing, an empty folder, an unreadable image (each
    // of a folder by its header, before the run), a device or FIFO, or a
    // video no OpenCV backend opens.
    explicit FrameSource(const std::string& path);
    // No --camera: the built-in test scene (sim::test_scene, 640x480) in every frame.
    FrameSource();
    ~FrameSource();
    FrameSource(const FrameSource&) = delete;
    FrameSource& operator=(const FrameSource&) = delete;

    // Frame `n` (0-based; asked in increasing order). Throws sim::Error naming the file or video
    // and the frame when it cannot be read.
    const sim::Tensor& frame(size_t n);
    // "image X", "folder X (N images)", "video X"; and how many distinct frames were shown.
    std::string describe() const;
    size_t frames_read() const { return m_read; }
    bool ended() const { return m_ended; }  // the last frame was shown and held

private:
    enum class Kind { kImage, kFolder, kVideo };
    void read_video_until(size_t n);
    Kind m_kind;
    std::string m_path;
    std::vector<std::string> m_files;  // a folder's images
    struct Video;
    std::unique_ptr<Video> m_video;
    sim::Tensor m_current;
    size_t m_index = static_cast<size_t>(-1);
    size_t m_read = 0;
    bool m_ended = false;
};

// Whether `path` names a still image by its extension (.png, .jpg, .jpeg, .bmp, .ppm, .pgm, .tga).
bool is_image_file(const std::string& path);

}  // namespace npu::camera
