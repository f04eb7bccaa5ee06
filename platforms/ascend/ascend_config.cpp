#include "platforms/ascend/ascend_config.h"

namespace npu::ascend {

AscendConfig read_ascend_config(const sim::ConfigNode& platform) {
    AscendConfig c;
    c.platform = platform::read_platform(platform);
    c.aipp_base_addr = platform.get<uint64_t>("aipp_base_addr", c.aipp_base_addr);
    c.register_latency_ns =
        platform.get<double>("register_latency_ns", c.register_latency_ns, 0.0, 1e6);
    bool gm = false, l1 = false;
    for (size_t i = 0; i < c.platform.memories.size(); ++i) {
        const std::string& name = c.platform.memories[i].name;
        if (name == "gm") {
            c.gm_index = i, gm = true;
        } else if (name == "l1") {
            c.l1_index = i, l1 = true;
        }
    }
    if (!gm || !l1) {
        platform.error_at("memories", "expected a memory named gm and one named l1");
    }
    return c;
}

}  // namespace npu::ascend
