// npusim run: loads the platform a config describes (the built-in K210 by default), asks its face
// to run the program on the input, prints the summary and writes the report (and optionally the
// trace) into --out, whole or not at all.
#include <cstdio>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "app/app.h"
#include "app/platform_loader.h"
#include "app/progress.h"
#include "app/report_writer.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/trace.h"

namespace npu::app {

namespace {

void check_options(const RunOptions& opts) {
    if (opts.trace && opts.out.empty()) {
        throw sim::Error("--trace writes trace.json into the output directory: add --out DIR");
    }
    if (opts.dump_all && opts.out.empty()) {
        throw sim::Error(
            "--dump-all writes one file per layer into the output directory: add "
            "--out DIR");
    }
    if ((!opts.script.empty() || !opts.firmware.empty()) && (opts.functional || opts.dump_all)) {
        throw sim::Error(
            fmt::format("{} runs on the timed SoC: not with --functional or --dump-all",
                        opts.script.empty() ? "--firmware" : "--script"));
    }
    if (!opts.firmware_args.empty() && opts.firmware.empty()) {
        throw sim::Error(
            fmt::format("unexpected argument '{}': arguments are the firmware's "
                        "(--firmware FILE -- ARGS...)",
                        opts.firmware_args.front()));
    }
}

// The request of `npusim run` from its options (what the platform needs to know; the trace and
// progress are the caller's).
platform::RunRequest run_request(const RunOptions& opts) {
    platform::RunRequest req;
    req.model = opts.model;
    req.network = opts.network;
    req.input = opts.input;
    req.demo = opts.demo;
    req.script = opts.script;
    req.firmware = opts.firmware;
    req.firmware_args = opts.firmware_args;
    if (opts.max_instructions != 0) {
        req.max_instructions = opts.max_instructions;
        req.max_instructions_given = true;
    }
    if (!opts.max_time.empty()) {
        std::string why;
        const auto ps = sim::parse_duration(opts.max_time, why);
        if (!ps) {
            throw sim::Error(fmt::format("--max-time: {}, got '{}'", why, opts.max_time));
        }
        req.max_time_ps = *ps;
    }
    req.gdb_port = opts.gdb_port;
    req.option = opts.platform_options;
    req.firmware_output = [](const std::string& from, const std::string& text) {
        if (from == "npusim") {  // a line of ours about the firmware
            std::fprintf(stderr, "npusim: %s", text.c_str());
            return;
        }
        std::fwrite(text.data(), 1, text.size(), stdout);
        std::fflush(stdout);
    };
    req.functional = opts.functional;
    req.to_files = !opts.out.empty();
    req.dump_all = opts.dump_all;
    req.verbose = opts.verbose;
    return req;
}

// Where the firmware's semihosting files may be (docs/firmware.md "Semihosting and trust"):
// nowhere unless --semihosting; DIR for both with --semihosting=DIR; else reads from the working
// folder and writes into --out DIR/files/, staged with the run's other outputs.
void semihost_roots(const RunOptions& opts, sim::OutputDir* out, platform::RunRequest& req) {
    if (!opts.semihosting) {
        req.semihost_hint = "run with --semihosting to give it a folder";
        return;
    }
    if (!opts.semihost_dir.empty()) {
        if (!std::filesystem::is_directory(opts.semihost_dir)) {
            throw sim::Error(fmt::format("--semihosting={}: not a folder", opts.semihost_dir));
        }
        req.semihost_read_root = req.semihost_write_root = opts.semihost_dir;
        return;
    }
    req.semihost_read_root = std::filesystem::current_path().string();
    if (out != nullptr) {
        req.semihost_write_root = out->staged_folder("files").string();
    }
    req.semihost_hint = "writes go into --out DIR/files/: add --out DIR";
}

}  // namespace

int cmd_run(const RunOptions& opts) {
    check_options(opts);
    platform::RunRequest req = run_request(opts);  // a bad value fails before any work
    const std::unique_ptr<platform::Platform> p =
        load_platform(opts.platform, opts.set, default_platform(opts.platform_options));
    check_platform_options(*p, opts.platform_options);
    if (!opts.script.empty()) {
        check_kind_can(*p, &platform::PlatformKind::plays_scripts, "--script",
                       "register scripts play");
    }
    if (!opts.firmware.empty()) {
        check_kind_can(*p, &platform::PlatformKind::runs_firmware, "--firmware", "firmware runs");
    }
    std::unique_ptr<sim::OutputDir> out;  // first: a bad --out fails before any work
    if (!opts.out.empty()) {
        out = std::make_unique<sim::OutputDir>(opts.out);
    }
    semihost_roots(opts, out.get(), req);
    sim::TraceWriter trace(opts.trace);
    Progress progress(opts.progress);
    req.trace = &trace;
    req.progress = [&](size_t done, size_t total, const std::string& what) {
        progress.update(done, total, what);
    };
    const platform::RunReport report = p->run(req);
    return finish_run("run", report, out.get(), &trace);
}

}  // namespace npu::app
