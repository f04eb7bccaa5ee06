// Writes what a platform face gives back: the summary on stdout, and with --out the files,
// report.json (headed by the tool, version and command) and trace.json, whole or not at all.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "platforms/common/platform_face.h"
#include "sim/core/files.h"
#include "sim/core/trace.h"
#include "sim/report/html_report.h"

namespace npu::app {

// The inputs and outputs among a run's files that are images, for report.html: input.npy and
// output_*.npy of shape (1, 1|3, H, W), (1|3, H, W) or (H, W) with H and W of at least 4 (uint8
// as they are; other types scaled from their min..max to 0..255), and PNG files as they are.
// Whether pictures_of would look at a file of this name.
bool may_be_picture(const std::string& name);
std::vector<report::Picture> pictures_of(
    const std::vector<std::pair<std::string, std::vector<uint8_t>>>& files);

// Moves the staged files into place and prints "wrote <files> to DIR".
void commit_and_report(sim::OutputDir& out);

// An estimate's files and, with its record, report.json (command "estimate", `rows` the file of
// configurations or layers) and report.html: a sweep's drawn from its plot and rows, a
// program's like a run's, with layers.csv.
void write_estimate_report(sim::OutputDir& out, const platform::EstimateReport& report);

// What a command returns for a run's report: a problem met after a simulation
// (RunReport::error) is one error line and kExitUsage with nothing written (`out`, when it is
// destroyed, removes what it created); else the report is written (write_run_report) and the
// exit code says whether its checks passed.
int finish_run(const std::string& command, const platform::RunReport& report, sim::OutputDir* out,
               const sim::TraceWriter* trace);

// `out` may be null (no --out); `trace` is written when enabled. Prints "wrote ... to DIR".
void write_run_report(const std::string& command, const platform::RunReport& report,
                      sim::OutputDir* out, const sim::TraceWriter* trace);

}  // namespace npu::app
