#include "sim/onnx/onnx_import.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <map>

#include <fmt/format.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/text.h"

namespace npu::onnx {

namespace {

namespace pb = ::onnx;

template <typename T>
T load(const std::string& raw, size_t i) {
    T v{};
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
    return v;
}

// The tensor's values: from raw_data (little-endian `Raw`) when present, else from the typed
// repeated field; each converted to the Value's element type. `need(count, bytes)` refuses a
// count other than the shape's.
template <typename Raw, typename Out, typename Field, typename Need>
void fill(std::vector<Out>& out, const std::string& raw, size_t n, const Field& field,
          const Need& need) {
    if (!raw.empty()) {
        need(raw.size() / sizeof(Raw), sizeof(Raw));
        for (size_t i = 0; i < n; ++i) {
            out.push_back(static_cast<Out>(load<Raw>(raw, i)));
        }
    } else {
        need(static_cast<size_t>(field.size()), sizeof(Raw));
        for (const auto x : field) {
            out.push_back(static_cast<Out>(x));
        }
    }
}

// A bfloat16 value (the top 16 bits of a float) as a float.
float bfloat16_to_float(uint16_t bits) {
    const uint32_t w = uint32_t{bits} << 16;
    float f = 0;
    std::memcpy(&f, &w, 4);
    return f;
}

// An IEEE 754 binary16 value (subnormals, infinities and NaN included) as a float.
float half_to_float(uint16_t h) {
    const int sign = (h >> 15) != 0 ? -1 : 1;
    const int exp = (h >> 10) & 0x1f, frac = h & 0x3ff;
    if (exp == 0x1f) {
        return frac != 0 ? std::numeric_limits<float>::quiet_NaN()
                         : static_cast<float>(sign) * std::numeric_limits<float>::infinity();
    }
    const float m =
        exp == 0 ? static_cast<float>(frac) / 1024.0f : 1.0f + static_cast<float>(frac) / 1024.0f;
    return static_cast<float>(sign) * std::ldexp(m, exp == 0 ? -14 : exp - 15);
}

// The tensor's shape into `shape`; its element count. Dimensions and counts are bounded.
size_t shape_of(const pb::TensorProto& t, const std::string& where, std::vector<int64_t>& shape) {
    size_t n = 1;
    for (int64_t d : t.dims()) {
        if (d < 0 || d > (int64_t{1} << 31)) {
            throw sim::Error(fmt::format("{}: dimension {} is out of range", where, d));
        }
        shape.push_back(d);
        n *= static_cast<size_t>(d);
        if (n > (size_t{1} << 31)) {
            throw sim::Error(where + ": the tensor has more than 2^31 elements");
        }
    }
    return n;
}

Value to_value(const pb::TensorProto& t, const std::string& where) {
    if (t.has_data_location() && t.data_location() == pb::TensorProto::EXTERNAL) {
        throw sim::Error(where + ": external data files are not supported");
    }
    Value v;
    v.onnx_type = t.data_type();
    const size_t n = shape_of(t, where, v.shape);
    const std::string& raw = t.raw_data();
    auto need = [&](size_t have, size_t bytes) {
        if (have != n) {
            throw sim::Error(
                fmt::format("{}: {} values for a tensor of {} ({} bytes of raw data "
                            "per value)",
                            where, have, n, bytes));
        }
    };
    const bool is_float =
        t.data_type() == pb::TensorProto::FLOAT || t.data_type() == pb::TensorProto::DOUBLE ||
        t.data_type() == pb::TensorProto::FLOAT16 || t.data_type() == pb::TensorProto::BFLOAT16;
    v.kind = is_float ? Value::Kind::f32 : Value::Kind::i64;
    switch (t.data_type()) {
    case pb::TensorProto::FLOAT: fill<float>(v.f, raw, n, t.float_data(), need); break;
    case pb::TensorProto::DOUBLE: fill<double>(v.f, raw, n, t.double_data(), need); break;
    case pb::TensorProto::INT64: fill<int64_t>(v.i, raw, n, t.int64_data(), need); break;
    case pb::TensorProto::INT32: fill<int32_t>(v.i, raw, n, t.int32_data(), need); break;
    case pb::TensorProto::INT16: fill<int16_t>(v.i, raw, n, t.int32_data(), need); break;
    case pb::TensorProto::UINT16: fill<uint16_t>(v.i, raw, n, t.int32_data(), need); break;
    case pb::TensorProto::INT8: fill<int8_t>(v.i, raw, n, t.int32_data(), need); break;
    case pb::TensorProto::UINT8:
    case pb::TensorProto::BOOL: fill<uint8_t>(v.i, raw, n, t.int32_data(), need); break;
    case pb::TensorProto::UINT32: fill<uint32_t>(v.i, raw, n, t.uint64_data(), need); break;
    // Held in int64: values from 2^63 on wrap to negative ones.
    case pb::TensorProto::UINT64: fill<uint64_t>(v.i, raw, n, t.uint64_data(), need); break;
    case pb::TensorProto::FLOAT16: {  // IEEE half bit patterns (raw, or int32_data), as floats
        std::vector<int64_t> bits;
        fill<uint16_t>(bits, raw, n, t.int32_data(), need);
        for (int64_t b : bits) {
            v.f.push_back(half_to_float(static_cast<uint16_t>(b)));
        }
        break;
    }
    case pb::TensorProto::BFLOAT16: {  // the top 16 bits of a float (raw, or int32_data)
        std::vector<int64_t> bits;
        fill<uint16_t>(bits, raw, n, t.int32_data(), need);
        for (int64_t b : bits) {
            v.f.push_back(bfloat16_to_float(static_cast<uint16_t>(b)));
        }
        break;
    }
    default:
        throw sim::Error(
            fmt::format("{}: tensor data type {} is not supported (float, double, float16, "
                        "bfloat16, int64, int32, int16, int8, uint64, uint32, uint16, uint8, "
                        "bool are)",
                        where, t.data_type()));
    }
    return v;
}

// The file's names as text (sim::valid_utf8: a byte that is not UTF-8 becomes U+FFFD), so that
// reports, pages and Python hold what the graph computes under the same names. Two different
// names that read the same once made text would join two tensors: refused.
class Names {
public:
    explicit Names(const std::string& file)
        : m_file(file) {}
    std::string operator()(const std::string& raw) {
        std::string text = sim::valid_utf8(raw);
        const auto [it, fresh] = m_raw.emplace(text, raw);
        if (!fresh && it->second != raw) {
            throw sim::Error(fmt::format(
                "{}: two different names read '{}' once their bytes that are not UTF-8 are "
                "replaced (U+FFFD); rename one",
                m_file, text));
        }
        return text;
    }
    template <class Repeated>
    std::vector<std::string> all(const Repeated& names) {
        std::vector<std::string> out;
        for (const std::string& n : names) {
            out.push_back((*this)(n));
        }
        return out;
    }

private:
    std::string m_file;
    std::map<std::string, std::string> m_raw;  // text -> the file's bytes
};

ValueInfo to_info(const pb::ValueInfoProto& vi, Names& names) {
    ValueInfo out;
    out.name = names(vi.name());
    if (vi.type().has_tensor_type()) {
        const auto& tt = vi.type().tensor_type();
        out.onnx_type = tt.elem_type();
        for (const auto& d : tt.shape().dim()) {
            out.shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
        }
    }
    return out;
}

// One node attribute; graphs, sparse tensors and type protos are kept empty (none of our ops
// use them).
Attribute to_attribute(const pb::AttributeProto& a, const std::string& name, const Node& node) {
    Attribute at;
    switch (a.type()) {
    case pb::AttributeProto::FLOAT: at.kind = Attribute::Kind::f, at.f = a.f(); break;
    case pb::AttributeProto::INT: at.kind = Attribute::Kind::i, at.i = a.i(); break;
    case pb::AttributeProto::STRING: at.kind = Attribute::Kind::s, at.s = a.s(); break;
    case pb::AttributeProto::TENSOR:
        at.kind = Attribute::Kind::t;
        at.t =
            to_value(a.t(), fmt::format("{}: {} attribute '{}'", name, node.describe(), a.name()));
        break;
    case pb::AttributeProto::FLOATS:
        at.kind = Attribute::Kind::fs;
        at.fs.assign(a.floats().begin(), a.floats().end());
        break;
    case pb::AttributeProto::INTS:
        at.kind = Attribute::Kind::is;
        at.is.assign(a.ints().begin(), a.ints().end());
        break;
    case pb::AttributeProto::STRINGS:
        at.kind = Attribute::Kind::ss;
        at.ss.assign(a.strings().begin(), a.strings().end());
        break;
    default: break;
    }
    return at;
}

Graph convert(const pb::ModelProto& m, const std::string& name, const ImportOptions& opts) {
    Graph g;
    Names names(name);
    g.name = sim::valid_utf8(m.graph().name());
    for (const auto& op : m.opset_import()) {
        if (op.domain().empty() || op.domain() == "ai.onnx") {
            g.opset = op.version();
        }
    }
    if (g.opset < 6 || g.opset > 17) {
        throw sim::Error(fmt::format("{}: default-domain opset {}, expected 6..17", name, g.opset));
    }
    for (const auto& t : m.graph().initializer()) {
        const std::string tensor = names(t.name());
        g.initializers[tensor] = to_value(t, fmt::format("{}: initializer '{}'", name, tensor));
    }
    for (const auto& in : m.graph().input()) {
        if (g.initializers.count(names(in.name())) == 0) {
            g.inputs.push_back(to_info(in, names));
        }
    }
    for (const auto& out : m.graph().output()) {
        g.outputs.push_back(to_info(out, names));
    }
    std::set<std::string> unsupported;
    for (const auto& n : m.graph().node()) {
        Node node;
        node.name = sim::valid_utf8(n.name());  // a label only: two may read the same
        node.op_type = sim::valid_utf8(n.op_type());
        node.domain = sim::valid_utf8(n.domain());
        node.inputs = names.all(n.input());
        node.outputs = names.all(n.output());
        for (const auto& a : n.attribute()) {
            node.attributes[a.name()] = to_attribute(a, name, node);
        }
        const bool default_domain = node.domain.empty() || node.domain == "ai.onnx";
        if ((!default_domain && !opts.other_domains) ||
            (!opts.supported_ops.empty() && opts.supported_ops.count(node.op_type) == 0)) {
            unsupported.insert(default_domain ? node.op_type : node.domain + "." + node.op_type);
        }
        g.nodes.push_back(std::move(node));
    }
    if (!unsupported.empty()) {
        std::string list;
        for (const std::string& op : unsupported) {
            list += (list.empty() ? "" : ", ") + op;
        }
        throw sim::Error(fmt::format("{}: unsupported ops: {}", name, list));
    }
    return g;
}

}  // namespace

Graph import_model_bytes(const std::vector<uint8_t>& bytes, const std::string& name,
                         const ImportOptions& opts) {
    pb::ModelProto m;
    if (bytes.size() > static_cast<size_t>(std::numeric_limits<int>::max()) ||
        !m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
        throw sim::Error(name +
                         ": not a valid ONNX model (the protobuf does not parse: "
                         "truncated or not ONNX)");
    }
    if (!m.has_graph()) {
        throw sim::Error(name + ": the model has no graph");
    }
    if (opts.run_checker) {
        try {
            pb::checker::check_model(m);
        } catch (const std::exception& e) {
            throw sim::Error(fmt::format("{}: the ONNX checker refuses it: {}", name, e.what()));
        }
        // Not ONNX's shape inference: libonnx 1.12's InferShapes dereferences null on malformed
        // ConvTranspose nodes (fuzz_onnx found 8 such crashes, docs/testing.md); every op
        // checks its own shapes in the evaluator instead.
    }
    return convert(m, name, opts);
}

Graph import_model(const std::string& path, const ImportOptions& opts) {
    return import_model_bytes(sim::read_file(path), path, opts);
}

Value parse_tensor_bytes(const std::vector<uint8_t>& bytes, const std::string& name) {
    pb::TensorProto t;
    if (!t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size()))) {
        throw sim::Error(name + ": not a serialized ONNX TensorProto");
    }
    return to_value(t, name);
}

Value read_tensor_file(const std::string& path) {
    return parse_tensor_bytes(sim::read_file(path), path);
}

}  // namespace npu::onnx
