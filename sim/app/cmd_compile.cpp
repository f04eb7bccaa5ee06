// npusim compile --target k210: an ONNX model, calibrated on sample inputs, into a kmodel v3, or
// v4 when a layer needs nncase v0.2's CPU nodes (platforms/k210/compiler.h), with the compile
// report printed and written beside it as JSON.
#include <fmt/format.h>

#include "platforms/k210/compiler.h"
#include "sim/app/app.h"
#include "sim/app/samples.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"

namespace npu::app {

int cmd_compile(const CompileOptions& opts) {
    if (opts.target != "k210") {
        throw sim::Error(fmt::format("--target {}: the compiler targets k210", opts.target));
    }
    const onnx::Graph g = onnx::import_model(opts.onnx, {onnx::supported_ops(), true});
    if (g.inputs.size() != 1) {
        throw sim::Error(
            fmt::format("{}: {} inputs; the K210 compiler takes one", opts.onnx, g.inputs.size()));
    }
    k210::CompileOptions co;
    co.model_name = opts.onnx;
    co.kmodel_version = opts.kmodel_version == "auto" ? 0 : std::stoi(opts.kmodel_version);
    for (onnx::Value& v : read_samples(opts.calibrate, g.inputs[0].shape)) {
        co.calibration.push_back({{g.inputs[0].name, std::move(v)}});
    }
    const k210::CompiledModel m = k210::compile_k210(g, co);
    sim::write_file_atomic(opts.output, m.kmodel);
    sim::write_text_atomic(opts.output + ".json", k210::compile_report_json(m).dump(2) + "\n");
    fmt::print("{} -> {} (calibrated on {} samples)\n{}", opts.onnx, opts.output,
               co.calibration.size(), k210::compile_report(m));
    fmt::print("wrote {} and {}.json\n", opts.output, opts.output);
    return kExitOk;
}

}  // namespace npu::app
