// A compiled model against its float reference: compiles a test Net for the K210, runs samples
// on the functional K210 and compares with onnx::evaluate.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "platforms/k210/compiler/compiler.h"
#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "sim/core/error.h"
#include "sim/onnx/evaluator.h"
#include "tests/platforms/k210/compiler/net.h"

namespace npu::test {

// A chain of nodes built directly in our graph IR, with seeded random weights.
struct Agreement {
    double max_abs = 0, cosine = 0, out_range = 0;
    std::vector<std::string> kinds;
    int version = 0;
};

// Compiles `net` (calibrated on 32 samples), runs 16 other samples on the functional K210 and
// compares the output with the float reference.
inline Agreement compile_and_compare(Net& net, int version = 0) {
    k210::CompileOptions o;
    o.calibration = net.samples(32);
    o.model_name = "m.onnx";
    o.kmodel_version = version;
    const k210::CompiledModel cm = k210::compile_k210(net.g, o);
    const k210::Kmodel km = k210::parse_kmodel(cm.kmodel, "m.kmodel");
    EXPECT_EQ(km.version, cm.kmodel_version);
    Agreement a;
    a.version = cm.kmodel_version;
    for (const k210::CompiledLayer& l : cm.layers) {
        a.kinds.push_back(l.target + " " + l.kind);
    }
    double dot = 0, ss = 0, rr = 0, lo = 1e30, hi = -1e30;
    for (const auto& s : net.samples(16)) {
        const std::vector<float> ref = onnx::evaluate(net.g, s).at(net.last).f;
        sim::Tensor in(sim::DType::u8, sim::Shape(cm.input_shape.begin(), cm.input_shape.end()));
        for (size_t k = 0; k < ref.size() || k < in.numel(); ++k) {
            if (k < in.numel()) {
                in.data<uint8_t>()[k] = cm.input_q.quantize(s.at("x").f[k]);
            }
        }
        const k210::FunctionalResult r = k210::run_functional(km, in);
        const float* y = r.outputs.at(0).data<float>();
        for (size_t k = 0; k < ref.size(); ++k) {
            a.max_abs = std::max(a.max_abs, std::fabs(static_cast<double>(y[k] - ref[k])));
            const double ys = y[k], rs = ref[k];
            dot += ys * rs, ss += ys * ys, rr += rs * rs;
            lo = std::min(lo, static_cast<double>(ref[k])),
            hi = std::max(hi, static_cast<double>(ref[k]));
        }
    }
    a.cosine = dot / std::sqrt(ss * rr);
    a.out_range = hi - lo;
    return a;
}

// The error compiling `n` gives (calibrated on `samples` samples), or "no error".
inline std::string compile_error(Net& n, size_t samples = 2, int version = 0) {
    k210::CompileOptions o;
    o.calibration = n.samples(samples);
    o.model_name = "m.onnx";
    o.kmodel_version = version;
    try {
        k210::compile_k210(n.g, o);
    } catch (const sim::Error& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace npu::test
