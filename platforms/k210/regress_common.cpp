#include "platforms/k210/regress_common.h"

#include <fmt/format.h>

#include "platforms/k210/soc/k210_platform.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/trace.h"
#include "sim/tlm/kernel.h"

namespace npu::k210::regress {

void Stats::add(const float* sim, const float* ref, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        const double a = sim[i], b = ref[i], e = std::fabs(a - b);
        max_abs = std::max(max_abs, e);
        sum_abs += e;
        ++count;
        dot += a * b, sim_sq += a * a, ref_sq += b * b;
    }
}

Tolerances tolerances(const platform::RegressRequest& o) {
    Tolerances t;
    if (!o.tolerances.empty()) {
        sim::ConfigDocument doc = sim::ConfigDocument::load_file(o.tolerances);
        const sim::ConfigNode r = doc.root();
        t.max_lsb = r.get<double>("max_lsb", t.max_lsb, 0.0, 1e9);
        t.min_cosine = r.get<double>("min_cosine", t.min_cosine, -1.0, 1.0);
        t.top1_given = r.has("min_top1_agreement");
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
        t.top1_given = true;
    }
    return t;
}

std::vector<uint8_t> bytes_of(const std::string& s) {
    return {s.begin(), s.end()};
}

std::string junit_xml(size_t tests, int failures, const std::string& cases) {
    return fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
        "  <testsuite name=\"npusim.regress\" tests=\"{}\" "
        "failures=\"{}\">\n{}  </testsuite>\n</testsuites>\n",
        tests, failures, cases);
}

TimedRun run_timed(const Kmodel& km, const sim::Tensor& in, const K210Config& cfg,
                   const std::vector<sim::Tensor>& want) {
    sim::Session session;
    K210Platform soc("k210", cfg, session.trace());
    K210Driver driver("driver", soc, session.trace());
    driver.load(km, in);
    session.run();
    const RunResult& r = driver.result();
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

void timed_rows(const TimedRun& t, const std::string& platform_name, Report& rep) {
    rep.failures += t.equal ? 0 : 1;
    rep.table += fmt::format(
        "timed platform, sample 0: {:.3f} ms per inference, {} KPU cycles, {} CPU cycles; "
        "outputs {} the functional run's\n",
        t.inference_ms, t.kpu_cycles, t.cpu_cycles, t.equal ? "equal" : "DIFFER FROM");
    rep.table += fmt::format("{:>3}  {:<16} {:>10} {:>10} {:>10}\n", "#", "kmodel layer", "time us",
                             "KPU cyc", "CPU cyc");
    nlohmann::ordered_json tl = nlohmann::ordered_json::array();
    for (size_t i = 0; i < t.layers.size(); ++i) {
        const LayerRun& l = t.layers[i];
        const double us = static_cast<double>(l.end_ps - l.start_ps) / 1e6;
        rep.table += fmt::format("{:>3}  {:<16} {:>10.1f} {:>10} {:>10}\n", l.index, l.type, us,
                                 t.layer_kpu_cycles[i], l.cpu_cycles);
        tl.push_back({{"kmodel_layer", l.index},
                      {"type", l.type},
                      {"time_us", us},
                      {"kpu_cycles", t.layer_kpu_cycles[i]},
                      {"cpu_cycles", l.cpu_cycles}});
    }
    rep.json["timed"] = {{"sample", 0},
                         {"platform", platform_name},
                         {"outputs_equal_functional", t.equal},
                         {"inference_ms", t.inference_ms},
                         {"kpu_cycles", t.kpu_cycles},
                         {"cpu_cycles", t.cpu_cycles},
                         {"layers", tl}};
    rep.junit_cases += fmt::format(
        "    <testcase classname=\"npusim.regress.timed\" "
        "name=\"timed_equals_functional\">{}</testcase>\n",
        t.equal ? "" : "<failure message=\"the timed platform's outputs differ\"/>");
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

}  // namespace npu::k210::regress
