// npusim campaign plan|run|merge: many jobs over named axes, on a local pool of processes (the
// default) or as shards anywhere (a Slurm array: one shard per task), merged into one report.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <thread>

#include <fmt/format.h>

#include "app/app.h"
#include "app/report_writer.h"
#include "sim/campaign/campaign.h"
#include "sim/campaign/results.h"
#include "sim/campaign/runner.h"
#include "sim/campaign/slurm.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/report/campaign_page.h"

namespace npu::app {

namespace {

namespace fs = std::filesystem;

int plan(const CampaignOptions& o) {
    const campaign::Campaign c = campaign::load(o.file);
    const std::vector<campaign::Job> jobs = campaign::jobs(c);
    fmt::print("campaign {} ({}): {} jobs of npusim {}\n", c.name, o.file, jobs.size(), c.command);
    for (const campaign::Job& j : jobs) {
        std::string line = "npusim";
        for (const std::string& a :
             campaign::command_line(c, j, "DIR/jobs/" + campaign::job_dir_name(j))) {
            line += " " + campaign::shell_word(a);  // a line to copy: each word quoted
        }
        fmt::print("{:>5}  {}\n       {}\n", j.id, j.name, line);
    }
    return kExitOk;
}

// Writes the merged files into `out` (whole or not at all) and prints the summary; exit 1 unless
// every job passed and, when `expected` is given, every one of them has a result.
int write_merged(const std::vector<std::string>& dirs, const std::string& out_dir,
                 size_t expected = 0) {
    const campaign::Merged m = campaign::merge(dirs);
    sim::OutputDir out(out_dir);
    out.write_text("campaign.xml", m.junit_xml);
    out.write_text("campaign.csv", m.csv);
    out.write_text("campaign.json", m.json);
    out.write_text("summary.txt", m.summary);
    if (!m.rows_csv.empty()) {
        out.write_text("campaign_rows.csv", m.rows_csv);
    }
    const auto records = nlohmann::ordered_json::parse(m.json);
    // Links to the jobs' own pages where they lie beside this page (not in other shards' folders).
    out.write_text("report.html", report::campaign_html(records, [&](const std::string& dir) {
                       return fs::exists(fs::path(out_dir) / dir / "report.html");
                   }));
    std::fwrite(m.summary.data(), 1, m.summary.size(), stdout);
    commit_and_report(out);
    if (m.jobs < expected) {
        fmt::print(stderr,
                   "npusim: {} of {} jobs have no result (what the tasks printed: {}/slurm/); "
                   "the same command runs just them\n",
                   expected - m.jobs, expected, out_dir);
        return kExitCheckFailed;
    }
    return m.jobs == m.passed ? kExitOk : kExitCheckFailed;
}

// One job array whose tasks are the shards; then the merge, unless --no-wait.
int run_on_slurm(const CampaignOptions& o, const campaign::Campaign& c) {
    if (!o.shard.empty()) {
        throw sim::Error("--shard is what each Slurm task is given: not with --backend slurm");
    }
    campaign::SlurmRun s;
    s.out_dir = fs::absolute(o.out).lexically_normal().string();
    s.program = fs::read_symlink("/proc/self/exe").string();
    s.campaign_file = fs::absolute(o.file).lexically_normal().string();
    s.shards = o.shards != 0 ? o.shards : std::min<size_t>(64, campaign::jobs(c).size());
    s.partition = o.partition, s.time = o.time, s.mem = o.mem, s.wait = !o.no_wait;
    sim::claim_outputs(s.out_dir, {"results", "slurm"});  // a campaign folder from now on
    fs::create_directories(fs::path(s.out_dir) / "results");
    const campaign::Submitted sub = campaign::submit_array(c, s);
    if (o.no_wait) {
        fmt::print(
            "campaign {}: Slurm job {} ({} array tasks); when it has ended: npusim "
            "campaign merge {}\n",
            c.name, sub.id, s.shards, o.out);
        return kExitOk;
    }
    fmt::print("campaign {}: Slurm job {} ({} array tasks) ended{}\n", c.name, sub.id, s.shards,
               sub.ended_clean ? "" : ", not every task cleanly");
    return write_merged({o.out}, o.out, campaign::jobs(c).size());
}

int run(const CampaignOptions& o) {
    if (o.out.empty()) {
        throw sim::Error("campaign run needs --out DIR (the campaign folder)");
    }
    const campaign::Campaign c = campaign::load(o.file);
    if (o.backend == "slurm") {
        return run_on_slurm(o, c);
    }
    campaign::LocalRun lr;
    lr.out_dir = o.out;
    lr.program = fs::read_symlink("/proc/self/exe").string();
    lr.jobs = o.jobs != 0 ? o.jobs : std::max(1u, std::thread::hardware_concurrency());
    if (!o.shard.empty()) {
        lr.shard = campaign::parse_shard(o.shard);
    }
    lr.progress = o.progress;
    const campaign::RunCounts n = campaign::run_local(c, lr);
    fmt::print("campaign {}: {} jobs{}, {} done before, {} ran ({} passed, {} not)\n", c.name,
               n.selected, o.shard.empty() ? "" : " in shard " + o.shard, n.skipped, n.ran,
               n.passed, n.not_passed);
    if (!o.shard.empty()) {
        return kExitOk;  // a shard's results are merged once every shard is done
    }
    return write_merged({o.out}, o.out);
}

}  // namespace

int cmd_campaign(const CampaignOptions& o) {
    if (o.action == "plan") {
        return plan(o);
    }
    if (o.action == "run") {
        return run(o);
    }
    return write_merged(o.dirs, o.out.empty() ? o.dirs.at(0) : o.out);
}

}  // namespace npu::app
