#include "sim/regress/regression.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "sim/core/config.h"

namespace npu::regress {

namespace {

using sim::Check;
using sim::Quantity;
using sim::RunRecord;

double share(uint64_t n, size_t of) {
    return of == 0 ? 0 : static_cast<double>(n) / static_cast<double>(of);
}

// 1 − cosine: 0 for the same direction; the check's limit 1 − min_cosine.
double distance(const ErrorStats& s) {
    return 1 - s.cosine();
}

sim::LayerRecord layer_record(const LayerError& l) {
    sim::LayerRecord r{l.index, l.op, "", 0, 0, std::nullopt, std::nullopt, {}, {}, l.tensor};
    const ErrorStats& s = l.stats;
    r.measures = {{"max_abs_error", s.max_abs, ""},
                  {"mean_abs_error", s.mean_abs(), ""},
                  {"cosine", s.cosine(), ""},
                  {"cosine_distance", distance(s), ""}};
    if (l.lsb > 0) {
        r.measures.push_back({"max_error_lsb", s.max_lsb, "LSB"});
        r.measures.push_back({"lsb", l.lsb, ""});
    }
    return r;
}

void layer_checks(const Regression& g, size_t k, RunRecord& v) {
    const LayerError& l = g.layers[k];
    const std::string who = fmt::format("layer {} {}", l.index, l.tensor);
    if (l.lsb > 0) {
        v.checks.push_back({who + ": max_error_lsb", l.stats.max_lsb, "<=", g.tol.max_lsb, "LSB",
                            l.stats.max_lsb <= g.tol.max_lsb, k, "max_error_lsb"});
    }
    const double d = distance(l.stats), limit = 1 - g.tol.min_cosine;
    v.checks.push_back(
        {who + ": cosine_distance", d, "<=", limit, "", d <= limit, k, "cosine_distance"});
}

void output_checks(const Regression& g, size_t k, RunRecord& v) {
    const OutputError& o = g.outputs[k];
    const std::string who = fmt::format("output {} {}", k, o.name);
    if (o.agree && (o.scores || g.tol.top1_given)) {
        const double top1 = share(*o.agree, g.samples);
        v.checks.push_back({who + ": top1_agreement", top1, ">=", g.tol.min_top1, "",
                            top1 >= g.tol.min_top1, std::nullopt, ""});
    }
    if (!o.scores) {
        const double d = distance(o.stats), limit = 1 - g.tol.min_cosine;
        v.checks.push_back(
            {who + ": cosine_distance", d, "<=", limit, "", d <= limit, std::nullopt, ""});
    }
}

sim::Table outputs_table(const Regression& g) {
    sim::Table t{"outputs",
                 "Outputs",
                 "Each output of the program against the reference's, over every sample.",
                 {{"name", ""},
                  {"max_abs_error", ""},
                  {"mean_abs_error", ""},
                  {"cosine", ""},
                  {"top1_agreement", ""}},
                 {},
                 ""};
    for (const OutputError& o : g.outputs) {
        t.rows.push_back({o.name, o.stats.max_abs, o.stats.mean_abs(), o.stats.cosine(),
                          o.agree ? sim::Table::Cell(share(*o.agree, g.samples))
                                  : sim::Table::Cell(std::string("-"))});
    }
    return t;
}

sim::Table confusion_table(const char* name, const char* who,
                           const std::vector<std::vector<uint64_t>>& m) {
    sim::Table t{name,
                 fmt::format("Confusion matrix: {}", who),
                 "Rows: the samples' labels; columns: the class ranked first. Shading: the "
                 "cell's share of its row (blue on the diagonal, red off it).",
                 {{"label", ""}},
                 {},
                 "matrix"};
    for (size_t c = 0; c < m.size(); ++c) {
        t.columns.push_back({std::to_string(c), "samples"});
    }
    for (size_t i = 0; i < m.size(); ++i) {
        std::vector<sim::Table::Cell> row{static_cast<double>(i)};
        for (uint64_t n : m[i]) {
            row.emplace_back(static_cast<double>(n));
        }
        t.rows.push_back(std::move(row));
    }
    return t;
}

}  // namespace

void ErrorStats::add(double a, double b) {
    const double e = std::fabs(a - b);
    max_abs = std::max(max_abs, e);
    sum_abs += e;
    ++count;
    dot += a * b, sim_sq += a * a, ref_sq += b * b;
}

void ErrorStats::add(const float* sim, const float* ref, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        add(static_cast<double>(sim[i]), static_cast<double>(ref[i]));
    }
}

Tolerances read_tolerances(const std::string& file, double max_lsb, double min_cosine,
                           double min_top1, const Tolerances& defaults) {
    Tolerances t = defaults;
    if (!file.empty()) {
        sim::ConfigDocument doc = sim::ConfigDocument::load_file(file);
        const sim::ConfigNode r = doc.root();
        t.max_lsb = r.get<double>("max_lsb", t.max_lsb, 0.0, 1e9);
        t.min_cosine = r.get<double>("min_cosine", t.min_cosine, -1.0, 1.0);
        t.top1_given = r.has("min_top1_agreement");
        t.min_top1 = r.get<double>("min_top1_agreement", t.min_top1, 0.0, 1.0);
        doc.finish();
    }
    t.max_lsb = max_lsb >= 0 ? max_lsb : t.max_lsb;
    t.min_cosine = min_cosine >= 0 ? min_cosine : t.min_cosine;
    if (min_top1 >= 0) {
        t.min_top1 = min_top1;
        t.top1_given = true;
    }
    return t;
}

RunRecord verdict(const Regression& g) {
    RunRecord v;
    v.command = "regress";
    v.mode = "functional";
    v.program.file = g.program;
    v.inputs = {{"samples", "", {static_cast<int64_t>(g.samples)}, "", g.input_note, "", {}}};
    for (size_t k = 0; k < g.layers.size(); ++k) {
        v.layers.push_back(layer_record(g.layers[k]));
        layer_checks(g, k, v);
    }
    for (size_t k = 0; k < g.outputs.size(); ++k) {
        output_checks(g, k, v);
    }
    v.tables.push_back(outputs_table(g));
    if (!g.confusion_sim.empty()) {
        v.tables.push_back(confusion_table("confusion_simulated", "simulated", g.confusion_sim));
        v.tables.push_back(confusion_table("confusion_reference", "reference", g.confusion_ref));
    }
    const auto failed = static_cast<double>(
        std::count_if(v.checks.begin(), v.checks.end(), [](const Check& c) { return !c.passed; }));
    v.totals = {{"samples", static_cast<double>(g.samples), "samples"},
                {"failed_checks", failed, "checks"}};
    if (g.correct_sim && g.correct_ref) {
        v.totals.push_back({"accuracy_simulated", share(*g.correct_sim, g.samples), ""});
        v.totals.push_back({"accuracy_reference", share(*g.correct_ref, g.samples), ""});
    }
    const std::string first = first_diverging(v);
    v.notes.push_back(first.empty() ? "no layer exceeds the tolerances"
                                    : "first diverging layer: " + first);
    v.extra = {{"reference", g.reference},
               {"tolerances",
                {{"max_lsb", g.tol.max_lsb},
                 {"min_cosine", g.tol.min_cosine},
                 {"min_top1_agreement", g.tol.min_top1}}},
               {"first_diverging_layer", first}};
    return v;
}

std::string first_diverging(const RunRecord& v) {
    const std::optional<size_t> k = v.first_failing_layer();
    if (!k || *k >= v.layers.size()) {
        return "";
    }
    return fmt::format("{} ({})", v.layers[*k].index, v.layers[*k].name);
}

std::string verdict_text(const Regression& g, const RunRecord& v) {
    std::string s = fmt::format(
        "tolerances: max {} LSB per quantized layer, cosine >= {}, top-1 agreement >= {}\n",
        g.tol.max_lsb, g.tol.min_cosine, g.tol.min_top1);
    auto it = std::back_inserter(s);
    size_t ow = 2, tw = 6;  // the widest op (up to 40 characters) and tensor
    for (const LayerError& l : g.layers) {
        ow = std::min<size_t>(40, std::max(ow, l.op.size()));
        tw = std::max(tw, l.tensor.size());
    }
    if (!g.layers.empty()) {
        fmt::format_to(it, "{:>3}  {:<{}} {:<{}} {:>11} {:>8} {:>11} {:>9}  {}\n", "#", "op", ow,
                       "tensor", tw, "max|err|", "max LSB", "mean|err|", "cosine", "status");
    }
    for (size_t k = 0; k < g.layers.size(); ++k) {
        const LayerError& l = g.layers[k];
        const bool ok = std::all_of(v.checks.begin(), v.checks.end(),
                                    [&](const Check& c) { return c.passed || c.layer != k; });
        fmt::format_to(it, "{:>3}  {:<{}} {:<{}} {:>11.4g} {:>8} {:>11.4g} {:>9.6f}  {}\n", l.index,
                       l.op.substr(0, ow), ow, l.tensor, tw, l.stats.max_abs,
                       l.lsb > 0 ? fmt::format("{:.2f}", l.stats.max_lsb) : "-", l.stats.mean_abs(),
                       l.stats.cosine(), ok ? "ok" : "EXCEEDS");
    }
    for (size_t k = 0; k < g.outputs.size(); ++k) {
        const OutputError& o = g.outputs[k];
        const std::string who = fmt::format("output {} {}", k, o.name);
        const bool ok = std::all_of(v.checks.begin(), v.checks.end(), [&](const Check& c) {
            return c.passed || c.name.rfind(who + ":", 0) != 0;
        });
        fmt::format_to(it, "output {} '{}': max|err| {:.4g}, mean|err| {:.4g}, cosine {:.6f}", k,
                       o.name, o.stats.max_abs, o.stats.mean_abs(), o.stats.cosine());
        if (o.agree) {
            fmt::format_to(it, "; top-1 agreement {}/{} ({:.2f} %)", *o.agree, g.samples,
                           100 * share(*o.agree, g.samples));
        }
        s += ok ? " ok\n" : " BELOW TOLERANCE\n";
    }
    if (g.correct_sim && g.correct_ref) {
        fmt::format_to(it, "accuracy: reference {}/{} ({:.2f} %), simulated {}/{} ({:.2f} %)\n",
                       *g.correct_ref, g.samples, 100 * share(*g.correct_ref, g.samples),
                       *g.correct_sim, g.samples, 100 * share(*g.correct_sim, g.samples));
    }
    const std::string first = first_diverging(v);
    s += first.empty() ? "no layer exceeds the tolerances\n"
                       : "first diverging layer: " + first + "\n";
    return s;
}

}  // namespace npu::regress
