// The K210's platform face (platforms/common/platform_face.h): `npusim run` of a kmodel (timed
// through the SystemC SoC and its driver, or values only), the bundled jobs (our digits CNN
// compiled from ONNX, the edges demo), `npusim info` (address and register maps, a kmodel's
// layer table) and `npusim estimate` (KPU layer sweeps, or a kmodel's every layer).
// docs/k210_platform.md.
#pragma once

#include <string>

#include "platforms/common/platform_face.h"
#include "platforms/k210/soc/k210_config.h"

namespace npu::k210 {

class K210Face final : public platform::Platform {
public:
    K210Face(K210Config cfg, std::string source);
    std::string describe() const override;
    std::string describe_program(const std::string& path) const override;
    platform::RunReport run(const platform::RunRequest& request) override;
    platform::EstimateReport estimate(const platform::EstimateRequest& request) const override;
    platform::EstimateReport estimate_program(const platform::EstimateRequest& request) const;
    platform::CompileReport compile(const platform::CompileRequest& request) const override;
    platform::RunReport regress(const platform::RegressRequest& request) const override;
    platform::RunReport calibrate(const platform::CalibrateRequest& request) const override;

private:
    K210Config m_cfg;
};

// The `kind: k210` entry of the platform registry.
platform::PlatformKind k210_platform_kind();

}  // namespace npu::k210
