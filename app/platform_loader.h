// Loads a platform through the registry of platform kinds (platforms/common/platform_face.h):
// a YAML file, a built-in platform config of configs/ named as `--platform NAME`, or the
// command's built-in one when no platform is named.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "platforms/common/platform_face.h"

namespace npu::app {

constexpr const char* kDefaultPlatform = "k210.yaml";

// The built-in platform configs (configs/*.yaml with a top-level platform:), by name without
// ".yaml": "ascend, dlp_zcu102_int8, ...".
std::string builtin_platform_names();

// "NAME.yaml" when `given` ("NAME" or "NAME.yaml") names a built-in platform config and no file
// of that name is there (a file wins); else "".
std::string builtin_platform(const std::string& given);

// What is wrong with `given` as --platform's value, as the program says it after "--platform: "
// ("File does not exist: X (nor a built-in platform: ...)"); "" for a file or a built-in's name.
std::string platform_arg_problem(const std::string& given);

// `path`: a YAML file, or a built-in platform's name (builtin_platform); empty: `builtin`.
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
