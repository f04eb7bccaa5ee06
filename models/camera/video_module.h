// The video reader as a module loaded when a video is given (`--camera VIDEO`), not linked into
// every program: OpenCV videoio brings FFmpeg and GStreamer (about 110 more shared libraries,
// 0.15 s on every start of every npusim process). The module has a C interface so that it is
// looked up by name (dlsym); FrameSource loads it (frame_source.cpp). docs/k210_camera.md.
#pragma once

#include <cstdint>

extern "C" {

// Opens a video with OpenCV's FFmpeg backend, quietly; nullptr when it cannot.
void* npusim_video_open(const char* path);
// The next frame, interleaved RGB, valid until the next call: 1, or 0 at the end (or when a
// frame cannot be decoded).
int npusim_video_read(void* video, int* width, int* height, const uint8_t** rgb);
void npusim_video_close(void* video);
}

namespace npu::camera {

// The functions above as FrameSource finds them in the loaded module.
struct VideoModule {
    void* (*open)(const char*);
    int (*read)(void*, int*, int*, const uint8_t**);
    void (*close)(void*);
};

// The module, loaded once: from where the build put it (NPUSIM_VIDEO_MODULE), else next to the
// program or library that holds this code. Throws sim::Error saying what is missing.
const VideoModule& video_module();

}  // namespace npu::camera
