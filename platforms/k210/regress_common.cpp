#include "platforms/k210/regress_common.h"

#include <algorithm>
#include <cmath>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "platforms/k210/soc/k210_platform.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/trace.h"
#include "sim/tlm/kernel.h"

namespace npu::k210::regress {

Tolerances tolerances(const platform::RegressRequest& o) {
    return npu::regress::read_tolerances(o.tolerances, o.max_lsb, o.min_cosine, o.min_top1);
}

TimedRun run_timed(const Kmodel& km, const sim::Tensor& in, const K210Config& cfg,
                   const std::vector<sim::Tensor>& want) {
    sim::Session session;
    K210Platform soc("k210", cfg, session.trace());
    K210Driver driver("driver", soc, session.trace());
    driver.load(km, in);
    session.run();
    const RunResult& r = driver.result();
    TimedRun t;
    if (!r.error.empty() || !r.done) {
        t.error =
            !r.error.empty() ? r.error : "the timed run did not finish (a layer never completed)";
        return t;
    }
    t.equal = r.outputs == want;
    t.inference_ms = static_cast<double>(r.end_ps - r.load_end_ps) / 1e9;
    t.layers = r.layers;
    for (const LayerRun& l : r.layers) {
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

void add_timed(const TimedRun& t, sim::RunRecord& v, std::string& text) {
    text += fmt::format(
        "timed platform, sample 0: {:.3f} ms per inference, {} KPU cycles, {} CPU cycles; "
        "outputs {} the functional run's\n",
        t.inference_ms, t.kpu_cycles, t.cpu_cycles, t.equal ? "equal" : "DIFFER FROM");
    text += fmt::format("{:>3}  {:<16} {:>10} {:>10} {:>10}\n", "#", "kmodel layer", "time us",
                        "KPU cyc", "CPU cyc");
    sim::Table table{"timed",
                     "The first sample on the timed platform",
                     "Each kmodel layer's wall time and the KPU's and CPU's cycles on it.",
                     {{"kmodel_layer", ""},
                      {"type", ""},
                      {"time", "us"},
                      {"kpu_cycles", "cycles"},
                      {"cpu_cycles", "cycles"}},
                     {},
                     ""};
    for (size_t i = 0; i < t.layers.size(); ++i) {
        const LayerRun& l = t.layers[i];
        const double us = static_cast<double>(l.end_ps - l.start_ps) / 1e6;
        text += fmt::format("{:>3}  {:<16} {:>10.1f} {:>10} {:>10}\n", l.index, l.type, us,
                            t.layer_kpu_cycles[i], l.cpu_cycles);
        table.rows.push_back({static_cast<double>(l.index), l.type, us,
                              static_cast<double>(t.layer_kpu_cycles[i]),
                              static_cast<double>(l.cpu_cycles)});
    }
    v.mode = "functional, sample 0 timed";
    v.tables.push_back(std::move(table));
    v.checks.push_back({"timed outputs equal the functional run's", t.equal ? 1.0 : 0.0, ">=", 1,
                        "", t.equal, std::nullopt, ""});
    v.totals.push_back({"inference_ms", t.inference_ms, "ms"});
    v.totals.push_back({"kpu_cycles", static_cast<double>(t.kpu_cycles), "cycles"});
    v.totals.push_back({"cpu_cycles", static_cast<double>(t.cpu_cycles), "cycles"});
}

platform::RunReport finish(sim::RunRecord v, const std::string& head, const K210Config& cfg,
                           const std::string& platform_source, const Kmodel& km) {
    v.platform = {"k210",
                  cfg.platform.name,
                  platform_source,
                  {{"kpu_clock_hz", static_cast<double>(cfg.kpu.timing.clock_hz), "Hz"},
                   {"cpu_clock_hz", static_cast<double>(cfg.cpu.clock_hz), "Hz"}}};
    v.program.format = fmt::format("kmodel v{}", km.version);
    v.program.facts = {{"layers", static_cast<double>(km.layers.size()), "layers"}};
    return platform::verdict_report(std::move(v), head);
}

onnx::Value onnx_input(const onnx::Value& raw, const platform::Preprocessing& p,
                       const onnx::ValueInfo& info) {
    const int64_t c = raw.shape[1], h = raw.shape[2], w = raw.shape[3];
    const auto per_channel = [&](const std::vector<double>& v, int64_t ch, double fallback,
                                 const char* what) {
        if (v.empty()) {
            return fallback;
        }
        if (v.size() != 1 && static_cast<int64_t>(v.size()) != c) {
            throw sim::Error(fmt::format("preprocessing {}: {} values for an input of {} channels",
                                         what, v.size(), c));
        }
        return v.size() == 1 ? v[0] : v[static_cast<size_t>(ch)];
    };
    std::vector<int64_t> shape = info.shape;
    for (int64_t& d : shape) {
        d = d < 0 ? 1 : d;
    }
    onnx::Value x = onnx::Value::floats(shape, std::vector<float>(raw.f.size()));
    if (x.numel() != raw.f.size()) {
        throw sim::Error(fmt::format("the ONNX input '{}' holds {} values, the kmodel's input {}",
                                     info.name, x.numel(), raw.f.size()));
    }
    const bool bgr = p.channel_order == "bgr", nhwc = p.layout == "nhwc";
    for (int64_t ch = 0; ch < c; ++ch) {
        const int64_t src = bgr ? c - 1 - ch : ch;
        const double mean = per_channel(p.mean, ch, 0.0, "mean");
        const double stdv = per_channel(p.std, ch, 1.0, "std");
        for (int64_t i = 0; i < h * w; ++i) {
            const double v =
                (static_cast<double>(raw.f[static_cast<size_t>(src * h * w + i)]) * p.scale -
                 mean) /
                stdv;
            const int64_t at = nhwc ? i * c + ch : ch * h * w + i;
            x.f[static_cast<size_t>(at)] = static_cast<float>(v);
        }
    }
    return x;
}

platform::Preprocessing with_given(platform::Preprocessing base,
                                   const platform::RegressRequest& req) {
    const auto given = [&](const char* field) {
        return std::find(req.pre_given.begin(), req.pre_given.end(), field) != req.pre_given.end();
    };
    const platform::Preprocessing& c = req.pre;
    base.mean = given("mean") ? c.mean : base.mean;
    base.std = given("std") ? c.std : base.std;
    base.scale = given("scale") ? c.scale : base.scale;
    base.channel_order = given("channel_order") ? c.channel_order : base.channel_order;
    base.layout = given("layout") ? c.layout : base.layout;
    return base;
}

std::string preprocessing_formula(const platform::Preprocessing& p) {
    const auto list = [](const std::vector<double>& v, const char* none) {
        return v.empty() ? std::string(none) : fmt::format("({:g})", fmt::join(v, ", "));
    };
    return fmt::format("x = (raw{} · {:g} − {}) / {}, {}", p.channel_order == "bgr" ? "[bgr]" : "",
                       p.scale, list(p.mean, "0"), list(p.std, "1"), p.layout);
}

nlohmann::ordered_json preprocessing_json(const platform::Preprocessing& p) {
    return {{"mean", p.mean},
            {"std", p.std},
            {"scale", p.scale},
            {"channel_order", p.channel_order},
            {"formula", preprocessing_formula(p)}};
}

std::optional<platform::Preprocessing> preprocessing_of(const nlohmann::ordered_json& report,
                                                        const std::string& name) {
    const auto it = report.find("preprocess");
    if (it == report.end()) {
        return std::nullopt;
    }
    platform::Preprocessing p;
    try {
        p.mean = it->at("mean").get<std::vector<double>>();
        p.std = it->at("std").get<std::vector<double>>();
        p.scale = it->at("scale").get<double>();
        p.channel_order = it->at("channel_order").get<std::string>();
    } catch (const nlohmann::json::exception& e) {
        throw sim::Error(fmt::format("{}: preprocess: {}", name, e.what()));
    }
    if (p.channel_order != "rgb" && p.channel_order != "bgr") {
        throw sim::Error(fmt::format("{}: preprocess channel_order '{}': expected rgb or bgr", name,
                                     p.channel_order));
    }
    for (double v : p.std) {
        if (!(v != 0.0) || !std::isfinite(v)) {
            throw sim::Error(
                fmt::format("{}: preprocess std {}: expected finite and not 0", name, v));
        }
    }
    return p;
}

}  // namespace npu::k210::regress
