// A small graph IR for ONNX models: tensors (float32 or int64 data with a shape), nodes with
// their attributes, initializers, graph inputs and outputs. What the importer produces and the
// reference evaluator and the compilers consume. Pure C++ (no protobuf in this header).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace npu::onnx {

// A tensor value: float32 data, or integer data (int64, also holding int32/int8/uint8/bool).
struct Value {
    enum class Kind { f32, i64 } kind = Kind::f32;
    std::vector<int64_t> shape;
    std::vector<float> f;
    std::vector<int64_t> i;
    int32_t onnx_type = 1;  // TensorProto.DataType of the source (1 float, 7 int64, ...)

    size_t numel() const;
    bool is_int() const { return kind == Kind::i64; }
    static Value floats(std::vector<int64_t> shape, std::vector<float> data);
    static Value ints(std::vector<int64_t> shape, std::vector<int64_t> data);
};

struct Attribute {
    enum class Kind { none, f, i, s, t, fs, is, ss } kind = Kind::none;
    float f = 0;
    int64_t i = 0;
    std::string s;
    Value t;
    std::vector<float> fs;
    std::vector<int64_t> is;
    std::vector<std::string> ss;
    // Where the value came from when not the model file (e.g. "folding.json: MVAU_hls_0"): a
    // problem with it names that place.
    std::string origin;
};

struct Node {
    std::string name, op_type, domain;
    std::vector<std::string> inputs, outputs;  // "" = an omitted optional input
    std::map<std::string, Attribute> attributes;

    bool has(const std::string& a) const { return attributes.count(a) != 0; }
    int64_t get_int(const std::string& a, int64_t fallback) const;
    float get_float(const std::string& a, float fallback) const;
    std::string get_string(const std::string& a, const std::string& fallback) const;
    std::vector<int64_t> get_ints(const std::string& a, std::vector<int64_t> fallback = {}) const;
    // "Conv 'conv1'" for messages; an unnamed node "Conv (output 'x')".
    std::string describe() const;
};

struct ValueInfo {
    std::string name;
    int32_t onnx_type = 1;
    std::vector<int64_t> shape;  // -1 for a dimension without a fixed size
};

struct Graph {
    std::string name;
    int64_t opset = 0;        // default domain
    std::vector<Node> nodes;  // topological order, as ONNX stores them
    std::map<std::string, Value> initializers;
    std::vector<ValueInfo> inputs;  // the graph inputs that are not initializers
    std::vector<ValueInfo> outputs;
};

}  // namespace npu::onnx
