// `npusim estimate --model NET.onnx [--folding F.json] --layers SWEEP.json` on the FINN platform:
// the sweep file's PE/SIMD values per layer, every combination costed (models/finn/finn_sweep.h),
// the front printed and every configuration written as a row.
#include <algorithm>
#include <chrono>
#include <iterator>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/finn/finn_sweep.h"
#include "platforms/finn/finn_report.h"
#include "sim/core/address_map.h"
#include "sim/core/error.h"
#include "sim/core/files.h"

namespace npu::finn {

namespace {

using Json = nlohmann::ordered_json;

constexpr uint64_t kMaxConfigurations = 1'000'000;
constexpr size_t kFrontRowsShown = 30;

std::string without_backend(const std::string& op) {
    for (const char* suffix : {"_hls", "_rtl"}) {
        const std::string s(suffix);
        if (op.size() > s.size() && op.compare(op.size() - s.size(), s.size(), s) == 0) {
            return op.substr(0, op.size() - s.size());
        }
    }
    return op;
}

// An attribute's values: a list of positive integers, or "all" (every value the layer allows).
std::vector<uint64_t> values_of(const Json& v, const LayerOp& op, const std::string& attr,
                                const std::string& where) {
    if (v == "all") {
        return allowed_values(op, attr);
    }
    if (!v.is_array() || v.empty()) {
        throw sim::Error(where + ": expected a list of positive integers or \"all\"");
    }
    std::vector<uint64_t> out;
    for (const Json& x : v) {
        if (!x.is_number_integer() || x.get<int64_t>() < 1 || x.get<int64_t>() > (1 << 20)) {
            throw sim::Error(
                fmt::format("{}: {} is not an integer from 1 to 2^20", where, x.dump()));
        }
        const auto u = x.get<uint64_t>();
        if (std::find(out.begin(), out.end(), u) != out.end()) {
            throw sim::Error(fmt::format("{}: {} is given twice", where, u));
        }
        out.push_back(u);
    }
    return out;
}

// The entry for layer `l`: its own name's, else its op type's (with or without _hls/_rtl).
const Json* entry_for(const Json& file, const Layer& l) {
    if (file.contains(l.name)) {
        return &file[l.name];
    }
    for (const auto& [key, value] : file.items()) {
        if (without_backend(key) == op_name(l.op)) {
            return &value;
        }
    }
    return nullptr;
}

// Every key must name a layer of the graph or an op type in it.
void check_keys(const Json& file, const Design& d, const std::string& path) {
    for (const auto& [key, value] : file.items()) {
        const bool known = std::any_of(d.layers.begin(), d.layers.end(), [&](const Layer& l) {
            return !l.inserted && (l.name == key || op_name(l.op) == without_backend(key));
        });
        if (!known) {
            throw sim::Error(fmt::format(
                "{}: {}: the graph has no layer and no op type of that name", path, key));
        }
        if (!value.is_object()) {
            throw sim::Error(fmt::format("{}: {}: expected an object of attributes", path, key));
        }
    }
}

std::vector<Knob> read_knobs(const Json& file, const Design& d, const std::string& path) {
    check_keys(file, d, path);
    std::vector<Knob> knobs;
    for (size_t i = 0; i < d.layers.size(); ++i) {
        const Layer& l = d.layers[i];
        const Json* e = l.inserted ? nullptr : entry_for(file, l);
        if (e == nullptr) {
            continue;
        }
        const std::vector<std::string> attrs = folding_attributes(l.op);
        for (const auto& [attr, v] : e->items()) {
            const std::string where = fmt::format("{}: {}: {}", path, l.name, attr);
            if (std::find(attrs.begin(), attrs.end(), attr) == attrs.end()) {
                throw sim::Error(fmt::format(
                    "{}: a {} folds {}", where, op_name(l.op),
                    attrs.empty() ? "nothing" : fmt::format("{}", fmt::join(attrs, ", "))));
            }
            knobs.push_back({i, attr, values_of(v, l.op, attr, where)});
        }
    }
    if (knobs.empty()) {
        throw sim::Error(path + ": no layer of the graph has values to sweep");
    }
    return knobs;
}

std::string knob_name(const Design& d, const Knob& k) {
    return d.layers[k.layer].name + "." + k.attr;
}

Json row_of(const Design& d, const std::vector<Knob>& knobs, const SweepPoint& p, size_t id,
            uint64_t hz) {
    Json r = {{"config", id}};
    for (size_t k = 0; k < knobs.size(); ++k) {
        r[knob_name(d, knobs[k])] = p.values[k];
    }
    if (!p.error.empty()) {
        r["error"] = p.error;
        return r;
    }
    r["max_cycles"] = p.max_cycles;
    r["max_cycles_node_name"] = d.layers[p.max_cycles_layer].name;
    r["critical_path_cycles"] = p.critical_path_cycles;
    r["estimated_throughput_fps"] = static_cast<double>(hz) / static_cast<double>(p.max_cycles);
    r["formula_max_cycles"] = p.formula_max_cycles;
    r["formula_bottleneck"] = p.formula_bottleneck;
    r["formula_latency_cycles"] = p.formula_latency_cycles;
    r["LUT"] = p.resources.lut;
    r["BRAM_18K"] = p.resources.bram_18k;
    r["URAM"] = p.resources.uram;
    r["DSP"] = p.resources.dsp;
    r["pareto"] = p.pareto;
    return r;
}

Json sweep_plot(const Design& d, const std::vector<Knob>& knobs) {
    Json params = Json::array();
    for (const Knob& k : knobs) {
        params.push_back(knob_name(d, k));
    }
    const Json cycles = {{"key", "max_cycles"}, {"title", "FINN max_cycles (cycles a frame)"}};
    const Json lut = {{"key", "LUT"}, {"title", "LUTs (FINN's estimate)"}};
    const Json bram = {{"key", "BRAM_18K"}, {"title", "BRAM_18K (FINN's estimate)"}};
    return {{"group", ""},
            {"parameters", params},
            {"measures", Json::array({cycles, lut, bram})},
            {"front", {{"flag", "pareto"}, {"y", cycles}, {"x", Json::array({lut, bram})}}}};
}

// The front, fewest cycles first (at most kFrontRowsShown rows).
std::string front_text(const Design& d, const std::vector<Knob>& knobs,
                       const std::vector<SweepPoint>& points, uint64_t hz) {
    std::vector<size_t> front;
    for (size_t i = 0; i < points.size(); ++i) {
        if (points[i].pareto) {
            front.push_back(i);
        }
    }
    std::stable_sort(front.begin(), front.end(), [&](size_t a, size_t b) {
        return points[a].max_cycles < points[b].max_cycles;
    });
    std::string s;
    auto it = std::back_inserter(s);
    fmt::format_to(it, "{:>8} {:>10} {:>12} {:>8} {:>8} {:>5} {:>5}  {}\n", "config", "max_cycles",
                   "frames/s", "LUT", "BRAM_18K", "URAM", "DSP", "folding");
    for (size_t n = 0; n < front.size() && n < kFrontRowsShown; ++n) {
        const SweepPoint& p = points[front[n]];
        std::vector<std::string> fold;
        for (size_t k = 0; k < knobs.size(); ++k) {
            fold.push_back(fmt::format("{}={}", knob_name(d, knobs[k]), p.values[k]));
        }
        fmt::format_to(it, "{:>8} {:>10} {:>12.0f} {:>8} {:>8} {:>5} {:>5}  {}\n", front[n],
                       p.max_cycles, static_cast<double>(hz) / static_cast<double>(p.max_cycles),
                       p.resources.lut, p.resources.bram_18k, p.resources.uram, p.resources.dsp,
                       fmt::join(fold, " "));
    }
    if (front.size() > kFrontRowsShown) {
        fmt::format_to(it, "... and {} more on the front (estimate.json, \"pareto\": true)\n",
                       front.size() - kFrontRowsShown);
    }
    return s;
}

Json read_sweep_file(const std::string& path) {
    const std::vector<uint8_t> bytes = sim::read_file(path);
    Json j;
    try {
        j = Json::parse(bytes.begin(), bytes.end());
    } catch (const nlohmann::json::exception& e) {
        throw sim::Error(fmt::format("{}: not JSON: {}", path, e.what()));
    }
    if (!j.is_object()) {
        throw sim::Error(path + ": expected a JSON object of layer names or op types");
    }
    return j;
}

}  // namespace

platform::EstimateReport sweep_report(const FinnModel& m, const platform::EstimateRequest& req,
                                      const FinnPlatformConfig& cfg, const std::string& source) {
    const std::vector<Knob> knobs = read_knobs(read_sweep_file(req.layers), m.design, req.layers);
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<SweepPoint> points;
    try {
        points = sweep(m.design, knobs, cfg.dsp58, kMaxConfigurations);
    } catch (const sim::Error& e) {
        throw sim::Error(fmt::format("{}: {}", req.layers, e.what()));
    }
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const auto invalid = static_cast<uint64_t>(std::count_if(
        points.begin(), points.end(), [](const SweepPoint& p) { return !p.error.empty(); }));
    const auto pareto = static_cast<uint64_t>(
        std::count_if(points.begin(), points.end(), [](const SweepPoint& p) { return p.pareto; }));
    platform::EstimateReport rep;
    rep.text = fmt::format(
        "{} with {} on {} ({}) at {}: {} folding configurations of {} knobs, {} not a design; "
        "FINN's max_cycles and resource estimates, no simulation\n\nthe front ({} "
        "configurations no other one matches or beats in max_cycles, LUT and BRAM_18K at "
        "once), fewest cycles first:\n",
        req.model, req.layers, cfg.name, source, sim::format_frequency(cfg.clock_hz), points.size(),
        knobs.size(), invalid, pareto);
    rep.text += front_text(m.design, knobs, points, cfg.clock_hz);
    rep.note = fmt::format("{} configurations costed in {:.0f} ms", points.size(), ms);
    rep.totals = {{"configurations", points.size()}, {"invalid", invalid}, {"pareto", pareto}};
    if (req.to_files) {
        Json rows = Json::array();
        for (size_t i = 0; i < points.size(); ++i) {
            rows.push_back(row_of(m.design, knobs, points[i], i, cfg.clock_hz));
        }
        const std::string text = rows.dump(1) + "\n";
        rep.files.push_back({"estimate.json", {text.begin(), text.end()}});
        rep.plot = sweep_plot(m.design, knobs);
    }
    return rep;
}

}  // namespace npu::finn
