#include "sim/report/html_parts.h"

#include <algorithm>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "sim/core/json_text.h"
#include "sim/report/svg.h"

namespace npu::report {

namespace {

const char* kStyle =
    "body{font-family:sans-serif;margin:24px;color:#222}h1{font-size:20px}h2{font-size:16px;"
    "margin-top:28px}h3{font-size:14px}table{border-collapse:collapse;font-size:12px}td,th{border:"
    "1px solid #ccc;padding:2px 6px;text-align:right}th{background:#f3f3f3}.note{color:#555;"
    "font-size:12px}";

std::string cell(const nlohmann::ordered_json& v) {
    if (v.is_string()) {
        return escape(v.get<std::string>());
    }
    if (v.is_number_float()) {
        return fmt::format("{:.6g}", v.get<double>());
    }
    return escape(sim::json_text(v));
}

}  // namespace

std::string page(const std::string& title, const std::string& body) {
    return fmt::format(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{0}"
        "</title><style>{1}</style></head><body>\n<h1>{0}</h1>\n{2}</body></html>\n",
        escape(title), kStyle, body);
}

std::string json_table(const nlohmann::ordered_json& rows) {
    std::vector<std::string> cols;
    for (const auto& r : rows) {
        for (const auto& [k, v] : r.items()) {
            if (!v.is_structured() && std::find(cols.begin(), cols.end(), k) == cols.end()) {
                cols.push_back(k);
            }
        }
    }
    std::string s = "<table>\n<tr>";
    for (const std::string& c : cols) {
        s += "<th>" + escape(c) + "</th>";
    }
    s += "</tr>\n";
    for (const auto& r : rows) {
        s += "<tr>";
        for (const std::string& c : cols) {
            s += "<td>" + (r.contains(c) ? cell(r[c]) : std::string()) + "</td>";
        }
        s += "</tr>\n";
    }
    return s + "</table>\n";
}

// Each picture at least 128 pixels wide (small ones scaled up without smoothing), captioned.
std::string pictures_section(const std::vector<Picture>& pictures) {
    if (pictures.empty()) {
        return "";
    }
    std::string s = "<h2>Inputs and outputs</h2>\n<div id=\"pictures\">\n";
    for (const Picture& p : pictures) {
        const int shown = std::max(p.width, 128);
        s += fmt::format(
            "<figure class=\"picture\" style=\"display:inline-block;margin:0 16px 8px 0\">"
            "<img alt=\"{0}\" width=\"{1}\" style=\"image-rendering:pixelated;border:1px solid "
            "#ccc\" src=\"data:image/png;base64,{2}\"><figcaption class=\"note\">{0} ({3} x "
            "{4})</figcaption></figure>\n",
            escape(p.name), shown, base64(p.png), p.width, p.height);
    }
    return s + "</div>\n";
}

std::vector<Span> trace_spans(const nlohmann::json* trace) {
    std::vector<Span> spans;
    if (trace == nullptr || !trace->contains("traceEvents")) {
        return spans;
    }
    std::map<int64_t, std::string> tracks;  // a lane per track, named as the trace names it
    for (const auto& e : (*trace)["traceEvents"]) {
        if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name" &&
            e.contains("args") && e["args"].is_object()) {
            tracks[e.value("tid", int64_t{0})] = e["args"].value("name", "");
        }
    }
    for (const auto& e : (*trace)["traceEvents"]) {
        // A span's parts (a category "... parts", e.g. the K210's "kpu parts") nest inside it:
        // Perfetto shows them; a lane per category here would repeat the stacked bars.
        const std::string cat = e.value("cat", "?");
        const bool parts = cat.size() >= 6 && cat.compare(cat.size() - 6, 6, " parts") == 0;
        if (e.value("ph", "") == "X" && !parts) {
            const double ts = e.value("ts", 0.0), dur = e.value("dur", 0.0);
            const auto track = tracks.find(e.value("tid", int64_t{0}));
            spans.push_back(
                {track == tracks.end() ? cat : track->second, e.value("name", ""), ts, ts + dur});
        }
    }
    return spans;
}

}  // namespace npu::report
