// The configuration files of configs/ built into the npusim binary, so that the default jobs need
// no file at hand. They are byte-identical to the files in the source tree.
#pragma once

#include <string>
#include <vector>

namespace npu::configs {

struct EmbeddedFile {
    const char* name;  // file name in configs/, e.g. "k210.yaml"
    const char* text;
};

const std::vector<EmbeddedFile>& embedded();

// Whether configs/<name> is built in.
bool has_embedded(const std::string& name);
// The text of configs/<name>; a name that is not built in is our bug (an assertion).
const char* embedded_text(const std::string& name);
// How messages name it: "<built-in configs/NAME>".
std::string embedded_source(const std::string& name);

}  // namespace npu::configs
