#include "sim/report/dataflow_page.h"

#include <algorithm>
#include <iterator>

#include <fmt/format.h>

#include "sim/report/html_parts.h"
#include "sim/report/svg.h"

namespace npu::report {

namespace {

using Json = nlohmann::ordered_json;

double num(const Json& j, const char* key) {
    return j.contains(key) && j[key].is_number() ? j[key].get<double>() : 0.0;
}

std::string cycle_split(const Json& layers) {
    std::vector<std::string> labels;
    std::vector<Series> series = {
        {"busy", {}}, {"waiting for input", {}}, {"held (FIFO full)", {}}};
    for (const Json& l : layers) {
        labels.push_back(std::to_string(labels.size()));
        const double waited = num(l, "input_stall_cycles"), held = num(l, "output_stall_cycles");
        series[0].values.push_back(std::max(0.0, num(l, "end_cycle") - waited - held));
        series[1].values.push_back(waited);
        series[2].values.push_back(held);
    }
    return stacked_bars(labels, series,
                        {"layer (index in the Layers table)", "cycles of the run", 960, 320});
}

std::string frame_cycles(const Json& report) {
    std::vector<std::string> labels;
    std::vector<Series> series = {{"simulated cycles a frame", {}}};
    for (const Json& l : report["layers"]) {
        labels.push_back(std::to_string(labels.size()));
        series[0].values.push_back(num(l, "frame_cycles"));
    }
    Axes axes("layer (index in the Layers table)", "cycles a frame", 960, 280);
    if (report.contains("totals")) {
        axes.line = num(report["totals"], "interval_cycles");
        axes.line_label = "interval";
    }
    return stacked_bars(labels, series, axes);
}

std::string frames_timeline(const nlohmann::json* trace) {
    if (trace == nullptr || !trace->contains("traceEvents")) {
        return "<p class=\"note\">Run with --trace for the frames over time.</p>\n";
    }
    std::vector<std::string> lanes(1, "");
    std::vector<Span> spans;
    for (const auto& e : (*trace)["traceEvents"]) {
        if (e.value("ph", "") == "M" && e.value("name", "") == "thread_name") {
            const auto tid = static_cast<size_t>(e.value("tid", 0));
            lanes.resize(std::max(lanes.size(), tid + 1));
            lanes[tid] = e["args"].value("name", "");
        } else if (e.value("ph", "") == "X") {
            const auto tid = static_cast<size_t>(e.value("tid", 0));
            const double ts = e.value("ts", 0.0), dur = e.value("dur", 0.0);
            spans.push_back(
                {tid < lanes.size() ? lanes[tid] : "?", e.value("name", ""), ts, ts + dur});
        }
    }
    return timeline(spans, {"simulated time (µs)", "", 960, 0});
}

}  // namespace

std::string dataflow_body(const Json& report, const nlohmann::json* trace) {
    std::string s;
    auto it = std::back_inserter(s);
    if (report.contains("totals")) {
        fmt::format_to(it, "<h2>Totals</h2>\n{}", json_table(Json::array({report["totals"]})));
    }
    if (report.contains("notes")) {
        for (const auto& [key, note] : report["notes"].items()) {
            fmt::format_to(it, "<p class=\"note\">{}: {}</p>\n", escape(key),
                           escape(note.is_string() ? note.get<std::string>() : note.dump()));
        }
    }
    if (report.contains("finn_estimate")) {
        fmt::format_to(it,
                       "<h2>FINN's estimate</h2>\n<p class=\"note\">As FINN's "
                       "dataflow_performance computes it on the graph as given: its nodes at "
                       "FINN's get_exp_cycles, the slowest one's cycles a frame and the "
                       "latency as their sum (no overlap).</p>\n{}",
                       json_table(Json::array({report["finn_estimate"]})));
    }
    if (report.contains("formula_estimate")) {
        fmt::format_to(it,
                       "<h2>npusim's formulas</h2>\n<p class=\"note\">The same on the chain "
                       "npusim simulates: the width converters it inserts and its own formulas "
                       "where they differ from FINN's (docs/finn.md).</p>\n{}",
                       json_table(Json::array({report["formula_estimate"]})));
    }
    fmt::format_to(it,
                   "<h2>Where each layer's cycles go</h2>\n<p class=\"note\">Per layer, from the "
                   "start of the run to its last iteration: busy, waiting for an input word, "
                   "held by a full output FIFO.</p>\n<div id=\"cycle-split\">{}</div>\n",
                   cycle_split(report["layers"]));
    fmt::format_to(it,
                   "<h2>Cycles a frame</h2>\n<p class=\"note\">Each layer's cycles between its "
                   "last two frames; the line is the design's interval.</p>\n<div "
                   "id=\"frame-cycles\">{}</div>\n",
                   frame_cycles(report));
    fmt::format_to(it, "<h2>Frames over time</h2>\n<div id=\"timeline\">{}</div>\n",
                   frames_timeline(trace));
    fmt::format_to(it, "<h2>Layers</h2>\n<div id=\"layers\">{}</div>\n",
                   json_table(report["layers"]));
    fmt::format_to(it, "<h2>FIFOs</h2>\n<div id=\"fifos\">{}</div>\n", json_table(report["fifos"]));
    if (report.contains("fifo_sizing")) {
        Json sizing = report["fifo_sizing"];
        sizing["depths"] = sizing["depths"].dump();
        fmt::format_to(it, "<h2>FIFO sizing</h2>\n{}", json_table(Json::array({sizing})));
    }
    return s;
}

}  // namespace npu::report
