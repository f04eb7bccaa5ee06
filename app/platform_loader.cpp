#include "app/platform_loader.h"

#include <filesystem>
#include <string_view>

#include <fmt/format.h>

#include "configs/embedded.h"
#include "sim/core/error.h"

namespace npu::app {

namespace {

bool is_platform_config(const configs::EmbeddedFile& f) {
    const std::string_view text = f.text;
    return text.rfind("platform:", 0) == 0 || text.find("\nplatform:") != std::string_view::npos;
}

}  // namespace

std::string builtin_platform_names() {
    std::string names;
    for (const configs::EmbeddedFile& f : configs::embedded()) {
        if (is_platform_config(f)) {
            const std::string name = f.name;
            names += (names.empty() ? "" : ", ") + name.substr(0, name.size() - 5);
        }
    }
    return names;
}

std::string builtin_platform(const std::string& given) {
    std::error_code ec;
    if (given.empty() || std::filesystem::exists(given, ec)) {
        return "";
    }
    for (const configs::EmbeddedFile& f : configs::embedded()) {
        if (is_platform_config(f) && (given == f.name || given + ".yaml" == f.name)) {
            return f.name;
        }
    }
    return "";
}

std::string platform_arg_problem(const std::string& given) {
    std::error_code ec;
    const std::filesystem::file_status st = std::filesystem::status(given, ec);
    if (std::filesystem::is_regular_file(st) || !builtin_platform(given).empty()) {
        return "";
    }
    const char* what = std::filesystem::is_directory(st) ? "File is actually a directory"
                       : std::filesystem::exists(st)
                           ? "Not a regular file (a device, FIFO or socket)"
                           : "File does not exist";
    return fmt::format("{}: {} (nor a built-in platform: {})", what, given,
                       builtin_platform_names());
}

std::unique_ptr<platform::Platform> load_platform(const std::string& path,
                                                  const std::vector<std::string>& settings,
                                                  const std::string& builtin) {
    const std::string named = builtin_platform(path);
    if (!path.empty() && named.empty()) {
        return platform::load_platform_file(path, settings);
    }
    const std::string name = named.empty() ? builtin : named;
    return platform::load_platform(configs::embedded_text(name), configs::embedded_source(name),
                                   settings);
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
