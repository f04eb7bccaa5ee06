// npusim campaign as a user runs it: a regress campaign of the digits CNN locally, as shards and
// on a real one-node Slurm, and platform settings as axis values.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "tests/app/cli_fixture.h"

namespace {

using npu::test::Cli;
using npu::test::Result;
using npu::test::slurp;
namespace fs = std::filesystem;

// A one-node Slurm on 127.0.0.1 for one test (scripts/slurm-local: Debian's slurmctld, slurmd
// and munge in the foreground), stopped when it goes; `up` false with the reason where the
// daemons cannot start.
struct SlurmCluster {
    explicit SlurmCluster(const fs::path& dir)
        : folder(dir / "cluster") {
        const int port = 20000 + static_cast<int>(getpid() % 10000) * 2;
        const std::string cmd = std::string(NPUSIM_SOURCE_DIR "/scripts/slurm-local up ") +
                                folder.string() + " " + std::to_string(port) + " " +
                                std::to_string(port + 1) + " 2>" + (dir / "up.err").string();
        const int rc = std::system(cmd.c_str());
        up = WIFEXITED(rc) && WEXITSTATUS(rc) == 0;
        why = slurp(dir / "up.err");
    }
    ~SlurmCluster() {
        const std::string cmd =
            std::string(NPUSIM_SOURCE_DIR "/scripts/slurm-local down ") + folder.string();
        (void)std::system(cmd.c_str());
    }
    SlurmCluster(const SlurmCluster&) = delete;
    SlurmCluster& operator=(const SlurmCluster&) = delete;
    // What a command line needs in front to use this cluster.
    std::string env() const { return "SLURM_CONF=" + (folder / "slurm.conf").string() + " "; }

    fs::path folder;
    bool up = false;
    std::string why;
};

// A regress campaign of the digits CNN at three tolerances x functional/timed: the 1 LSB jobs
// fail (their cases only), and the same campaign as two shards merges to the same bytes.
TEST_F(Cli, CampaignRunsLocallyAndAsShardsWithTheSameMergedReport) {
    std::string km;
    ASSERT_NO_FATAL_FAILURE(compile_digits(km));
    const fs::path file = digits_campaign(km, {"8", "6", "1"});
    Result r = run("campaign plan " + file.string());
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("6 jobs of npusim regress"), std::string::npos) << r.out;
    r = run("campaign run " + file.string() + " --jobs 2 --out " + (dir / "local").string());
    EXPECT_EQ(r.rc, 1) << r.out << r.err;  // two jobs failed their check
    const std::string xml = slurp(dir / "local" / "campaign.xml");
    EXPECT_NE(xml.find("tests=\"6\" failures=\"2\" errors=\"0\""), std::string::npos) << xml;
    EXPECT_NE(xml.find("name=\"tol=1,timing=f\"><failure message=\"failed: first diverging "
                       "layer: 0"),
              std::string::npos)
        << xml;
    EXPECT_NE(xml.find("name=\"tol=8,timing=t\"></testcase>"), std::string::npos);
    for (const char* s : {"0/2", "1/2"}) {
        r = run(std::string("campaign run ") + file.string() + " --shard " + s + " --out " +
                (dir / (std::string("shard") + s[0])).string());
        ASSERT_EQ(r.rc, 0) << r.err;
    }
    r = run("campaign merge " + (dir / "shard0").string() + " " + (dir / "shard1").string() +
            " --out " + (dir / "merged").string());
    EXPECT_EQ(r.rc, 1);
    for (const char* f : {"campaign.xml", "campaign.csv", "campaign.json", "summary.txt"}) {
        EXPECT_EQ(slurp(dir / "merged" / f), slurp(dir / "local" / f)) << f;
    }
    // Run again: everything is done, nothing runs.
    r = run("campaign run " + file.string() + " --out " + (dir / "local").string());
    EXPECT_NE(r.out.find("6 jobs, 6 done before, 0 ran"), std::string::npos) << r.out;
    // A bad campaign file: one line with file:line, exit 2.
    const fs::path bad =
        write("bad.yaml", "campaign:\n  name: x\n  command: simulate\n  axes: []\n");
    r = run("campaign plan " + bad.string());
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("bad.yaml:3:12: campaign.command: expected run, estimate or regress"),
              std::string::npos)
        << r.err;
}

// The same campaign on a real one-node Slurm (scripts/slurm-local: Debian's slurmctld, slurmd and
// munge on 127.0.0.1) as a 3-task job array merges to the local run's bytes. Skipped, with the
// reason the cluster gave, where the daemons cannot start.
// Hostile words on the way (issue #33): a campaign name with shell syntax and quotes, a campaign
// folder named like a command substitution; nothing they contain runs, the array still merges.
TEST_F(Cli, CampaignOnSlurmMergesToTheLocalRunsBytes) {
    const SlurmCluster cluster(dir);
    if (!cluster.up) {
        GTEST_SKIP() << "no Slurm cluster here: " << cluster.why;
    }
    std::string km;
    ASSERT_NO_FATAL_FAILURE(compile_digits(km));
    const std::string pwned = (dir / "pwned").string();
    const fs::path file =
        digits_campaign(km, {"8", "1"}, "\"d; touch " + pwned + " $(touch " + pwned + ") 'x\"");
    ASSERT_EQ(run("campaign run " + file.string() + " --out " + (dir / "local").string()).rc, 1);
    const fs::path out = dir / ("slurm $(touch " + pwned + ") ';x");
    const auto quoted = [](const std::string& s) {  // one word for sh, by hand
        std::string q = "'";
        for (const char ch : s) {
            q += ch == '\'' ? std::string("'\\''") : std::string(1, ch);
        }
        return q + "'";
    };
    const std::string cmd = cluster.env() + NPUSIM_BIN + " campaign run " + file.string() +
                            " --backend slurm --shards 3 --out " + quoted(out.string()) + " >" +
                            (dir / "slurm.out").string() + " 2>&1";
    const int status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status)) << slurp(dir / "slurm.out");
    EXPECT_EQ(WEXITSTATUS(status), 1) << slurp(dir / "slurm.out");  // the 1 LSB jobs fail
    EXPECT_NE(slurp(dir / "slurm.out").find("(3 array tasks) ended"), std::string::npos)
        << slurp(dir / "slurm.out");
    for (const char* f : {"campaign.xml", "campaign.csv", "campaign.json", "summary.txt"}) {
        EXPECT_EQ(slurp(out / f), slurp(dir / "local" / f)) << f;
    }
    EXPECT_TRUE(fs::exists(out / "slurm" / "task-2.out"));
    EXPECT_FALSE(fs::exists(pwned));
    // A newline in a value never gets that far: the campaign file is refused.
    const fs::path bad = digits_campaign(km, {"8"}, "\"x\\n touch " + pwned + "\"");
    const Result r =
        run("campaign run " + bad.string() + " --backend slurm --out " + (dir / "bad").string());
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("control character 0x0a"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(pwned));
}

// sbatch as a stand-in script: one that refuses the array is one error with its message; one
// that takes it but whose tasks never run leaves every job without a result, said so, exit 1.
TEST_F(Cli, SlurmArraysThatFailOrNeverRunAreReported) {
    const fs::path bin = dir / "bin";
    fs::create_directories(bin);
    const fs::path file =
        write("c.yaml", "campaign:\n  name: tiny\n  command: estimate\n  options: {layers: " +
                            std::string(NPUSIM_SOURCE_DIR) +
                            "/configs/k210_layers.yaml}\n  axes:\n    - name: clock\n"
                            "      values: [{name: a}, {name: b}]\n");
    const auto run_with = [&](const std::string& body) {
        write("bin/sbatch", "#!/bin/sh\n" + body);
        fs::permissions(bin / "sbatch", fs::perms::owner_all);
        const std::string cmd = "PATH=" + bin.string() + ":$PATH " + NPUSIM_BIN + " campaign run " +
                                file.string() + " --backend slurm --shards 2 --out " +
                                (dir / "camp").string() + " >" + (dir / "o").string() + " 2>" +
                                (dir / "e").string();
        const int st = std::system(cmd.c_str());
        return Result{WIFEXITED(st) ? WEXITSTATUS(st) : -1, slurp(dir / "o"), slurp(dir / "e")};
    };
    Result r = run_with("echo 'sbatch: error: invalid partition specified: gpu'; exit 1\n");
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("array.sh: sbatch: error: invalid partition specified: gpu"),
              std::string::npos)
        << r.err;
    r = run_with("echo 4242; exit 1\n");  // taken, but no task ran
    EXPECT_EQ(r.rc, 1) << r.err;
    EXPECT_NE(r.out.find("Slurm job 4242 (2 array tasks) ended, not every task cleanly"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.err.find("2 of 2 jobs have no result"), std::string::npos) << r.err;
}

// `campaign plan` prints each job's command as a line to copy: every word quoted for sh, so a
// value with ';' or '$(...)' is a value there too (issue #33). The printed line, run by sh with a
// stand-in npusim that prints its arguments one per line, gives back the very words.
TEST_F(Cli, CampaignPlanQuotesEveryWord) {
    const fs::path file = write(
        "q.yaml",
        "campaign:\n  name: q\n  command: estimate\n  options: {layers: \"a b;touch x "
        "$(id).yaml\"}\n"
        "  set: {kpu.clock_hz: \"200MHz'; echo\"}\n  axes:\n    - name: v\n      values: [{name: "
        "a}]\n");
    const Result r = run("campaign plan " + file.string());
    ASSERT_EQ(r.rc, 0) << r.err;
    const size_t at = r.out.rfind("npusim estimate");  // the job's line, after the header
    ASSERT_NE(at, std::string::npos) << r.out;
    const std::string line = r.out.substr(at, r.out.find('\n', at) - at);
    fs::create_directories(dir / "bin");
    write("bin/npusim", "#!/bin/sh\nfor a in \"$@\"; do echo \"[$a]\"; done\n");
    fs::permissions(dir / "bin" / "npusim", fs::perms::owner_all);
    const Result echo =
        shell("cd " + dir.string() + " && PATH=" + (dir / "bin").string() + ":$PATH " + line);
    EXPECT_EQ(echo.out, "[estimate]\n[--layers]\n[" + (dir / "a b;touch x $(id).yaml").string() +
                            "]\n[--set]\n[kpu.clock_hz=200MHz'; echo]\n[--out]\n[DIR/jobs/"
                            "00000_v-a]\n")
        << line;
    EXPECT_FALSE(fs::exists(dir / "x"));
}

// The example campaigns expand to the jobs their comments promise.
TEST_F(Cli, ExampleCampaignsPlanTheirJobs) {
    const struct {
        const char* file;
        const char* jobs;
    } examples[] = {{"digits_regress.yaml", "9 jobs of npusim regress"},
                    {"k210_estimate_sweep.yaml", "20 jobs of npusim estimate"},
                    {"k210_shared_kmodels.yaml", "12 jobs of npusim run"},
                    {"finn_folding_sweep.yaml", "2 jobs of npusim estimate"}};
    for (const auto& e : examples) {
        const Result r =
            run(std::string("campaign plan " NPUSIM_SOURCE_DIR "/configs/campaigns/") + e.file);
        EXPECT_EQ(r.rc, 0) << e.file << r.err;
        EXPECT_NE(r.out.find(e.jobs), std::string::npos) << e.file << r.out;
    }
}

const char* const kMerged[] = {"campaign.xml", "campaign.csv", "campaign.json", "summary.txt",
                               "campaign_rows.csv"};

// Lines of `text` whose second column (the job's name) is `job`, without that job's columns.
std::vector<std::string> rows_of_job(const std::string& text, const std::string& job,
                                     size_t job_columns) {
    std::vector<std::string> out;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) {
        if (line.find(",\"" + job + "\",") == std::string::npos) {
            continue;
        }
        size_t at = line.find("\",") + 2;  // past id and the quoted name
        for (size_t c = 2; c < job_columns; ++c) {
            at = line.find(',', at) + 1;
        }
        out.push_back(line.substr(at));
    }
    return out;
}

// configs/campaigns/k210_estimate_sweep.yaml: 10,000 configurations (20 platform variants x 500
// layers). Run whole, as 8 shards (one of them killed mid-way and run again: only its missing
// jobs run) and on a one-node Slurm as an 8-task array, it merges to the same bytes; the default
// variant's rows are what `npusim estimate` gives on the unchanged platform.
TEST_F(Cli, TenThousandConfigurationSweepMergesTheSameWhereverItRan) {
    const std::string file = NPUSIM_SOURCE_DIR "/configs/campaigns/k210_estimate_sweep.yaml";
    Result r = run("campaign run " + file + " --out " + (dir / "local").string());
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    const std::string rows = slurp(dir / "local" / "campaign_rows.csv");
    EXPECT_EQ(std::count(rows.begin(), rows.end(), '\n'), 10001);  // a header and 10,000 rows
    // The default variant against the estimate command on the built-in platform.
    r = run("estimate --layers " NPUSIM_SOURCE_DIR
            "/configs/campaigns/k210_sweep_layers.yaml "
            "--out " +
            (dir / "direct").string());
    ASSERT_EQ(r.rc, 0) << r.err;
    const std::string merged_once = slurp(dir / "local" / "campaign.json");
    EXPECT_EQ(run("campaign merge " + (dir / "local").string()).rc, 0);
    EXPECT_EQ(slurp(dir / "local" / "campaign.json"), merged_once);  // merging again: the same
    const auto direct = nlohmann::ordered_json::parse(slurp(dir / "direct" / "estimate.json"));
    const std::vector<std::string> mine = rows_of_job(rows, "kpu_clock=400mhz,kpu_bus=8B", 4);
    ASSERT_EQ(mine.size(), direct.size());
    for (size_t i = 0; i < mine.size(); i += 97) {
        std::string expect;
        for (const auto& [k, v] : direct[i].items()) {
            expect +=
                (expect.empty() ? "" : ",") + (v.is_string() ? v.get<std::string>() : v.dump());
        }
        EXPECT_EQ(mine[i].substr(0, expect.size()), expect) << i;
    }
    // Eight shards; shard 0 (jobs 0, 8, 16) killed after its first record.
    std::vector<std::string> dirs;
    for (int i = 0; i < 8; ++i) {
        dirs.push_back((dir / ("shard" + std::to_string(i))).string());
        if (i != 0) {
            ASSERT_EQ(run("campaign run " + file + " --shard " + std::to_string(i) + "/8 --out " +
                          dirs.back())
                          .rc,
                      0);
        }
    }
    const pid_t pid = fork();
    if (pid == 0) {
        ::execl(NPUSIM_BIN, NPUSIM_BIN, "campaign", "run", file.c_str(), "--shard", "0/8", "--jobs",
                "1", "--out", dirs[0].c_str(), static_cast<char*>(nullptr));
        ::_exit(127);
    }
    const fs::path results = fs::path(dirs[0]) / "results";
    const auto records = [&] {  // results/*.json (not a record's temporary file)
        size_t n = 0;
        if (fs::exists(results)) {
            for (const auto& e : fs::directory_iterator(results)) {
                n += e.path().extension() == ".json" ? 1u : 0u;
            }
        }
        return n;
    };
    for (int waited = 0; records() == 0 && waited < 20000; ++waited) {
        ::usleep(500);
    }
    ::kill(pid, SIGKILL);
    int status = 0;
    ::waitpid(pid, &status, 0);
    const size_t before = records();
    ASSERT_GE(before, 1u);
    if (before == 3) {
        GTEST_SKIP() << "shard 0 ended before it could be killed";
    }
    r = run("campaign run " + file + " --shard 0/8 --out " + dirs[0]);
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(
        r.out.find(fmt::format("3 jobs in shard 0/8, {} done before, {} ran", before, 3 - before)),
        std::string::npos)
        << r.out;
    std::string merge = "campaign merge";
    for (const std::string& d : dirs) {
        merge += " " + d;
    }
    ASSERT_EQ(run(merge + " --out " + (dir / "merged").string()).rc, 0);
    for (const char* f : kMerged) {
        EXPECT_EQ(slurp(dir / "merged" / f), slurp(dir / "local" / f)) << f;
    }
    const SlurmCluster cluster(dir);
    if (!cluster.up) {
        GTEST_SKIP() << "no Slurm cluster here (local and shards checked): " << cluster.why;
    }
    const std::string cmd = cluster.env() + NPUSIM_BIN + " campaign run " + file +
                            " --backend slurm --shards 8 --out " + (dir / "slurm").string() + " >" +
                            (dir / "slurm.out").string() + " 2>&1";
    status = std::system(cmd.c_str());
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << slurp(dir / "slurm.out");
    for (const char* f : kMerged) {
        EXPECT_EQ(slurp(dir / "slurm" / f), slurp(dir / "local" / f)) << f;
    }
}

// configs/campaigns/k210_shared_kmodels.yaml on the real kmodels of ../shared/k210: every job
// passes, and each model's timed runs (400 and 200 MHz) write the values-only run's outputs bit
// for bit, with the same MACs; the 200 MHz run is longer by the KPU's time.
TEST_F(Cli, SharedKmodelsCampaignRunsEveryModelThreeWays) {
    if (!fs::exists(NPUSIM_SHARED_DIR "/k210/yolo20_v3.kmodel")) {
        GTEST_SKIP() << "../shared/k210 is not here";
    }
    const Result r =
        run("campaign run " NPUSIM_SOURCE_DIR "/configs/campaigns/k210_shared_kmodels.yaml --out " +
            (dir / "c").string());
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    const auto records = nlohmann::ordered_json::parse(slurp(dir / "c" / "campaign.json"));
    ASSERT_EQ(records.size(), 12u);
    for (size_t m = 0; m < 4; ++m) {
        const auto& f = records[3 * m];
        const auto& t400 = records[3 * m + 1];
        const auto& t200 = records[3 * m + 2];
        const std::string out0 = slurp(dir / "c" / f["dir"].get<std::string>() / "output_0.npy");
        EXPECT_FALSE(out0.empty());
        for (const auto* t : {&t400, &t200}) {
            EXPECT_EQ(slurp(dir / "c" / (*t)["dir"].get<std::string>() / "output_0.npy"), out0)
                << (*t)["name"];
            EXPECT_EQ((*t)["metrics"]["totals.macs"], f["metrics"]["totals.macs"]);
        }
        // The KPU's layers take twice as long; the CPU's work (the v4 models' read-back and
        // CPU nodes) does not change: the run is longer by about the KPU's time at 400 MHz.
        const double kpu_ms = t400["metrics"]["totals.kpu_cycles"].get<double>() / 400e3;
        EXPECT_GT(t200["metrics"]["totals.inference_ms"].get<double>() -
                      t400["metrics"]["totals.inference_ms"].get<double>(),
                  0.9 * kpu_ms)
            << t200["name"];
    }
}

}  // namespace
