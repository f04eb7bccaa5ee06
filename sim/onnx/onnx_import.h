// ONNX models into the graph IR, through Debian's libonnx protobuf classes: the model checker,
// opsets 6..17 of the default domain, initializers (float, double, int64, int32, int8, uint8,
// bool; raw or typed data), attributes. Every problem is one sim::Error naming the file, the node
// and the reason; unsupported ops are listed all at once. Pure C++ (protobuf, no SystemC).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "sim/onnx/graph.h"

namespace npu::onnx {

struct ImportOptions {
    // Ops the caller can run; empty = accept any. Others are reported together.
    std::set<std::string> supported_ops;
    bool run_checker = true;
    // Keep nodes of other domains than the default one (the caller judges them, e.g. FINN's
    // finn.custom_op.fpgadataflow layers); otherwise they are unsupported.
    bool other_domains = false;
};

Graph import_model(const std::string& path, const ImportOptions& opts = {});
Graph import_model_bytes(const std::vector<uint8_t>& bytes, const std::string& name,
                         const ImportOptions& opts = {});
// A serialized TensorProto (the node tests' input_N.pb / output_N.pb).
Value read_tensor_file(const std::string& path);
Value parse_tensor_bytes(const std::vector<uint8_t>& bytes, const std::string& name);

}  // namespace npu::onnx
