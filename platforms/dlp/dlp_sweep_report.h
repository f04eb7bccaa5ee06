// `npusim estimate --model NET --sweep SWEEP.yaml` on the DL processor: the sweep costed
// (dlp_sweep.h), the budget's answer and the Pareto front printed, every configuration a row of
// estimate.json with --out, the page's plot in the record. docs/dlp.md "Configuration sweeps".
#pragma once

#include "platforms/common/platform_face.h"
#include "platforms/dlp/dlp_job.h"

namespace npu::dlp {

platform::EstimateReport sweep_report(const Network& n, const std::string& model,
                                      const platform::EstimateRequest& req,
                                      const DlpPlatformConfig& cfg, const std::string& source);

}  // namespace npu::dlp
