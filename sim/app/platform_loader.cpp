#include "sim/app/platform_loader.h"

#include <cstring>

#include "sim/app/embedded.h"
#include "sim/core/error.h"

namespace npu::app {

namespace {
sim::ConfigDocument open(const std::string& path, std::string& source) {
    if (!path.empty()) {
        source = path;
        return sim::ConfigDocument::load_file(path);
    }
    for (const EmbeddedFile& f : embedded_configs()) {
        if (std::strcmp(f.name, kDefaultPlatform) == 0) {
            source = std::string("<built-in configs/") + f.name + ">";
            return sim::ConfigDocument::parse(f.text, source);
        }
    }
    NPU_ASSERT(false, "built-in {} missing", kDefaultPlatform);
}
}  // namespace

LoadedPlatform load_platform(const std::string& path) {
    LoadedPlatform out;
    sim::ConfigDocument doc = open(path, out.source);
    const sim::ConfigNode p = doc.root().child("platform");
    const std::string kind = p.has("kind") ? p.get<std::string>("kind", "") : "";
    if (kind == "k210") {
        out.k210 = k210::read_k210_config(p);
        out.config = out.k210->platform;
    } else if (kind == "dlp") {
        out.dlp = dlp::read_dlp_platform(p);
        out.config.name = out.dlp->name;
        out.config.kind = "dlp";
    } else {
        out.config = platform::read_platform(p);
    }
    doc.finish();
    if (out.dlp) {
        out.dlp->dlp.validate(out.source);
    }
    return out;
}

}  // namespace npu::app
