#include "sim/campaign/runner.h"

#include <chrono>
#include <cstdio>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/campaign/argv.h"
#include "sim/campaign/results.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/json_text.h"

extern char** environ;

namespace npu::campaign {

namespace {

namespace fs = std::filesystem;
using Clock = std::chrono::steady_clock;

struct Running {
    const Job* job;
    Clock::time_point start;
    bool timed_out = false;
};

pid_t spawn(const std::string& program, const std::vector<std::string>& args,
            const std::string& log) {
    std::vector<std::string> words{program};
    words.insert(words.end(), args.begin(), args.end());
    const std::vector<char*> argv = argv_of(words);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&fa, 1, 2);
    // Each job leads a process group of its own, so a timeout kills whatever it started too.
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    pid_t pid = 0;
    const int rc = posix_spawn(&pid, program.c_str(), &fa, &attr, argv.data(), environ);
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) {
        throw sim::Error(fmt::format("cannot start {}: {}", program, std::strerror(rc)));
    }
    return pid;
}

// What a failed job said: its "npusim: error:" line; else the last line that reports a failed
// check (a first diverging layer, a value below tolerance, FAIL); else its last line other than
// the list of files it wrote (which names the campaign folder, different from run to run).
std::string last_error_line(const std::string& log) {
    std::ifstream in(log);
    std::string line, check, last;
    while (std::getline(in, line)) {
        if (line.rfind("npusim: error: ", 0) == 0) {
            return line.substr(15);
        }
        if (line.find("diverging") != std::string::npos ||
            line.find("BELOW TOLERANCE") != std::string::npos ||
            line.find("FAIL") != std::string::npos) {
            check = line;
        }
        if (!line.empty() && line.rfind("wrote ", 0) != 0) {
            last = line;
        }
    }
    return check.empty() ? last : check;
}

JobResult result_of(const std::string& job_out, const std::string& log, int status,
                    bool timed_out) {
    JobResult r;
    if (timed_out) {
        r.status = "timeout", r.exit_code = -1, r.message = "killed after the campaign's timeout_s";
        return r;
    }
    if (WIFSIGNALED(status)) {
        r.status = "error", r.exit_code = -WTERMSIG(status);
        r.message = fmt::format("killed by signal {}", WTERMSIG(status));
        return r;
    }
    r.exit_code = WEXITSTATUS(status);
    r.status = r.exit_code == 0 ? "passed" : r.exit_code == 1 ? "failed" : "error";
    if (r.exit_code != 0) {
        r.message = last_error_line(log);
    }
    const fs::path report = fs::path(job_out) / "report.json";
    if (fs::exists(report)) {
        const std::vector<uint8_t> bytes = sim::read_file(report.string());
        const auto json = nlohmann::ordered_json::parse(bytes.begin(), bytes.end(), nullptr, false);
        r.metrics = metrics_of(json);
        r.rows = rows_of(json, job_out);
    }
    return r;
}

void show_progress(size_t done, size_t total, Clock::time_point start) {
    const double s = std::chrono::duration<double>(Clock::now() - start).count();
    const double eta =
        done == 0 ? 0 : s / static_cast<double>(done) * static_cast<double>(total - done);
    std::fprintf(stderr, "\rcampaign: %zu/%zu jobs, %.0f s, ETA %.0f s   ", done, total, s, eta);
    std::fflush(stderr);
}

// The jobs of the shard that have no record yet.
std::deque<const Job*> to_run(const std::vector<Job>& all, const LocalRun& o, RunCounts& counts) {
    std::deque<const Job*> todo;
    for (const Job& j : all) {
        if (o.shard && !in_shard(j.id, *o.shard)) {
            continue;
        }
        ++counts.selected;
        if (fs::exists(result_path(o.out_dir, j))) {
            ++counts.skipped;  // finished by an earlier run
            continue;
        }
        todo.push_back(&j);
    }
    return todo;
}

// A job's end: its record, whole or not at all (a temporary file beside it, then a rename).
void finish(const Campaign& c, const LocalRun& o, const Running& r, int status, RunCounts& counts) {
    const std::string name = job_dir_name(*r.job);
    const JobResult res =
        result_of((fs::path(o.out_dir) / "jobs" / name).string(),
                  (fs::path(o.out_dir) / "logs" / (name + ".log")).string(), status, r.timed_out);
    sim::write_text_atomic(result_path(o.out_dir, *r.job),
                           sim::json_text(record(c, *r.job, res), 1) + "\n");
    ++counts.ran;
    (res.status == "passed" ? counts.passed : counts.not_passed) += 1;
}

}  // namespace

RunCounts run_local(const Campaign& c, const LocalRun& o) {
    sim::claim_outputs(o.out_dir, {"jobs", "logs", "results"});  // a campaign folder from now on
    for (const char* sub : {"jobs", "logs", "results"}) {
        fs::create_directories(fs::path(o.out_dir) / sub);
    }
    const std::vector<Job> all = jobs(c);
    RunCounts counts;
    std::deque<const Job*> todo = to_run(all, o, counts);
    std::map<pid_t, Running> running;
    const auto start = Clock::now();
    const size_t total = todo.size();
    while (!todo.empty() || !running.empty()) {
        while (!todo.empty() && running.size() < std::max<size_t>(1, o.jobs)) {
            const Job* j = todo.front();
            todo.pop_front();
            const std::string name = job_dir_name(*j);
            const std::string out = (fs::path(o.out_dir) / "jobs" / name).string();
            const std::string log = (fs::path(o.out_dir) / "logs" / (name + ".log")).string();
            fs::remove_all(out);  // a job a killed run left half done starts afresh
            running[spawn(o.program, command_line(c, *j, out), log)] = {j, Clock::now(), false};
        }
        int status = 0;
        const pid_t pid = waitpid(-1, &status, WNOHANG);
        if (pid > 0 && running.count(pid) != 0) {
            finish(c, o, running[pid], status, counts);
            running.erase(pid);
            if (o.progress) {
                show_progress(counts.ran, total, start);
            }
            continue;
        }
        for (auto& [p, r] : running) {  // the timeout
            const double s = std::chrono::duration<double>(Clock::now() - r.start).count();
            if (c.timeout_s > 0 && s > c.timeout_s && !r.timed_out) {
                r.timed_out = true;
                kill(-p, SIGKILL);  // the job's process group
            }
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    if (o.progress && total > 0) {
        std::fprintf(stderr, "\n");
    }
    return counts;
}

}  // namespace npu::campaign
