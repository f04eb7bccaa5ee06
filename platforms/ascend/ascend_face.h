// The Ascend AIPP platform's face (platforms/common/platform_face.h): `npusim aipp` (and
// `npusim run --platform configs/ascend.yaml --model JOB.yaml`) runs one load-image job through
// the SystemC platform: the source image placed in GM, the engine programmed by the scalar unit
// over the bus, the tile read back from L1. The report holds the tile, the simulated time and the
// bus traffic next to the cost model's figures. docs/aipp.md.
#pragma once

#include "platforms/ascend/ascend_config.h"
#include "platforms/common/platform_face.h"

namespace npu::ascend {

class AscendFace final : public platform::Platform {
public:
    AscendFace(AscendConfig cfg, std::string source);
    std::string describe() const override;
    platform::RunReport run(const platform::RunRequest& request) override;

private:
    AscendConfig m_cfg;
};

// The `kind: ascend` entry of the platform registry.
platform::PlatformKind ascend_platform_kind();

}  // namespace npu::ascend
