// npusim regress on the DL processor (DlpFace::regress): the int8 network — the arithmetic its
// conv, fc and adder modules run (models/dlp/dlp_func.h, the one code path for values) —
// against its float equivalent: the same layers in single precision with the parameters the
// int8 ones stand for (w = q · 2^w_exp, bias = b · 2^(in_exp + w_exp), the leaky slope
// leaky_mul · 2^-leaky_shift, the clip ceiling at out_exp), fed the float sample where the int8
// network gets it quantized at input_exp. Compared layer by layer by the regression service
// (sim/regress). docs/dlp.md, "Regression".
#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include <fmt/format.h>

#include "models/dlp/dlp_func.h"
#include "platforms/dlp/dlp_face.h"
#include "sim/core/error.h"
#include "sim/core/npy.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"
#include "sim/regress/regression.h"

namespace npu::dlp {

namespace {

constexpr size_t kRandomSamples = 16;  // without --inputs

double pow2(int32_t e) {
    return std::ldexp(1.0, e);
}

int8_t quantize(double v, int32_t exp) {
    return static_cast<int8_t>(std::clamp(std::round(v / pow2(exp)), -128.0, 127.0));
}

// The float layer an int8 layer stands for: its dequantized parameters and float activation.
struct FloatLayer {
    ConvLayer conv;
    FcLayer fc;
    std::vector<float> weights, bias;
};

FloatLayer float_layer(const Layer& l) {
    FloatLayer f{l.conv, l.fc, {}, {}};
    const Int8Quant& q = l.quant;
    for (int8_t w : l.weights_q) {
        f.weights.push_back(static_cast<float>(w * pow2(q.w_exp)));
    }
    for (int32_t b : l.bias_q) {
        f.bias.push_back(static_cast<float>(b * pow2(q.in_exp + q.w_exp)));
    }
    const auto slope = static_cast<float>(q.leaky_mul * pow2(-q.leaky_shift));
    const auto ceiling = static_cast<float>(q.clip_ceiling * pow2(q.out_exp));
    f.conv.leaky_slope = f.fc.leaky_slope = slope;
    f.conv.clip_ceiling = f.fc.clip_ceiling = ceiling;
    f.fc.output = FcLayer::Output::plain;
    return f;
}

struct Values {
    std::vector<int8_t> q;  // the int8 network's
    std::vector<float> f;   // the float network's
};

// An adder's constant operand over the map of `a`: its int8 values and what they stand for.
Values constant_operand(const Layer& l, const Values& a) {
    Values c;
    const size_t plane = a.q.size() / l.constant_q.size();
    for (int8_t v : l.constant_q) {
        c.q.insert(c.q.end(), plane, v);
        c.f.insert(c.f.end(), plane, static_cast<float>(v * pow2(l.quant.in2_exp)));
    }
    return c;
}

// A layer in single precision on CHW values with the parameters `fl` (its own, or those an int8
// layer stands for); `b` the adder's second operand.
std::vector<float> run_single(const Layer& l, const FloatLayer& fl, const std::vector<float>& a,
                              const std::vector<float>* b) {
    switch (l.kind) {
    case LayerKind::pool: return pool_single(fl.conv, a.data());
    case LayerKind::conv: return conv_single(fl.conv, a.data(), fl.weights.data(), fl.bias.data());
    case LayerKind::fc: return fc_single(fl.fc, a.data(), fl.weights.data(), fl.bias.data());
    default:
        return adder_single(l.kind == LayerKind::add ? AdderOp::add : AdderOp::multiply, a.data(),
                            b->data(), a.size(), l.conv.activation);
    }
}

Values run_layer(const Layer& l, const FloatLayer& fl, const Values& a, const Values* b) {
    std::vector<float> f = run_single(l, fl, a.f, b == nullptr ? nullptr : &b->f);
    switch (l.kind) {
    case LayerKind::pool: return {pool_int8(l.conv, l.quant, a.q.data()), std::move(f)};
    case LayerKind::conv:
        return {conv_int8(l.conv, l.quant, a.q.data(), l.weights_q.data(), l.bias_q.data()),
                std::move(f)};
    case LayerKind::fc:
        return {fc_int8(l.fc, l.quant, a.q.data(), l.weights_q.data(), l.bias_q.data()),
                std::move(f)};
    default: {
        const AdderOp op = l.kind == LayerKind::add ? AdderOp::add : AdderOp::multiply;
        return {adder_int8(op, a.q.data(), l.quant.in_exp, b->q.data(), l.quant.in2_exp,
                           l.quant.out_exp, a.q.size(), l.conv.activation),
                std::move(f)};
    }
    }
}

// The samples: a float32 .npy of (Z, H, W) or (N, Z, H, W), or kRandomSamples pseudo-random
// ones, uniform in −1..1 from the network's seed.
std::vector<std::vector<float>> samples(const std::string& path, const NetworkFile& f,
                                        std::string& note) {
    const Network& n = f.network;
    const auto per = static_cast<size_t>(n.input.z * n.input.h * n.input.w);
    std::vector<std::vector<float>> out;
    if (path.empty()) {
        std::mt19937 rng(f.seed);
        std::uniform_real_distribution<float> u(-1, 1);
        for (size_t k = 0; k < kRandomSamples; ++k) {
            std::vector<float> x(per);
            std::generate(x.begin(), x.end(), [&] { return u(rng); });
            out.push_back(std::move(x));
        }
        note = fmt::format("{} pseudo-random samples (uniform −1..1, seed {})", kRandomSamples,
                           f.seed);
        return out;
    }
    const sim::Tensor t = sim::read_npy(path);
    if (t.dtype() != sim::DType::f32 || t.numel() == 0 || t.numel() % per != 0) {
        throw sim::Error(fmt::format("{}: {} of {}, expected float32 samples of {}x{}x{}", path,
                                     sim::shape_str(t.shape()), sim::dtype_name(t.dtype()),
                                     n.input.z, n.input.h, n.input.w));
    }
    for (size_t k = 0; k < t.numel() / per; ++k) {
        const float* p = t.data<float>() + k * per;
        out.emplace_back(p, p + per);
    }
    note = path;
    return out;
}

// Every sample through both networks, each layer's pairs added to its statistics; the output's
// arg-max agreement counted.
void compare(const Network& n, const std::vector<std::vector<float>>& xs,
             std::vector<regress::ErrorStats>& layers, regress::OutputError& out) {
    std::vector<FloatLayer> fl;
    for (const Layer& l : n.layers) {
        fl.push_back(float_layer(l));
    }
    layers.assign(n.layers.size(), {});
    uint64_t agree = 0;
    for (const std::vector<float>& x : xs) {
        Values in{{}, x};
        for (float v : x) {
            in.q.push_back(quantize(v, n.input_exp));
        }
        std::vector<Values> v;
        for (size_t i = 0; i < n.layers.size(); ++i) {
            const Layer& l = n.layers[i];
            const auto at = [&](int k) {
                return k < 0 ? &in : &v[static_cast<size_t>(k)];
            };
            const Values constant =
                l.input2 == kConstantOperand ? constant_operand(l, *at(l.input)) : Values{};
            v.push_back(run_layer(l, fl[i], *at(l.input),
                                  l.input2 == kConstantOperand ? &constant : at(l.input2)));
            const double lsb = pow2(l.quant.out_exp);
            for (size_t e = 0; e < v[i].q.size(); ++e) {
                const double ref = v[i].f[e];
                layers[i].add(v[i].q[e] * lsb, ref);
                layers[i].add_lsb(std::abs(v[i].q[e] - quantize(ref, l.quant.out_exp)));
            }
        }
        const Values& y = v.back();
        const bool same = std::max_element(y.q.begin(), y.q.end()) - y.q.begin() ==
                          std::max_element(y.f.begin(), y.f.end()) - y.f.begin();
        agree += same ? 1u : 0u;
    }
    out.agree = agree;
}

// The single-precision network's layers on one sample (CHW values): each layer's output.
std::vector<std::vector<float>> run_network_single(const Network& n, const std::vector<float>& x) {
    std::vector<std::vector<float>> v;
    for (const Layer& l : n.layers) {
        const FloatLayer fl{l.conv, l.fc, l.weights, l.bias};
        const auto at = [&](int k) {
            return k < 0 ? &x : &v[static_cast<size_t>(k)];
        };
        std::vector<float> constant;
        if (l.input2 == kConstantOperand) {
            const size_t plane = at(l.input)->size() / l.constant.size();
            for (float c : l.constant) {
                constant.insert(constant.end(), plane, c);
            }
        }
        v.push_back(run_single(l, fl, *at(l.input),
                               l.input2 == kConstantOperand ? &constant : at(l.input2)));
    }
    return v;
}

// The processor (single) against the ONNX reference on the same samples: every layer that
// stands for an ONNX tensor, and the output after the host's software layers.
regress::Regression regress_onnx(const std::string& path, const NetworkFile& f,
                                 const std::vector<std::vector<float>>& xs,
                                 const std::string& input_note) {
    onnx::ImportOptions io;
    const onnx::Graph g = onnx::import_model(path, io);
    const Network& n = f.network;
    regress::Regression r;
    r.program = path + " on the DL processor (single)";
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
        const auto outs =
            onnx::evaluate(g, {{g.inputs.at(0).name, onnx::Value::floats(shape, x)}}, eo);
        const std::vector<std::vector<float>> v = run_network_single(n, x);
        for (size_t i = 0; i < n.layers.size(); ++i) {
            auto it = ref.find(n.layers[i].onnx_tensor);
            if (it != ref.end() && it->second.size() == v[i].size()) {
                stats[i].add(v[i].data(), it->second.data(), v[i].size());
            }
        }
        const std::vector<float> y = run_software(n, v.back());
        const std::vector<float>& want = outs.begin()->second.f;
        out.stats.add(y.data(), want.data(), std::min(y.size(), want.size()));
        const bool same = std::max_element(y.begin(), y.end()) - y.begin() ==
                          std::max_element(want.begin(), want.end()) - want.begin();
        *out.agree += same ? 1u : 0u;
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

// An ONNX network's regression as the platform reports it.
platform::RunReport regress_onnx_report(const platform::RegressRequest& req,
                                        const std::string& onnx_path, const DlpPlatformConfig& cfg,
                                        const std::string& source) {
    const regress::Tolerances tol =
        regress::read_tolerances(req.tolerances, req.max_lsb, req.min_cosine, req.min_top1);
    const NetworkFile f = load_network(onnx_path, cfg);
    std::string note;
    const std::vector<std::vector<float>> xs = samples(req.inputs, f, note);
    regress::Regression g = regress_onnx(onnx_path, f, xs, note);
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
    NetworkFile f = load_network(req.model, m_cfg);
    regress::Regression g;
    g.program = req.model;
    g.reference = "the network in single precision with the dequantized parameters";
    const std::vector<std::vector<float>> xs = samples(req.inputs, f, g.input_note);
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
