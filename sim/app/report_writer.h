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

// `out` may be null (no --out); `trace` is written when enabled. Prints "wrote ... to DIR".
void write_run_report(const std::string& command, const platform::RunReport& report,
                      sim::OutputDir* out, const sim::TraceWriter* trace);

}  // namespace npu::app
