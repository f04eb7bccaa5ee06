// Writes what a platform face gives back: the summary on stdout, and with --out the files,
// report.json (headed by the tool, version and command) and trace.json, whole or not at all.
#pragma once

#include <string>
#include <vector>

#include "platforms/common/platform_face.h"
#include "sim/core/files.h"
#include "sim/core/trace.h"

namespace npu::app {

// Moves the staged files into place and prints "wrote <files> to DIR".
void commit_and_report(sim::OutputDir& out);

// Stages `files` and commits them as above.
void write_files(sim::OutputDir& out, const std::vector<platform::OutputFile>& files);

// An estimate's files, and, when it says what to plot, report.json (tool, version, command
// "estimate", the plot) and report.html drawn from its estimate.json.
void write_estimate_report(sim::OutputDir& out, const platform::EstimateReport& report);

// `out` may be null (no --out); `trace` is written when enabled. Prints "wrote ... to DIR".
void write_run_report(const std::string& command, const platform::RunReport& report,
                      sim::OutputDir* out, const sim::TraceWriter* trace);

}  // namespace npu::app
