// npusim regress with a kmodel we did not compile (built by nncase or the SDK tools): no compile
// report, so the input preprocessing is given (mean, std, scale, channel order, layout); the
// kmodel's outputs are compared with the ONNX model's by order, and layers with ONNX tensors
// where the user matches them. docs/k210_compiler.md ("Regressing a vendor kmodel").
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/regress_common.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/parallel.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"
#include "sim/onnx/samples.h"

namespace npu::k210 {

namespace {

using regress::ErrorStats;

// A kmodel layer's result compared with an ONNX tensor (u8 results dequantized by the given
// scale and zero point).
struct Match {
    size_t layer = 0;
    std::string onnx;
    bool quantized = false;
    double scale = 1;
    int64_t zero_point = 0;
};

struct Setup {
    platform::Preprocessing pre;
    std::vector<Match> matches;
};

std::vector<double> doubles(const sim::ConfigNode& n, std::string_view key) {
    std::vector<double> v;
    for (const sim::ConfigNode& e : n.optional_items(key)) {
        v.push_back(e.as<double>());
    }
    return v;
}

Setup read_setup(const platform::RegressRequest& req) {
    Setup s;
    if (!req.preprocess.empty()) {
        sim::ConfigDocument doc = sim::ConfigDocument::load_file(req.preprocess);
        const sim::ConfigNode root = doc.root();
        if (const auto p = root.optional_child("preprocess")) {
            s.pre.mean = doubles(*p, "mean");
            s.pre.std = doubles(*p, "std");
            s.pre.scale = p->get<double>("scale", 1.0);
            s.pre.channel_order =
                p->get_enum<std::string>("channel_order", "rgb", {{"rgb", "rgb"}, {"bgr", "bgr"}});
            s.pre.layout =
                p->get_enum<std::string>("layout", "nchw", {{"nchw", "nchw"}, {"nhwc", "nhwc"}});
        }
        for (const sim::ConfigNode& m : root.optional_items("match")) {
            Match x;
            x.layer = m.get<size_t>("layer");
            x.onnx = m.get<std::string>("onnx");
            x.quantized = m.has("scale");
            x.scale = m.get<double>("scale", 1.0);
            x.zero_point = m.get<int64_t>("zero_point", 0, 0, 255);
            s.matches.push_back(x);
        }
        doc.finish();
    }
    s.pre = regress::with_given(s.pre, req);
    return s;
}

sim::Tensor kmodel_input(const Kmodel& km, const onnx::Value& raw, size_t sample) {
    const sim::Shape shape = model_input_shape(km);
    if (model_input_dtype(km) == sim::DType::f32) {
        sim::Tensor t(sim::DType::f32, shape);
        std::copy(raw.f.begin(), raw.f.end(), t.data<float>());
        return t;
    }
    sim::Tensor t(sim::DType::u8, shape);
    for (size_t i = 0; i < raw.f.size(); ++i) {
        const float v = raw.f[i];
        if (!(v >= 0 && v <= 255) || v != std::floor(v)) {
            throw sim::Error(
                fmt::format("sample {}: value {} at {} is not a uint8 pixel (the "
                            "kmodel takes uint8 input, given raw)",
                            sample, v, i));
        }
        t.data<uint8_t>()[i] = static_cast<uint8_t>(v);
    }
    return t;
}

std::vector<float> as_floats(const sim::Tensor& t) {
    if (t.dtype() == sim::DType::f32) {
        return {t.data<float>(), t.data<float>() + t.numel()};
    }
    return {t.data<uint8_t>(), t.data<uint8_t>() + t.numel()};
}

struct Comparison {
    std::vector<ErrorStats> outputs, layers;
    std::vector<uint64_t> agree;  // per output: samples whose arg-max agrees
    std::vector<sim::Tensor> first_outputs;
};

void compare_outputs(const Kmodel& km, const onnx::Graph& g, const FunctionalResult& r,
                     const std::map<std::string, onnx::Value>& ref, Comparison& c) {
    if (r.outputs.size() != g.outputs.size()) {
        throw sim::Error(fmt::format("the kmodel has {} outputs, the ONNX model {}",
                                     r.outputs.size(), g.outputs.size()));
    }
    for (size_t o = 0; o < r.outputs.size(); ++o) {
        const sim::Tensor& sim_out = r.outputs[o];
        const onnx::Value& y = ref.at(g.outputs[o].name);
        if (sim_out.dtype() != sim::DType::f32) {
            throw sim::Error(
                fmt::format("{}: output {} is uint8; only float outputs compare with "
                            "the ONNX model",
                            km.name, o));
        }
        if (sim_out.numel() != y.numel()) {
            throw sim::Error(
                fmt::format("output {}: the kmodel gives {} values {}, the ONNX "
                            "output '{}' {} {}",
                            o, sim_out.numel(), sim::shape_str(sim_out.shape()), g.outputs[o].name,
                            y.numel(), sim::shape_str(sim::Shape(y.shape.begin(), y.shape.end()))));
        }
        const float* s = sim_out.data<float>();
        c.outputs[o].add(s, y.f.data(), y.f.size());
        const auto top_s = std::max_element(s, s + y.f.size()) - s;
        const auto top_f = std::max_element(y.f.begin(), y.f.end()) - y.f.begin();
        c.agree[o] += top_s == top_f ? 1u : 0u;
    }
}

void compare_layers(const std::vector<Match>& matches, const FunctionalResult& r,
                    const std::map<std::string, onnx::Value>& ref, Comparison& c) {
    for (size_t k = 0; k < matches.size(); ++k) {
        const Match& m = matches[k];
        const auto d = std::find_if(r.dumps.begin(), r.dumps.end(),
                                    [&](const LayerDump& x) { return x.index == m.layer; });
        if (d == r.dumps.end()) {
            throw sim::Error(
                fmt::format("match: the kmodel has no layer {} with a result", m.layer));
        }
        const auto y = ref.find(m.onnx);
        if (y == ref.end()) {
            throw sim::Error(fmt::format("match: the ONNX model computes no tensor '{}'", m.onnx));
        }
        std::vector<float> v = as_floats(d->tensor);
        if (d->tensor.dtype() == sim::DType::u8) {
            if (!m.quantized) {
                throw sim::Error(
                    fmt::format("match: layer {} ({}) leaves uint8 values: give its "
                                "scale and zero_point",
                                m.layer, d->type));
            }
            for (float& x : v) {
                x = static_cast<float>(
                    (static_cast<double>(x) - static_cast<double>(m.zero_point)) * m.scale);
            }
        }
        if (v.size() != y->second.f.size()) {
            throw sim::Error(fmt::format("match: layer {} ({}) gives {} values, '{}' holds {}",
                                         m.layer, d->type, v.size(), m.onnx, y->second.f.size()));
        }
        c.layers[k].add(v.data(), y->second.f.data(), v.size());
    }
}

// What was compared, for the verdict: each output (by cosine, and by arg-max agreement when a
// tolerance for it is given) and each matched layer (by cosine: its scale is the user's).
npu::regress::Regression regression(const platform::RegressRequest& req, const onnx::Graph& g,
                                    const Kmodel& km, const Setup& setup, const Comparison& c,
                                    size_t samples, const regress::Tolerances& tol) {
    npu::regress::Regression r;
    r.program = req.model;
    r.reference = req.onnx;
    r.input_note = "the raw samples to the kmodel; to the ONNX model " +
                   regress::preprocessing_formula(setup.pre);
    r.samples = samples;
    r.tol = tol;
    for (size_t k = 0; k < setup.matches.size(); ++k) {
        const size_t layer = setup.matches[k].layer;
        r.layers.push_back({layer, layer < km.layers.size() ? km.layers[layer].type_name : "",
                            setup.matches[k].onnx, 0, c.layers[k]});
    }
    for (size_t o = 0; o < c.outputs.size(); ++o) {
        r.outputs.push_back({g.outputs[o].name, c.outputs[o], c.agree[o], false});
    }
    return r;
}

}  // namespace

namespace {

// Both engines on every sample (any thread, in batches: memory stays bounded), compared in
// order: outputs, the matched layers, and the first sample's outputs kept for the timed run.
Comparison compare_samples(const onnx::Graph& g, const Kmodel& km, const Setup& setup,
                           const std::vector<onnx::Value>& samples, const K210Config& cfg) {
    FunctionalOptions fo;
    fo.fused_multiply_add = cfg.cpu.fused_multiply_add;
    fo.dump_all = !setup.matches.empty();
    Comparison c;
    c.outputs.resize(g.outputs.size());
    c.agree.resize(g.outputs.size());
    c.layers.resize(setup.matches.size());
    // Both engines per sample on any thread, in batches (memory stays bounded); compared in order.
    struct SampleRun {
        std::map<std::string, onnx::Value> ref;
        FunctionalResult sim;
    };
    auto run_sample = [&](size_t s) {
        SampleRun run;
        onnx::EvalOptions eo;
        eo.on_value = [&](const std::string& name, const onnx::Value& v) {
            for (const Match& m : setup.matches) {
                if (m.onnx == name) {
                    run.ref[name] = v;
                }
            }
        };
        const std::map<std::string, onnx::Value> outs = onnx::evaluate(
            g, {{g.inputs[0].name, regress::onnx_input(samples[s], setup.pre, g.inputs[0])}}, eo);
        run.ref.insert(outs.begin(), outs.end());
        run.sim = run_functional(km, kmodel_input(km, samples[s], s), fo);
        return run;
    };
    const size_t batch = 4 * static_cast<size_t>(sim::threads());
    for (size_t first = 0; first < samples.size(); first += batch) {
        const size_t n = std::min(batch, samples.size() - first);
        const std::vector<SampleRun> runs =
            sim::parallel_map<SampleRun>(n, [&](size_t i) { return run_sample(first + i); });
        for (size_t i = 0; i < n; ++i) {
            compare_outputs(km, g, runs[i].sim, runs[i].ref, c);
            compare_layers(setup.matches, runs[i].sim, runs[i].ref, c);
            if (first + i == 0) {
                c.first_outputs = runs[i].sim.outputs;
            }
        }
    }
    return c;
}

}  // namespace

platform::RunReport regress_vendor(const platform::RegressRequest& req, const K210Config& cfg,
                                   const std::string& platform_source) {
    const regress::Tolerances tol = regress::tolerances(req);
    const Setup setup = read_setup(req);
    const onnx::Graph g = onnx::import_model(req.onnx, {onnx::supported_ops(), true});
    if (g.inputs.size() != 1) {
        throw sim::Error(
            fmt::format("{}: {} inputs; regress feeds one", req.onnx, g.inputs.size()));
    }
    const Kmodel km = parse_kmodel(sim::read_file(req.model), req.model);
    const sim::Shape in_shape = model_input_shape(km);
    const std::vector<onnx::Value> samples =
        onnx::read_samples(req.inputs, std::vector<int64_t>(in_shape.begin(), in_shape.end()), 1.0);
    Comparison c = compare_samples(g, km, setup, samples, cfg);
    const npu::regress::Regression r = regression(req, g, km, setup, c, samples.size(), tol);
    sim::RunRecord v = npu::regress::verdict(r);
    v.extra["preprocessing"] = {{"formula", regress::preprocessing_formula(setup.pre)},
                                {"mean", setup.pre.mean},
                                {"std", setup.pre.std},
                                {"scale", setup.pre.scale},
                                {"channel_order", setup.pre.channel_order},
                                {"layout", setup.pre.layout}};
    std::string text = fmt::format(
        "{} vs {} on {} samples (a kmodel without a compile report)\npreprocessing: "
        "{}\n",
        req.model, req.onnx, samples.size(), regress::preprocessing_formula(setup.pre));
    text += npu::regress::verdict_text(r, v);
    if (req.timed) {
        const regress::TimedRun t =
            regress::run_timed(km, kmodel_input(km, samples[0], 0), cfg, c.first_outputs);
        if (!t.error.empty()) {
            platform::RunReport failed;
            failed.error = t.error;
            return failed;
        }
        regress::add_timed(t, v, text);
    }
    return regress::finish(std::move(v), text, cfg, platform_source, km);
}

}  // namespace npu::k210
