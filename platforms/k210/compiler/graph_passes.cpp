// Compiler pass 2: what exporters compute in the graph folded into constants, pass-through
// nodes bypassed, each tensor's consumers indexed (lowering.h).
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

// Exporters compute constants in the graph (PyTorch: Constant nodes for Clip bounds, Shape ->
// Gather -> Concat for a Reshape's shape). A node whose inputs are all constant runs once
// here, in the reference evaluator, and its outputs become initializers; Shape of a computed
// tensor is its calibrated (static) shape.
void Lowering::fold_constants() {
    for (size_t i = 0; i < m_g.nodes.size(); ++i) {
        const onnx::Node& n = m_g.nodes[i];
        if (n.outputs.empty()) {
            continue;
        }
        if (n.op_type == "Shape" && n.inputs.size() == 1 && n.attributes.empty() &&
            m_shapes.count(n.inputs[0]) != 0) {
            const Shape& sh = m_shapes.at(n.inputs[0]);
            m_g.initializers[n.outputs[0]] =
                onnx::Value::ints({static_cast<int64_t>(sh.size())}, sh);
            m_done.insert(i);
            continue;
        }
        if (is_identity(n)) {
            bypass(i);
            continue;
        }
        const bool all_const = std::all_of(
            n.inputs.begin(), n.inputs.end(),
            [&](const std::string& in) { return in.empty() || m_g.initializers.count(in) != 0; });
        if (!all_const) {
            continue;
        }
        onnx::Graph one;
        one.opset = m_g.opset;
        one.nodes = {n};
        for (const std::string& in : n.inputs) {
            if (!in.empty()) {
                one.initializers[in] = m_g.initializers.at(in);
            }
        }
        for (const std::string& out : n.outputs) {
            if (!out.empty()) {
                one.outputs.push_back({out, 1, {}});
            }
        }
        const std::map<std::string, onnx::Value> values = onnx::evaluate(one, {});
        for (const auto& [name, v] : values) {
            m_g.initializers[name] = v;
        }
        m_done.insert(i);
    }
}

// Nodes that pass their input through: Identity, Dropout (inference), and a Pad of zeros
// (PyTorch exports avg_pool2d as Pad + AveragePool).
bool Lowering::is_identity(const onnx::Node& n) const {
    if (n.inputs.empty() || n.inputs[0].empty() || n.outputs.size() != 1 ||
        std::any_of(m_g.outputs.begin(), m_g.outputs.end(),
                    [&](const onnx::ValueInfo& o) { return o.name == n.outputs[0]; })) {
        return false;
    }
    if (n.op_type == "Identity" || n.op_type == "Dropout") {
        return true;
    }
    if (n.op_type != "Pad") {
        return false;
    }
    std::vector<int64_t> pads = n.get_ints("pads");  // opset < 11
    if (n.inputs.size() > 1 && m_g.initializers.count(n.inputs[1]) != 0) {
        pads = m_g.initializers.at(n.inputs[1]).i;
    }
    return !pads.empty() && std::all_of(pads.begin(), pads.end(), [](int64_t p) { return p == 0; });
}

// Node i's consumers read its input instead.
void Lowering::bypass(size_t i) {
    const std::string from = m_g.nodes[i].outputs[0], to = m_g.nodes[i].inputs[0];
    for (onnx::Node& c : m_g.nodes) {
        std::replace(c.inputs.begin(), c.inputs.end(), from, to);
    }
    m_done.insert(i);
}

void Lowering::index_consumers() {
    for (size_t i = 0; i < m_g.nodes.size(); ++i) {
        if (m_done.count(i) != 0) {
            continue;  // folded or bypassed
        }
        for (const std::string& in : m_g.nodes[i].inputs) {
            if (!in.empty() && m_g.initializers.count(in) == 0) {
                m_consumers[in].push_back(i);
            }
        }
    }
}

// The node that alone consumes tensor `t` (not a graph output), or nullptr.
const onnx::Node* Lowering::sole_consumer(const std::string& t, size_t* index) const {
    auto it = m_consumers.find(t);
    if (it == m_consumers.end() || it->second.size() != 1 || t == m_g.outputs[0].name) {
        return nullptr;
    }
    if (index != nullptr) {
        *index = it->second[0];
    }
    return &m_g.nodes[it->second[0]];
}

const onnx::Value& Lowering::init(const onnx::Node& n, size_t i, const char* what) const {
    if (i >= n.inputs.size() || m_g.initializers.count(n.inputs[i]) == 0) {
        fail(n, fmt::format("its {} is not a constant initializer", what));
    }
    return m_g.initializers.at(n.inputs[i]);
}

bool Lowering::has_init(const onnx::Node& n, size_t i) const {
    return i < n.inputs.size() && !n.inputs[i].empty() && m_g.initializers.count(n.inputs[i]) != 0;
}

}  // namespace npu::k210::lowering
