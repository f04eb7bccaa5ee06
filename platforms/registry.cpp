// The registry of platform kinds (platforms/common/platform_face.h) and the platforms built into
// npusim, one registration each. Adding a platform: its folder under platforms/, one line in
// builtin_kinds(), one config in configs/.
#include <fmt/format.h>

#include "platforms/ascend/ascend_face.h"
#include "platforms/common/platform_face.h"
#include "platforms/dlp/dlp_face.h"
#include "platforms/k210/k210_face.h"
#include "platforms/selfcheck/selfcheck_face.h"
#include "sim/core/error.h"

namespace npu::platform {

namespace {

std::vector<PlatformKind> builtin_kinds() {
    return {k210::k210_platform_kind(), dlp::dlp_platform_kind(), ascend::ascend_platform_kind(),
            selfcheck_platform_kind()};
}

std::vector<PlatformKind>& kinds() {
    static std::vector<PlatformKind> all = builtin_kinds();
    return all;
}

std::string kind_list() {
    std::string s;
    for (const PlatformKind& k : kinds()) {
        s += (s.empty() ? "" : ", ") + k.kind;
    }
    return s;
}

std::unique_ptr<Platform> load(sim::ConfigDocument& doc, const std::string& source) {
    const sim::ConfigNode p = doc.root().child("platform");
    std::unique_ptr<Platform> platform;
    if (!p.has("kind")) {
        if (p.valid()) {
            p.error(fmt::format("missing required key 'kind' (one of: {})", kind_list()));
        }
    } else {
        const std::string kind = p.get<std::string>("kind", "");
        for (const PlatformKind& k : kinds()) {
            if (k.kind == kind) {
                platform = k.read(p, source);
            }
        }
        if (!platform) {
            p.error_at("kind", fmt::format("expected one of {}, got '{}'", kind_list(), kind));
        }
    }
    doc.finish();
    NPU_ASSERT(platform != nullptr, "{}: a platform kind without problems built nothing", source);
    platform->check();
    return platform;
}

}  // namespace

const std::vector<PlatformKind>& platform_kinds() {
    return kinds();
}

void register_platform(PlatformKind kind) {
    for (const PlatformKind& k : kinds()) {
        NPU_ASSERT(k.kind != kind.kind, "platform kind '{}' registered twice", kind.kind);
    }
    kinds().push_back(std::move(kind));
}

std::unique_ptr<Platform> load_platform(const std::string& text, const std::string& source) {
    sim::ConfigDocument doc = sim::ConfigDocument::parse(text, source);
    return load(doc, source);
}

std::unique_ptr<Platform> load_platform_file(const std::string& path) {
    sim::ConfigDocument doc = sim::ConfigDocument::load_file(path);
    return load(doc, path);
}

}  // namespace npu::platform
