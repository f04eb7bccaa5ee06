// The registry of platform kinds (platforms/common/platform_face.h) and the platforms built into
// npusim, one registration each. Adding a platform: its folder under platforms/, one line in
// builtin_kinds(), one config in configs/.
#include <fmt/format.h>

#include "platforms/ascend/ascend_face.h"
#include "platforms/common/platform_face.h"
#include "platforms/dlp/dlp_face.h"
#include "platforms/finn/finn_face.h"
#include "platforms/k210/k210_face.h"
#include "platforms/selfcheck/selfcheck_face.h"
#include "sim/core/error.h"

namespace npu::platform {

namespace {

std::vector<PlatformKind> builtin_kinds() {
    return {k210::k210_platform_kind(), dlp::dlp_platform_kind(), ascend::ascend_platform_kind(),
            finn::finn_platform_kind(), selfcheck_platform_kind()};
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

// Each "KEY=VALUE" into the document under platform:, in order (the last of a key wins).
void apply_settings(sim::ConfigDocument& doc, const std::vector<std::string>& settings) {
    for (const std::string& s : settings) {
        const size_t eq = s.find('=');
        if (eq == std::string::npos || eq == 0) {
            throw sim::Error(
                fmt::format("--set {}: expected KEY=VALUE, KEY a path under platform: (e.g. "
                            "kpu.clock_hz=200MHz)",
                            s));
        }
        doc.set("platform." + s.substr(0, eq), s.substr(eq + 1), "--set " + s);
    }
}

// "file" or "file --set a=1 --set b=2": what a platform was read from, for messages and reports.
std::string described(const std::string& source, const std::vector<std::string>& settings) {
    std::string s = source;
    for (const std::string& kv : settings) {
        s += " --set " + kv;
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

std::unique_ptr<Platform> load_platform(const std::string& text, const std::string& source,
                                        const std::vector<std::string>& settings) {
    sim::ConfigDocument doc = sim::ConfigDocument::parse(text, source);
    apply_settings(doc, settings);
    return load(doc, described(source, settings));
}

std::unique_ptr<Platform> load_platform_file(const std::string& path,
                                             const std::vector<std::string>& settings) {
    sim::ConfigDocument doc = sim::ConfigDocument::load_file(path);
    apply_settings(doc, settings);
    return load(doc, described(path, settings));
}

}  // namespace npu::platform
