#include "platforms/dlp/dlp_sweep.h"

#include <optional>

#include <fmt/format.h>

#include "platforms/dlp/dlp_compiler.h"
#include "platforms/dlp/dlp_estimate.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/pareto.h"
#include "sim/core/text.h"

namespace npu::dlp {

namespace {

// A scalar as a double-quoted YAML string (the value stays text; no structure can be injected).
std::string quoted(const sim::ConfigNode& v, const std::string& text) {
    if (sim::control_char_at(text) != std::string::npos) {
        v.error("expected a value without control characters");
        return "\"\"";
    }
    std::string q = "\"";
    for (char c : text) {
        if (c == '"' || c == '\\') {
            q += '\\';
        }
        q += c;
    }
    return q + "\"";
}

// One axis value: a scalar, or a list of scalars (a memory size); its YAML text and how it shows.
void read_value(const sim::ConfigNode& v, SweepAxis& axis) {
    std::string yaml, shown;
    if (v.is_sequence()) {
        for (const sim::ConfigNode& e : v.elements()) {
            const auto text = e.as<std::string>();
            yaml += (yaml.empty() ? "[" : ", ") + quoted(e, text);
            shown += (shown.empty() ? "" : "x") + text;
        }
        yaml += yaml.empty() ? "[]" : "]";
    } else {
        shown = v.as<std::string>();
        yaml = quoted(v, shown);
    }
    axis.values.push_back(yaml);
    axis.shown.push_back(shown);
    axis.where.push_back(v.location());
}

// The configuration of one combination: each axis' value set over `base` and read as a platform's
// `dlp:` map (a value's problem names its place in the sweep file).
DlpConfig combine(const std::vector<SweepAxis>& axes, const std::vector<size_t>& at,
                  const DlpConfig& base, const std::string& path) {
    sim::ConfigDocument doc = sim::ConfigDocument::parse("{}", path);
    for (size_t a = 0; a < axes.size(); ++a) {
        doc.set(axes[a].key, axes[a].values[at[a]], axes[a].where[at[a]]);
    }
    const DlpConfig c = read_dlp_config(doc.root(), base);
    doc.finish();
    return c;
}

uint64_t count_configurations(const std::vector<SweepAxis>& axes, uint64_t limit,
                              const std::string& path) {
    uint64_t total = 1;
    for (const SweepAxis& a : axes) {
        if (a.values.empty()) {
            throw sim::Error(fmt::format("{}: sweep.{} has no values", path, a.key));
        }
        if (total > limit / a.values.size()) {
            throw sim::Error(fmt::format("{}: more than {} configurations", path, limit));
        }
        total *= a.values.size();
    }
    return total;
}

DlpSweep read_sweep_document(sim::ConfigDocument doc, const std::string& path,
                             const DlpConfig& base, uint64_t limit);

SweepBudget read_budget(const sim::ConfigNode& root) {
    SweepBudget b;
    if (auto n = root.optional_child("budget")) {
        b.frames_per_second = n->get<double>("frames_per_second", 0.0, 0.0, 1e12);
        b.dsp = n->get<uint64_t>("dsp", 0u, 0u, uint64_t{1} << 40);
        b.bram = n->get<uint64_t>("bram", 0u, 0u, uint64_t{1} << 40);
        b.lut = n->get<uint64_t>("lut", 0u, 0u, uint64_t{1} << 40);
    }
    return b;
}

}  // namespace

DlpSweep read_dlp_sweep(const std::string& path, const DlpConfig& base, uint64_t limit) {
    return read_sweep_document(sim::ConfigDocument::load_file(path), path, base, limit);
}

DlpSweep parse_dlp_sweep(const std::string& text, const std::string& name, const DlpConfig& base,
                         uint64_t limit) {
    return read_sweep_document(sim::ConfigDocument::parse(text, name), name, base, limit);
}

namespace {

DlpSweep read_sweep_document(sim::ConfigDocument doc, const std::string& path,
                             const DlpConfig& base, uint64_t limit) {
    DlpSweep s;
    const sim::ConfigNode axes = doc.root().child("sweep");
    for (const std::string& key : axes.keys()) {
        SweepAxis a;
        a.key = key;
        const std::optional<sim::ConfigNode> list = axes.optional_node(key);
        if (!list || !list->is_sequence()) {  // a key YAML cannot look up again (a null key)
            axes.error_at(key, "expected a list of values");
            continue;
        }
        for (const sim::ConfigNode& v : list->elements()) {
            read_value(v, a);
        }
        s.axes.push_back(std::move(a));
    }
    s.budget = read_budget(doc.root());
    doc.finish();
    if (s.axes.empty()) {
        throw sim::Error(path + ": sweep: names no processor parameter");
    }
    s.configurations = count_configurations(s.axes, limit, path);
    for (size_t a = 0; a < s.axes.size(); ++a) {  // each value alone, read as the platform does
        std::vector<size_t> at(s.axes.size(), 0);
        for (at[a] = 0; at[a] < s.axes[a].values.size(); ++at[a]) {
            for (const std::string& p : combine(s.axes, at, base, path).problems()) {
                if (p.rfind(s.axes[a].key + " is ", 0) == 0) {  // outside the toolbox's range
                    throw sim::Error(fmt::format("{}: {}", s.axes[a].where[at[a]], p));
                }
            }
        }
    }
    return s;
}

}  // namespace

double DlpSweepPoint::latency_ms() const {
    return clock_hz == 0 ? 0
                         : 1e3 * static_cast<double>(frame_cycles) / static_cast<double>(clock_hz);
}

namespace {

// The network without its parameters (layouts and costs need only shapes and constants).
Network shapes_of(const Network& n) {
    Network s = n;
    for (Layer& l : s.layers) {
        l.weights.clear(), l.bias.clear(), l.weights_q.clear(), l.bias_q.clear();
        l.weights.shrink_to_fit(), l.weights_q.shrink_to_fit();
    }
    return s;
}

void cost(const Network& shapes, const DlpPlatformConfig& base, const DlpConfig& cfg,
          DlpSweepPoint& p) {
    p.clock_hz = cfg.target_frequency_hz;
    p.resources = resources(cfg, base.fpga.family, ResourceModel{}, base.timing.taps_per_pass);
    const std::vector<std::string> problems = cfg.problems();
    if (!problems.empty()) {
        p.error = problems.front();
        return;
    }
    try {
        Network n = shapes;
        check_network(n, cfg);
        CompileOptions co;
        co.ddr_base_addr = base.ddr_base_addr;
        co.layout_only = true;
        const NetworkEstimate e = estimate(n, compile(n, cfg, co), cfg, base.timing);
        p.frame_cycles = e.frame_cycles;
        p.frames_per_second = e.frames_per_second();
    } catch (const sim::Error& e) {
        p.error = e.what();
    }
}

bool meets(const DlpSweepPoint& p, const SweepBudget& b) {
    const DlpResources& r = p.resources;
    return p.error.empty() && p.frames_per_second >= b.frames_per_second &&
           (b.dsp == 0 || r.dsp <= b.dsp) && (b.bram == 0 || r.bram <= b.bram) &&
           (b.lut == 0 || r.lut <= b.lut);
}

}  // namespace

std::vector<DlpSweepPoint> sweep(const Network& n, const DlpPlatformConfig& base, const DlpSweep& s,
                                 const std::string& path) {
    const Network shapes = shapes_of(n);
    std::vector<DlpSweepPoint> points;
    points.reserve(s.configurations);
    std::vector<size_t> at(s.axes.size(), 0);
    for (uint64_t i = 0; i < s.configurations; ++i) {
        DlpSweepPoint& p = points.emplace_back();
        p.value = at;
        cost(shapes, base, combine(s.axes, at, base.dlp, path), p);
        p.meets = s.budget.given() && meets(p, s.budget);
        for (size_t a = s.axes.size(); a-- > 0;) {  // the last axis fastest
            if (++at[a] < s.axes[a].values.size()) {
                break;
            }
            at[a] = 0;
        }
    }
    std::vector<std::vector<double>> costs(points.size());
    for (size_t i = 0; i < points.size(); ++i) {
        const DlpSweepPoint& p = points[i];
        if (p.error.empty()) {
            costs[i] = {p.latency_ms(), static_cast<double>(p.resources.dsp),
                        static_cast<double>(p.resources.bram)};
        }
    }
    const std::vector<bool> front = sim::pareto_front(costs);
    for (size_t i = 0; i < points.size(); ++i) {
        points[i].pareto = front[i];
    }
    return points;
}

}  // namespace npu::dlp
