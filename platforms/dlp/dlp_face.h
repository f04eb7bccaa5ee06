// The DL processor's platform face (platforms/common/platform_face.h): `npusim run` of a network
// (compiled, its frames through the SystemC platform), `npusim estimate` of the same network
// (the cost functions at the compiled addresses), `npusim info`. docs/dlp.md.
#pragma once

#include "platforms/common/platform_face.h"
#include "platforms/dlp/dlp_job.h"

namespace npu::dlp {

class DlpFace final : public platform::Platform {
public:
    DlpFace(DlpPlatformConfig cfg, std::string source);
    std::string describe() const override;
    platform::RunReport run(const platform::RunRequest& request) override;
    platform::EstimateReport estimate(const platform::EstimateRequest& request) const override;
    // The int8 network against its float equivalent, layer by layer (dlp_regress.cpp).
    platform::RunReport regress(const platform::RegressRequest& request) const override;
    void check() const override;

private:
    DlpPlatformConfig m_cfg;
};

// The `kind: dlp` entry of the platform registry.
platform::PlatformKind dlp_platform_kind();

}  // namespace npu::dlp
