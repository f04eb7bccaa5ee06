// Loads a platform through the registry of platform kinds (platforms/common/platform_face.h):
// a YAML file, or a built-in config of configs/ when no file is named.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "platforms/common/platform_face.h"

namespace npu::app {

constexpr const char* kDefaultPlatform = "k210.yaml";

// Throws sim::Error listing every problem in the file at once. `settings`: --set KEY=VALUE
// values over the file's (platform_face.h).
std::unique_ptr<platform::Platform> load_platform(const std::string& path,
                                                  const std::vector<std::string>& settings = {},
                                                  const std::string& builtin = kDefaultPlatform);

}  // namespace npu::app
