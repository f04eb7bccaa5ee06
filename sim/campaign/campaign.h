// A campaign: many npusim jobs (run, estimate, regress) over the product of named axes (models,
// inputs, platform configurations, ...), described in one YAML file (docs/campaigns.md). Parsing
// with file:line errors, the expansion into jobs in a fixed order, and the shard a job belongs to.
// Pure C++.
#pragma once

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

namespace npu::campaign {

// One option of an npusim command line: --key value, or --key alone for a flag (value "true").
using Option = std::pair<std::string, std::string>;

struct AxisValue {
    std::string name;
    std::vector<Option> options;
};

struct Axis {
    std::string name;
    std::vector<AxisValue> values;
};

struct Campaign {
    std::string name;
    std::string file;             // the campaign file, for messages
    std::string command;          // run | estimate | regress
    std::vector<Option> options;  // given to every job
    std::vector<Axis> axes;       // jobs = the product of their values, first axis slowest
    double timeout_s = 0;         // per job; 0 = none
};

struct Job {
    size_t id = 0;                                          // position in the product, from 0
    std::string name;                                       // "axis=value,axis=value"
    std::vector<std::pair<std::string, std::string>> axes;  // (axis, value name)
    std::vector<Option> options;                            // campaign's, then each axis value's
};

// Reads a campaign file; throws one sim::Error listing every problem with file:line. Option
// values that name files (they contain '/' or end in a file extension npusim reads) are made
// relative to the campaign file's folder when they are not absolute.
Campaign load(const std::string& path);
Campaign parse(const std::string& yaml, const std::string& name, const std::string& base_dir);

std::vector<Job> jobs(const Campaign& c);

// "i/N" -> (i, N) with 0 <= i < N; throws sim::Error otherwise.
std::pair<size_t, size_t> parse_shard(const std::string& text);
// Whether job `id` belongs to shard i of N (round robin, so shards get similar mixes).
inline bool in_shard(size_t id, std::pair<size_t, size_t> shard) {
    return id % shard.second == shard.first;
}

// The argument list of one job's npusim process (without the program), writing into out_dir.
std::vector<std::string> command_line(const Campaign& c, const Job& j, const std::string& out_dir);

// A job's folder name under the campaign's jobs/: its id, zero-padded, then its name made safe.
std::string job_dir_name(const Job& j);

}  // namespace npu::campaign
