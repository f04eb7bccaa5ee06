// What both kinds of `npusim regress` on the K210 share (k210_regress.cpp: a kmodel we compiled,
// with its compile report; k210_regress_vendor.cpp: any kmodel, with the input preprocessing
// given): the tolerances, the timed run of the first sample, the verdict (sim/regress) as the
// run's record.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platforms/common/platform_face.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/soc/driver.h"
#include "platforms/k210/soc/k210_config.h"
#include "sim/core/tensor.h"
#include "sim/onnx/graph.h"
#include "sim/regress/regression.h"

namespace npu::k210::regress {

using ErrorStats = npu::regress::ErrorStats;
using Tolerances = npu::regress::Tolerances;
Tolerances tolerances(const platform::RegressRequest& o);

// The first sample on the timed K210 platform (bus, MMIO, interrupts, DMA, the CPU time model):
// its outputs against the functional run's, and what each layer cost.
struct TimedRun {
    bool equal = false;
    double inference_ms = 0;
    uint64_t kpu_cycles = 0, cpu_cycles = 0;
    std::vector<LayerRun> layers;
    std::vector<uint64_t> layer_kpu_cycles;  // per kmodel layer
    // A problem met in the simulation: returned, not thrown (platform::RunReport::error).
    std::string error;
};
// `want`: the functional run's outputs for `in`, with the platform's CPU arithmetic.
TimedRun run_timed(const Kmodel& km, const sim::Tensor& in, const K210Config& cfg,
                   const std::vector<sim::Tensor>& want);

// The run's report: the verdict `v` with the platform and program it ran on, `head` its text.
platform::RunReport finish(sim::RunRecord v, const std::string& head, const K210Config& cfg,
                           const std::string& platform_source, const Kmodel& km);
// The timed sample in the verdict: a check that its outputs equal the functional run's, a table
// of its layers, its totals, and the lines printed.
void add_timed(const TimedRun& t, sim::RunRecord& v, std::string& text);

// One raw sample (the kmodel's input, (1, C, H, W), as floats) as the ONNX model's input `info`:
// x = (raw[c'] · scale − mean[c]) / std[c] with c' = c, or C − 1 − c for "bgr", laid out NCHW or
// NHWC (a dimension of −1 in `info` taken as 1). Throws sim::Error when the counts differ or a
// per-channel list has neither 1 nor C values.
onnx::Value onnx_input(const onnx::Value& raw, const platform::Preprocessing& p,
                       const onnx::ValueInfo& info);

// `base` with the fields the request's command line gave (`pre_given`) taken from it instead.
platform::Preprocessing with_given(platform::Preprocessing base,
                                   const platform::RegressRequest& req);

// "x = (raw · 0.0078125 − (127)) / (128), nchw": the preprocessing as the reports print it.
std::string preprocessing_formula(const platform::Preprocessing& p);
// The preprocessing `npusim compile --mean/--std/--scale/--channel-order` records in its report
// ("preprocess": {mean, std, scale, channel_order}), and reading it back (`name` is the file, for
// errors); nullopt when the report has none.
nlohmann::ordered_json preprocessing_json(const platform::Preprocessing& p);
std::optional<platform::Preprocessing> preprocessing_of(const nlohmann::ordered_json& report,
                                                        const std::string& name);

}  // namespace npu::k210::regress

namespace npu::k210 {
// `npusim regress` with a kmodel that has no compile report (k210_regress_vendor.cpp).
platform::RunReport regress_vendor(const platform::RegressRequest& req, const K210Config& cfg,
                                   const std::string& platform_source);
}  // namespace npu::k210
