#include "sim/app/report_writer.h"

#include <cstdio>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "sim/core/version.h"
#include "sim/report/estimate_page.h"
#include "sim/report/html_report.h"

namespace npu::app {

void write_run_report(const std::string& command, const platform::RunReport& report,
                      sim::OutputDir* out, const sim::TraceWriter* trace) {
    std::fwrite(report.text.data(), 1, report.text.size(), stdout);
    if (out == nullptr) {
        return;
    }
    for (const platform::OutputFile& f : report.files) {
        out->write_bytes(f.name, f.bytes);
    }
    nlohmann::ordered_json j;
    j["tool"] = "npusim";
    j["version"] = sim::npusim_version();
    j["command"] = command;
    for (const auto& [key, value] : report.json.items()) {
        j[key] = value;
    }
    out->write_text("report.json", j.dump(2) + "\n");
    for (const platform::OutputFile& f : report.files_after) {
        out->write_bytes(f.name, f.bytes);
    }
    const bool traced = trace != nullptr && trace->enabled();
    const nlohmann::json trace_json = traced ? nlohmann::json(trace->to_json()) : nlohmann::json();
    if (traced) {
        out->write_text("trace.json", trace->dump() + "\n");
    }
    if (j.contains("layers") && j["layers"].is_array() && !j["layers"].empty()) {
        out->write_text("report.html",
                        report::html_report(j, traced ? &trace_json : nullptr, "report.json"));
    }
    commit_and_report(*out);
}

void write_estimate_report(sim::OutputDir& out, const platform::EstimateReport& report) {
    const platform::OutputFile* estimate = nullptr;
    for (const platform::OutputFile& f : report.files) {
        out.write_bytes(f.name, f.bytes);
        estimate = f.name == "estimate.json" ? &f : estimate;
    }
    if (estimate != nullptr && !report.plot.empty()) {
        nlohmann::ordered_json j;
        j["tool"] = "npusim";
        j["version"] = sim::npusim_version();
        j["command"] = "estimate";
        j["plot"] = report.plot;
        out.write_text("report.json", j.dump(2) + "\n");
        const auto data =
            nlohmann::ordered_json::parse(estimate->bytes.begin(), estimate->bytes.end());
        out.write_text("report.html", report::estimate_html(data, report.plot, "estimate.json"));
    }
    commit_and_report(out);
}

void commit_and_report(sim::OutputDir& out) {
    out.commit();
    // One name per file, except the per-layer dumps, which are counted (there may be hundreds).
    std::vector<std::string> names;
    size_t layer_files = 0;
    for (const std::string& f : out.files()) {
        if (f.rfind("layer_", 0) == 0 && f.size() > 4 && f.substr(f.size() - 4) == ".npy") {
            if (layer_files++ == 0) {
                names.emplace_back();  // its place in the list
            }
            continue;
        }
        names.push_back(f);
    }
    for (std::string& n : names) {
        if (n.empty()) {
            n = fmt::format("{} layer dumps (layer_*.npy)", layer_files);
        }
    }
    fmt::print("wrote {} to {}\n", fmt::join(names, ", "), out.dir().string());
}

void write_files(sim::OutputDir& out, const std::vector<platform::OutputFile>& files) {
    for (const platform::OutputFile& f : files) {
        out.write_bytes(f.name, f.bytes);
    }
    commit_and_report(out);
}

}  // namespace npu::app
