#include "sim/app/report_writer.h"

#include <cstdio>

#include <fmt/format.h>

#include "sim/core/version.h"

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
    if (trace != nullptr && trace->enabled()) {
        out->write_text("trace.json", trace->dump() + "\n");
    }
    commit_and_report(*out);
}

void commit_and_report(sim::OutputDir& out) {
    out.commit();
    fmt::print("wrote {} to {}\n", fmt::join(out.files(), ", "), out.dir().string());
}

}  // namespace npu::app
