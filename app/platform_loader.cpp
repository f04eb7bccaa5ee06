#include "app/platform_loader.h"

#include <fmt/format.h>

#include "configs/embedded.h"
#include "sim/core/error.h"

namespace npu::app {

std::unique_ptr<platform::Platform> load_platform(const std::string& path,
                                                  const std::vector<std::string>& settings,
                                                  const std::string& builtin) {
    if (!path.empty()) {
        return platform::load_platform_file(path, settings);
    }
    return platform::load_platform(configs::embedded_text(builtin),
                                   configs::embedded_source(builtin), settings);
}

std::string default_platform(const platform::GivenOptions& given) {
    for (const platform::PlatformKind& k : platform::platform_kinds()) {
        for (const platform::PlatformOption& o : k.options) {
            if (given.has(o.name) && !k.builtin_config.empty()) {
                return k.builtin_config;
            }
        }
    }
    return kDefaultPlatform;
}

void check_kind_can(const platform::Platform& p, bool platform::PlatformKind::*can,
                    const char* option, const char* what) {
    std::string able;
    bool ok = false;
    for (const platform::PlatformKind& k : platform::platform_kinds()) {
        ok = ok || (k.kind == p.kind() && k.*can);
        able += k.*can ? (able.empty() ? "" : ", ") + k.kind : "";
    }
    if (!ok) {
        throw sim::Error(fmt::format("{}: {} on the {} platform; {} is a {} platform", option, what,
                                     able, p.source(), p.kind()));
    }
}

void check_platform_options(const platform::Platform& p, const platform::GivenOptions& given) {
    for (const auto& [name, value] : given.values) {
        std::string takers;
        bool ok = false;
        for (const platform::PlatformKind& k : platform::platform_kinds()) {
            for (const platform::PlatformOption& o : k.options) {
                if (o.name == name) {
                    ok = ok || k.kind == p.kind();
                    takers += (takers.empty() ? "" : ", ") + k.kind;
                }
            }
        }
        if (takers.empty()) {
            throw sim::Error(fmt::format("--{}: no platform takes this option", name));
        }
        if (!ok) {
            throw sim::Error(fmt::format("--{}: an option of the {} platform; {} is a {} platform",
                                         name, takers, p.source(), p.kind()));
        }
    }
}

}  // namespace npu::app
