// The Slurm backend of a campaign: one job array whose task i runs
//   npusim campaign run FILE --shard i/N --jobs 1 --out DIR
// (every task writes its records into the same campaign folder, which must be on a file system
// the nodes share), submitted with sbatch; then, unless told not to wait, the merge.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "sim/campaign/campaign.h"

namespace npu::campaign {

struct SlurmRun {
    std::string out_dir;               // the campaign folder (made absolute)
    std::string program;               // the npusim binary the tasks run
    std::string campaign_file;         // made absolute
    size_t shards = 8;                 // array tasks
    std::string partition, time, mem;  // sbatch options, when given
    bool wait = true;                  // sbatch --wait: return when every task has ended
};

// `s` as one word for sh: as it is when it holds only letters, digits and @%+=:,./_-, else in
// single quotes (for command lines npusim prints or writes; what it runs gets argument lists).
std::string shell_word(const std::string& s);

// The sbatch command (an argument list, run without a shell): the array's options, each value
// checked (partition, time and mem to Slurm's forms, paths without control characters; the
// job name made of safe characters), then the script. Throws sim::Error naming a bad value.
std::vector<std::string> sbatch_args(const Campaign& c, const SlurmRun& o);

// The script each array task runs: the sbatch command as a comment, then the shard's npusim
// command, every word quoted for sh.
std::string array_script(const Campaign& c, const SlurmRun& o);

struct Submitted {
    std::string id;    // the array's job id
    bool ended_clean;  // with --wait: every task ended with exit 0 (else some failed or never ran)
};

// Writes DIR/slurm/array.sh, submits it with sbatch_args (no shell); returns the job
// id. Throws sim::Error with sbatch's own message when it refuses the array (no job id).
Submitted submit_array(const Campaign& c, const SlurmRun& o);

}  // namespace npu::campaign
