// npusim run: loads the platform a config describes (the built-in K210 by default), asks its face
// to run the program on the input, prints the summary and writes the report (and optionally the
// trace) into --out, whole or not at all.
#include <memory>

#include <fmt/format.h>

#include "sim/app/app.h"
#include "sim/app/platform_loader.h"
#include "sim/app/progress.h"
#include "sim/app/report_writer.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/trace.h"

namespace npu::app {

namespace {

// --script needs a platform kind that plays register scripts (PlatformKind::plays_scripts).
void check_plays_scripts(const platform::Platform& p) {
    std::string players;
    bool plays = false;
    for (const platform::PlatformKind& k : platform::platform_kinds()) {
        plays = plays || (k.kind == p.kind() && k.plays_scripts);
        players += k.plays_scripts ? (players.empty() ? "" : ", ") + k.kind : "";
    }
    if (!plays) {
        throw sim::Error(
            fmt::format("--script: register scripts play on the {} platform; {} is a {} platform",
                        players, p.source(), p.kind()));
    }
}

}  // namespace

int cmd_run(const RunOptions& opts) {
    if (opts.trace && opts.out.empty()) {
        throw sim::Error("--trace writes trace.json into the output directory: add --out DIR");
    }
    if (opts.dump_all && opts.out.empty()) {
        throw sim::Error(
            "--dump-all writes one file per layer into the output directory: add "
            "--out DIR");
    }
    if (!opts.script.empty() && (opts.functional || opts.dump_all)) {
        throw sim::Error(
            "--script plays register accesses on the timed SoC: not with "
            "--functional or --dump-all (dump_mem lines write what you need)");
    }
    const std::unique_ptr<platform::Platform> p = load_platform(opts.platform, opts.set);
    if (!opts.script.empty()) {
        check_plays_scripts(*p);
    }
    std::unique_ptr<sim::OutputDir> out;  // first: a bad --out fails before any work
    if (!opts.out.empty()) {
        out = std::make_unique<sim::OutputDir>(opts.out);
    }
    sim::TraceWriter trace(opts.trace);
    Progress progress(opts.progress);
    platform::RunRequest req;
    req.model = opts.model;
    req.network = opts.network;
    req.input = opts.input;
    req.demo = opts.demo;
    req.script = opts.script;
    req.functional = opts.functional;
    req.dump_all = opts.dump_all;
    req.verbose = opts.verbose;
    req.trace = &trace;
    req.progress = [&](size_t done, size_t total, const std::string& what) {
        progress.update(done, total, what);
    };
    const platform::RunReport report = p->run(req);
    if (!report.error.empty()) {
        error_line(report.error);
        return kExitUsage;  // nothing written; `out` removes what it created
    }
    write_run_report("run", report, out.get(), &trace);
    return report.passed ? kExitOk : kExitCheckFailed;
}

}  // namespace npu::app
