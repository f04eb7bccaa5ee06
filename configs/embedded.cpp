#include "configs/embedded.h"

#include "sim/core/error.h"

namespace npu::configs {

bool has_embedded(const std::string& name) {
    for (const EmbeddedFile& f : embedded()) {
        if (name == f.name) {
            return true;
        }
    }
    return false;
}

const char* embedded_text(const std::string& name) {
    for (const EmbeddedFile& f : embedded()) {
        if (name == f.name) {
            return f.text;
        }
    }
    NPU_ASSERT(false, "configs/{} is not built in", name);
}

std::string embedded_source(const std::string& name) {
    return "<built-in configs/" + name + ">";
}

}  // namespace npu::configs
