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

// The built-in config to load without --platform: that of the first registered kind that
// declares one of the `given` options and has a built-in config, else k210.yaml.
std::string default_platform(const platform::GivenOptions& given);

// Throws sim::Error "OPTION: WHAT on the <kinds that can> platform; FILE is a KIND platform"
// unless `p`'s kind has the ability `can` (PlatformKind::plays_scripts, runs_firmware).
void check_kind_can(const platform::Platform& p, bool platform::PlatformKind::*can,
                    const char* option, const char* what);

// Refuses, naming the kinds that take it, an option `given` that `p`'s kind does not declare
// (platform::PlatformOption).
void check_platform_options(const platform::Platform& p, const platform::GivenOptions& given);

}  // namespace npu::app
