// Typed configuration of the Ascend AIPP platform (configs/ascend.yaml): the common platform keys
// (the scalar unit's bus, the memories `gm` and `l1`), the engine's register block address and
// its register latency. Keys: docs/config.md.
#pragma once

#include <cstdint>

#include "platforms/common/platform_config.h"

namespace npu::ascend {

struct AscendConfig {
    platform::PlatformConfig platform;  // memories[gm_index] is GM, memories[l1_index] is L1
    size_t gm_index = 0, l1_index = 1;
    uint64_t aipp_base_addr = 0x50000000;
    double register_latency_ns = 1;

    const platform::MemoryRegion& gm() const { return platform.memories[gm_index]; }
    const platform::MemoryRegion& l1() const { return platform.memories[l1_index]; }
};

// Reads a `platform:` map of kind ascend; problems are recorded in the document (call finish()).
AscendConfig read_ascend_config(const sim::ConfigNode& platform);

}  // namespace npu::ascend
