// Campaigns: the file (every mistake one error with file:line), the jobs (the product of the
// axes, first axis slowest), shards, the local pool (a fake npusim: a shell script that writes a
// report.json and exits as told), resuming, and merging (the same bytes however the jobs were
// split).
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim/campaign/campaign.h"
#include "sim/campaign/results.h"
#include "sim/campaign/runner.h"
#include "sim/campaign/slurm.h"
#include "sim/core/error.h"

namespace npu::campaign {
namespace {

namespace fs = std::filesystem;

const char* kGood = R"(campaign:
  name: demo
  command: regress
  options: {onnx: m.onnx, inputs: /abs/x.npy, max-lsb: 2, timed: false}
  axes:
    - name: model
      values:
        - {name: a, options: {model: a.kmodel}}
        - {name: b, options: {model: sub/b.kmodel, timed: true}}
    - name: tol
      values: [{name: loose}, {name: mid}, {name: tight, options: {max-lsb: 1}}]
)";

TEST(Campaign, JobsAreTheProductOfTheAxesFirstAxisSlowest) {
    const Campaign c = parse(kGood, "c.yaml", "/base");
    EXPECT_EQ(c.name, "demo");
    EXPECT_EQ(c.command, "regress");
    const std::vector<Job> j = jobs(c);
    ASSERT_EQ(j.size(), 6u);  // 2 models x 3 tolerances
    EXPECT_EQ(j[0].name, "model=a,tol=loose");
    EXPECT_EQ(j[1].name, "model=a,tol=mid");
    EXPECT_EQ(j[5].name, "model=b,tol=tight");
    EXPECT_EQ(job_dir_name(j[5]), "00005_model-b-tol-tight");
    // Files are made relative to the campaign's folder (absolute ones kept); "false" leaves an
    // option out, "true" makes it a flag; axis values' options come after the campaign's.
    EXPECT_EQ(command_line(c, j[5], "OUT"),
              (std::vector<std::string>{
                  "regress", "--onnx", "/base/m.onnx", "--inputs", "/abs/x.npy", "--max-lsb", "2",
                  "--model", "/base/sub/b.kmodel", "--timed", "--max-lsb", "1", "--out", "OUT"}));
}

std::string error_of(const std::string& yaml) {
    try {
        parse(yaml, "c.yaml", "");
    } catch (const sim::Error& e) {
        return e.what();
    }
    return "no error";
}

// Platform settings: the campaign's, then each axis value's, as --set KEY=VALUE, all kept (npusim
// applies them in order, so an axis value's wins over the campaign's).
TEST(Campaign, PlatformSettingsBecomeSetOptionsInOrder) {
    const Campaign c = parse(R"(campaign:
  name: clocks
  command: estimate
  options: {layers: l.yaml}
  set: {kpu.clock_hz: 400MHz, bus.data_width_bytes: 8}
  axes:
    - name: clock
      values:
        - {name: 200mhz, set: {kpu.clock_hz: 200MHz}}
        - {name: default}
    - name: width
      values: [{name: w16, set: {kpu.bus.data_width_bytes: 16}}]
)",
                             "c.yaml", "/b");
    const std::vector<Job> j = jobs(c);
    ASSERT_EQ(j.size(), 2u);
    EXPECT_EQ(command_line(c, j[0], "O"),
              (std::vector<std::string>{"estimate", "--layers", "/b/l.yaml", "--set",
                                        "kpu.clock_hz=400MHz", "--set", "bus.data_width_bytes=8",
                                        "--set", "kpu.clock_hz=200MHz", "--set",
                                        "kpu.bus.data_width_bytes=16", "--out", "O"}));
    EXPECT_EQ(command_line(c, j[1], "O").size(), 11u);  // without the 200 MHz pair
    EXPECT_NE(error_of("campaign:\n  name: x\n  command: run\n  axes:\n    - {name: a, values: "
                       "[{name: v, set: [kpu.clock_hz]}]}\n")
                  .find("c.yaml:5:41: campaign.axes[0].values[0].set: expected a map of platform "
                        "settings"),
              std::string::npos)
        << error_of(
               "campaign:\n  name: x\n  command: run\n  axes:\n    - {name: a, values: "
               "[{name: v, set: [kpu.clock_hz]}]}\n");
}

TEST(Campaign, ShardsSplitTheJobsRoundRobin) {
    EXPECT_EQ(parse_shard("3/8"), (std::pair<size_t, size_t>{3, 8}));
    for (const char* bad : {"8/8", "a/b", "1", "-1/2", "/2", "1/", "0/0", "1/2x"}) {
        EXPECT_THROW(parse_shard(bad), sim::Error) << bad;
    }
    size_t in_0 = 0;
    for (size_t id = 0; id < 10; ++id) {
        in_0 += in_shard(id, {0, 3}) ? 1u : 0u;
    }
    EXPECT_EQ(in_0, 4u);  // 0, 3, 6, 9
}

TEST(Campaign, EveryMistakeIsOneErrorWithItsLine) {
    const std::string head = "campaign:\n  name: x\n  command: ";
    EXPECT_NE(error_of(head + "simulate\n  axes: []\n")
                  .find("c.yaml:3:12: campaign.command: expected run, estimate or regress, got "
                        "'simulate'"),
              std::string::npos)
        << error_of(head + "simulate\n  axes: []\n");
    const std::string axes = head + "run\n  axes:\n";
    EXPECT_NE(
        error_of(axes + "    - {name: a, values: []}\n").find("an axis needs at least one value"),
        std::string::npos);
    EXPECT_NE(error_of(axes + "    - {name: a, values: [{name: v}]}\n    - {name: a, values: "
                              "[{name: w}]}\n")
                  .find("axis 'a' is named twice"),
              std::string::npos);
    EXPECT_NE(error_of(axes + "    - {name: a, values: [{name: v}, {name: v}]}\n")
                  .find("value 'v' is named twice in axis 'a'"),
              std::string::npos);
    EXPECT_NE(error_of(axes + "    - {name: a, values: [{name: v, options: {out: d}}]}\n")
                  .find("the campaign chooses each job's --out"),
              std::string::npos);
    EXPECT_NE(error_of(axes + "    - {name: a, valuez: [{name: v}]}\n").find("unknown key"),
              std::string::npos);
    EXPECT_NE(error_of(axes + "    - {name: a, values: [{name: v, options: {model: [1, 2]}}]}\n")
                  .find("c.yaml:5"),
              std::string::npos);
}

// The job array's submission and script, worked by hand: N tasks, each one shard, the folder
// absolute; sbatch gets an argument list, the script quotes every word.
TEST(Campaign, SlurmArrayScriptRunsOneShardPerTask) {
    const Campaign c = parse(kGood, "c.yaml", "/base");
    SlurmRun s;
    s.out_dir = "/shared/camp", s.program = "/opt/npusim", s.campaign_file = "/shared/c.yaml";
    s.shards = 4, s.partition = "batch", s.mem = "2G";
    const std::vector<std::string> args = {"sbatch",
                                           "--parsable",
                                           "--wait",
                                           "--job-name=npusim-demo",
                                           "--array=0-3",
                                           "--output=/shared/camp/slurm/task-%a.out",
                                           "--ntasks=1",
                                           "--no-requeue",
                                           "--partition=batch",
                                           "--mem=2G",
                                           "/shared/camp/slurm/array.sh"};
    EXPECT_EQ(sbatch_args(c, s), args);
    EXPECT_EQ(array_script(c, s),
              "#!/bin/sh\n# npusim campaign: one shard per array task, submitted (no shell) as\n"
              "#   sbatch --parsable --wait --job-name=npusim-demo --array=0-3 "
              "--output=/shared/camp/slurm/task-%a.out --ntasks=1 --no-requeue --partition=batch "
              "--mem=2G /shared/camp/slurm/array.sh\n"
              "exec /opt/npusim campaign run /shared/c.yaml --shard \"$SLURM_ARRAY_TASK_ID/4\" "
              "--jobs 1 --out /shared/camp\n");
}

// Hostile values (issue #33): a campaign name with shell syntax becomes a plain job name; sbatch
// options outside Slurm's forms and paths with control characters are one error each; words
// with quotes are quoted for sh.
TEST(Campaign, SlurmValuesAreCheckedAndQuoted) {
    Campaign c = parse(kGood, "c.yaml", "/base");
    c.name = "x; touch /tmp/p $(id) 'q\"";
    SlurmRun s;
    s.out_dir = "/shared/it's here", s.program = "/opt/npusim", s.campaign_file = "/c.yaml";
    s.shards = 2;
    const std::vector<std::string> args = sbatch_args(c, s);
    EXPECT_EQ(args[3], "--job-name=npusim-x__touch__tmp_p___id___q_");
    EXPECT_NE(array_script(c, s).find("--out '/shared/it'\\''s here'\n"), std::string::npos)
        << array_script(c, s);
    const auto error_of = [&](SlurmRun r) {
        try {
            sbatch_args(c, r);
        } catch (const sim::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    SlurmRun bad = s;
    bad.partition = "batch\n#SBATCH --wrap=x";
    EXPECT_EQ(error_of(bad),
              "--partition 'batch\n#SBATCH --wrap=x': expected partition names "
              "(letters, digits, . _ - ,)");
    bad = s, bad.time = "1:00;reboot";
    EXPECT_NE(error_of(bad).find("expected a Slurm time limit"), std::string::npos);
    bad = s, bad.mem = "2G --uid=0";
    EXPECT_NE(error_of(bad).find("expected a size"), std::string::npos);
    bad = s, bad.out_dir = "/x\ny";
    EXPECT_NE(error_of(bad).find("control characters"), std::string::npos);
    bad = s, bad.time = "2-12:30:00";
    EXPECT_EQ(error_of(bad), "no error");
    EXPECT_EQ(shell_word("a b"), "'a b'");
    EXPECT_EQ(shell_word("--set=kpu.clock_hz=200MHz"), "--set=kpu.clock_hz=200MHz");
    EXPECT_EQ(shell_word(""), "''");
    EXPECT_EQ(shell_word("$(x);"), "'$(x);'");
}

// Control characters in a campaign's words are refused where they are written.
TEST(Campaign, ControlCharactersInValuesAreRefused) {
    const auto error_of = [](const std::string& yaml) {
        try {
            parse(yaml, "c.yaml", "/b");
        } catch (const sim::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_NE(error_of("campaign:\n  name: \"x\\n touch p\"\n  command: run\n  axes: []\n")
                  .find("c.yaml:2:9: campaign.name: control character 0x0a"),
              std::string::npos)
        << error_of("campaign:\n  name: \"x\\n touch p\"\n  command: run\n  axes: []\n");
    EXPECT_NE(error_of("campaign:\n  name: x\n  command: run\n  options: {model: \"a\\tb\"}\n"
                       "  axes: []\n")
                  .find("control character 0x09"),
              std::string::npos);
}

// Seeded mutations of a good file (bytes flipped, dropped, duplicated): every one parses or is
// one sim::Error, never a crash or another exception (ASan and UBSan watch in CI).
TEST(Campaign, MutatedFilesParseOrFailCleanly) {
    std::mt19937 rng(20);
    const std::string good = kGood;
    int errors = 0;
    for (int i = 0; i < 3000; ++i) {
        std::string y = good;
        for (int k = 0; k < 1 + static_cast<int>(rng() % 4); ++k) {
            const size_t at = rng() % y.size();
            switch (rng() % 3) {
            case 0: y[at] = static_cast<char>(" :-{}[],\n\"'ax0"[rng() % 14]); break;
            case 1: y.erase(at, 1 + rng() % 8); break;
            default: y.insert(at, y.substr(rng() % y.size(), 1 + rng() % 12)); break;
            }
        }
        try {
            const Campaign c = parse(y, "m.yaml", "/b");
            EXPECT_LE(jobs(c).size(), 1000u);
        } catch (const sim::Error&) {
            ++errors;
        }
    }
    EXPECT_GT(errors, 500);  // the mutations do break files
}

// A stand-in for npusim: "regress --exit N [--sleep S] --out DIR" writes DIR/report.json (a
// run record with a total "cycles" = N and a check "exit" that passes when N == 0), prints a
// line, and exits N.
fs::path fake_npusim(const fs::path& dir) {
    const fs::path p = dir / "fake_npusim";
    std::ofstream(p) << R"(#!/bin/sh
exit_code=0; out=; sleep_s=0
while [ $# -gt 0 ]; do
  case "$1" in
    --exit) exit_code=$2; shift 2;;
    --sleep) sleep_s=$2; shift 2;;
    --out) out=$2; shift 2;;
    *) shift;;
  esac
done
mkdir -p "$out"
[ "$exit_code" = 2 ] && { echo "npusim: error: bad option" >&2; exit 2; }
if [ "$exit_code" = 0 ]; then p=true; else p=false; fi
printf '{"schema": "npusim-report/2", "tool": "npusim", "version": "0", "command": "regress", '\
'"mode": "", "platform": {"kind": "fake", "name": "", "source": "", "parameters": {}}, '\
'"program": {"file": "", "format": "", "facts": {}}, "inputs": [], "outputs": [], '\
'"layer_dumps": [], "layers": [], "totals": {"cycles": {"value": %s, "unit": "cycles"}}, '\
'"checks": [{"name": "exit", "measured": %s, "relation": "<=", "limit": 0, "unit": "", '\
'"passed": %s}], "passed": %s, "stats": {}, "extra": {}}\n' \
  "$exit_code" "$exit_code" "$p" "$p" >"$out/report.json"
echo "first diverging layer: $exit_code"
echo "wrote report.json to $out"
sleep "$sleep_s"
exit "$exit_code"
)";
    fs::permissions(p, fs::perms::owner_all);
    return p;
}

const char* kFake = R"(campaign:
  name: fake
  command: regress
  timeout_s: 1
  axes:
    - name: outcome
      values:
        - {name: pass, options: {exit: 0}}
        - {name: fail, options: {exit: 1}}
        - {name: error, options: {exit: 2}}
        - {name: hang, options: {exit: 0, sleep: 30}}
    - name: copy
      values: [{name: one}, {name: two}]
)";

TEST(Campaign, LocalPoolRecordsEveryOutcomeResumesAndMergesTheSameWhateverTheSplit) {
    const fs::path dir =
        fs::temp_directory_path() / ("npusim-campaign-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const Campaign c = parse(kFake, "fake.yaml", "");
    LocalRun o;
    o.program = fake_npusim(dir).string();
    o.jobs = 4;
    o.out_dir = (dir / "all").string();
    RunCounts n = run_local(c, o);
    EXPECT_EQ(n.selected, 8u);
    EXPECT_EQ(n.ran, 8u);
    EXPECT_EQ(n.passed, 2u);  // pass x 2; hang timed out
    const Merged m = merge({o.out_dir});
    EXPECT_EQ(m.jobs, 8u);
    EXPECT_EQ(m.passed, 2u);
    EXPECT_EQ(m.failed, 2u);
    EXPECT_EQ(m.errors, 2u);
    EXPECT_EQ(m.timeouts, 2u);
    EXPECT_NE(m.junit_xml.find("tests=\"8\" failures=\"4\" errors=\"2\""), std::string::npos)
        << m.junit_xml;
    EXPECT_NE(m.junit_xml.find("name=\"outcome=fail,copy=one\"><failure message=\"failed: first "
                               "diverging layer: 1\"/>"),
              std::string::npos)
        << m.junit_xml;
    EXPECT_NE(m.junit_xml.find("<error message=\"exit 2: bad option\"/>"), std::string::npos);
    EXPECT_NE(m.csv.find("0,\"outcome=pass,copy=one\",pass,one,passed,0,true,0,0,\n"),
              std::string::npos)
        << m.csv;
    // Resume: a lost record is the only job run again.
    fs::remove(result_path(o.out_dir, jobs(c)[2]));
    n = run_local(c, o);
    EXPECT_EQ(n.skipped, 7u);
    EXPECT_EQ(n.ran, 1u);
    EXPECT_EQ(merge({o.out_dir}).json, m.json);
    // Three shards run apart merge to the same bytes.
    std::vector<std::string> shards;
    for (size_t i = 0; i < 3; ++i) {
        o.out_dir = (dir / ("shard" + std::to_string(i))).string();
        o.shard = std::pair<size_t, size_t>{i, 3};
        run_local(c, o);
        shards.push_back(o.out_dir);
    }
    const Merged s = merge(shards);
    EXPECT_EQ(s.json, m.json);
    EXPECT_EQ(s.junit_xml, m.junit_xml);
    EXPECT_EQ(s.csv, m.csv);
    EXPECT_THROW(merge({(dir / "nothing").string()}), sim::Error);
    fs::remove_all(dir);
}

// A campaign run killed mid-way (SIGKILL to the runner, its running jobs orphaned) and run again
// completes exactly the jobs that have no record, and merges to a whole run's bytes.
TEST(Campaign, AKilledRunIsCompletedByTheNextOne) {
    const fs::path dir = fs::temp_directory_path() / ("npusim-killed-" + std::to_string(getpid()));
    fs::remove_all(dir);
    fs::create_directories(dir);
    const Campaign c = parse(R"(campaign:
  name: slow
  command: regress
  axes:
    - name: n
      values: [{name: a}, {name: b}, {name: c}, {name: d}, {name: e}, {name: f}]
  options: {exit: 0, sleep: 0.3}
)",
                             "slow.yaml", "");
    LocalRun o;
    o.program = fake_npusim(dir).string();
    o.jobs = 2;
    o.out_dir = (dir / "camp").string();
    const pid_t child = fork();
    ASSERT_GE(child, 0);
    if (child == 0) {
        run_local(c, o);
        _exit(0);
    }
    auto records = [&] {
        size_t n = 0;
        for (const Job& j : jobs(c)) {
            n += fs::exists(result_path(o.out_dir, j)) ? 1u : 0u;
        }
        return n;
    };
    for (int i = 0; i < 200 && records() < 2; ++i) {
        usleep(20'000);
    }
    kill(child, SIGKILL);
    int status = 0;
    waitpid(child, &status, 0);
    const size_t before = records();
    ASSERT_GE(before, 2u);
    ASSERT_LT(before, 6u) << "the run finished before it was killed";
    const RunCounts n = run_local(c, o);
    EXPECT_EQ(n.skipped, before);
    EXPECT_EQ(n.ran, 6u - before);
    EXPECT_EQ(records(), 6u);
    o.out_dir = (dir / "whole").string();
    run_local(c, o);
    EXPECT_EQ(merge({(dir / "camp").string()}).json, merge({o.out_dir}).json);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace npu::campaign

namespace npu::campaign {
namespace {

// Hand-edited records (issue #33): a key of the wrong type is one error naming the file and the
// key (it was an internal error, exit 3); a job folder that is not a relative path (a
// `javascript:` link on the page) is refused.
TEST(Campaign, MergeChecksEveryRecordsTypes) {
    const fs::path dir = fs::temp_directory_path() / ("npusim-records-" + std::to_string(getpid()));
    fs::create_directories(dir / "results");
    const auto merge_error = [&](const std::string& record) {
        std::ofstream(dir / "results" / "00000.json") << record;
        try {
            merge({dir.string()});
        } catch (const sim::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const std::string head = R"({"id": 0, "name": "a=x", "status": "passed")";
    EXPECT_EQ(merge_error(head + "}"), "no error");
    const std::string file = (dir / "results" / "00000.json").string();
    EXPECT_EQ(merge_error(head + R"(, "exit_code": "zero"})"),
              file + ": not a job record: 'exit_code' must be an integer");
    EXPECT_EQ(merge_error(R"({"id": 0, "name": 7, "status": "passed"})"),
              file + ": not a job record: 'name' must be a string");
    EXPECT_EQ(merge_error(head + R"(, "metrics": [1]})"),
              file + ": not a job record: 'metrics' must be an object");
    EXPECT_EQ(merge_error(head + R"(, "rows": [1, 2]})"),
              file + ": not a job record: 'rows' must be a list of objects");
    for (const char* d : {"javascript:alert(1)", "/etc", "../elsewhere", "jobs/../../x"}) {
        EXPECT_EQ(merge_error(head + R"(, "dir": ")" + d + "\"}"),
                  file +
                      ": not a job record: 'dir' must be a folder relative to the campaign "
                      "folder")
            << d;
    }
    EXPECT_EQ(merge_error(head + R"(, "dir": "jobs/00000_a=x"})"), "no error");
    fs::remove_all(dir);
}

}  // namespace
}  // namespace npu::campaign
