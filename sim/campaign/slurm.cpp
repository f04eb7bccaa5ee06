#include "sim/campaign/slurm.h"

#include <cstdio>
#include <filesystem>

#include <fmt/format.h>
#include <sys/wait.h>

#include "sim/core/error.h"
#include "sim/core/files.h"

namespace npu::campaign {

namespace {

namespace fs = std::filesystem;

// Single-quoted for sh.
std::string quoted(const std::string& s) {
    std::string q = "'";
    for (char ch : s) {
        q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    }
    return q + "'";
}

}  // namespace

std::string array_script(const Campaign& c, const SlurmRun& o) {
    std::string s = "#!/bin/sh\n";
    s += fmt::format("#SBATCH --job-name=npusim-{}\n", c.name);
    s += fmt::format("#SBATCH --array=0-{}\n", o.shards - 1);
    s += fmt::format("#SBATCH --output={}/slurm/task-%a.out\n", o.out_dir);
    s += "#SBATCH --ntasks=1\n";
    // A task that cannot start or loses its node ends (the next run of the campaign runs its
    // jobs) instead of waiting requeued and held, which would keep sbatch --wait for ever.
    s += "#SBATCH --no-requeue\n";
    for (const auto& [key, value] :
         {std::pair{"partition", o.partition}, {"time", o.time}, {"mem", o.mem}}) {
        if (!value.empty()) {
            s += fmt::format("#SBATCH --{}={}\n", key, value);
        }
    }
    s += fmt::format(
        "exec {} campaign run {} --shard \"$SLURM_ARRAY_TASK_ID/{}\" --jobs 1 --out {}\n",
        quoted(o.program), quoted(o.campaign_file), o.shards, quoted(o.out_dir));
    return s;
}

Submitted submit_array(const Campaign& c, const SlurmRun& o) {
    if (o.shards == 0) {
        throw sim::Error("a Slurm campaign needs at least one shard");
    }
    const fs::path dir = fs::path(o.out_dir) / "slurm";
    fs::create_directories(dir);
    const std::string script = (dir / "array.sh").string();
    sim::write_text_atomic(script, array_script(c, o));
    const std::string cmd =
        fmt::format("sbatch --parsable{} {} 2>&1", o.wait ? " --wait" : "", quoted(script));
    FILE* p = popen(cmd.c_str(), "r");
    if (p == nullptr) {
        throw sim::Error("cannot run sbatch (is Slurm's client installed?)");
    }
    std::string out;
    char buf[512];
    while (fgets(buf, sizeof buf, p) != nullptr) {
        out += buf;
    }
    const int status = pclose(p);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) {
        out.pop_back();
    }
    const std::string first = out.substr(0, out.find('\n'));
    const std::string id = first.substr(0, first.find(';'));  // "<job id>[;<cluster>]"
    const bool clean = status != -1 && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos ||
        (!clean && !o.wait)) {
        throw sim::Error(
            fmt::format("sbatch {}: {}", script, out.empty() ? "failed with no message" : out));
    }
    return {id, clean};  // with --wait, a non-zero exit is a task's: the merge tells which
}

}  // namespace npu::campaign
