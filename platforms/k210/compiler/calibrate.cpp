// Compiler pass 1: the graph's interface checked, the float reference run on every calibration
// sample (lowering.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>

#include "models/k210_kpu/kpu_cost.h"
#include "models/k210_kpu/kpu_layer_builder.h"
#include "platforms/k210/compiler/lowering.h"
#include "platforms/k210/kmodel/cpu_model.h"
#include "sim/core/error.h"
#include "sim/onnx/evaluator.h"

namespace npu::k210::lowering {

void Lowering::check_io() {
    if (m_g.inputs.size() != 1 || m_g.outputs.empty() || m_g.outputs.size() > 16) {
        fail(
            fmt::format("{} inputs and {} outputs: the K210 compiler takes one input and 1 to "
                        "16 outputs",
                        m_g.inputs.size(), m_g.outputs.size()));
    }
    for (size_t i = 0; i < m_g.outputs.size(); ++i) {
        const std::string& t = m_g.outputs[i].name;
        for (size_t j = 0; j < i; ++j) {
            if (m_g.outputs[j].name == t) {
                fail(fmt::format("output '{}' is listed twice", t));
            }
        }
        if (t == m_g.inputs[0].name) {
            fail(fmt::format("output '{}' is the input itself", t));
        }
    }
    const onnx::ValueInfo& in = m_g.inputs[0];
    if (in.shape.size() != 4 || in.shape[0] != 1 ||
        std::any_of(in.shape.begin(), in.shape.end(), [](int64_t d) { return d < 1; })) {
        fail(fmt::format("input '{}' is {}: expected a static 1 x C x H x W image", in.name,
                         shape_str(in.shape)));
    }
    if (m_o.calibration.empty()) {
        fail("the calibration set is empty (give at least one input sample)");
    }
}

// Runs the float reference on every calibration sample (unless an earlier attempt did);
// records each tensor's range and shape.
void Lowering::calibrate() {
    if (m_cal.done) {
        return;
    }
    onnx::EvalOptions eo;
    eo.on_value = [&](const std::string& name, const onnx::Value& v) {
        observe(name, v);
    };
    for (const auto& sample : m_o.calibration) {
        for (const auto& [name, v] : sample) {
            observe(name, v);
        }
        onnx::evaluate(m_g, sample, eo);
    }
    m_cal.done = true;
}

void Lowering::observe(const std::string& name, const onnx::Value& v) {
    Range& r = m_ranges[name];
    for (float f : v.f) {
        r.lo = std::min(r.lo, static_cast<double>(f));
        r.hi = std::max(r.hi, static_cast<double>(f));
    }
    m_shapes[name] = v.shape;
}

}  // namespace npu::k210::lowering
