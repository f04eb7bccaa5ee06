// npusim infer: an ONNX model on the float reference evaluator: outputs (and, on request, every
// intermediate) as .npy, and report.json: a run record with each value's shape and host time.
#include <chrono>
#include <cstdio>
#include <map>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "app/app.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/json_text.h"
#include "sim/core/npy.h"
#include "sim/core/run_record.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"

namespace npu::app {

namespace {

onnx::Value from_tensor(const sim::Tensor& t) {
    std::vector<int64_t> shape(t.shape().begin(), t.shape().end());
    if (t.dtype() == sim::DType::f32 || t.dtype() == sim::DType::f16) {
        std::vector<float> f(t.numel());
        for (size_t i = 0; i < f.size(); ++i) {
            f[i] = static_cast<float>(t.get_f64(i));
        }
        return onnx::Value::floats(shape, f);
    }
    std::vector<int64_t> v(t.numel());
    for (size_t i = 0; i < v.size(); ++i) {
        v[i] = static_cast<int64_t>(t.get_f64(i));
    }
    return onnx::Value::ints(shape, v);
}

sim::Tensor to_tensor(const onnx::Value& v) {
    const sim::Shape shape(v.shape.begin(), v.shape.end());
    if (!v.is_int()) {
        sim::Tensor t(sim::DType::f32, shape);
        std::copy(v.f.begin(), v.f.end(), t.data<float>());
        return t;
    }
    sim::Tensor t(sim::DType::i32, shape);  // .npy of int64 values that fit int32
    for (size_t i = 0; i < v.i.size(); ++i) {
        if (v.i[i] < INT32_MIN || v.i[i] > INT32_MAX) {
            throw sim::Error("an integer output does not fit int32 for .npy");
        }
        t.data<int32_t>()[i] = static_cast<int32_t>(v.i[i]);
    }
    return t;
}

// File names for tensors whose names are the model's (any text): other characters than letters,
// digits, '_', '-' and '.' as '_', at most 100 of them, and a number added when two names come
// out the same ("a/b" and "a_b": output_a_b.npy, output_a_b_2.npy). report.json maps each
// tensor to its file.
class FileNames {
public:
    std::string take(const std::string& prefix, const std::string& tensor) {
        std::string s = prefix;
        for (const char c : tensor.substr(0, 100)) {
            const bool ok =
                std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.';
            s += ok ? c : '_';
        }
        std::string name = s + ".npy";
        for (int k = 2; !m_taken.insert(name).second; ++k) {
            name = fmt::format("{}_{}.npy", s, k);
        }
        return name;
    }

private:
    std::set<std::string> m_taken;
};

// The --input files as the graph's inputs, each checked against its declared shape.
std::map<std::string, onnx::Value> read_inputs(const InferOptions& opts, const onnx::Graph& g) {
    std::map<std::string, onnx::Value> inputs;
    if (opts.inputs.size() != g.inputs.size()) {
        throw sim::Error(fmt::format("{} takes {} input(s); --input was given {} time(s)",
                                     opts.onnx, g.inputs.size(), opts.inputs.size()));
    }
    for (size_t i = 0; i < opts.inputs.size(); ++i) {
        onnx::Value v = from_tensor(sim::read_npy(opts.inputs[i]));
        const onnx::ValueInfo& info = g.inputs[i];
        bool fits = info.shape.size() == v.shape.size();
        for (size_t a = 0; fits && a < v.shape.size(); ++a) {
            fits = info.shape[a] < 0 || info.shape[a] == v.shape[a];
        }
        if (!fits) {
            std::vector<std::string> dims;
            for (int64_t d : info.shape) {
                dims.push_back(d < 0 ? "?" : std::to_string(d));
            }
            throw sim::Error(fmt::format("{}: shape ({}), input '{}' of {} is ({})", opts.inputs[i],
                                         fmt::join(v.shape, ", "), info.name, opts.onnx,
                                         fmt::join(dims, ", ")));
        }
        inputs[info.name] = std::move(v);
    }
    return inputs;
}

std::string dtype_of(const onnx::Value& v) {
    return v.is_int() ? "int32" : "float32";
}

// The outputs (and with --dump-all every node's value) as .npy files and the record (command
// "infer": a layer per value computed, in order, with its host time).
void add_outputs(const InferOptions& opts, int64_t opset,
                 const std::map<std::string, onnx::Value>& out,
                 const std::map<std::string, onnx::Value>& dumped,
                 std::vector<sim::LayerRecord> values, double ms, platform::RunReport& rep) {
    FileNames names;
    sim::RunRecord rec;
    rec.command = "infer", rec.mode = "reference";
    rec.platform = {"onnx", "the float reference evaluator", "", {}};
    rec.program = {opts.onnx, fmt::format("ONNX opset {}", opset), {}};
    for (const auto& [name, v] : out) {
        const std::string file = names.take("output_", name);
        rep.files.push_back({file, sim::encode_npy(to_tensor(v))});
        rec.outputs.push_back({name, file, v.shape, dtype_of(v), "", "", std::nullopt});
    }
    for (size_t i = 0; i < values.size(); ++i) {
        if (const auto it = dumped.find(values[i].name); it != dumped.end()) {
            const std::string file = names.take("node_", it->first);
            rep.files.push_back({file, sim::encode_npy(to_tensor(it->second))});
            rec.dumps.push_back(
                {it->first, file, it->second.shape, dtype_of(it->second), "", "", i});
        }
    }
    rec.layers = std::move(values);
    rec.totals = {{"values", static_cast<double>(rec.layers.size()), ""}, {"host_ms", ms, "ms"}};
    rec.notes = {"host_ms: this machine's time to compute the value, not a simulated time"};
    rep.record = std::move(rec);
}

}  // namespace

platform::RunReport infer_report(const InferOptions& opts) {
    const onnx::Graph g = onnx::import_model(opts.onnx, {onnx::supported_ops(), true});
    const std::map<std::string, onnx::Value> inputs = read_inputs(opts, g);
    std::map<std::string, const onnx::Node*> producer;
    for (const onnx::Node& n : g.nodes) {
        for (const std::string& o : n.outputs) {
            producer[o] = &n;
        }
    }
    std::vector<sim::LayerRecord> values;
    std::map<std::string, onnx::Value> dumped;
    onnx::EvalOptions eo;
    auto last = std::chrono::steady_clock::now();
    eo.on_value = [&](const std::string& name, const onnx::Value& v) {
        const auto now = std::chrono::steady_clock::now();
        const auto it = producer.find(name);
        sim::LayerRecord l{values.size(),
                           it != producer.end() ? it->second->op_type : "",
                           fmt::format("{}", fmt::join(v.shape, "x")),
                           0,
                           0,
                           std::nullopt,
                           std::nullopt,
                           {},
                           {},
                           name};
        l.measures = {
            {"host_ms", std::chrono::duration<double, std::milli>(now - last).count(), "ms"}};
        values.push_back(std::move(l));
        last = now;
        if (opts.dump_all) {
            dumped[name] = v;
        }
    };
    const auto t0 = std::chrono::steady_clock::now();
    const std::map<std::string, onnx::Value> out = onnx::evaluate(g, inputs, eo);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    platform::RunReport rep;
    rep.text = fmt::format("{}: {} nodes, opset {}, evaluated in {:.1f} ms\n", opts.onnx,
                           g.nodes.size(), g.opset, ms);
    for (const auto& [name, v] : out) {
        rep.text += fmt::format("output {}: ({})\n", name, fmt::join(v.shape, ", "));
    }
    add_outputs(opts, g.opset, out, dumped, std::move(values), ms, rep);
    return rep;
}

int cmd_infer(const InferOptions& opts) {
    const platform::RunReport rep = infer_report(opts);
    std::fwrite(rep.text.data(), 1, rep.text.size(), stdout);
    if (!opts.out.empty()) {
        sim::OutputDir dir(opts.out);
        for (const platform::OutputFile& f : rep.files) {
            dir.write_bytes(f.name, f.bytes);
        }
        dir.write_text("report.json", sim::json_text(sim::to_json(*rep.record), 2) + "\n");
        dir.commit();
        fmt::print("wrote {} files to {}\n", dir.files().size(), dir.dir().string());
    }
    return kExitOk;
}

}  // namespace npu::app
