// Loads a platform configuration: a YAML file, or the built-in default when no file is named.
#pragma once

#include <optional>
#include <string>

#include "platforms/common/platform_config.h"
#include "platforms/dlp/dlp_job.h"
#include "platforms/k210/k210_config.h"

namespace npu::app {

constexpr const char* kDefaultPlatform = "k210.yaml";

struct LoadedPlatform {
    std::string source;  // file name, or "<built-in configs/selfcheck.yaml>"
    platform::PlatformConfig config;
    std::optional<k210::K210Config> k210;       // set for kind: k210
    std::optional<dlp::DlpPlatformConfig> dlp;  // set for kind: dlp
};

// Throws sim::Error listing every problem in the file at once.
LoadedPlatform load_platform(const std::string& path);

}  // namespace npu::app
