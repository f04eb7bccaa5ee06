// npusim info: what a platform file describes, without simulating it, or a program file's table
// as the platform reads it.
#include <cstdio>

#include "app/app.h"
#include "app/platform_loader.h"

namespace npu::app {

int cmd_info(const InfoOptions& opts) {
    const std::unique_ptr<platform::Platform> p = load_platform(opts.platform, opts.set);
    const std::string text = opts.model.empty() ? p->describe() : p->describe_program(opts.model);
    std::fwrite(text.data(), 1, text.size(), stdout);
    return kExitOk;
}

}  // namespace npu::app
