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
    out.config = platform::read_platform(doc.root().child("platform"));
    doc.finish();
    return out;
}

}  // namespace npu::app
