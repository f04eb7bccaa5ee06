// npusim regress on the K210 (K210Face::regress): the float ONNX reference against the compiled
// kmodel on the simulated K210, sample by sample, compared per mapped layer and per output.
// Reports as a table, JSON and JUnit XML; not passed when a tolerance is exceeded.
// docs/k210_compiler.md.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/k210_kpu/kpu_layout.h"
#include "platforms/k210/compiler/compiler.h"
#include "platforms/k210/k210_face.h"
#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/regress_common.h"
#include "platforms/k210/soc/driver.h"
#include "platforms/k210/soc/k210_platform.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/parallel.h"
#include "sim/core/trace.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"
#include "sim/onnx/samples.h"
#include "sim/tlm/kernel.h"

namespace npu::k210 {

namespace {

using regress::ErrorStats;
using regress::Tolerances;

int64_t numel(const std::vector<int64_t>& s) {
    int64_t n = 1;
    for (int64_t d : s) {
        n *= d;
    }
    return n;
}

// A layer's output as the simulated K210 left it, dequantized; `q` gets the uint8 values of a
// quantized output.
std::vector<float> read_output(const CompiledLayer& l, RuntimeMemory& mem, std::vector<int>& q) {
    const auto n = static_cast<size_t>(numel(l.out_shape));
    std::vector<uint8_t> bytes;
    q.clear();
    if (l.out_in_kpu) {
        const auto& s = l.out_shape;
        const kpu::FmapGeometry g = kpu::FmapGeometry::natural(
            static_cast<int>(s.at(1)), static_cast<int>(s.at(3)), static_cast<int>(s.at(2)));
        bytes = download_fmap(mem, uint64_t{l.out_address} * kpu::kLineBytes, g, 1);
    } else if (!l.out_float) {
        bytes.resize(n);
        mem.read(kMainMemory, l.out_address, bytes.data(), n);
    } else {
        std::vector<float> f(n);
        mem.read(kMainMemory, l.out_address, f.data(), n * 4);
        return f;
    }
    std::vector<float> f(n);
    for (size_t i = 0; i < n; ++i) {
        q.push_back(bytes[i]);
        f[i] = static_cast<float>(l.lsb.dequantize(bytes[i]));
    }
    return f;
}

void compare(ErrorStats& s, const std::vector<float>& sim, const std::vector<int>& q,
             const std::vector<float>& ref, const QuantParams& lsb) {
    for (size_t i = 0; i < ref.size() && i < sim.size(); ++i) {
        const double a = sim[i], b = ref[i];
        s.add(a, b);
        s.add_lsb(q.empty() ? std::fabs(a - b) / lsb.scale
                            : std::abs(q[i] - static_cast<int>(lsb.quantize(b))));
    }
}

// What regress reads before comparing: the model, its compile report, the samples and labels.
struct Inputs {
    onnx::Graph graph;
    Kmodel km;
    CompiledModel cm;
    std::vector<onnx::Value> samples;
    std::string input_note;  // the preprocessing, when there is one
    std::vector<int64_t> labels;
    // The layers that equal an ONNX tensor, by kmodel layer index.
    std::multimap<size_t, const CompiledLayer*> mapped;

    sim::Tensor quantized(const onnx::Value& x) const {
        sim::Tensor in(sim::DType::u8, sim::Shape(cm.input_shape.begin(), cm.input_shape.end()));
        for (size_t k = 0; k < x.f.size(); ++k) {
            in.data<uint8_t>()[k] = cm.input_q.quantize(static_cast<double>(x.f[k]));
        }
        return in;
    }
};

// The kmodel's layers that the compile report maps to an ONNX tensor, each tensor checked to be
// one the graph computes: a report of another model (or the same model renamed) is one message,
// not a lookup that fails mid-run.
void map_layers(Inputs& in, const std::string& report_path, const platform::RegressRequest& req) {
    std::set<std::string> computed;
    for (const onnx::ValueInfo& i : in.graph.inputs) {
        computed.insert(i.name);
    }
    for (const onnx::Node& n : in.graph.nodes) {
        computed.insert(n.outputs.begin(), n.outputs.end());
    }
    for (const CompiledLayer& l : in.cm.layers) {
        if (l.onnx_output.empty()) {
            continue;
        }
        if (l.kmodel_layer < 0 || static_cast<size_t>(l.kmodel_layer) >= in.km.layers.size()) {
            throw sim::Error(fmt::format("{}: layer {} is not a layer of {} (it has {})",
                                         report_path, l.kmodel_layer, req.model,
                                         in.km.layers.size()));
        }
        if (computed.count(l.onnx_output) == 0) {
            throw sim::Error(fmt::format(
                "{}: layer {} maps ONNX tensor '{}', which {} does not compute: is it the model {} "
                "was compiled from?",
                report_path, l.kmodel_layer, l.onnx_output, req.onnx, req.model));
        }
        in.mapped.emplace(static_cast<size_t>(l.kmodel_layer), &l);
    }
    std::set<std::string> outputs;
    for (const onnx::ValueInfo& o : in.graph.outputs) {
        outputs.insert(o.name);
    }
    std::vector<std::string> named = in.cm.output_names;
    named.push_back(in.cm.output_name);
    for (const std::string& o : named) {
        if (outputs.count(o) == 0) {
            throw sim::Error(
                fmt::format("{}: output '{}' is not an output of {}: is it the model "
                            "{} was compiled from?",
                            report_path, o, req.onnx, req.model));
        }
    }
}

Inputs read_inputs(const platform::RegressRequest& req) {
    Inputs in;
    in.graph = onnx::import_model(req.onnx, {onnx::supported_ops(), true});
    in.km = parse_kmodel(sim::read_file(req.model), req.model);
    const std::string report_path = req.report.empty() ? req.model + ".json" : req.report;
    const nlohmann::ordered_json report =
        nlohmann::ordered_json::parse(sim::read_file(report_path), nullptr, false);
    in.cm = read_compile_report(report, report_path);
    if (in.graph.inputs.size() != 1 || in.graph.inputs[0].name != in.cm.input_name) {
        throw sim::Error(fmt::format("{} does not describe {} (input '{}')", report_path, req.onnx,
                                     in.cm.input_name));
    }
    // The preprocessing the model was compiled with (the report's), its fields given on the
    // command line overriding: samples are then raw (image pixels 0..255).
    std::optional<platform::Preprocessing> pre = regress::preprocessing_of(report, report_path);
    if (!req.pre_given.empty()) {
        pre = regress::with_given(pre.value_or(platform::Preprocessing{}), req);
    }
    in.samples = onnx::read_samples(req.inputs, in.cm.input_shape, pre ? 1.0 : 1.0 / 255);
    if (pre) {
        for (onnx::Value& v : in.samples) {
            v = regress::onnx_input(v, *pre, in.graph.inputs[0]);
        }
        in.input_note = "input " + regress::preprocessing_formula(*pre) + "; ";
    }
    if (!req.labels.empty()) {
        in.labels = onnx::read_labels(req.labels);
        if (in.labels.size() != in.samples.size()) {
            throw sim::Error(fmt::format("{}: {} labels for {} samples", req.labels,
                                         in.labels.size(), in.samples.size()));
        }
    }
    map_layers(in, report_path, req);
    return in;
}

// Every sample through the float reference and the functional K210, compared.
struct Comparison {
    std::map<const CompiledLayer*, ErrorStats> layers;
    ErrorStats output;
    std::vector<ErrorStats> more;  // the graph's further outputs, in order (cosine only)
    uint64_t agree = 0, correct_sim = 0, correct_float = 0;
    // [label][predicted class] counts where labels are given and within the output's classes.
    std::vector<std::vector<uint64_t>> confusion_sim, confusion_float;
    std::vector<sim::Tensor> first_outputs;  // sample 0's functional outputs, for --timed
};

// One sample through both engines, with the values compare() needs kept: computed on any thread.
struct SampleRun {
    struct Layer {
        const CompiledLayer* layer;
        std::vector<float> sim, ref;
        std::vector<int> q;
    };
    std::vector<Layer> layers;  // in the order the kmodel ran them
    std::map<std::string, onnx::Value> float_out;
    std::vector<sim::Tensor> sim_out;
};

SampleRun run_sample(const Inputs& in, size_t s, const FunctionalOptions& base) {
    SampleRun run;
    std::map<std::string, onnx::Value> ref;
    onnx::EvalOptions eo;
    eo.on_value = [&](const std::string& name, const onnx::Value& v) {
        for (const auto& [i, l] : in.mapped) {
            if (l->onnx_output == name) {
                ref[name] = v;
            }
        }
    };
    const std::string& input = in.cm.input_name;
    ref[input] = in.samples[s];  // a layer may map the input itself (a DEQUANTIZE)
    run.float_out = onnx::evaluate(in.graph, {{input, in.samples[s]}}, eo);
    FunctionalOptions fo = base;
    fo.on_layer_memory = [&](const FunctionalLayer& fl, RuntimeMemory& mem) {
        auto range = in.mapped.equal_range(fl.index);
        for (auto it = range.first; it != range.second; ++it) {
            SampleRun::Layer l{it->second, {}, ref.at(it->second->onnx_output).f, {}};
            l.sim = read_output(*it->second, mem, l.q);
            run.layers.push_back(std::move(l));
        }
    };
    run.sim_out = run_functional(in.km, in.quantized(in.samples[s]), fo).outputs;
    return run;
}

// Adds one sample's run to the comparison; called in sample order, so the sums are the same
// whatever thread ran which sample.
void add_sample(const Inputs& in, size_t s, const SampleRun& run, Comparison& c) {
    for (const SampleRun::Layer& l : run.layers) {
        compare(c.layers[l.layer], l.sim, l.q, l.ref, l.layer->lsb);
    }
    if (s == 0) {
        c.first_outputs = run.sim_out;
    }
    const std::vector<float>& y = run.float_out.at(in.cm.output_name).f;
    const float* ys = run.sim_out.at(0).data<float>();
    const std::vector<float> sim(ys, ys + run.sim_out[0].numel());
    compare(c.output, sim, {}, y, in.cm.layers.back().lsb);
    const auto top_s = std::max_element(sim.begin(), sim.end()) - sim.begin();
    const auto top_f = std::max_element(y.begin(), y.end()) - y.begin();
    c.agree += top_s == top_f ? 1u : 0u;
    if (!in.labels.empty()) {
        c.correct_sim += top_s == in.labels[s] ? 1u : 0u;
        c.correct_float += top_f == in.labels[s] ? 1u : 0u;
        const size_t classes = sim.size();
        c.confusion_sim.resize(classes, std::vector<uint64_t>(classes, 0));
        c.confusion_float.resize(classes, std::vector<uint64_t>(classes, 0));
        if (in.labels[s] >= 0 && static_cast<size_t>(in.labels[s]) < classes) {
            const auto label = static_cast<size_t>(in.labels[s]);
            ++c.confusion_sim[label][static_cast<size_t>(top_s)];
            ++c.confusion_float[label][static_cast<size_t>(top_f)];
        }
    }
    c.more.resize(in.cm.output_names.size() > 1 ? in.cm.output_names.size() - 1 : 0);
    for (size_t k = 1; k < in.cm.output_names.size() && k < run.sim_out.size(); ++k) {
        const std::vector<float>& yk = run.float_out.at(in.cm.output_names[k]).f;
        if (run.sim_out[k].numel() != yk.size()) {
            throw sim::Error(fmt::format("output {}: the kmodel gives {} values, '{}' holds {}", k,
                                         run.sim_out[k].numel(), in.cm.output_names[k], yk.size()));
        }
        c.more[k - 1].add(run.sim_out[k].data<float>(), yk.data(), yk.size());
    }
}

// Every sample, spread over the threads in batches (memory stays bounded), added in order.
void compare_samples(const Inputs& in, const FunctionalOptions& fo, Comparison& c) {
    const size_t batch = 4 * static_cast<size_t>(sim::threads());
    for (size_t first = 0; first < in.samples.size(); first += batch) {
        const size_t n = std::min(batch, in.samples.size() - first);
        const std::vector<SampleRun> runs = sim::parallel_map<SampleRun>(
            n, [&](size_t i) { return run_sample(in, first + i, fo); });
        for (size_t i = 0; i < n; ++i) {
            add_sample(in, first + i, runs[i], c);
        }
    }
}

// What was compared, for the verdict: each mapped layer, the first output (a vector of scores
// judged by its top-1 agreement, any other tensor by its cosine), the graph's further outputs (by
// cosine), the labels' confusion matrices.
npu::regress::Regression regression(const platform::RegressRequest& req, const Inputs& in,
                                    const Comparison& c, const Tolerances& tol) {
    npu::regress::Regression g;
    g.program = req.model;
    g.reference = req.onnx;
    g.input_note = fmt::format(
        "{}the kmodel's input quantized as q = clamp(round(x / {:.6g}) + {}, "
        "0, 255)",
        in.input_note, in.cm.input_q.scale, in.cm.input_q.zero_point);
    g.samples = in.samples.size();
    g.tol = tol;
    for (const auto& [index, l] : in.mapped) {
        g.layers.push_back(
            {index, l->target + " " + l->kind, l->onnx_output, l->lsb.scale, c.layers.at(l)});
    }
    const std::vector<int64_t>& shape = in.graph.outputs.at(0).shape;
    const bool scores =
        std::count_if(shape.begin(), shape.end(), [](int64_t d) { return d > 1; }) <= 1;
    g.outputs.push_back({in.cm.output_name, c.output, c.agree, scores});
    for (size_t k = 0; k < c.more.size(); ++k) {
        g.outputs.push_back({in.cm.output_names[k + 1], c.more[k], std::nullopt, false});
    }
    if (!in.labels.empty()) {
        g.confusion_sim = c.confusion_sim;
        g.confusion_ref = c.confusion_float;
        g.correct_sim = c.correct_sim;
        g.correct_ref = c.correct_float;
    }
    return g;
}

}  // namespace

platform::RunReport K210Face::regress(const platform::RegressRequest& req) const {
    if (req.onnx.empty() || req.inputs.empty()) {
        throw sim::Error(source() +
                         ": a K210 regress needs --onnx MODEL.onnx (the float reference) and "
                         "--inputs SAMPLES (a .npy or a directory of them)");
    }
    // A kmodel we did not compile has no report: its preprocessing is given instead (our own
    // kmodel's comes from its report, the fields given overriding it).
    const bool no_report = req.report.empty() && !std::filesystem::exists(req.model + ".json");
    if (no_report || !req.preprocess.empty()) {
        return regress_vendor(req, m_cfg, source());
    }
    const Tolerances tol = regress::tolerances(req);
    const Inputs in = read_inputs(req);
    FunctionalOptions fo;
    fo.fused_multiply_add = m_cfg.cpu.fused_multiply_add;
    Comparison c;
    compare_samples(in, fo, c);
    const npu::regress::Regression g = regression(req, in, c, tol);
    sim::RunRecord v = npu::regress::verdict(g);
    std::string text = fmt::format("{} vs {} on {} samples; {}\n", req.model, req.onnx,
                                   in.samples.size(), g.input_note);
    text += npu::regress::verdict_text(g, v);
    if (req.timed) {
        const regress::TimedRun t =
            regress::run_timed(in.km, in.quantized(in.samples[0]), m_cfg, c.first_outputs);
        if (!t.error.empty()) {
            platform::RunReport failed;
            failed.error = t.error;
            return failed;
        }
        regress::add_timed(t, v, text);
    }
    return regress::finish(std::move(v), text, m_cfg, source(), in.km);
}

}  // namespace npu::k210
