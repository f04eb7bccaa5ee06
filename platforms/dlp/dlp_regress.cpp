// npusim regress on the DL processor (DlpFace::regress): an ONNX network on the processor (single,
// or int8 as calibrated) against the ONNX reference evaluator; or an int8 network file against
// its float equivalent (dlp_quantize.h: the parameters the int8 ones stand for), fed the float
// sample where the int8 network gets it quantized at input_exp. The processor's values are the
// modules' functions chained (models/dlp/dlp_chain.h, the one code path for values). Compared
// layer by layer by the regression service (sim/regress). docs/dlp.md, "Regression".
#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include <fmt/format.h>

#include "models/dlp/dlp_chain.h"
#include "models/dlp/dlp_func.h"
#include "platforms/dlp/dlp_face.h"
#include "platforms/dlp/dlp_quantize.h"
#include "sim/core/error.h"
#include "sim/core/npy.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"
#include "sim/regress/regression.h"

namespace npu::dlp {

namespace {

double pow2(int32_t e) {
    return std::ldexp(1.0, e);
}

int8_t quantize(double v, int32_t exp) {
    return static_cast<int8_t>(std::clamp(std::round(v / pow2(exp)), -128.0, 127.0));
}

std::vector<int8_t> quantize(const std::vector<float>& x, int32_t exp) {
    std::vector<int8_t> q;
    q.reserve(x.size());
    for (float v : x) {
        q.push_back(quantize(v, exp));
    }
    return q;
}

bool same_top1(const std::vector<float>& a, const std::vector<float>& b) {
    return std::max_element(a.begin(), a.end()) - a.begin() ==
           std::max_element(b.begin(), b.end()) - b.begin();
}

// Every sample through the int8 network and its float equivalent, each layer's pairs added to its
// statistics; the output's arg-max agreement counted.
void compare(const Network& n, const std::vector<std::vector<float>>& xs,
             std::vector<regress::ErrorStats>& layers, regress::OutputError& out) {
    const Network fn = float_equivalent(n);
    layers.assign(n.layers.size(), {});
    uint64_t agree = 0;
    for (const std::vector<float>& x : xs) {
        const std::vector<std::vector<int8_t>> q = run_chain_int8(n, quantize(x, n.input_exp));
        const std::vector<std::vector<float>> f = run_chain_single(fn, x);
        std::vector<float> last;
        for (size_t i = 0; i < n.layers.size(); ++i) {
            const int32_t exp = n.layers[i].quant.out_exp;
            last.clear();
            for (size_t e = 0; e < q[i].size(); ++e) {
                last.push_back(static_cast<float>(q[i][e] * pow2(exp)));
                layers[i].add(last.back(), f[i][e]);
                layers[i].add_lsb(std::abs(q[i][e] - quantize(f[i][e], exp)));
            }
        }
        agree += same_top1(last, f.back()) ? 1u : 0u;
    }
    out.agree = agree;
}

// The processor's value of every layer for one sample: its single chain, or its int8 chain on the
// sample quantized at input_exp, each layer dequantized at its out_exp.
std::vector<std::vector<float>> processor_values(const Network& n, const std::vector<float>& x,
                                                 bool int8) {
    if (!int8) {
        return run_chain_single(n, x);
    }
    const std::vector<std::vector<int8_t>> q = run_chain_int8(n, quantize(x, n.input_exp));
    std::vector<std::vector<float>> v(q.size());
    for (size_t i = 0; i < q.size(); ++i) {
        for (int8_t e : q[i]) {
            v[i].push_back(static_cast<float>(e * pow2(n.layers[i].quant.out_exp)));
        }
    }
    return v;
}

// The processor (single, or int8 as calibrated) against the ONNX reference on the same samples:
// every layer that stands for an ONNX tensor, and the output after the host's software layers.
// `mean`/`std` (given on the command line): the reference evaluates the normalized sample, the
// processor normalizes it itself.
regress::Regression regress_onnx(const std::string& path, const NetworkFile& f,
                                 const std::vector<std::vector<float>>& xs,
                                 const std::string& input_note, bool int8,
                                 const std::vector<float>& mean, const std::vector<float>& std) {
    onnx::ImportOptions io;
    const onnx::Graph g = onnx::import_model(path, io);
    const Network& n = f.network;
    regress::Regression r;
    r.program = path + (int8 ? " on the DL processor (int8)" : " on the DL processor (single)");
    r.reference = path + " (the ONNX reference evaluator)";
    r.input_note = input_note;
    r.samples = xs.size();
    std::vector<regress::ErrorStats> stats(n.layers.size());
    regress::OutputError out{g.outputs.at(0).name, {}, 0, false};
    const std::vector<int64_t> shape = {1, n.input.z, n.input.h, n.input.w};
    for (const std::vector<float>& x : xs) {
        std::map<std::string, std::vector<float>> ref;
        onnx::EvalOptions eo;
        eo.on_value = [&](const std::string& name, const onnx::Value& v) {
            ref[name] = v.f;
        };
        std::vector<float> xn = x;
        const auto plane = static_cast<size_t>(n.input.h * n.input.w);
        for (size_t i = 0; i < xn.size() && (!mean.empty() || !std.empty()); ++i) {
            const size_t c = i / plane;
            xn[i] = (xn[i] - (mean.empty() ? 0.0f : mean[mean.size() == 1 ? 0 : c])) /
                    (std.empty() ? 1.0f : std[std.size() == 1 ? 0 : c]);
        }
        const auto outs =
            onnx::evaluate(g, {{g.inputs.at(0).name, onnx::Value::floats(shape, xn)}}, eo);
        const std::vector<std::vector<float>> v = processor_values(n, x, int8);
        for (size_t i = 0; i < n.layers.size(); ++i) {
            auto it = ref.find(n.layers[i].onnx_tensor);
            if (it != ref.end() && it->second.size() == v[i].size()) {
                stats[i].add(v[i].data(), it->second.data(), v[i].size());
            }
        }
        const std::vector<float> y = run_software(n, v.back());
        const std::vector<float>& want = outs.begin()->second.f;
        out.stats.add(y.data(), want.data(), std::min(y.size(), want.size()));
        *out.agree += same_top1(y, want) ? 1u : 0u;
        out.scores = y.size() > 1;
    }
    for (size_t i = 0; i < n.layers.size(); ++i) {
        if (!n.layers[i].onnx_tensor.empty()) {
            r.layers.push_back(
                {i, kind_name(n.layers[i].kind), n.layers[i].onnx_tensor, 0, stats[i]});
        }
    }
    r.outputs.push_back(out);
    return r;
}

// --mean and --std as given (empty when not).
void normalization_of(const platform::RegressRequest& req, std::vector<float>& mean,
                      std::vector<float>& std) {
    const auto given = [&](const char* field) {
        return std::find(req.pre_given.begin(), req.pre_given.end(), field) != req.pre_given.end();
    };
    if (given("mean")) {
        mean.assign(req.pre.mean.begin(), req.pre.mean.end());
    }
    if (given("std")) {
        std.assign(req.pre.std.begin(), req.pre.std.end());
    }
}

// An ONNX network's regression as the platform reports it.
platform::RunReport regress_onnx_report(const platform::RegressRequest& req,
                                        const std::string& onnx_path, const DlpPlatformConfig& cfg,
                                        const std::string& source) {
    const regress::Tolerances tol =
        regress::read_tolerances(req.tolerances, req.max_lsb, req.min_cosine, req.min_top1);
    std::vector<float> mean, std;
    normalization_of(req, mean, std);
    const NetworkFile f = load_network(onnx_path, cfg, req.option("calibrate"), false, mean, std);
    std::string note;
    const std::vector<std::vector<float>> xs = read_samples(req.inputs, f, note);
    const bool int8 = cfg.dlp.data_type == DataType::int8;
    if (int8) {
        note += fmt::format("; calibrated on {}, the int8 input at 2^{}", req.option("calibrate"),
                            f.network.input_exp);
    }
    regress::Regression g = regress_onnx(onnx_path, f, xs, note, int8, mean, std);
    g.tol = tol;
    sim::RunRecord v = regress::verdict(g);
    v.platform = {"dlp", cfg.name, source, {}};
    v.program.format = "ONNX network on the DL processor";
    std::string text =
        fmt::format("{} vs {} on {}: {}\n", g.program, g.reference, cfg.name, g.input_note) +
        regress::verdict_text(g, v);
    return platform::verdict_report(std::move(v), std::move(text));
}

}  // namespace

platform::RunReport DlpFace::regress(const platform::RegressRequest& req) const {
    const std::string onnx_path = !req.onnx.empty() ? req.onnx : req.model;
    if (onnx_path.size() > 5 && onnx_path.compare(onnx_path.size() - 5, 5, ".onnx") == 0) {
        if ((!req.model.empty() && req.model != onnx_path) || req.timed || !req.labels.empty()) {
            throw sim::Error(source() +
                             ": a DL processor regress of an ONNX network takes --onnx "
                             "NET.onnx (or --model NET.onnx), [--inputs X.npy] and the "
                             "tolerances");
        }
        return regress_onnx_report(req, onnx_path, m_cfg, source());
    }
    if (m_cfg.dlp.data_type != DataType::int8) {
        throw sim::Error(source() +
                         ": regress compares the int8 network with its float equivalent: give "
                         "an int8 platform (e.g. configs/dlp_zcu102_int8.yaml)");
    }
    if (req.model.empty() || !req.onnx.empty() || req.timed || !req.labels.empty()) {
        throw sim::Error(source() +
                         ": a DL processor regress takes --model NETWORK.yaml [--inputs X.npy] "
                         "and the tolerances (no --onnx, --labels or --timed)");
    }
    const regress::Tolerances tol =
        regress::read_tolerances(req.tolerances, req.max_lsb, req.min_cosine, req.min_top1);
    std::vector<float> mean, std;
    normalization_of(req, mean, std);
    NetworkFile f = load_network(req.model, m_cfg, req.option("calibrate"), false, mean, std);
    regress::Regression g;
    g.program = req.model;
    g.reference = "the network in single precision with the dequantized parameters";
    const std::vector<std::vector<float>> xs = read_samples(req.inputs, f, g.input_note);
    g.input_note +=
        fmt::format("; the int8 network's input quantized at 2^{}", f.network.input_exp);
    g.samples = xs.size();
    g.tol = tol;
    std::vector<regress::ErrorStats> stats;
    const Layer& last = f.network.layers.back();
    regress::OutputError out{
        last.name, {}, std::nullopt, last.kind == LayerKind::fc && last.fc.out > 1};
    compare(f.network, xs, stats, out);
    for (size_t i = 0; i < stats.size(); ++i) {
        const Layer& l = f.network.layers[i];
        g.layers.push_back({i, kind_name(l.kind), l.name, pow2(l.quant.out_exp), stats[i]});
    }
    out.stats = stats.back();
    g.outputs.push_back(out);
    sim::RunRecord v = regress::verdict(g);
    v.platform = {"dlp", m_cfg.name, source(), {}};
    v.program.format = "DL processor network";
    v.program.facts = {{"layers", static_cast<double>(f.network.layers.size()), "layers"}};
    std::string text = fmt::format("{} (int8) vs {} on {}: {}\n", req.model, g.reference,
                                   m_cfg.name, g.input_note) +
                       regress::verdict_text(g, v);
    return platform::verdict_report(std::move(v), std::move(text));
}

}  // namespace npu::dlp
