// Loads a platform configuration: a YAML file, or the built-in default when no file is named.
#pragma once

#include <string>

#include "platforms/common/platform_config.h"

namespace npu::app {

constexpr const char* kDefaultPlatform = "selfcheck.yaml";

struct LoadedPlatform {
    std::string source;  // file name, or "<built-in configs/selfcheck.yaml>"
    platform::PlatformConfig config;
};

// Throws sim::Error listing every problem in the file at once.
LoadedPlatform load_platform(const std::string& path);

}  // namespace npu::app
