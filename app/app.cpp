#include "app/app.h"

#include <algorithm>
#include <cstdio>
#include <exception>
#include <filesystem>
#include <functional>
#include <vector>

#include <systemc>

#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include "app/platform_loader.h"
#include "platforms/common/platform_face.h"
#include "sim/core/error.h"
#include "sim/core/parallel.h"
#include "sim/core/text.h"
#include "sim/core/version.h"

namespace npu::app {

const char* version() {
    return sim::npusim_version();
}

void error_line(const std::string& what) {
    // A message quotes users' files: printed without their control characters.
    std::fprintf(stderr, "npusim: error: %s\n", sim::printable(what).c_str());
}

namespace {

// --set KEY=VALUE (repeatable), beside every --platform.
// --platform FILE|NAME: a YAML file, or a built-in platform config by name (app/platform_loader.h).
void add_platform(CLI::App* c, std::string& platform, const std::string& help) {
    const CLI::Validator file_or_builtin(
        [](const std::string& given) { return platform_arg_problem(given); }, "FILE|NAME");
    c->add_option("--platform", platform,
                  help + "; a built-in one by name: " + builtin_platform_names())
        ->check(file_or_builtin);
}

void add_set(CLI::App* c, std::vector<std::string>& set) {
    c->add_option("--set", set,
                  "Replace a platform setting: KEY=VALUE, KEY a path under platform: as in "
                  "messages (e.g. kpu.clock_hz=200MHz, kpu.bus.data_width_bytes=16, "
                  "memories[0].read_latency_ns=10); repeatable, the last of a key wins")
        ->allow_extra_args(false);
}

// npusim run --firmware ELF [--max-instructions N] [-- ARGS...] (after --script: it excludes it).
void add_firmware_options(CLI::App* run, RunOptions& run_opts) {
    run->add_option("--firmware", run_opts.firmware,
                    "A firmware ELF to run on the platform's CPU against its SoC models (the K210: "
                    "RISC-V), "
                    "until it exits by semihosting (docs/firmware.md); its arguments follow --, "
                    "e.g. --firmware build/firmware/kmodel_run.elf -- model.kmodel in.bin out.bin")
        ->check(CLI::ExistingFile)
        ->excludes(run->get_option("--model"))
        ->excludes(run->get_option("--network"))
        ->excludes(run->get_option("--demo"))
        ->excludes(run->get_option("--input"))
        ->excludes(run->get_option("--script"));
    run->add_option("--max-instructions", run_opts.max_instructions,
                    "With --firmware: stop a firmware that has not exited after this many "
                    "instructions (a runaway loop is an error naming its pc; default 2e9, none "
                    "when --max-time or --max-frames ends the run)")
        ->check(CLI::Range(uint64_t{1}, uint64_t{1} << 50));
    run->add_option("--max-time", run_opts.max_time,
                    "With --firmware: stop a firmware that has not exited after this much "
                    "simulated time, a duration with its unit (e.g. 2s, 500ms), as "
                    "--max-instructions does")
        ->needs(run->get_option("--firmware"));
    run->add_option("--gdb", run_opts.gdb_port,
                    "With --firmware: wait for GDB on 127.0.0.1:PORT (gdb-multiarch: target "
                    "remote :PORT), the firmware stopped at its entry; the SoC's time stands "
                    "still while GDB has control")
        ->check(CLI::Range(1, 65535))
        ->needs(run->get_option("--firmware"));
    run->add_option("--semihosting", run_opts.semihost_dir,
                    "With --firmware: let it open host files by semihosting, confined to a "
                    "folder (paths that leave it are refused): --semihosting reads from the "
                    "working folder and writes into --out DIR/files/ (whole at the end); "
                    "--semihosting=DIR reads and writes in DIR. Without it the firmware's "
                    "console, arguments, clock and exit work, its files do not")
        ->expected(0, 1)
        ->needs(run->get_option("--firmware"));
    run->add_option("args", run_opts.firmware_args,
                    "After --: the firmware's arguments (argv[1..] through semihosting)");
}

// The options the platform kinds declare for `command` (platform::PlatformOption), each once: a
// platform's option is built here from its declaration, and checked against the platform when
// the command runs (check_platform_options).
void add_platform_options(CLI::App* cmd, const std::string& command,
                          platform::GivenOptions& given) {
    for (const platform::PlatformKind& k : platform::platform_kinds()) {
        for (const platform::PlatformOption& o : k.options) {
            const std::string flag = "--" + o.name;
            if (std::find(o.commands.begin(), o.commands.end(), command) == o.commands.end() ||
                cmd->get_option_no_throw(flag) != nullptr) {
                continue;  // not this command's, or declared by another kind too
            }
            CLI::Option* opt = nullptr;
            const std::string help = o.help + " (" + k.kind + ")";
            if (o.flag) {
                opt = cmd->add_flag_callback(
                    flag, [&given, name = o.name]() { given.values[name] = "1"; }, help);
            } else {
                opt = cmd->add_option_function<std::string>(
                    flag, [&given, name = o.name](const std::string& v) { given.values[name] = v; },
                    help);
            }
            if (o.existing_file) {
                opt->check(CLI::ExistingFile);
            }
            if (!o.needs.empty()) {
                opt->needs(cmd->get_option("--" + o.needs));
            }
        }
    }
}

CLI::App* add_run(CLI::App& app, RunOptions& run_opts) {
    CLI::App* run = app.add_subcommand(
        "run",
        "Run a model on a platform. With no arguments: our digits CNN (ONNX, trained on "
        "scikit-learn's handwritten digits) compiled for the K210, its accuracy float vs "
        "simulated over 297 held-out digits, and one digit timed on the K210 platform.");
    add_platform(run, run_opts.platform, "Platform YAML file (default: built-in k210)");
    add_set(run, run_opts.set);
    run->add_option("--out", run_opts.out,
                    "Directory for report.json (and trace.json); written whole or not at all");
    run->add_option("--model", run_opts.model, "Model file (kmodel v3 or v4 for the k210 platform)")
        ->check(CLI::ExistingFile);
    run->add_option("--demo", run_opts.demo,
                    "Without --model, the platform's bundled job; on the K210: digits (the "
                    "default: our digits CNN compiled from ONNX) or edges (a blur/Sobel network "
                    "on a synthetic scene, with PNGs)");
    run->add_option("--network", run_opts.network,
                    "A network (layer list YAML) for a DL processor platform, e.g. "
                    "configs/networks/dlp_tiny.yaml")
        ->check(CLI::ExistingFile);
    run->add_option("--input", run_opts.input,
                    "Input: a .npy of the model's input type and shape (uint8 NCHW, or float32 "
                    "for models that take floats), or an image (PNG, JPEG, BMP) for uint8 models")
        ->check(CLI::ExistingFile);
    run->add_option("--script", run_opts.script,
                    "A register script to play on the K210 through the CPU's port (load_mem, "
                    "write_reg, read_reg ADDR MASK EXPECT, wait_irq, compare_mem, dump_mem; "
                    "docs/k210_platform.md), e.g. configs/scripts/kpu_conv3x3/layer.script")
        ->check(CLI::ExistingFile)
        ->excludes(run->get_option("--model"))
        ->excludes(run->get_option("--network"))
        ->excludes(run->get_option("--demo"))
        ->excludes(run->get_option("--input"));
    add_firmware_options(run, run_opts);
    add_platform_options(run, "run", run_opts.platform_options);
    run->add_flag("--dump-all", run_opts.dump_all,
                  "Also write every layer's result into --out as layer_<index>_<type>.npy, "
                  "with its SHA-256 in report.json (K210; timed runs read it at no simulated "
                  "time)");
    run->add_flag("--trace", run_opts.trace,
                  "Also write trace.json (Chrome trace events, Perfetto)");
    run->add_flag("--functional", run_opts.functional,
                  "Values only: run every layer through the same code without SystemC or "
                  "timing (fast; no cycles, no trace)")
        ->excludes(run->get_option("--trace"));
    run->add_flag("--progress", run_opts.progress,
                  "Show the layer progress line on stderr (default: for runs over 0.5 s on a "
                  "terminal)");
    run->add_flag("-v,--verbose", run_opts.verbose, "Print SystemC info messages");
    return run;
}

CLI::App* add_info(CLI::App& app, InfoOptions& info_opts) {
    CLI::App* info = app.add_subcommand("info", "Print a platform's address map and parameters");
    add_platform(info, info_opts.platform, "Platform YAML file (default: built-in k210)");
    add_set(info, info_opts.set);
    info->add_option("--model", info_opts.model,
                     "A kmodel file: print its header and layer table (and what the simulator "
                     "supports) instead of the platform")
        ->check(CLI::ExistingFile);
    return info;
}

CLI::App* add_calibrate(CLI::App& app, CalibrateOptions& o) {
    CLI::App* c = app.add_subcommand(
        "calibrate",
        "Fit the time model's constants to per-layer times measured on a board (CSV: layer, "
        "type, ms) and write them as a calibration YAML a platform config includes");
    c->add_option("--model", o.model, "The program the times were measured on (a kmodel)")
        ->required()
        ->check(CLI::ExistingFile);
    c->add_option("--measured", o.measured, "Measured times: CSV with the columns layer,type,ms")
        ->required()
        ->check(CLI::ExistingFile);
    add_platform(c, o.platform, "Platform YAML file (default: built-in k210)");
    add_set(c, o.set);
    c->add_option("--out", o.out,
                  "Directory for calibration.yaml and calibrate.csv (default: YAML on stdout)");
    return c;
}

CLI::App* add_report(CLI::App& app, ReportOptions& o) {
    CLI::App* r = app.add_subcommand(
        "report", "Draw DIR/report.html again from a run directory's report.json (and trace.json)");
    r->add_option("dir", o.dir, "The --out directory of a run")
        ->required()
        ->check(CLI::ExistingDirectory);
    return r;
}

CLI::App* add_estimate(CLI::App& app, EstimateOptions& est_opts) {
    CLI::App* est = app.add_subcommand(
        "estimate",
        "Estimate cycles, bytes and utilization of layer configurations (YAML sweeps) or of "
        "every layer of a program, with the cost functions of the timed simulation, without "
        "simulating");
    est->add_option("--layers,--sweep", est_opts.layers,
                    "Layer configurations, e.g. configs/k210_layers.yaml, or what the "
                    "platform sweeps for --model (FINN: foldings; DL processor: processor "
                    "parameters, e.g. configs/sweeps/dlp_processor.yaml)")
        ->check(CLI::ExistingFile);
    est->add_option("--model", est_opts.model, "A program, e.g. a kmodel: every layer's cost")
        ->check(CLI::ExistingFile);
    add_platform_options(est, "estimate", est_opts.platform_options);
    add_platform(est, est_opts.platform, "Platform YAML file (default: built-in k210)");
    add_set(est, est_opts.set);
    est->add_option("--out", est_opts.out,
                    "Directory for estimate.csv, estimate.json, report.json and report.html "
                    "(default: CSV on stdout)");
    return est;
}

CLI::App* add_aipp(CLI::App& app, AippOptions& aipp_opts) {
    CLI::App* aipp = app.add_subcommand(
        "aipp",
        "Run one Ascend AIPP load-image job (crop, swap, CSC, data-type conversion, padding) "
        "on an image; with no arguments the built-in job on the built-in scene");
    add_platform(aipp, aipp_opts.platform,
                 "Platform YAML (default: the built-in configs/ascend.yaml: GM, AIPP, L1)");
    add_set(aipp, aipp_opts.set);
    aipp->add_option("--config", aipp_opts.config,
                     "AIPP job YAML (default: the built-in configs/aipp.yaml)")
        ->check(CLI::ExistingFile);
    aipp->add_option("--input", aipp_opts.input,
                     "Image (PNG, JPEG, BMP), .npy in the input format's layout, or raw YUV "
                     "(.yuv/.nv12/.nv21, size from the config's source:)")
        ->check(CLI::ExistingFile);
    aipp->add_option("--out", aipp_opts.out,
                     "Directory for output.npy, output.png and report.json");
    return aipp;
}

CLI::App* add_infer(CLI::App& app, InferOptions& infer_opts) {
    CLI::App* infer = app.add_subcommand(
        "infer", "Run an ONNX model on the float reference evaluator (outputs as .npy)");
    infer->add_option("--onnx", infer_opts.onnx, "ONNX model")
        ->required()
        ->check(CLI::ExistingFile);
    infer->add_option("--input", infer_opts.inputs, "One .npy per graph input, in order")
        ->check(CLI::ExistingFile);
    infer->add_option("--out", infer_opts.out, "Directory for the outputs and report.json");
    infer->add_flag("--dump-all", infer_opts.dump_all, "Also write every node output as .npy");
    return infer;
}

CLI::App* add_compile(CLI::App& app, CompileOptions& compile_opts) {
    CLI::App* compile = app.add_subcommand(
        "compile",
        "Compile an ONNX model for the K210 KPU: calibrate, quantize, fuse, write a kmodel (v3, "
        "or v4 when a layer needs a CPU convolution) and its report (<output>.json)");
    compile->add_option("--target", compile_opts.target, "Target NPU (k210)")
        ->capture_default_str();
    compile->add_option("onnx", compile_opts.onnx, "ONNX model (float)")
        ->required()
        ->check(CLI::ExistingFile);
    compile
        ->add_option("--calibrate", compile_opts.calibrate,
                     "Calibration samples: a .npy (one input or a batch), an image (PNG/JPEG/BMP, "
                     "pixels / 255) or a directory of them")
        ->required()
        ->check(CLI::ExistingPath);
    compile->add_option("-o,--output", compile_opts.output, "The kmodel to write")->required();
    compile
        ->add_option("--kmodel-version", compile_opts.kmodel_version,
                     "auto: v3 (run by the Kendryte SDK itself) unless a layer needs nncase "
                     "v0.2's CPU convolution or pooling, then v4; or 3, 4 to insist")
        ->check(CLI::IsMember({"auto", "3", "4"}))
        ->capture_default_str();
    compile
        ->add_option("--mean", compile_opts.mean,
                     "The model's input = (raw · scale − mean) / std, raw being the samples "
                     "(image pixels 0..255): per channel, comma-separated; recorded in the "
                     "report, so regress applies it too")
        ->delimiter(',');
    compile->add_option("--std", compile_opts.std, "Per channel, comma-separated")->delimiter(',');
    compile->add_option("--scale", compile_opts.scale,
                        "Applied to the raw samples first (default 1 when --mean or --std is "
                        "given)");
    compile
        ->add_option("--channel-order", compile_opts.channel_order,
                     "rgb (the samples' order) or bgr (reversed for the model)")
        ->check(CLI::IsMember({"rgb", "bgr"}));
    return compile;
}

// regress on a kmodel without a compile report: how the ONNX input is made from its input.
void add_regress_preprocessing(CLI::App& regress, RegressOptions& regress_opts) {
    regress
        .add_option("--preprocess", regress_opts.preprocess,
                    "YAML: preprocess {mean, std, scale, channel_order, layout} and match "
                    "[{layer, onnx, scale, zero_point}] (kmodel layers to ONNX tensors)")
        ->check(CLI::ExistingFile);
    regress
        .add_option("--mean", regress_opts.mean,
                    "ONNX input = (raw · scale − mean) / std: "
                    "per channel, comma-separated")
        ->delimiter(',');
    regress.add_option("--std", regress_opts.std, "Per channel, comma-separated")->delimiter(',');
    regress.add_option("--scale", regress_opts.scale,
                       "Applied to the raw input first (e.g. "
                       "0.00392156862745098 for 1/255)");
    regress
        .add_option("--channel-order", regress_opts.channel_order,
                    "rgb (the kmodel's order) or bgr (reversed for the ONNX model)")
        ->check(CLI::IsMember({"rgb", "bgr"}));
    regress.add_option("--layout", regress_opts.layout, "The ONNX input's layout: nchw or nhwc")
        ->check(CLI::IsMember({"nchw", "nhwc"}));
}

CLI::App* add_regress(CLI::App& app, RegressOptions& regress_opts) {
    CLI::App* regress = app.add_subcommand(
        "regress",
        "Compare a program on the simulated platform with its float reference, per layer and "
        "per output: a kmodel on the K210 with its ONNX model, an int8 network on the DL "
        "processor with its float equivalent, a FINN design's streams with its layers' "
        "functions; exit 1 when a tolerance is exceeded");
    regress->add_option("--onnx", regress_opts.onnx, "The float ONNX model (K210)")
        ->check(CLI::ExistingFile);
    regress
        ->add_option("--model", regress_opts.model,
                     "The program: a kmodel, ours (with its compile report) or one built by "
                     "nncase or the SDK tools (then give the preprocessing); a DL processor "
                     "network YAML; a FINN-ONNX design")
        ->required()
        ->check(CLI::ExistingFile);
    regress
        ->add_option("--report", regress_opts.report,
                     "Its compile report (default: <model>.json; without one, the kmodel is "
                     "compared by its outputs, with the preprocessing given)")
        ->check(CLI::ExistingFile);
    add_regress_preprocessing(*regress, regress_opts);
    add_platform_options(regress, "regress", regress_opts.platform_options);
    regress
        ->add_option("--inputs", regress_opts.inputs,
                     "Samples: a .npy (one input or a batch) or a directory of them; images and "
                     "raw .npy values for a kmodel without a compile report (the K210 needs "
                     "them; the DL processor makes pseudo-random ones without)")
        ->check(CLI::ExistingPath);
    regress->add_option("--labels", regress_opts.labels, "Class labels (.npy) for accuracy")
        ->check(CLI::ExistingFile);
    regress->add_option("--out", regress_opts.out,
                        "Directory for report.json, report.txt, junit.xml");
    regress
        ->add_option("--tolerances", regress_opts.tolerances,
                     "YAML with max_lsb, min_cosine, min_top1_agreement")
        ->check(CLI::ExistingFile);
    regress->add_option("--max-lsb", regress_opts.max_lsb,
                        "Largest error per mapped layer, in LSBs of its quantization (default 8)");
    regress->add_option("--min-cosine", regress_opts.min_cosine,
                        "Smallest cosine similarity per layer (default 0.99)");
    regress->add_option("--min-top1", regress_opts.min_top1,
                        "Smallest top-1 agreement of the output (default 0.95)");
    regress->add_flag("--timed", regress_opts.timed,
                      "Also run the first sample on the timed K210 platform: its outputs must "
                      "equal the functional run's bit for bit; per-layer time and cycles are "
                      "reported");
    add_platform(regress, regress_opts.platform,
                 "Platform YAML (default: built-in k210): its CPU arithmetic, and the platform "
                 "--timed runs on");
    add_set(regress, regress_opts.set);
    return regress;
}

CLI::App* add_layout(CLI::App& app, LayoutOptions& layout_opts) {
    CLI::App* layout = app.add_subcommand(
        "layout",
        "Kneron KL730 NPU data layouts: convert an ONNX tensor to the NPU's packed "
        "bytes and back, or explain where each element lands");
    layout->require_subcommand(1, 1);
    for (const char* action : {"to-npu", "to-onnx", "explain"}) {
        CLI::App* sub = layout->add_subcommand(
            action, std::string(action) == "to-npu"    ? "float .npy (ONNX, NCHW) -> NPU .bin"
                    : std::string(action) == "to-onnx" ? "NPU .bin -> float32 .npy (ONNX order)"
                                                       : "print each element's byte, entry and "
                                                         "lane");
        sub->callback([&layout_opts, action] { layout_opts.action = action; });
        sub->add_option("--layout", layout_opts.layout, "e.g. 1W16C8BHL (docs/kl730.md)")
            ->required();
        sub->add_option("--shape", layout_opts.shape, "ONNX shape, e.g. 1,32,7,9")->required();
        sub->add_option("--scale", layout_opts.scale,
                        "scale, or one per channel: 0.5,0.25,... (default 1)");
        sub->add_option("--radix", layout_opts.radix, "radix, or one per channel (default 0)");
        sub->add_option("--axis", layout_opts.axis,
                        "quantized_axis of per-channel parameters (default: 1 when several)");
        sub->add_option("--stride-npu", layout_opts.stride_npu,
                        "the model's stride_npu (default: generated for the layout)");
        if (std::string(action) == "explain") {
            sub->add_option("--limit", layout_opts.limit, "elements to list (default 64)");
        } else {
            sub->add_option("in", layout_opts.in, "input file")
                ->required()
                ->check(CLI::ExistingFile);
            sub->add_option("out", layout_opts.out, "output file")->required();
        }
        if (std::string(action) == "to-onnx") {
            sub->add_flag("--fixed", layout_opts.fixed,
                          "write the fixed-point values (int32 .npy) instead of floats");
        }
    }
    return layout;
}

CLI::App* add_campaign(CLI::App& app, CampaignOptions& o) {
    CLI::App* c = app.add_subcommand(
        "campaign",
        "Many jobs (run, estimate, regress) over the product of named axes in a YAML file, on a "
        "local pool of processes or as shards (e.g. a Slurm array), merged into one JUnit XML, "
        "CSV and JSON (docs/campaigns.md)");
    c->require_subcommand(1, 1);
    CLI::App* plan = c->add_subcommand("plan", "List the jobs and the command each runs");
    plan->callback([&o] { o.action = "plan"; });
    plan->add_option("file", o.file, "Campaign YAML")->required()->check(CLI::ExistingFile);
    CLI::App* run = c->add_subcommand(
        "run", "Run the jobs that have no result yet (resumable), then merge (unless --shard)");
    run->callback([&o] { o.action = "run"; });
    run->add_option("file", o.file, "Campaign YAML")->required()->check(CLI::ExistingFile);
    run->add_option("--out", o.out, "The campaign folder: jobs/, logs/, results/, the merge")
        ->required();
    run->add_option("--jobs", o.jobs, "Worker processes at once (default: every core)")
        ->check(CLI::Range(1, 4096));
    run->add_option("--shard", o.shard, "Only shard i of N (i/N, jobs with id % N == i)");
    run->add_flag("--progress", o.progress, "A progress line with ETA on stderr");
    run->add_option("--backend", o.backend,
                    "local (a pool of processes here, the default) or slurm (one job array; the "
                    "folder must be shared with the nodes)")
        ->check(CLI::IsMember({"local", "slurm"}));
    run->add_option("--shards", o.shards, "slurm: array tasks (default: the jobs, at most 64)")
        ->check(CLI::Range(1, 100000));
    run->add_option("--partition", o.partition, "slurm: sbatch --partition");
    run->add_option("--time", o.time, "slurm: sbatch --time, per task (e.g. 30:00)");
    run->add_option("--mem", o.mem, "slurm: sbatch --mem, per task (e.g. 2G)");
    run->add_flag("--no-wait", o.no_wait,
                  "slurm: return after submitting (prints the job id); merge later with "
                  "npusim campaign merge DIR");
    CLI::App* merge = c->add_subcommand(
        "merge", "Merge the results of campaign folders (shards) into one report");
    merge->callback([&o] { o.action = "merge"; });
    merge->add_option("dirs", o.dirs, "Campaign folders")->required();
    merge->add_option("--out", o.out, "Where the merged files go (default: the first folder)");
    return c;
}

// The program's description, version and examples.
void describe(CLI::App& app) {
    app.set_version_flag("--version",
                         fmt::format("npusim {} (SystemC {})", version(), sc_core::sc_release()));
    app.require_subcommand(1, 1);
    app.footer(
        "Examples:\n"
        "  npusim run --out out          our digits CNN compiled for the K210, run; reports in "
        "out/\n"
        "  npusim run --demo edges --out out   a blur/Sobel K210 network, with PNGs\n"
        "  npusim run --model M.kmodel --input img.png --out out --trace\n"
        "  npusim run --platform configs/selfcheck.yaml    memory/router/DMI self-check\n"
        "  npusim info --platform configs/k210.yaml        address and register maps\n"
        "  npusim info --model M.kmodel                    a kmodel's layers\n"
        "  npusim compile --target k210 m.onnx --calibrate samples.npy -o m.kmodel\n"
        "  npusim regress --onnx m.onnx --model m.kmodel --inputs test.npy --out r\n"
        "  npusim calibrate --model m.kmodel --measured board.csv --out cal   fit to a board\n"
        "  npusim aipp --out out         the built-in Ascend AIPP job on the built-in scene\n"
        "  npusim layout explain --layout 1W16C8BHL --shape 1,32,7,9   KL730 layout map\n"
        "Exit codes: 0 ok, 1 a check failed, 2 bad arguments/config/input, 3 internal error.");
}

// Every subcommand's options; a subcommand and what runs when it was given.
struct Options {
    RunOptions run;
    InfoOptions info;
    EstimateOptions estimate;
    CalibrateOptions calibrate;
    ReportOptions report;
    AippOptions aipp;
    InferOptions infer;
    CompileOptions compile;
    RegressOptions regress;
    LayoutOptions layout;
    CampaignOptions campaign;
    int threads = -1;  // --threads: -1 = not given (NPUSIM_THREADS, else every core)
};

struct Command {
    CLI::App* sub;
    std::function<int()> action;
};

std::vector<Command> commands(CLI::App& app, Options& o) {
    CLI::App* run = add_run(app, o.run);
    return {{run,
             [&o, run] {
                 o.run.semihosting = run->get_option("--semihosting")->count() > 0;
                 return cmd_run(o.run);
             }},
            {add_info(app, o.info),
             [&o] {
                 return cmd_info(o.info);
             }},
            {add_estimate(app, o.estimate),
             [&o] {
                 return cmd_estimate(o.estimate);
             }},
            {add_calibrate(app, o.calibrate),
             [&o] {
                 return cmd_calibrate(o.calibrate);
             }},
            {add_report(app, o.report),
             [&o] {
                 return cmd_report(o.report);
             }},
            {add_aipp(app, o.aipp),
             [&o] {
                 return cmd_aipp(o.aipp);
             }},
            {add_infer(app, o.infer),
             [&o] {
                 return cmd_infer(o.infer);
             }},
            {add_compile(app, o.compile),
             [&o] {
                 return cmd_compile(o.compile);
             }},
            {add_regress(app, o.regress),
             [&o] {
                 return cmd_regress(o.regress);
             }},
            {add_layout(app, o.layout),
             [&o] {
                 return cmd_layout(o.layout);
             }},
            {add_campaign(app, o.campaign), [&o] {
                 return cmd_campaign(o.campaign);
             }}};
}

// Whether `path` is `dir` or lies inside it (both as the file system resolves them).
bool inside(const std::filesystem::path& path, const std::filesystem::path& dir) {
    std::error_code ec;
    const std::filesystem::path p = std::filesystem::weakly_canonical(path, ec);
    if (ec) {
        return false;
    }
    const std::filesystem::path rel = p.lexically_relative(dir);
    return !rel.empty() && *rel.begin() != "..";
}

// A run never writes over its own inputs (docs/reports.md "Output folders"): a value of any option
// of the command (or of its parsed subcommand) that names an existing file or folder inside
// --out DIR is an error before anything runs. `--flash FILE@ADDR` names FILE.
void check_inputs_outside_out(const CLI::App& cmd) {
    for (const CLI::App* sub : cmd.get_subcommands()) {
        check_inputs_outside_out(*sub);
    }
    const CLI::Option* out = cmd.get_option_no_throw("--out");
    if (out == nullptr || out->count() == 0) {
        return;
    }
    std::error_code ec;
    const std::filesystem::path dir = std::filesystem::weakly_canonical(out->as<std::string>(), ec);
    if (ec || !std::filesystem::exists(dir, ec)) {
        return;  // a new folder holds no input
    }
    for (const CLI::Option* o : cmd.get_options()) {
        for (const std::string& v : o == out ? std::vector<std::string>{} : o->results()) {
            for (const std::string& path : {v, v.substr(0, v.rfind('@'))}) {
                if (!path.empty() && std::filesystem::exists(path, ec) && inside(path, dir)) {
                    throw sim::Error(fmt::format(
                        "{} {}: an input inside the output folder {}: give another --out (a run "
                        "replaces its outputs there)",
                        o->get_name(), v, out->as<std::string>()));
                }
            }
        }
    }
}

// Runs a command with the exit-code contract: the user's fault is one line and 2, our bug 3.
int guarded(const std::function<int()>& action) {
    try {
        return action();
    } catch (const sim::Error& e) {
        error_line(e.what());
        return kExitUsage;
    } catch (const sc_core::sc_report& e) {
        // An exception thrown inside a SystemC process reaches us as an sc_report.
        error_line(e.get_msg());
        return kExitUsage;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "npusim: internal error: %s\n", e.what());
        return kExitInternal;
    }
}

}  // namespace

int main(int argc, char** argv) {
    CLI::App app{
        "npusim: a cycle-approximate NPU simulator on SystemC/TLM-2.0.\n"
        "Runs real NPU programs bit-exactly on simulated hardware and reports cycles.",
        "npusim"};
    describe(app);
    Options opts;
    app.add_option("--threads", opts.threads,
                   "Threads inside one inference (0 = every core, the default; results do not "
                   "depend on it). Also NPUSIM_THREADS")
        ->check(CLI::Range(0, 4096));
    app.fallthrough();  // the global option may also follow the subcommand
    const std::vector<Command> cmds = commands(app, opts);
    try {
        app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        error_line(fmt::format("{} (see 'npusim --help')", e.what()));
        return kExitUsage;
    }
    if (opts.threads >= 0) {
        sim::set_threads(opts.threads);
    }
    for (const Command& c : cmds) {
        if (c.sub->parsed()) {
            return guarded([&c] {
                check_inputs_outside_out(*c.sub);
                return c.action();
            });
        }
    }
    return kExitUsage;
}

}  // namespace npu::app
