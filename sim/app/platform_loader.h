// Loads a platform through the registry of platform kinds (platforms/common/platform_face.h):
// a YAML file, or a built-in config of configs/ when no file is named.
#pragma once

#include <memory>
#include <string>

#include "platforms/common/platform_face.h"

namespace npu::app {

constexpr const char* kDefaultPlatform = "k210.yaml";

// Throws sim::Error listing every problem in the file at once.
std::unique_ptr<platform::Platform> load_platform(const std::string& path,
                                                  const std::string& builtin = kDefaultPlatform);

}  // namespace npu::app
