#include "sim/report/record_page.h"

#include <algorithm>
#include <iterator>
#include <map>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/report/html_parts.h"
#include "sim/report/svg.h"

namespace npu::report {

namespace {

using Json = nlohmann::ordered_json;
using sim::EngineTime;
using sim::LayerRecord;
using sim::RunRecord;

double us(uint64_t ps) {
    return static_cast<double>(ps) / 1e6;
}

std::string layer_label(const LayerRecord& l) {
    return std::to_string(l.index);
}

// The series of the stacked bars: per engine its parts ("<engine> <part>"), or the engine alone
// when it has none, in first-seen order.
std::vector<std::pair<std::string, std::string>> series_names(const RunRecord& r) {
    std::vector<std::pair<std::string, std::string>> names;  // engine, part ("": the engine)
    for (const LayerRecord& l : r.layers) {
        for (const EngineTime& e : l.engines) {
            std::vector<std::string> parts;
            for (const sim::Part& p : e.parts) {
                parts.push_back(p.name);
            }
            if (parts.empty()) {
                parts.emplace_back();
            }
            for (const std::string& p : parts) {
                if (std::find(names.begin(), names.end(), std::pair{e.engine, p}) == names.end()) {
                    names.emplace_back(e.engine, p);
                }
            }
        }
    }
    return names;
}

// An engine's time on a layer split over its parts in proportion to their cycles (no parts: all
// of it to the engine's own series; parts of no cycles: all of it to the first).
double share(const EngineTime& e, const std::string& part) {
    uint64_t sum = 0, mine = 0;
    for (const sim::Part& p : e.parts) {
        sum += p.cycles;
        mine += p.name == part ? p.cycles : 0;
    }
    if (sum == 0) {
        return part == (e.parts.empty() ? std::string() : e.parts[0].name) ? us(e.ps) : 0;
    }
    return us(e.ps) * static_cast<double>(mine) / static_cast<double>(sum);
}

std::string time_bars(const RunRecord& r) {
    const auto names = series_names(r);
    std::vector<Series> series;
    for (const auto& [engine, part] : names) {
        series.push_back({part.empty() ? engine : engine + " " + part, {}});
    }
    std::vector<std::string> labels;
    for (const LayerRecord& l : r.layers) {
        labels.push_back(layer_label(l));
        for (size_t k = 0; k < names.size(); ++k) {
            const auto e =
                std::find_if(l.engines.begin(), l.engines.end(),
                             [&](const EngineTime& x) { return x.engine == names[k].first; });
            series[k].values.push_back(e == l.engines.end() ? 0 : share(*e, names[k].second));
        }
    }
    return stacked_bars(labels, series, {"layer (index)", "time (µs)", 960, 320});
}

std::string engine_timeline(const RunRecord& r, const nlohmann::json* trace) {
    std::vector<Span> spans = trace_spans(trace);
    if (spans.empty()) {
        for (const LayerRecord& l : r.layers) {
            if (l.start_ps && l.end_ps) {
                spans.push_back({"layers", l.op + " " + l.shape, us(*l.start_ps), us(*l.end_ps)});
            }
        }
    }
    return spans.empty() ? "" : timeline(spans, {"simulated time (µs)", "", 960, 0});
}

double parameter(const RunRecord& r, const std::string& name) {
    for (const sim::Quantity& q : r.platform.parameters) {
        if (q.name == name) {
            return q.value;
        }
    }
    return 0;
}

// The layers on the platform's roofline: 2 · MACs per parameter byte fetched against 2 · MACs
// per second of the layer's first engine (the platform's accelerator).
std::string roofline_section(const RunRecord& r) {
    const double peak_ops = parameter(r, "peak_ops_per_s"),
                 peak_bytes = parameter(r, "peak_bytes_per_s");
    std::vector<Point> points;
    for (const LayerRecord& l : r.layers) {
        const double ops = 2.0 * static_cast<double>(l.macs);
        const double s = l.engines.empty() ? 0 : static_cast<double>(l.engines[0].ps) / 1e12;
        if (ops > 0 && l.param_bytes > 0 && s > 0) {
            points.push_back(
                {l.op + " " + layer_label(l), ops / static_cast<double>(l.param_bytes), ops / s});
        }
    }
    if (peak_ops <= 0 || peak_bytes <= 0 || points.empty()) {
        return "";
    }
    return fmt::format(
        "<h2>Roofline</h2>\n<p class=\"note\">Each layer: operations (2 · MACs) per byte of "
        "parameters (weights and tables) fetched from memory against operations per second of "
        "its {} time; the roof is min(peak compute {:.3g} ops/s, fetch bandwidth {:.3g} bytes/s "
        "· intensity).</p>\n<div id=\"roofline\">{}</div>\n",
        escape(r.layers[0].engines[0].engine), peak_ops, peak_bytes,
        roofline(points, peak_ops, peak_bytes,
                 {"operational intensity (ops/byte)", "attained (ops/s)", 960, 360}));
}

// One row per layer: its fields, each engine's time and each measure.
Json layer_rows(const RunRecord& r) {
    Json rows = Json::array();
    for (const LayerRecord& l : r.layers) {
        Json row = {{"index", l.index}};
        if (!l.name.empty()) {
            row["name"] = l.name;
        }
        row["op"] = l.op, row["shape"] = l.shape;
        row["macs"] = l.macs, row["param_bytes"] = l.param_bytes;
        if (l.start_ps && l.end_ps) {
            row["start_us"] = us(*l.start_ps);
            row["end_us"] = us(*l.end_ps);
        }
        for (const EngineTime& e : l.engines) {
            row[e.engine + " us"] = us(e.ps);
        }
        for (const sim::Quantity& q : l.measures) {
            row[q.name] = q.value;
        }
        rows.push_back(row);
    }
    return rows;
}

Json quantity_row(const std::vector<sim::Quantity>& qs) {
    Json row = Json::object();
    for (const sim::Quantity& q : qs) {
        row[q.unit.empty() ? q.name : q.name + " (" + q.unit + ")"] = q.value;
    }
    return row;
}

// Per measure that checks judge layer by layer: each layer's value as a bar, in "within tolerance"
// or "exceeds" by its check, the checks' limit as a line, the first failing layer marked.
std::string checked_measures_section(const RunRecord& r) {
    std::vector<std::string> measures;
    for (const sim::Check& c : r.checks) {
        if (c.layer && std::find(measures.begin(), measures.end(), c.measure) == measures.end()) {
            measures.push_back(c.measure);
        }
    }
    const std::optional<size_t> first = r.first_failing_layer();
    const long marked = first ? static_cast<long>(*first) : -1;
    std::string s;
    for (const std::string& m : measures) {
        Series ok{"within tolerance", {}}, bad{"exceeds", {}};
        std::vector<std::string> labels;
        std::vector<bool> failed(r.layers.size(), false);
        double limit = -1;
        std::string unit;
        for (const sim::Check& c : r.checks) {
            if (c.layer && c.measure == m) {
                failed[*c.layer] = failed[*c.layer] || !c.passed;
                limit = limit < 0 ? c.limit : limit;
                unit = c.unit;
            }
        }
        for (size_t i = 0; i < r.layers.size(); ++i) {
            labels.push_back(layer_label(r.layers[i]));
            const sim::Quantity* q = r.layers[i].measure(m);
            const double v = q == nullptr ? 0 : q->value;
            ok.values.push_back(failed[i] ? 0 : v);
            bad.values.push_back(failed[i] ? v : 0);
        }
        Axes a{"layer (index)", unit.empty() ? m : m + " (" + unit + ")", 960, 300};
        a.line = limit, a.line_label = "tolerance", a.marked_item = marked;
        s += fmt::format(
            "<h2>{} per layer</h2>\n<p class=\"note\">Each layer's {} as its checks judge it; "
            "the dashed line is their limit, the triangle the first layer that fails a "
            "check.</p>\n<div id=\"check-{}\">{}</div>\n",
            escape(m), escape(m), escape(m), stacked_bars(labels, {ok, bad}, a));
    }
    return s;
}

std::string checks_section(const RunRecord& r) {
    if (r.checks.empty()) {
        return "";
    }
    Json rows = Json::array();
    for (const sim::Check& c : r.checks) {
        rows.push_back({{"check", c.name},
                        {"measured", c.measured},
                        {"relation", c.relation},
                        {"limit", c.limit},
                        {"unit", c.unit},
                        {"passed", c.passed ? "yes" : "NO"}});
    }
    return fmt::format("<h2>Checks: {}</h2>\n<div id=\"checks\">{}</div>\n",
                       r.passed() ? "all passed" : "FAILED", json_table(rows));
}

// A matrix of counts (a confusion matrix): the first column each row's label, every other cell
// shaded by its share of the row — blue on the diagonal, red off it (class "confusion-cell",
// data-label, data-predicted).
std::string matrix_table(const sim::Table& t) {
    const auto text = [](const sim::Table::Cell& c) {
        return std::holds_alternative<double>(c) ? fmt::format("{}", std::get<double>(c))
                                                 : escape(std::get<std::string>(c));
    };
    std::string s = "<table class=\"confusion\">\n<tr><th>label \\ predicted</th>";
    for (size_t k = 1; k < t.columns.size(); ++k) {
        s += fmt::format("<th>{}</th>", escape(t.columns[k].name));
    }
    s += "</tr>\n";
    for (size_t i = 0; i < t.rows.size(); ++i) {
        const auto& row = t.rows[i];
        double sum = 0;
        for (size_t k = 1; k < row.size(); ++k) {
            sum += sim::Table::number(row[k]);
        }
        s += fmt::format("<tr><th>{}</th>", row.empty() ? "" : text(row[0]));
        for (size_t k = 1; k < row.size(); ++k) {
            const double v = sim::Table::number(row[k]);
            s += fmt::format(
                "<td class=\"confusion-cell\" data-label=\"{}\" data-predicted=\"{}\" "
                "style=\"background:rgba({},{:.3f})\">{}</td>",
                i, k - 1, i + 1 == k ? "30,110,180" : "200,40,40", sum > 0 ? v / sum : 0,
                text(row[k]));
        }
        s += "</tr>\n";
    }
    return s + "</table>\n";
}

// Each table of the record under its title, columns headed with their units.
std::string tables_section(const RunRecord& r) {
    std::string s;
    for (const sim::Table& t : r.tables) {
        Json rows = Json::array();
        for (const auto& cells : t.rows) {
            Json row = Json::object();
            for (size_t k = 0; k < t.columns.size() && k < cells.size(); ++k) {
                const sim::Table::Column& c = t.columns[k];
                const std::string head = c.unit.empty() ? c.name : c.name + " (" + c.unit + ")";
                row[head] = sim::cell_json(cells[k]);
            }
            rows.push_back(row);
        }
        s += fmt::format("<h2>{}</h2>\n", escape(t.title));
        if (!t.note.empty()) {
            s += fmt::format("<p class=\"note\">{}</p>\n", escape(t.note));
        }
        s += fmt::format("<div id=\"table-{}\">{}</div>\n", escape(t.name),
                         t.style == "matrix" ? matrix_table(t) : json_table(rows));
    }
    return s;
}

// The LCD's frames a firmware run wrote (lcd/NNNN.png; extra.frames.lcd has their times), as a
// strip in order with each frame's time; the first kMaxStrip of them (the rest are in lcd/).
std::string lcd_strip_section(const RunRecord& r, const std::vector<Picture>& lcd) {
    constexpr size_t kMaxStrip = 48;
    if (lcd.empty()) {
        return "";
    }
    std::map<std::string, double> at;
    if (r.extra.is_object() && r.extra.contains("frames") && r.extra["frames"].contains("lcd")) {
        for (const auto& f : r.extra["frames"]["lcd"]) {
            if (f.contains("file") && f["file"].is_string() && f.contains("last_pixel_us")) {
                at[f["file"].get<std::string>()] = f["last_pixel_us"].get<double>();
            }
        }
    }
    std::string s = fmt::format(
        "<h2>LCD frames</h2>\n<p class=\"note\">What the firmware showed, in order, each at the "
        "time of its last pixel{}.</p>\n<div id=\"lcd-strip\" style=\"white-space:nowrap;"
        "overflow-x:auto\">\n",
        lcd.size() > kMaxStrip
            ? fmt::format(" (the first {} of {}; every one is in lcd/)", kMaxStrip, lcd.size())
            : "");
    for (size_t i = 0; i < lcd.size() && i < kMaxStrip; ++i) {
        const Picture& p = lcd[i];
        const auto t = at.find(p.name);
        s += fmt::format(
            "<figure class=\"picture\" style=\"display:inline-block;margin:0 8px 8px 0\">"
            "<img alt=\"{0}\" width=\"{1}\" style=\"border:1px solid #ccc\" "
            "src=\"data:image/png;base64,{2}\"><figcaption class=\"note\">{0}{3}</figcaption>"
            "</figure>\n",
            escape(p.name), std::min(p.width, 240), base64(p.png),
            t == at.end() ? std::string() : fmt::format(" at {:.3f} ms", t->second / 1e3));
    }
    return s + "</div>\n";
}

std::string title_of(const RunRecord& r) {
    std::string title = "npusim " + r.command;
    if (!r.program.file.empty()) {
        title += ": " + r.program.file;
    }
    if (!r.platform.name.empty()) {
        title += " on " + r.platform.name;
    }
    return title;
}

}  // namespace

std::string record_page(const RunRecord& r, const nlohmann::json* trace, const std::string& source,
                        const std::vector<Picture>& pictures) {
    if (r.layers.empty() && r.checks.empty()) {
        throw sim::Error(source + ": no per-layer results to draw (a report.json of npusim run)");
    }
    std::string s;
    auto it = std::back_inserter(s);
    if (!r.totals.empty()) {
        fmt::format_to(it, "<h2>Totals</h2>\n{}",
                       json_table(Json::array({quantity_row(r.totals)})));
    }
    for (const std::string& n : r.notes) {
        fmt::format_to(it, "<p class=\"note\">{}</p>\n", escape(n));
    }
    const bool timed = std::any_of(r.layers.begin(), r.layers.end(),
                                   [](const LayerRecord& l) { return !l.engines.empty(); });
    if (timed) {
        fmt::format_to(it,
                       "<h2>Where each layer's time goes</h2>\n<p class=\"note\">Stacked per "
                       "layer: each engine's share of the layer's wall time, split by the named "
                       "parts of its cycles. The layer table below has the numbers.</p>\n<div "
                       "id=\"layer-time\">{}</div>\n",
                       time_bars(r));
    }
    const std::string lanes = engine_timeline(r, trace);
    if (!lanes.empty()) {
        fmt::format_to(it, "<h2>Timeline</h2>\n<div id=\"timeline\">{}</div>\n", lanes);
    }
    s += roofline_section(r);
    std::vector<Picture> lcd, others;
    for (const Picture& p : pictures) {
        (p.name.rfind("lcd/", 0) == 0 ? lcd : others).push_back(p);
    }
    s += lcd_strip_section(r, lcd);
    s += pictures_section(others);
    s += checks_section(r);
    s += checked_measures_section(r);
    fmt::format_to(it, "<h2>Layers</h2>\n<div id=\"layers\">{}</div>\n", json_table(layer_rows(r)));
    s += tables_section(r);
    return page(title_of(r), s);
}

}  // namespace npu::report
