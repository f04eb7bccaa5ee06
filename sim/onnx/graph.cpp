#include "sim/onnx/graph.h"

#include <fmt/format.h>

namespace npu::onnx {

size_t Value::numel() const {
    size_t n = 1;
    for (int64_t d : shape) {
        n *= static_cast<size_t>(d);
    }
    return n;
}

Value Value::floats(std::vector<int64_t> shape, std::vector<float> data) {
    Value v;
    v.kind = Kind::f32;
    v.shape = std::move(shape);
    v.f = std::move(data);
    return v;
}

Value Value::ints(std::vector<int64_t> shape, std::vector<int64_t> data) {
    Value v;
    v.kind = Kind::i64;
    v.onnx_type = 7;
    v.shape = std::move(shape);
    v.i = std::move(data);
    return v;
}

int64_t Node::get_int(const std::string& a, int64_t fallback) const {
    auto it = attributes.find(a);
    return it == attributes.end() ? fallback : it->second.i;
}

float Node::get_float(const std::string& a, float fallback) const {
    auto it = attributes.find(a);
    return it == attributes.end() ? fallback : it->second.f;
}

std::string Node::get_string(const std::string& a, const std::string& fallback) const {
    auto it = attributes.find(a);
    return it == attributes.end() ? fallback : it->second.s;
}

std::vector<int64_t> Node::get_ints(const std::string& a, std::vector<int64_t> fallback) const {
    auto it = attributes.find(a);
    return it == attributes.end() ? fallback : it->second.is;
}

std::string Node::describe() const {
    if (!name.empty()) {
        return fmt::format("{} '{}'", op_type, name);
    }
    // An unnamed node (PyTorch often leaves them so) by the tensor it writes.
    return outputs.empty() || outputs[0].empty()
               ? op_type
               : fmt::format("{} (output '{}')", op_type, outputs[0]);
}

}  // namespace npu::onnx
