// The self-check platform's face (platforms/common/platform_face.h): `npusim run` writes and
// reads a pattern through every memory window and checks bytes and time; `npusim info` prints
// the address map and memories. Its YAML holds only the keys every platform shares.
#pragma once

#include "platforms/common/platform_config.h"
#include "platforms/common/platform_face.h"

namespace npu::platform {

class SelfCheckFace final : public Platform {
public:
    SelfCheckFace(PlatformConfig cfg, std::string source);
    std::string describe() const override;
    RunReport run(const RunRequest& request) override;

private:
    PlatformConfig m_cfg;
};

// The `kind: selfcheck` entry of the platform registry.
PlatformKind selfcheck_platform_kind();

}  // namespace npu::platform
