// What both kinds of `npusim regress` on the K210 share (k210_regress.cpp: a kmodel we compiled,
// with its compile report; k210_regress_vendor.cpp: any kmodel, with the input preprocessing
// given): error statistics, tolerances, the timed run of the first sample, JUnit XML.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platforms/common/platform_face.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/soc/driver.h"
#include "platforms/k210/soc/k210_config.h"
#include "sim/core/tensor.h"
#include "sim/core/xml.h"
#include "sim/onnx/graph.h"

namespace npu::k210::regress {

// Error statistics of one tensor over every sample.
struct Stats {
    double max_abs = 0, sum_abs = 0, max_lsb = 0;
    uint64_t count = 0;
    double dot = 0, sim_sq = 0, ref_sq = 0;

    double mean_abs() const { return count == 0 ? 0 : sum_abs / static_cast<double>(count); }
    double cosine() const {
        return sim_sq == 0 || ref_sq == 0 ? (sim_sq == ref_sq ? 1.0 : 0.0)
                                          : dot / std::sqrt(sim_sq * ref_sq);
    }
    // Adds the element pairs (simulated, reference) of one sample; not the LSB error.
    void add(const float* sim, const float* ref, size_t n);
};

struct Tolerances {
    double max_lsb = 8, min_cosine = 0.99, min_top1 = 0.95;
    bool top1_given = false;  // --min-top1 or min_top1_agreement given explicitly
};
Tolerances tolerances(const platform::RegressRequest& o);

using sim::xml_escape;
std::vector<uint8_t> bytes_of(const std::string& s);
// The JUnit XML document of `tests` cases, `failures` of them failed.
std::string junit_xml(size_t tests, int failures, const std::string& cases);

// The first sample on the timed K210 platform (bus, MMIO, interrupts, DMA, the CPU time model):
// its outputs against the functional run's, and what each layer cost.
struct TimedRun {
    bool equal = false;
    double inference_ms = 0;
    uint64_t kpu_cycles = 0, cpu_cycles = 0;
    std::vector<LayerRun> layers;
    std::vector<uint64_t> layer_kpu_cycles;  // per kmodel layer
};
// `want`: the functional run's outputs for `in`, with the platform's CPU arithmetic.
TimedRun run_timed(const Kmodel& km, const sim::Tensor& in, const K210Config& cfg,
                   const std::vector<sim::Tensor>& want);

// The report as it grows: the table printed, report.json, the JUnit cases, the failures.
struct Report {
    std::string table;
    nlohmann::ordered_json json;
    std::string junit_cases;
    std::string first_diverging;  // "index (tensor)" of the first layer over a tolerance
    int failures = 0;
};
void timed_rows(const TimedRun& t, const std::string& platform_name, Report& rep);

// One raw sample (the kmodel's input, (1, C, H, W), as floats) as the ONNX model's input `info`:
// x = (raw[c'] · scale − mean[c]) / std[c] with c' = c, or C − 1 − c for "bgr", laid out NCHW or
// NHWC (a dimension of −1 in `info` taken as 1). Throws sim::Error when the counts differ or a
// per-channel list has neither 1 nor C values.
onnx::Value onnx_input(const onnx::Value& raw, const platform::Preprocessing& p,
                       const onnx::ValueInfo& info);

}  // namespace npu::k210::regress

namespace npu::k210 {
// `npusim regress` with a kmodel that has no compile report (k210_regress_vendor.cpp).
platform::RunReport regress_vendor(const platform::RegressRequest& req, const K210Config& cfg,
                                   const std::string& platform_source);
}  // namespace npu::k210
