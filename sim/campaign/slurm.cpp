#include "sim/campaign/slurm.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <regex>

#include <fcntl.h>
#include <fmt/format.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/campaign/argv.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/text.h"

extern char** environ;

namespace npu::campaign {

namespace {

namespace fs = std::filesystem;

// The array's job name: "npusim-" and the campaign's name, other characters than letters, digits,
// '.', '_' and '-' as '_' (a name is a label; Slurm shows it in squeue).
std::string job_name(const std::string& campaign) {
    std::string n = "npusim-";
    for (const char ch : campaign) {
        const bool ok = std::isalnum(static_cast<unsigned char>(ch)) != 0 || ch == '.' ||
                        ch == '_' || ch == '-';
        n += ok ? ch : '_';
    }
    return n.substr(0, 128);
}

// `value` of sbatch option `option` if it matches `pattern` (else one error naming both).
const std::string& checked(const char* option, const std::string& value, const char* pattern,
                           const char* expected) {
    if (!std::regex_match(value, std::regex(pattern))) {
        throw sim::Error(fmt::format("--{} {}: expected {}", option, shell_word(value), expected));
    }
    return value;
}

// A path given to the tasks: any characters but control characters.
const std::string& checked_path(const char* what, const std::string& path) {
    if (sim::control_char_at(path) != std::string::npos) {
        throw sim::Error(fmt::format("{} {}: a path with control characters cannot go to Slurm",
                                     what, shell_word(path)));
    }
    return path;
}

// Runs `argv` (no shell), its stdout and stderr together into `out`; the wait status.
int run_capturing(const std::vector<std::string>& args, std::string& out) {
    int pipe_fds[2];
    if (::pipe2(pipe_fds, O_CLOEXEC) != 0) {
        throw sim::Error(fmt::format("cannot make a pipe: {}", std::strerror(errno)));
    }
    std::vector<std::string> words = args;
    const std::vector<char*> argv = argv_of(words);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, pipe_fds[1], 1);
    posix_spawn_file_actions_adddup2(&fa, pipe_fds[1], 2);
    pid_t pid = 0;
    const int rc = posix_spawnp(&pid, argv[0], &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    ::close(pipe_fds[1]);
    if (rc != 0) {
        ::close(pipe_fds[0]);
        throw sim::Error(fmt::format("cannot run {}: {} (is Slurm's client installed?)", args[0],
                                     std::strerror(rc)));
    }
    char buf[4096];
    for (ssize_t n; (n = ::read(pipe_fds[0], buf, sizeof buf)) != 0;) {
        if (n > 0 && out.size() < (1u << 20)) {
            out.append(buf, static_cast<size_t>(n));
        } else if (n < 0 && errno != EINTR) {
            break;
        }
    }
    ::close(pipe_fds[0]);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    return status;
}

}  // namespace

std::string shell_word(const std::string& s) {
    const bool plain = !s.empty() && std::all_of(s.begin(), s.end(), [](char ch) {
        return std::isalnum(static_cast<unsigned char>(ch)) != 0 ||
               std::strchr("@%+=:,./_-", ch) != nullptr;
    });
    if (plain) {
        return s;
    }
    std::string q = "'";
    for (const char ch : s) {
        q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
    }
    return q + "'";
}

std::vector<std::string> sbatch_args(const Campaign& c, const SlurmRun& o) {
    std::vector<std::string> a{"sbatch", "--parsable"};
    if (o.wait) {
        a.emplace_back("--wait");
    }
    a.push_back("--job-name=" + job_name(c.name));
    a.push_back(fmt::format("--array=0-{}", o.shards - 1));
    a.push_back("--output=" + checked_path("--out", o.out_dir) + "/slurm/task-%a.out");
    a.emplace_back("--ntasks=1");
    // A task that cannot start or loses its node ends (the next run of the campaign runs its
    // jobs) instead of waiting requeued and held, which would keep sbatch --wait for ever.
    a.emplace_back("--no-requeue");
    if (!o.partition.empty()) {
        a.push_back("--partition=" + checked("partition", o.partition, "[A-Za-z0-9._,-]{1,128}",
                                             "partition names (letters, digits, . _ - ,)"));
    }
    if (!o.time.empty()) {
        a.push_back("--time=" + checked("time", o.time,
                                        "[0-9]{1,9}([-:][0-9]{1,9}){0,3}|UNLIMITED|INFINITE",
                                        "a Slurm time limit, e.g. 30, 1:30:00 or 2-12"));
    }
    if (!o.mem.empty()) {
        a.push_back("--mem=" + checked("mem", o.mem, "[0-9]{1,12}[KMGTkmgt]?",
                                       "a size in megabytes or with K, M, G or T, e.g. 2G"));
    }
    a.push_back(checked_path("--out", o.out_dir) + "/slurm/array.sh");
    return a;
}

std::string array_script(const Campaign& c, const SlurmRun& o) {
    std::vector<std::string> submitted = sbatch_args(c, o);
    std::string line;
    for (const std::string& w : submitted) {
        line += (line.empty() ? "" : " ") + shell_word(w);
    }
    return fmt::format(
        "#!/bin/sh\n# npusim campaign: one shard per array task, submitted (no shell) as\n#   {}\n"
        "exec {} campaign run {} --shard \"$SLURM_ARRAY_TASK_ID/{}\" --jobs 1 --out {}\n",
        line, shell_word(checked_path("the npusim binary", o.program)),
        shell_word(checked_path("the campaign file", o.campaign_file)), o.shards,
        shell_word(o.out_dir));
}

Submitted submit_array(const Campaign& c, const SlurmRun& o) {
    if (o.shards == 0) {
        throw sim::Error("a Slurm campaign needs at least one shard");
    }
    const std::vector<std::string> args = sbatch_args(c, o);  // checked before anything is made
    const fs::path dir = fs::path(o.out_dir) / "slurm";
    fs::create_directories(dir);
    const std::string script = (dir / "array.sh").string();
    sim::write_text_atomic(script, array_script(c, o));
    std::string out;
    const int status = run_capturing(args, out);
    while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) {
        out.pop_back();
    }
    const std::string first = out.substr(0, out.find('\n'));
    const std::string id = first.substr(0, first.find(';'));  // "<job id>[;<cluster>]"
    const bool clean = WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (id.empty() || id.find_first_not_of("0123456789") != std::string::npos ||
        (!clean && !o.wait)) {
        throw sim::Error(
            fmt::format("sbatch {}: {}", script, out.empty() ? "failed with no message" : out));
    }
    return {id, clean};  // with --wait, a non-zero exit is a task's: the merge tells which
}

}  // namespace npu::campaign
