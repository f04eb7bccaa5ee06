// npusim regress: the float ONNX reference against the compiled kmodel on the simulated K210,
// sample by sample, compared per mapped layer and per output. Reports as a table, JSON and JUnit
// XML; exit 1 when a tolerance is exceeded. docs/k210_compiler.md.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/k210_kpu/kpu_layout.h"
#include "platforms/k210/compiler.h"
#include "platforms/k210/driver.h"
#include "platforms/k210/functional.h"
#include "platforms/k210/k210_platform.h"
#include "platforms/k210/kmodel.h"
#include "sim/app/app.h"
#include "sim/app/platform_loader.h"
#include "sim/app/samples.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/trace.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"
#include "sim/tlm/kernel.h"

namespace npu::app {

namespace {

// Error statistics of one tensor over every sample.
struct Stats {
    double max_abs = 0, sum_abs = 0, max_lsb = 0;
    uint64_t count = 0;
    double dot = 0, sim_sq = 0, ref_sq = 0;

    double mean_abs() const { return count == 0 ? 0 : sum_abs / static_cast<double>(count); }
    double cosine() const {
        return sim_sq == 0 || ref_sq == 0 ? (sim_sq == ref_sq ? 1.0 : 0.0)
                                          : dot / std::sqrt(sim_sq * ref_sq);
    }
};

struct Tolerances {
    double max_lsb = 8, min_cosine = 0.99, min_top1 = 0.95;
};

Tolerances tolerances(const RegressOptions& o) {
    Tolerances t;
    if (!o.tolerances.empty()) {
        sim::ConfigDocument doc = sim::ConfigDocument::load_file(o.tolerances);
        const sim::ConfigNode r = doc.root();
        t.max_lsb = r.get<double>("max_lsb", t.max_lsb, 0.0, 1e9);
        t.min_cosine = r.get<double>("min_cosine", t.min_cosine, -1.0, 1.0);
        t.min_top1 = r.get<double>("min_top1_agreement", t.min_top1, 0.0, 1.0);
        doc.finish();
    }
    if (o.max_lsb >= 0) {
        t.max_lsb = o.max_lsb;
    }
    if (o.min_cosine >= 0) {
        t.min_cosine = o.min_cosine;
    }
    if (o.min_top1 >= 0) {
        t.min_top1 = o.min_top1;
    }
    return t;
}

int64_t numel(const std::vector<int64_t>& s) {
    int64_t n = 1;
    for (int64_t d : s) {
        n *= d;
    }
    return n;
}

// A layer's output as the simulated K210 left it, dequantized; `q` gets the uint8 values of a
// quantized output.
std::vector<float> read_output(const k210::CompiledLayer& l, k210::RuntimeMemory& mem,
                               std::vector<int>& q) {
    const auto n = static_cast<size_t>(numel(l.out_shape));
    std::vector<uint8_t> bytes;
    q.clear();
    if (l.out_in_kpu) {
        const auto& s = l.out_shape;
        const kpu::FmapGeometry g = kpu::FmapGeometry::natural(
            static_cast<int>(s.at(1)), static_cast<int>(s.at(3)), static_cast<int>(s.at(2)));
        bytes = k210::download_fmap(mem, uint64_t{l.out_address} * kpu::kLineBytes, g, 1);
    } else if (!l.out_float) {
        bytes.resize(n);
        mem.read(k210::kMainMemory, l.out_address, bytes.data(), n);
    } else {
        std::vector<float> f(n);
        mem.read(k210::kMainMemory, l.out_address, f.data(), n * 4);
        return f;
    }
    std::vector<float> f(n);
    for (size_t i = 0; i < n; ++i) {
        q.push_back(bytes[i]);
        f[i] = static_cast<float>(l.lsb.dequantize(bytes[i]));
    }
    return f;
}

void compare(Stats& s, const std::vector<float>& sim, const std::vector<int>& q,
             const std::vector<float>& ref, const k210::QuantParams& lsb) {
    for (size_t i = 0; i < ref.size() && i < sim.size(); ++i) {
        const double a = sim[i], b = ref[i], e = std::fabs(a - b);
        s.max_abs = std::max(s.max_abs, e);
        s.sum_abs += e;
        ++s.count;
        s.dot += a * b, s.sim_sq += a * a, s.ref_sq += b * b;
        const double lsb_err =
            q.empty() ? e / lsb.scale : std::abs(q[i] - static_cast<int>(lsb.quantize(b)));
        s.max_lsb = std::max(s.max_lsb, lsb_err);
    }
}

std::string xml_escape(const std::string& s) {
    std::string o;
    for (char c : s) {
        switch (c) {
        case '&': o += "&amp;"; break;
        case '<': o += "&lt;"; break;
        case '>': o += "&gt;"; break;
        case '"': o += "&quot;"; break;
        default: o += c;
        }
    }
    return o;
}

// The first sample on the timed K210 platform (bus, MMIO, interrupts, DMA, the CPU time model):
// its outputs against the functional run's, and what each layer cost.
struct TimedRun {
    bool equal = false;
    double inference_ms = 0;
    uint64_t kpu_cycles = 0, cpu_cycles = 0;
    std::vector<k210::LayerRun> layers;
    std::vector<uint64_t> layer_kpu_cycles;  // per kmodel layer
};

// `want`: the functional run's outputs for `in`, with the platform's CPU arithmetic.
TimedRun run_timed(const k210::Kmodel& km, const sim::Tensor& in, const k210::K210Config& cfg,
                   const std::vector<sim::Tensor>& want) {
    sim::install_report_handler({}, false);
    sim::TraceWriter trace(false);
    k210::K210Platform soc("k210", cfg, trace);
    k210::K210Driver driver("driver", soc, trace);
    driver.load(km, in);
    sc_core::sc_start();
    const k210::RunResult& r = driver.result();
    if (!r.error.empty()) {
        throw sim::Error(r.error);
    }
    if (!r.done) {
        throw sim::Error("the timed run did not finish (a layer never completed)");
    }
    TimedRun t;
    t.equal = r.outputs == want;
    t.inference_ms = static_cast<double>(r.end_ps - r.load_end_ps) / 1e9;
    t.layers = r.layers;
    for (const k210::LayerRun& l : r.layers) {
        uint64_t k = 0;
        for (int i = 0; i < l.kpu_layers; ++i) {
            k += soc.kpu.layers().at(static_cast<size_t>(l.kpu_layer + i)).cost.total_cycles;
        }
        t.layer_kpu_cycles.push_back(k);
        t.kpu_cycles += k;
        t.cpu_cycles += l.cpu_cycles;
    }
    return t;
}

}  // namespace

int cmd_regress(const RegressOptions& opts) {
    const Tolerances tol = tolerances(opts);
    const onnx::Graph g = onnx::import_model(opts.onnx, {onnx::supported_ops(), true});
    const k210::Kmodel km = k210::parse_kmodel(sim::read_file(opts.model), opts.model);
    const std::string report_path = opts.report.empty() ? opts.model + ".json" : opts.report;
    const k210::CompiledModel cm = k210::read_compile_report(
        nlohmann::ordered_json::parse(sim::read_file(report_path), nullptr, false), report_path);
    if (g.inputs.size() != 1 || g.inputs[0].name != cm.input_name) {
        throw sim::Error(fmt::format("{} does not describe {} (input '{}')", report_path, opts.onnx,
                                     cm.input_name));
    }
    // --timed: the platform is read first (a bad file fails before the long run), and its CPU
    // arithmetic is the functional runs' too.
    std::optional<LoadedPlatform> platform;
    if (opts.timed) {
        platform = load_platform(opts.platform);
        if (!platform->k210) {
            throw sim::Error(fmt::format("--platform {}: not a k210 platform", platform->source));
        }
    }
    const std::vector<onnx::Value> samples = read_samples(opts.inputs, cm.input_shape);
    const auto quantized = [&](const onnx::Value& x) {
        sim::Tensor in(sim::DType::u8, sim::Shape(cm.input_shape.begin(), cm.input_shape.end()));
        for (size_t k = 0; k < x.f.size(); ++k) {
            in.data<uint8_t>()[k] = cm.input_q.quantize(static_cast<double>(x.f[k]));
        }
        return in;
    };
    std::vector<sim::Tensor> first_outputs;  // sample 0's functional outputs, for --timed
    std::vector<int64_t> labels;
    if (!opts.labels.empty()) {
        labels = read_labels(opts.labels);
        if (labels.size() != samples.size()) {
            throw sim::Error(fmt::format("{}: {} labels for {} samples", opts.labels, labels.size(),
                                         samples.size()));
        }
    }
    // The layers that equal an ONNX tensor, by kmodel layer index.
    std::multimap<size_t, const k210::CompiledLayer*> mapped;
    for (const k210::CompiledLayer& l : cm.layers) {
        if (!l.onnx_output.empty()) {
            mapped.emplace(static_cast<size_t>(l.kmodel_layer), &l);
        }
    }
    std::map<const k210::CompiledLayer*, Stats> stats;
    Stats out_stats;
    uint64_t agree = 0, correct_sim = 0, correct_float = 0;
    for (size_t s = 0; s < samples.size(); ++s) {
        std::map<std::string, onnx::Value> ref;
        onnx::EvalOptions eo;
        eo.on_value = [&](const std::string& name, const onnx::Value& v) {
            for (const auto& [i, l] : mapped) {
                if (l->onnx_output == name) {
                    ref[name] = v;
                }
            }
        };
        ref[cm.input_name] = samples[s];  // a layer may map the input itself (a DEQUANTIZE)
        const std::map<std::string, onnx::Value> fout =
            onnx::evaluate(g, {{cm.input_name, samples[s]}}, eo);
        const sim::Tensor in = quantized(samples[s]);
        k210::FunctionalOptions fo;
        if (platform) {
            fo.fused_multiply_add = platform->k210->cpu.fused_multiply_add;
        }
        fo.on_layer_memory = [&](const k210::FunctionalLayer& fl, k210::RuntimeMemory& mem) {
            auto range = mapped.equal_range(fl.index);
            for (auto it = range.first; it != range.second; ++it) {
                std::vector<int> q;
                const std::vector<float> sim = read_output(*it->second, mem, q);
                compare(stats[it->second], sim, q, ref.at(it->second->onnx_output).f,
                        it->second->lsb);
            }
        };
        const k210::FunctionalResult r = k210::run_functional(km, in, fo);
        if (s == 0) {
            first_outputs = r.outputs;
        }
        const std::vector<float>& y = fout.at(cm.output_name).f;
        const float* ys = r.outputs.at(0).data<float>();
        const std::vector<float> sim(ys, ys + r.outputs[0].numel());
        compare(out_stats, sim, {}, y, cm.layers.back().lsb);
        const auto top_s = std::max_element(sim.begin(), sim.end()) - sim.begin();
        const auto top_f = std::max_element(y.begin(), y.end()) - y.begin();
        agree += top_s == top_f ? 1u : 0u;
        if (!labels.empty()) {
            correct_sim += top_s == labels[s] ? 1u : 0u;
            correct_float += top_f == labels[s] ? 1u : 0u;
        }
    }
    const double n = static_cast<double>(samples.size());
    const double top1 = static_cast<double>(agree) / n;

    // Table, JSON and JUnit.
    std::string table = fmt::format(
        "{} vs {} on {} samples; input quantized as q = clamp(round(x / {:.6g}) + {}, 0, 255)\n"
        "tolerances: max {} LSB per layer, cosine >= {}, top-1 agreement >= {}\n",
        opts.model, opts.onnx, samples.size(), cm.input_q.scale, cm.input_q.zero_point, tol.max_lsb,
        tol.min_cosine, tol.min_top1);
    table += fmt::format("{:>3}  {:<4} {:<40} {:>11} {:>8} {:>11} {:>9}  {}\n", "#", "on", "layer",
                         "max|err|", "max LSB", "mean|err|", "cosine", "status");
    nlohmann::ordered_json jl = nlohmann::ordered_json::array();
    std::string junit_cases;
    int failures = 0;
    std::string first_diverging;
    for (const auto& [index, l] : mapped) {
        const Stats& st = stats[l];
        const bool ok = st.max_lsb <= tol.max_lsb && st.cosine() >= tol.min_cosine;
        if (!ok && first_diverging.empty()) {
            first_diverging = fmt::format("{} ({})", index, l->onnx_output);
        }
        failures += ok ? 0 : 1;
        table += fmt::format("{:>3}  {:<4} {:<40} {:>11.4g} {:>8.2f} {:>11.4g} {:>9.6f}  {}\n",
                             index, l->target, l->kind.substr(0, 40), st.max_abs, st.max_lsb,
                             st.mean_abs(), st.cosine(), ok ? "ok" : "EXCEEDS");
        jl.push_back({{"kmodel_layer", index},
                      {"target", l->target},
                      {"kind", l->kind},
                      {"onnx_tensor", l->onnx_output},
                      {"lsb", l->lsb.scale},
                      {"max_abs_error", st.max_abs},
                      {"max_error_lsb", st.max_lsb},
                      {"mean_abs_error", st.mean_abs()},
                      {"cosine", st.cosine()},
                      {"ok", ok}});
        junit_cases += fmt::format(
            "    <testcase classname=\"npusim.regress.layers\" name=\"layer {} "
            "{}\">{}</testcase>\n",
            index, xml_escape(l->onnx_output),
            ok ? ""
               : fmt::format("<failure message=\"max {:.2f} LSB (tolerance {}), cosine {:.6f} "
                             "(minimum {})\"/>",
                             st.max_lsb, tol.max_lsb, st.cosine(), tol.min_cosine));
    }
    const bool top1_ok = top1 >= tol.min_top1;
    failures += top1_ok ? 0 : 1;
    table += fmt::format(
        "output '{}': max|err| {:.4g}, mean|err| {:.4g}, cosine {:.6f}; top-1 "
        "agreement {}/{} ({:.2f} %) {}\n",
        cm.output_name, out_stats.max_abs, out_stats.mean_abs(), out_stats.cosine(), agree,
        samples.size(), 100 * top1, top1_ok ? "ok" : "BELOW TOLERANCE");
    if (!labels.empty()) {
        table += fmt::format("accuracy: float {}/{} ({:.2f} %), simulated K210 {}/{} ({:.2f} %)\n",
                             correct_float, samples.size(),
                             100.0 * static_cast<double>(correct_float) / n, correct_sim,
                             samples.size(), 100.0 * static_cast<double>(correct_sim) / n);
    }
    table += first_diverging.empty() ? "no layer exceeds the tolerances\n"
                                     : "first diverging layer: " + first_diverging + "\n";
    junit_cases += fmt::format(
        "    <testcase classname=\"npusim.regress.output\" name=\"top1_agreement\">{}</testcase>\n",
        top1_ok ? "" : fmt::format("<failure message=\"{:.4f} below {}\"/>", top1, tol.min_top1));
    nlohmann::ordered_json jt;
    if (opts.timed) {
        const TimedRun t = run_timed(km, quantized(samples[0]), *platform->k210, first_outputs);
        failures += t.equal ? 0 : 1;
        table += fmt::format(
            "timed platform, sample 0: {:.3f} ms per inference, {} KPU cycles, {} CPU cycles; "
            "outputs {} the functional run's\n",
            t.inference_ms, t.kpu_cycles, t.cpu_cycles, t.equal ? "equal" : "DIFFER FROM");
        table += fmt::format("{:>3}  {:<16} {:>10} {:>10} {:>10}\n", "#", "kmodel layer", "time us",
                             "KPU cyc", "CPU cyc");
        nlohmann::ordered_json tl = nlohmann::ordered_json::array();
        for (size_t i = 0; i < t.layers.size(); ++i) {
            const k210::LayerRun& l = t.layers[i];
            const double us = static_cast<double>(l.end_ps - l.start_ps) / 1e6;
            table += fmt::format("{:>3}  {:<16} {:>10.1f} {:>10} {:>10}\n", l.index, l.type, us,
                                 t.layer_kpu_cycles[i], l.cpu_cycles);
            tl.push_back({{"kmodel_layer", l.index},
                          {"type", l.type},
                          {"time_us", us},
                          {"kpu_cycles", t.layer_kpu_cycles[i]},
                          {"cpu_cycles", l.cpu_cycles}});
        }
        jt = {{"sample", 0},
              {"platform", opts.platform.empty() ? "<built-in k210>" : opts.platform},
              {"outputs_equal_functional", t.equal},
              {"inference_ms", t.inference_ms},
              {"kpu_cycles", t.kpu_cycles},
              {"cpu_cycles", t.cpu_cycles},
              {"layers", tl}};
        junit_cases += fmt::format(
            "    <testcase classname=\"npusim.regress.timed\" "
            "name=\"timed_equals_functional\">{}</testcase>\n",
            t.equal ? "" : "<failure message=\"the timed platform's outputs differ\"/>");
    }
    fmt::print("{}", table);
    if (!opts.out.empty()) {
        nlohmann::ordered_json j;
        j["tool"] = "npusim";
        j["version"] = version();
        j["command"] = "regress";
        j["onnx"] = opts.onnx;
        j["kmodel"] = opts.model;
        j["samples"] = samples.size();
        j["preprocessing"] = {{"input", cm.input_name},
                              {"formula", "q = clamp(round(x / scale) + zero_point, 0, 255)"},
                              {"scale", cm.input_q.scale},
                              {"zero_point", cm.input_q.zero_point}};
        j["tolerances"] = {{"max_lsb", tol.max_lsb},
                           {"min_cosine", tol.min_cosine},
                           {"min_top1_agreement", tol.min_top1}};
        j["layers"] = jl;
        j["output"] = {{"name", cm.output_name},
                       {"max_abs_error", out_stats.max_abs},
                       {"mean_abs_error", out_stats.mean_abs()},
                       {"cosine", out_stats.cosine()},
                       {"top1_agreement", top1}};
        if (!labels.empty()) {
            j["accuracy"] = {{"float", static_cast<double>(correct_float) / n},
                             {"simulated", static_cast<double>(correct_sim) / n}};
        }
        j["first_diverging_layer"] = first_diverging;
        if (opts.timed) {
            j["timed"] = jt;
        }
        j["passed"] = failures == 0;
        sim::OutputDir dir(opts.out);
        dir.write_text("report.json", j.dump(2) + "\n");
        dir.write_text("report.txt", table);
        dir.write_text(
            "junit.xml",
            fmt::format("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
                        "  <testsuite name=\"npusim.regress\" tests=\"{}\" "
                        "failures=\"{}\">\n{}  </testsuite>\n</testsuites>\n",
                        mapped.size() + 1 + (opts.timed ? 1 : 0), failures, junit_cases));
        dir.commit();
        fmt::print("wrote report.json, report.txt and junit.xml to {}\n", dir.dir().string());
    }
    return failures == 0 ? kExitOk : kExitCheckFailed;
}

}  // namespace npu::app
