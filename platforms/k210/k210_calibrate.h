// The timed side of `npusim calibrate` on the K210: rounds of timed runs and fits (calibrate.h),
// then a timed run with the fitted constants. K210Face::calibrate prints it; tests call it.
#pragma once

#include <string>
#include <vector>

#include "platforms/k210/calibrate.h"
#include "platforms/k210/kmodel/kmodel.h"

namespace npu::k210 {

struct CalibrationRun {
    Fit fit;
    std::vector<LayerFeatures> before, after;  // every layer, under the base and fitted configs
    std::string error;  // a problem met after a simulation ran (returned, not thrown)
};

// One timed run of `m` on a zero input under `cfg`: each layer's features (empty, with `error`
// set, when the run failed).
std::vector<LayerFeatures> timed_features(const Kmodel& m, const K210Config& cfg,
                                          std::string& error);

// `rows` must have passed check_measured_rows against `m`.
CalibrationRun calibrate_model(const Kmodel& m, const std::vector<MeasuredRow>& rows,
                               const K210Config& base, const std::string& csv_name);

}  // namespace npu::k210
