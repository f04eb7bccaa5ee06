#include "sim/onnx/onnx_import.h"

#include <cstring>
#include <limits>

#include <fmt/format.h>
#include <onnx/checker.h>
#include <onnx/onnx_pb.h>

#include "sim/core/error.h"
#include "sim/core/files.h"

namespace npu::onnx {

namespace {

namespace pb = ::onnx;

template <typename T>
T load(const std::string& raw, size_t i) {
    T v{};
    std::memcpy(&v, raw.data() + i * sizeof(T), sizeof(T));
    return v;
}

Value to_value(const pb::TensorProto& t, const std::string& where) {
    if (t.has_data_location() && t.data_location() == pb::TensorProto::EXTERNAL) {
        throw sim::Error(where + ": external data files are not supported");
    }
    Value v;
    v.onnx_type = t.data_type();
    size_t n = 1;
    for (int64_t d : t.dims()) {
        if (d < 0 || d > (int64_t{1} << 31)) {
            throw sim::Error(fmt::format("{}: dimension {} is out of range", where, d));
        }
        v.shape.push_back(d);
        n *= static_cast<size_t>(d);
        if (n > (size_t{1} << 31)) {
            throw sim::Error(where + ": the tensor has more than 2^31 elements");
        }
    }
    const std::string& raw = t.raw_data();
    auto need = [&](size_t have, size_t bytes) {
        if (have != n) {
            throw sim::Error(
                fmt::format("{}: {} values for a tensor of {} ({} bytes of raw data "
                            "per value)",
                            where, have, n, bytes));
        }
    };
    switch (t.data_type()) {
    case pb::TensorProto::FLOAT:
        v.kind = Value::Kind::f32;
        if (!raw.empty()) {
            need(raw.size() / 4, 4);
            for (size_t i = 0; i < n; ++i) {
                v.f.push_back(load<float>(raw, i));
            }
        } else {
            need(static_cast<size_t>(t.float_data_size()), 4);
            v.f.assign(t.float_data().begin(), t.float_data().end());
        }
        break;
    case pb::TensorProto::DOUBLE:
        v.kind = Value::Kind::f32;
        if (!raw.empty()) {
            need(raw.size() / 8, 8);
            for (size_t i = 0; i < n; ++i) {
                v.f.push_back(static_cast<float>(load<double>(raw, i)));
            }
        } else {
            need(static_cast<size_t>(t.double_data_size()), 8);
            for (double d : t.double_data()) {
                v.f.push_back(static_cast<float>(d));
            }
        }
        break;
    case pb::TensorProto::INT64:
        v.kind = Value::Kind::i64;
        if (!raw.empty()) {
            need(raw.size() / 8, 8);
            for (size_t i = 0; i < n; ++i) {
                v.i.push_back(load<int64_t>(raw, i));
            }
        } else {
            need(static_cast<size_t>(t.int64_data_size()), 8);
            v.i.assign(t.int64_data().begin(), t.int64_data().end());
        }
        break;
    case pb::TensorProto::INT32:
    case pb::TensorProto::INT8:
    case pb::TensorProto::UINT8:
    case pb::TensorProto::BOOL:
    case pb::TensorProto::INT16:
    case pb::TensorProto::UINT16: {
        v.kind = Value::Kind::i64;
        const int32_t dt = t.data_type();
        const size_t width = dt == pb::TensorProto::INT32                                      ? 4
                             : (dt == pb::TensorProto::INT16 || dt == pb::TensorProto::UINT16) ? 2
                                                                                               : 1;
        if (!raw.empty()) {
            need(raw.size() / width, width);
            for (size_t i = 0; i < n; ++i) {
                switch (dt) {
                case pb::TensorProto::INT32: v.i.push_back(load<int32_t>(raw, i)); break;
                case pb::TensorProto::INT16: v.i.push_back(load<int16_t>(raw, i)); break;
                case pb::TensorProto::UINT16: v.i.push_back(load<uint16_t>(raw, i)); break;
                case pb::TensorProto::INT8: v.i.push_back(load<int8_t>(raw, i)); break;
                default: v.i.push_back(load<uint8_t>(raw, i)); break;
                }
            }
        } else {
            need(static_cast<size_t>(t.int32_data_size()), width);
            v.i.assign(t.int32_data().begin(), t.int32_data().end());
        }
        break;
    }
    default:
        throw sim::Error(
            fmt::format("{}: tensor data type {} is not supported (float, double, "
                        "int64, int32, int16, int8, uint8, bool are)",
                        where, t.data_type()));
    }
    return v;
}

ValueInfo to_info(const pb::ValueInfoProto& vi) {
    ValueInfo out;
    out.name = vi.name();
    if (vi.type().has_tensor_type()) {
        const auto& tt = vi.type().tensor_type();
        out.onnx_type = tt.elem_type();
        for (const auto& d : tt.shape().dim()) {
            out.shape.push_back(d.has_dim_value() ? d.dim_value() : -1);
        }
    }
    return out;
}

Graph convert(const pb::ModelProto& m, const std::string& name, const ImportOptions& opts) {
    Graph g;
    g.name = m.graph().name();
    for (const auto& op : m.opset_import()) {
        if (op.domain().empty() || op.domain() == "ai.onnx") {
            g.opset = op.version();
        }
    }
    if (g.opset < 6 || g.opset > 17) {
        throw sim::Error(fmt::format("{}: default-domain opset {}, expected 6..17", name, g.opset));
    }
    for (const auto& t : m.graph().initializer()) {
        g.initializers[t.name()] = to_value(t, fmt::format("{}: initializer '{}'", name, t.name()));
    }
    for (const auto& in : m.graph().input()) {
        if (g.initializers.count(in.name()) == 0) {
            g.inputs.push_back(to_info(in));
        }
    }
    for (const auto& out : m.graph().output()) {
        g.outputs.push_back(to_info(out));
    }
    std::set<std::string> unsupported;
    for (const auto& n : m.graph().node()) {
        Node node;
        node.name = n.name();
        node.op_type = n.op_type();
        node.domain = n.domain();
        node.inputs.assign(n.input().begin(), n.input().end());
        node.outputs.assign(n.output().begin(), n.output().end());
        for (const auto& a : n.attribute()) {
            Attribute at;
            switch (a.type()) {
            case pb::AttributeProto::FLOAT: at.kind = Attribute::Kind::f, at.f = a.f(); break;
            case pb::AttributeProto::INT: at.kind = Attribute::Kind::i, at.i = a.i(); break;
            case pb::AttributeProto::STRING: at.kind = Attribute::Kind::s, at.s = a.s(); break;
            case pb::AttributeProto::TENSOR:
                at.kind = Attribute::Kind::t;
                at.t = to_value(
                    a.t(), fmt::format("{}: {} attribute '{}'", name, node.describe(), a.name()));
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
            default: break;  // graphs, sparse tensors, type protos: none of our ops use them
            }
            node.attributes[a.name()] = at;
        }
        const bool default_domain = node.domain.empty() || node.domain == "ai.onnx";
        if (!default_domain ||
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
