// The default job: our digits CNN (platforms/k210/digits, built into the binary) compiled for the
// K210, every held-out digit through the functional K210 and the float reference, and one digit
// for the timed platform. docs/k210_compiler.md.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "platforms/common/platform_face.h"
#include "platforms/k210/compiler/compiler.h"
#include "platforms/k210/soc/k210_config.h"
#include "sim/core/tensor.h"

namespace npu::k210 {

struct DigitsDemo {
    CompiledModel compiled;
    sim::Tensor input;  // the digit the timed run uses, quantized
    std::string conversion;
    std::string text;  // the compile report, predictions and accuracy, as printed
    nlohmann::ordered_json summary;
    std::string predictions_csv;
};

DigitsDemo run_digits(const K210Config& cfg);

// digits.kmodel, its compile report, predictions.csv and input.npy.
void add_digits_files(std::vector<platform::OutputFile>& files, const DigitsDemo& d);

}  // namespace npu::k210
