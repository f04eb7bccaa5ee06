// Fuzz entry point for the ONNX importer and the reference evaluator: any bytes give a graph or
// one sim::Error, and a graph whose inputs have small static shapes runs on constant inputs to
// its outputs or one sim::Error. Used by libFuzzer (fuzz_onnx.cpp) and by the seeded mutation
// test in the normal suite (tests/sim/onnx/test_onnx_import.cpp), which also runs under ASan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"

namespace npu::fuzz {

// Returns 0 when the bytes were refused, 1 when they imported, 2 when the graph also ran.
inline int onnx_model(const uint8_t* data, size_t size) {
    onnx::Graph g;
    try {
        onnx::ImportOptions o;
        o.supported_ops = onnx::supported_ops();
        g = onnx::import_model_bytes(std::vector<uint8_t>(data, data + size), "fuzz.onnx", o);
    } catch (const sim::Error&) {
        return 0;
    }
    std::map<std::string, onnx::Value> inputs;
    for (const onnx::ValueInfo& in : g.inputs) {
        size_t n = 1;
        for (int64_t d : in.shape) {
            if (d < 0 || d > 4096) {
                return 1;  // dynamic or large: nothing to run it on
            }
            n *= static_cast<size_t>(d);
        }
        if (n > (1u << 12)) {
            return 1;
        }
        const bool integer = in.onnx_type != 1 && in.onnx_type != 10 && in.onnx_type != 11;
        inputs[in.name] = integer ? onnx::Value::ints(in.shape, std::vector<int64_t>(n, 1))
                                  : onnx::Value::floats(in.shape, std::vector<float>(n, 0.5f));
        inputs[in.name].onnx_type = in.onnx_type;
    }
    try {
        const onnx::ScopedWorkLimit limit(uint64_t{1} << 24);
        onnx::evaluate(g, inputs);
    } catch (const sim::Error&) {
        return 1;
    }
    return 2;
}

}  // namespace npu::fuzz
