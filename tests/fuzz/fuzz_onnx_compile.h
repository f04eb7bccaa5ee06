// The ONNX -> K210 path as a fuzz entry point: any bytes are imported as an ONNX model; one with a
// single small static image input is calibrated on two constant samples, compiled for the K210
// and the kmodel run functionally on a zero input. Any input gives a run or one sim::Error, never
// a crash, hang or other exception; the reference evaluator's work per node is capped at 2^24
// multiply-adds while calibrating. Used by libFuzzer (fuzz_onnx_compile.cpp); the normal suite's
// seeded share is K210Compiler.MutatedModelsCompileOrFailCleanly.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "platforms/k210/compiler/compiler.h"
#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "sim/core/error.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"

namespace npu::fuzz {

// Returns 0 refused, 1 imported, 2 compiled, 3 ran.
inline int onnx_compile_run(const uint8_t* data, size_t size) {
    onnx::Graph g;
    try {
        onnx::ImportOptions io;
        io.supported_ops = onnx::supported_ops();
        g = onnx::import_model_bytes(std::vector<uint8_t>(data, data + size), "fuzz.onnx", io);
    } catch (const sim::Error&) {
        return 0;
    }
    if (g.inputs.size() != 1 || g.inputs[0].shape.size() != 4) {
        return 1;
    }
    size_t n = 1;
    for (int64_t d : g.inputs[0].shape) {
        if (d < 1 || d > 64) {
            return 1;
        }
        n *= static_cast<size_t>(d);
    }
    k210::CompileOptions o;
    for (float v : {0.25f, 0.75f}) {
        o.calibration.push_back(
            {{g.inputs[0].name, onnx::Value::floats(g.inputs[0].shape, std::vector<float>(n, v))}});
    }
    k210::Kmodel km;
    try {
        const k210::ScopedCpuWorkLimit limit(uint64_t{1} << 22);
        const onnx::ScopedWorkLimit eval_limit(uint64_t{1} << 24);
        km = k210::parse_kmodel(k210::compile_k210(g, o).kmodel, "fuzz.kmodel");
    } catch (const sim::Error&) {
        return 1;
    }
    try {
        const k210::ScopedCpuWorkLimit limit(uint64_t{1} << 22);
        k210::run_functional(km,
                             sim::Tensor(k210::model_input_dtype(km), k210::model_input_shape(km)));
    } catch (const sim::Error&) {
        return 2;
    }
    return 3;
}

}  // namespace npu::fuzz
