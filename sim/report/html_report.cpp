#include "sim/report/html_report.h"

#include <algorithm>
#include <iterator>
#include <tuple>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/report/html_parts.h"
#include "sim/report/record_page.h"
#include "sim/report/svg.h"

namespace npu::report {

namespace {

using Json = nlohmann::ordered_json;

double num(const Json& j, const char* key) {
    return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

std::string table(const Json& rows) {
    return json_table(rows);
}

// Per layer its wall time in µs (a platform not yet on the run record: sim/report/record_page.h
// draws the engines' split).
std::string time_bars(const Json& layers) {
    std::vector<std::string> labels;
    Series time{"time", {}};
    for (const Json& l : layers) {
        labels.push_back(l.contains("index") ? l["index"].dump() : std::to_string(labels.size()));
        time.values.push_back((num(l, "end_ps") - num(l, "start_ps")) / 1e6);
    }
    return stacked_bars(labels, {time}, {"layer (index)", "time (µs)", 960, 320});
}

// The engines over time: the trace's spans when there is a trace, else each layer's span.
std::string engine_timeline(const Json& layers, const nlohmann::json* trace) {
    std::vector<Span> spans = trace_spans(trace);
    if (spans.empty()) {
        for (const Json& l : layers) {
            spans.push_back({"layers", l.value("type", "") + " " + l.value("shape", ""),
                             num(l, "start_ps") / 1e6, num(l, "end_ps") / 1e6});
        }
    }
    return timeline(spans, {"simulated time (µs)", "", 960, 0});
}

// A per-layer error chart of a regress report: each layer's `key` value (through `f`) as a bar,
// in "within tolerance" or "exceeds" by its `ok`, the tolerance line, the first diverging layer
// marked.
std::string error_bars(const Json& layers, const std::string& key, double (*f)(double), double line,
                       const std::string& line_label, long marked, const std::string& y_title) {
    std::vector<std::string> labels;
    Series ok{"within tolerance", {}}, bad{"exceeds", {}};
    for (const Json& l : layers) {
        labels.push_back(l.contains("kmodel_layer") ? l["kmodel_layer"].dump()
                                                    : std::to_string(labels.size()));
        const double v = f(num(l, key.c_str()));
        const bool good = !l.contains("ok") || l["ok"].get<bool>();
        ok.values.push_back(good ? v : 0);
        bad.values.push_back(good ? 0 : v);
    }
    Axes a{"kmodel layer (index)", y_title, 960, 300};
    a.line = line, a.line_label = line_label, a.marked_item = marked;
    return stacked_bars(labels, {ok, bad}, a);
}

// A confusion matrix as a table: rows the labels, columns the predicted classes, each cell
// shaded by its share of the row (class "confusion-cell", data-label, data-predicted).
std::string confusion_table(const Json& m) {
    std::string s = "<table class=\"confusion\">\n<tr><th>label \\ predicted</th>";
    for (size_t j = 0; j < m.size(); ++j) {
        s += fmt::format("<th>{}</th>", j);
    }
    s += "</tr>\n";
    for (size_t i = 0; i < m.size(); ++i) {
        double row = 0;
        for (const Json& v : m[i]) {
            row += v.get<double>();
        }
        s += fmt::format("<tr><th>{}</th>", i);
        for (size_t j = 0; j < m[i].size(); ++j) {
            const double v = m[i][j].get<double>(), share = row > 0 ? v / row : 0;
            s += fmt::format(
                "<td class=\"confusion-cell\" data-label=\"{}\" data-predicted=\"{}\" "
                "style=\"background:rgba({},{:.3f})\">{}</td>",
                i, j, i == j ? "30,110,180" : "200,40,40", share, v);
        }
        s += "</tr>\n";
    }
    return s + "</table>\n";
}

std::string confusion_section(const Json& report) {
    if (!report.contains("confusion") || !report["confusion"].is_object()) {
        return "";
    }
    std::string s =
        "<h2>Confusion matrices</h2>\n<p class=\"note\">Rows: the samples' labels; columns: "
        "the class each engine ranked first. Shading: the cell's share of its row (blue on the "
        "diagonal, red off it).</p>\n";
    for (const char* k : {"simulated", "float"}) {
        const Json& m = report["confusion"].value(k, Json::array());
        if (m.is_array() && !m.empty()) {
            s += fmt::format("<h3>{}</h3>\n<div id=\"confusion-{}\">{}</div>\n", k, k,
                             confusion_table(m));
        }
    }
    return s;
}

std::string regress_body(const Json& report) {
    const Json& layers = report["layers"];
    std::string s;
    auto it = std::back_inserter(s);
    Json summary = Json::object();
    for (const char* k : {"kmodel", "onnx", "samples", "passed", "first_diverging_layer"}) {
        if (report.contains(k)) {
            summary[k] = report[k];
        }
    }
    fmt::format_to(it, "<h2>Summary</h2>\n{}", table(Json::array({summary})));
    for (const char* k : {"tolerances", "output", "accuracy"}) {
        if (report.contains(k) && report[k].is_object()) {
            fmt::format_to(it, "<h3>{}</h3>\n{}", k, table(Json::array({report[k]})));
        }
    }
    if (report.contains("outputs") && report["outputs"].is_array()) {
        fmt::format_to(it, "<h3>outputs</h3>\n{}", table(report["outputs"]));
    }
    // The first diverging layer: its position among the rows ("<kmodel layer> (<tensor>)").
    long marked = -1;
    const std::string first = report.value("first_diverging_layer", std::string());
    for (size_t i = 0; i < layers.size() && !first.empty(); ++i) {
        if (layers[i].contains("kmodel_layer") &&
            first.rfind(layers[i]["kmodel_layer"].dump() + " ", 0) == 0) {
            marked = static_cast<long>(i);
            break;
        }
    }
    const Json empty = Json::object();
    const Json& tol = report.contains("tolerances") ? report["tolerances"] : empty;
    if (layers[0].contains("max_error_lsb")) {
        fmt::format_to(it,
                       "<h2>Error per layer</h2>\n<p class=\"note\">The largest difference of "
                       "each layer's output from the float reference, in LSBs of its quantization; "
                       "the dashed line is the tolerance, the triangle the first diverging layer."
                       "</p>\n<div id=\"lsb\">{}</div>\n",
                       error_bars(
                           layers, "max_error_lsb", [](double v) { return v; }, num(tol, "max_lsb"),
                           "tolerance", marked, "max error (LSB)"));
    }
    fmt::format_to(it,
                   "<h2>Cosine distance per layer</h2>\n<p class=\"note\">1 − cosine "
                   "similarity of each layer's output to the float reference (0: the same "
                   "direction).</p>\n<div id=\"cosine\">{}</div>\n",
                   error_bars(
                       layers, "cosine", [](double v) { return 1 - v; },
                       tol.contains("min_cosine") ? 1 - num(tol, "min_cosine") : -1, "tolerance",
                       marked, "1 − cosine"));
    s += confusion_section(report);
    fmt::format_to(it, "<h2>Layers</h2>\n<div id=\"layers\">{}</div>\n", table(layers));
    return s;
}

}  // namespace

std::string base64(const std::vector<uint8_t>& bytes) {
    static const char* const kDigits =
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    std::string s;
    s.reserve((bytes.size() + 2) / 3 * 4);
    for (size_t i = 0; i < bytes.size(); i += 3) {
        const uint32_t n = uint32_t{bytes[i]} << 16 |
                           (i + 1 < bytes.size() ? uint32_t{bytes[i + 1]} << 8 : 0u) |
                           (i + 2 < bytes.size() ? uint32_t{bytes[i + 2]} : 0u);
        s += kDigits[n >> 18 & 63];
        s += kDigits[n >> 12 & 63];
        s += i + 1 < bytes.size() ? kDigits[n >> 6 & 63] : '=';
        s += i + 2 < bytes.size() ? kDigits[n & 63] : '=';
    }
    return s;
}

std::string html_report(const Json& report, const nlohmann::json* trace, const std::string& source,
                        const std::vector<Picture>& pictures) {
    if (sim::is_record_json(report)) {
        return record_page(sim::record_from_json(report, source), trace, source, pictures);
    }
    if (!report.contains("layers") || !report["layers"].is_array() || report["layers"].empty()) {
        throw sim::Error(source + ": no per-layer results to draw (a report.json of npusim run)");
    }
    const Json& layers = report["layers"];
    std::string title = "npusim " + report.value("command", std::string("run"));
    for (const auto& [part, key, joint] :
         {std::tuple{"model", "file", ": "}, std::tuple{"network", "name", ": "},
          std::tuple{"platform", "name", " on "}}) {
        if (report.contains(part) && report[part].is_object() && report[part].contains(key) &&
            report[part][key].is_string() && !report[part][key].get<std::string>().empty()) {
            title += joint + report[part][key].get<std::string>();
        }
    }
    if (report.contains("tolerances")) {  // npusim regress
        return page(title, regress_body(report));
    }
    std::string s;
    auto it = std::back_inserter(s);
    if (report.contains("totals")) {
        fmt::format_to(it, "<h2>Totals</h2>\n{}", table(Json::array({report["totals"]})));
    }
    fmt::format_to(it,
                   "<h2>Each layer's time</h2>\n<p class=\"note\">Each layer's wall time. The "
                   "layer table below has the numbers.</p>\n<div id=\"layer-time\">{}</div>\n",
                   time_bars(layers));
    fmt::format_to(it, "<h2>Timeline</h2>\n<div id=\"timeline\">{}</div>\n",
                   engine_timeline(layers, trace));
    s += pictures_section(pictures);
    fmt::format_to(it, "<h2>Layers</h2>\n<div id=\"layers\">{}</div>\n", table(layers));
    return page(title, s);
}

}  // namespace npu::report
