// Runs a campaign's jobs on this machine: a pool of worker processes (each job one npusim process,
// so each SystemC simulation has a process of its own), up to `jobs` at a time, skipping jobs that
// already have a result record (a re-run after a crash or a killed worker does only the missing
// ones). A job that fails, errs or times out is recorded with its message; the others go on.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

#include "sim/campaign/campaign.h"

namespace npu::campaign {

struct LocalRun {
    std::string out_dir;                             // the campaign folder: jobs/, logs/, results/
    std::string program;                             // the npusim binary each job runs
    size_t jobs = 1;                                 // worker processes at once
    std::optional<std::pair<size_t, size_t>> shard;  // only jobs of shard i of N
    bool progress = false;                           // a progress line with ETA on stderr
};

struct RunCounts {
    size_t selected = 0, skipped = 0, ran = 0, passed = 0, not_passed = 0;
};

RunCounts run_local(const Campaign& c, const LocalRun& opts);

}  // namespace npu::campaign
