// Builds FINN-ONNX models for tests: a chain of finn.custom_op.fpgadataflow nodes with their
// attributes and initializers, serialized as FINN writes them (float tensors), through libonnx's
// protobuf classes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "tests/sim/onnx/onnx_graph_builder.h"

namespace npu::test {

class FinnBuilder {
public:
    explicit FinnBuilder(const std::vector<int64_t>& input_shape) {
        m_model.set_ir_version(8);
        m_model.add_opset_import()->set_version(11);
        ::onnx::OperatorSetIdProto* finn = m_model.add_opset_import();
        finn->set_domain("finn.custom_op.fpgadataflow.hls");
        finn->set_version(1);
        m_model.mutable_graph()->set_name("finn_chain");
        onnx_proto::value_info(m_model.mutable_graph()->add_input(), "global_in", input_shape);
    }

    // The next layer, reading the current stream.
    ::onnx::NodeProto* layer(const std::string& op, const std::string& name) {
        ::onnx::NodeProto* n = m_model.mutable_graph()->add_node();
        n->set_op_type(op);
        n->set_name(name);
        n->set_domain("finn.custom_op.fpgadataflow.hls");
        n->add_input(m_stream);
        m_stream = name + "_out";
        n->add_output(m_stream);
        return n;
    }
    template <typename T>
    static void set(::onnx::NodeProto* n, const std::string& a, const T& v) {
        onnx_proto::set_value(n, a, v);
    }
    // A float initializer as the node's next input.
    void initializer(::onnx::NodeProto* n, const std::vector<int64_t>& shape,
                     const std::vector<int64_t>& values) {
        const std::string name = n->name() + "_param" + std::to_string(n->input_size());
        ::onnx::TensorProto* t = m_model.mutable_graph()->add_initializer();
        t->set_name(name);
        t->set_data_type(::onnx::TensorProto::FLOAT);
        for (int64_t d : shape) {
            t->add_dims(d);
        }
        for (int64_t v : values) {
            t->add_float_data(static_cast<float>(v));
        }
        n->add_input(name);
    }
    ::onnx::ModelProto& model() { return m_model; }
    std::vector<uint8_t> bytes(const std::vector<int64_t>& output_shape) {
        return onnx_proto::bytes(m_model, m_stream, output_shape);
    }

private:
    ::onnx::ModelProto m_model;
    std::string m_stream = "global_in";
};

}  // namespace npu::test
