// A configuration sweep of the DL processor (`npusim estimate --model NET --sweep SWEEP.yaml`):
// every combination of the processor parameters the sweep file lists (any key of a platform's
// `dlp:` map, each a list of values), each costed as `estimate` costs one configuration — the
// network checked against it, laid out, dlp::estimate's cycles — with its resources
// (models/dlp/dlp_resources.h), whether it meets the file's budget, and the Pareto front of
// latency, DSP and block RAM (sim/core/pareto.h). Pure C++; docs/dlp.md "Configuration sweeps".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/dlp/dlp_resources.h"
#include "platforms/dlp/dlp_job.h"

namespace npu::dlp {

struct SweepAxis {
    std::string key;                  // a `dlp:` key, e.g. "conv_thread_number"
    std::vector<std::string> values;  // each value as YAML text (quoted)
    std::vector<std::string> shown;   // each value as the rows show it ("16", "227x227x3")
    std::vector<std::string> where;   // each value's place in the file (its messages)
};

// Limits a configuration must keep to meet the budget (0: no limit).
struct SweepBudget {
    double frames_per_second = 0;
    uint64_t dsp = 0, bram = 0, lut = 0;
    bool given() const { return frames_per_second > 0 || dsp > 0 || bram > 0 || lut > 0; }
};

struct DlpSweep {
    std::vector<SweepAxis> axes;
    SweepBudget budget;
    uint64_t configurations = 0;  // the product of the axes' sizes
};

// Reads `sweep: {key: [values]}` and an optional `budget: {frames_per_second, dsp, bram, lut}`;
// each value is read as the platform reads its key, over `base`. Problems name the file and line.
// More than `limit` combinations is an error.
DlpSweep read_dlp_sweep(const std::string& path, const DlpConfig& base, uint64_t limit);
// The same from the file's text (`name` in messages).
DlpSweep parse_dlp_sweep(const std::string& text, const std::string& name, const DlpConfig& base,
                         uint64_t limit);

struct DlpSweepPoint {
    std::vector<size_t> value;  // index into each axis' values
    std::string error;          // why the configuration cannot run the network ("": it can)
    uint64_t frame_cycles = 0;
    uint64_t clock_hz = 0;
    double frames_per_second = 0;
    DlpResources resources;
    bool meets = false, pareto = false;
    double latency_ms() const;
};

// Every configuration in order (the first axis slowest). `n`: the network as loaded (its
// parameters are not needed).
std::vector<DlpSweepPoint> sweep(const Network& n, const DlpPlatformConfig& base, const DlpSweep& s,
                                 const std::string& path);

}  // namespace npu::dlp
