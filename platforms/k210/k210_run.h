// `npusim run` on the K210, once the face has resolved the job: the timed run (the SystemC SoC,
// the driver playing the firmware) and the values-only run, each as a platform::RunReport
// (summary text, report.json, layers.csv, the outputs as .npy, the demos' files).
#pragma once

#include <string>

#include "platforms/common/platform_face.h"
#include "platforms/k210/digits_demo.h"
#include "platforms/k210/kmodel/demo_model.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/soc/k210_config.h"
#include "sim/core/tensor.h"

namespace npu::k210 {

struct K210Job {
    const K210Config* cfg = nullptr;
    std::string source;  // the platform YAML
    Kmodel model;
    std::string model_file;  // --model, empty for a bundled job
    sim::Tensor input;
    std::string input_name;              // as the report names it
    std::string conversion;              // how the input was made from the file
    const DemoModel* demo = nullptr;     // the edges demo: its output shapes and PNGs
    const DigitsDemo* digits = nullptr;  // the digits demo: its files and summary
};

platform::RunReport run_timed(const K210Job& job, const platform::RunRequest& request);
platform::RunReport run_values_only(const K210Job& job, const platform::RunRequest& request);

}  // namespace npu::k210
