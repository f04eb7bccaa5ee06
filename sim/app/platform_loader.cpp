#include "sim/app/platform_loader.h"

#include "configs/embedded.h"

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

}  // namespace npu::app
