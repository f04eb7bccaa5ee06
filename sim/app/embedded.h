// Configuration files built into the npusim binary (from configs/), so that the default run needs
// no file at hand. They are byte-identical to the files in the source tree.
#pragma once

#include <string>
#include <vector>

namespace npu::app {

struct EmbeddedFile {
    const char* name;  // file name in configs/, e.g. "selfcheck.yaml"
    const char* text;
};

const std::vector<EmbeddedFile>& embedded_configs();

}  // namespace npu::app
