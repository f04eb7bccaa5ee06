// What `npusim run` and `npusim estimate` on the FINN platform print and write: the per-layer
// and per-FIFO tables, report.json, the trace (a track per layer with a span per frame, a counter
// per FIFO's occupancy) and, after FIFO sizing, the folding config with the sized depths.
#pragma once

#include <cstdint>
#include <string>

#include "models/finn/finn_design.h"
#include "platforms/common/platform_face.h"
#include "platforms/finn/finn_face.h"
#include "platforms/finn/finn_import.h"
#include "sim/core/tensor.h"
#include "sim/core/trace.h"

namespace npu::finn {

struct RunContext {
    const FinnPlatformConfig& cfg;
    std::string source;  // the platform YAML
    const platform::RunRequest& request;
    std::string input;  // what the input was, for the report
    uint64_t frames;
};

struct Sizing {
    DesignRun before;  // with the model's own depths
    FifoSizing result;
};

// output.npy's shape: the frames, then the graph output's shape without its batch.
sim::Shape output_shape(const FinnModel& m, uint64_t frames);
void functional_report(platform::RunReport& rep, const FinnModel& m, const RunContext& ctx);
void timed_report(platform::RunReport& rep, const FinnModel& m, const DesignRun& r,
                  const Sizing* sizing, const RunContext& ctx);
void add_trace(sim::TraceWriter& trace, const DesignRun& r, uint64_t clock_hz);
// The folding config (the given one, if any, with every layer's inFIFODepths and outFIFODepths
// set to the sized depths) as folding_sized.json.
platform::OutputFile sized_folding(const FinnModel& m, const std::string& folding_path,
                                   const std::vector<uint64_t>& depths);
// `npusim info --model`: per layer its op, folding (PE, SIMD), formula, the FIFO in front of it.
std::string program_table(const FinnModel& m, const std::string& path);

platform::EstimateReport estimate_report(const FinnModel& m, const platform::EstimateRequest& req,
                                         const FinnPlatformConfig& cfg, const std::string& source);
// `--layers SWEEP.json`: {"<layer name or op type>": {"PE": [1, 2, 4] or "all", "SIMD": ...}};
// every combination costed, the front printed, each configuration a row of estimate.json, the
// page's front and whiskers (finn_sweep_report.cpp; docs/finn.md, "Folding sweeps").
platform::EstimateReport sweep_report(const FinnModel& m, const platform::EstimateRequest& req,
                                      const FinnPlatformConfig& cfg, const std::string& source);

}  // namespace npu::finn
