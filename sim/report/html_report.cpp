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
