// Loads the video reader module (video_module.h) the first time a video is given.
#include <filesystem>
#include <string>
#include <vector>

#include <dlfcn.h>
#include <fmt/format.h>

#include "models/camera/video_module.h"
#include "sim/core/error.h"

namespace npu::camera {

namespace {

namespace fs = std::filesystem;

constexpr const char* kModuleFile = "libnpusim_video.so";

// Where to look: where the build wrote it, then beside the program or shared library holding
// this code (an installed copy, e.g. the Python package's).
std::vector<std::string> candidates() {
    std::vector<std::string> paths;
#ifdef NPUSIM_VIDEO_MODULE
    paths.emplace_back(NPUSIM_VIDEO_MODULE);
#endif
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&video_module), &info) != 0 && info.dli_fname != nullptr &&
        info.dli_fname[0] != '\0') {
        paths.push_back((fs::path(info.dli_fname).parent_path() / kModuleFile).string());
    }
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        paths.push_back((exe.parent_path() / kModuleFile).string());
    }
    return paths;
}

VideoModule load() {
    std::string tried;
    for (const std::string& path : candidates()) {
        std::error_code ec;
        if (!fs::exists(path, ec)) {
            tried += (tried.empty() ? "" : ", ") + path;
            continue;
        }
        void* handle = ::dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (handle == nullptr) {
            const char* why = ::dlerror();
            throw sim::Error(fmt::format("the video reader {} does not load: {}", path,
                                         why != nullptr ? why : "unknown reason"));
        }
        VideoModule m{};
        m.open = reinterpret_cast<decltype(m.open)>(::dlsym(handle, "npusim_video_open"));
        m.read = reinterpret_cast<decltype(m.read)>(::dlsym(handle, "npusim_video_read"));
        m.close = reinterpret_cast<decltype(m.close)>(::dlsym(handle, "npusim_video_close"));
        if (m.open == nullptr || m.read == nullptr || m.close == nullptr) {
            throw sim::Error(fmt::format("the video reader {} lacks its functions", path));
        }
        return m;  // loaded for the rest of the process
    }
    throw sim::Error(fmt::format(
        "videos are read by {} (built with npusim), which is not installed here (looked at: {})",
        kModuleFile, tried));
}

}  // namespace

const VideoModule& video_module() {
    static const VideoModule module = load();
    return module;
}

}  // namespace npu::camera
