// Builds standard-domain ONNX models for tests through libonnx's protobuf classes: nodes with
// their attributes, float initializers (seeded values or given ones), one input and one output;
// serialized as exporters write them. Each node's output tensor is named after the node.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

#include <onnx/onnx_pb.h>

namespace npu::test {

// The pieces every test model builder needs: attributes, a value's type, the serialized bytes.
namespace onnx_proto {

inline void set(::onnx::NodeProto* n, const std::string& a, int64_t v) {
    ::onnx::AttributeProto* at = n->add_attribute();
    at->set_name(a), at->set_type(::onnx::AttributeProto::INT), at->set_i(v);
}
inline void set(::onnx::NodeProto* n, const std::string& a, float v) {
    ::onnx::AttributeProto* at = n->add_attribute();
    at->set_name(a), at->set_type(::onnx::AttributeProto::FLOAT), at->set_f(v);
}
inline void set(::onnx::NodeProto* n, const std::string& a, const std::string& v) {
    ::onnx::AttributeProto* at = n->add_attribute();
    at->set_name(a), at->set_type(::onnx::AttributeProto::STRING), at->set_s(v);
}
inline void set(::onnx::NodeProto* n, const std::string& a, const std::vector<int64_t>& v) {
    ::onnx::AttributeProto* at = n->add_attribute();
    at->set_name(a), at->set_type(::onnx::AttributeProto::INTS);
    for (int64_t x : v) {
        at->add_ints(x);
    }
}
// Any value: integers as INT, floating point as FLOAT, text as STRING, integer lists as INTS.
template <typename T>
void set_value(::onnx::NodeProto* n, const std::string& a, const T& v) {
    if constexpr (std::is_integral_v<T>) {
        set(n, a, static_cast<int64_t>(v));
    } else if constexpr (std::is_floating_point_v<T>) {
        set(n, a, static_cast<float>(v));
    } else if constexpr (std::is_same_v<T, std::vector<int64_t>>) {
        set(n, a, v);
    } else {
        set(n, a, std::string(v));
    }
}
// A float tensor's name and shape (an input or output of the graph).
inline void value_info(::onnx::ValueInfoProto* v, const std::string& name,
                       const std::vector<int64_t>& shape) {
    v->set_name(name);
    auto* t = v->mutable_type()->mutable_tensor_type();
    t->set_elem_type(::onnx::TensorProto::FLOAT);
    for (int64_t d : shape) {
        t->mutable_shape()->add_dim()->set_dim_value(d);
    }
}
// `model` with `output` as its graph's output, serialized.
inline std::vector<uint8_t> bytes(::onnx::ModelProto model, const std::string& output,
                                  const std::vector<int64_t>& shape) {
    value_info(model.mutable_graph()->add_output(), output, shape);
    std::string s;
    model.SerializeToString(&s);
    return {s.begin(), s.end()};
}

}  // namespace onnx_proto

class OnnxGraphBuilder {
public:
    OnnxGraphBuilder(const std::string& name, const std::string& input,
                     const std::vector<int64_t>& shape, int64_t opset = 13, uint32_t seed = 1)
        : m_rng(seed) {
        m_model.set_ir_version(8);
        m_model.add_opset_import()->set_version(opset);
        m_model.mutable_graph()->set_name(name);
        onnx_proto::value_info(m_model.mutable_graph()->add_input(), input, shape);
    }

    // A node named `name` whose one output is the tensor `name`.
    ::onnx::NodeProto* node(const std::string& op, const std::vector<std::string>& inputs,
                            const std::string& name) {
        ::onnx::NodeProto* n = m_model.mutable_graph()->add_node();
        n->set_op_type(op);
        n->set_name(name);
        for (const std::string& i : inputs) {
            n->add_input(i);
        }
        n->add_output(name);
        return n;
    }
    template <typename T>
    static void set(::onnx::NodeProto* n, const std::string& a, const T& v) {
        onnx_proto::set_value(n, a, v);
    }
    // A float initializer with the given values; returns its name.
    std::string constant(const std::string& name, const std::vector<int64_t>& shape,
                         const std::vector<float>& values) {
        ::onnx::TensorProto* t = m_model.mutable_graph()->add_initializer();
        t->set_name(name);
        t->set_data_type(::onnx::TensorProto::FLOAT);
        for (int64_t d : shape) {
            t->add_dims(d);
        }
        for (float v : values) {
            t->add_float_data(v);
        }
        return name;
    }
    // A float initializer of values uniform in lo..hi from the builder's seed.
    std::string random(const std::string& name, const std::vector<int64_t>& shape, float lo,
                       float hi) {
        size_t count = 1;
        for (int64_t d : shape) {
            count *= static_cast<size_t>(d);
        }
        std::uniform_real_distribution<float> u(lo, hi);
        std::vector<float> v(count);
        for (float& x : v) {
            x = u(m_rng);
        }
        return constant(name, shape, v);
    }
    std::vector<uint8_t> bytes(const std::string& output, const std::vector<int64_t>& shape) {
        return onnx_proto::bytes(m_model, output, shape);
    }

private:
    ::onnx::ModelProto m_model;
    std::mt19937 m_rng;
};

}  // namespace npu::test
