// The npusim command line: subcommands, their options, and the exit-code contract
// (0 success, 1 the run found a problem (e.g. a failed check), 2 bad arguments/config/input,
// 3 internal error).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "platforms/common/platform_face.h"
#include "platforms/kl730/layout_tool.h"

namespace npu::app {

constexpr int kExitOk = 0;
constexpr int kExitCheckFailed = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInternal = 3;

const char* version();

struct RunOptions {
    std::string platform;          // YAML file; empty = the built-in default
    std::vector<std::string> set;  // --set KEY=VALUE: platform settings over the file's
    std::string model;             // kmodel file (k210 platform)
    std::string network;           // network YAML (dlp platform)
    std::string input;             // input tensor (.npy, u8 NCHW)
    std::string out;               // output directory; empty = print only
    std::string demo;              // no --model: which bundled job (empty: the platform's default)
    std::string script;            // --script: a register script (K210)
    std::string firmware;          // --firmware: a RISC-V ELF to run on the SoC (K210)
    std::vector<std::string> firmware_args;  // after --: the firmware's argv[1..]
    uint64_t max_instructions = 0;  // --max-instructions: the firmware's budget (0: not given)
    std::string max_time;      // --max-time: its simulated-time budget, a duration with its unit
    int gdb_port = 0;          // --gdb PORT: debug the firmware with GDB (0: no debugger)
    bool semihosting = false;  // --semihosting[=DIR]: the firmware may open files
    std::string semihost_dir;  // its DIR: reads and writes there (else: . and --out DIR/files)
    // The options platforms declare (platform::PlatformOption: e.g. the K210's --uart-input,
    // FINN's --folding), by name.
    platform::GivenOptions platform_options;
    bool trace = false;       // write trace.json (Chrome trace events) into --out
    bool functional = false;  // values only: no SystemC, no time (k210)
    bool dump_all = false;    // every layer's result into --out (k210)
    bool progress = false;    // always show the progress line (else: long runs on a terminal)
    bool verbose = false;
};

struct InfoOptions {
    std::string platform;
    std::vector<std::string> set;  // --set KEY=VALUE over the platform file
    std::string model;             // kmodel file: print its layer table instead of the platform
};

struct EstimateOptions {
    std::string platform;          // YAML file; empty = the built-in k210.yaml
    std::vector<std::string> set;  // --set KEY=VALUE over the platform file
    std::string layers;            // layer configurations (YAML)
    std::string model;             // or a program file (e.g. a kmodel), costed layer by layer
    platform::GivenOptions platform_options;  // e.g. FINN's --folding
    std::string out;  // directory for estimate.csv/.json; empty = CSV on stdout
};

struct CalibrateOptions {
    std::string platform;          // YAML file; empty = the built-in k210.yaml
    std::vector<std::string> set;  // --set KEY=VALUE over the platform file
    std::string model;             // the program the times were measured on
    std::string measured;          // CSV: layer, type, ms
    std::string out;  // directory for calibration.yaml and calibrate.csv; empty = stdout
};

struct ReportOptions {
    std::string dir;  // a run's --out directory (report.json, maybe trace.json)
};

struct AippOptions {
    std::string platform;          // platform YAML; empty = the built-in configs/ascend.yaml
    std::vector<std::string> set;  // --set KEY=VALUE over the platform file
    std::string config;            // AIPP job YAML; empty = the built-in configs/aipp.yaml
    std::string input;             // image, .npy or raw YUV; empty = the built-in scene
    std::string out;               // output directory; empty = print only
};

// `npusim layout`: the options are the KL730 layout tool's request.
using LayoutOptions = kl730::LayoutRequest;

struct InferOptions {
    std::string onnx;                 // model
    std::vector<std::string> inputs;  // one .npy per graph input, in order
    std::string out;                  // directory for outputs and report.json
    bool dump_all = false;            // also every node output
};

// The preprocessing fields given on a command line (empty / < 0: not given) as a request's
// Preprocessing and the names of the fields given (compile and regress).
void given_preprocessing(const std::vector<double>& mean, const std::vector<double>& std,
                         double scale, const std::string& channel_order, const std::string& layout,
                         platform::Preprocessing& pre, std::vector<std::string>& given);

struct CompileOptions {
    std::string target = "k210";
    std::string onnx;                     // float model
    std::string calibrate;                // .npy file or directory of .npy samples
    std::string output;                   // kmodel path; the report goes to <output>.json
    std::string kmodel_version = "auto";  // auto, 3 or 4
    // The model's input from raw samples: (raw · scale − mean) / std; unset when empty / < 0.
    std::vector<double> mean, std;
    double scale = -1;
    std::string channel_order;
};

struct RegressOptions {
    std::string onnx, model;  // the float reference and the compiled kmodel
    std::string report;       // compile report JSON; empty = <model>.json
    std::string inputs;       // .npy file or directory of samples
    std::string labels;       // optional .npy of class labels (accuracy)
    std::string out;          // directory for report.json, junit.xml, report.txt
    std::string tolerances;   // optional YAML: max_lsb, min_cosine, min_top1_agreement
    platform::GivenOptions platform_options;              // e.g. FINN's --folding
    double max_lsb = -1, min_cosine = -1, min_top1 = -1;  // < 0: from the file or the default
    bool timed = false;            // also run the first sample on the timed platform
    std::string platform;          // the platform YAML (empty: the built-in k210)
    std::vector<std::string> set;  // --set KEY=VALUE over the platform file
    // A kmodel without a compile report: how the ONNX input is made from the kmodel's input
    // (empty / negative: not given on the command line).
    std::string preprocess;  // YAML: preprocess: {mean, std, scale, channel_order, layout}, match:
    std::vector<double> mean, std;
    double scale = -1;
    std::string channel_order, layout;
};

// npusim campaign plan|run|merge (docs/campaigns.md).
struct CampaignOptions {
    std::string action;  // plan | run | merge
    std::string file;    // the campaign YAML (plan, run)
    std::string out;     // the campaign folder (run), or where merge writes (default: dirs[0])
    std::vector<std::string> dirs;  // merge: campaign folders (shards)
    size_t jobs = 0;                // run: worker processes (0: every core)
    std::string shard;              // run: "i/N"
    bool progress = false;
    std::string backend = "local";  // run: local | slurm
    size_t shards = 0;              // slurm: array tasks (0: the jobs, at most 64)
    std::string partition, time, mem;
    bool no_wait = false;
};

// "npusim: error: <what>" on stderr: the one line of a user's mistake (exit kExitUsage).
void error_line(const std::string& what);

int cmd_run(const RunOptions& opts);
int cmd_compile(const CompileOptions& opts);
// The command's work without its printing and writing (the Python package calls these too):
// the compiled program and report as files to write, the regression's request, the float
// reference's outputs (files output_*.npy, node_*.npy with dump_all) and record.
platform::CompileReport compile_model(const CompileOptions& opts);
platform::RegressRequest regress_request(const RegressOptions& opts);
platform::RunReport infer_report(const InferOptions& opts);
int cmd_regress(const RegressOptions& opts);
int cmd_infer(const InferOptions& opts);
int cmd_layout(const LayoutOptions& opts);
int cmd_aipp(const AippOptions& opts);
int cmd_info(const InfoOptions& opts);
int cmd_estimate(const EstimateOptions& opts);
int cmd_calibrate(const CalibrateOptions& opts);
int cmd_report(const ReportOptions& opts);
int cmd_campaign(const CampaignOptions& opts);

// Parses argv and runs the chosen subcommand; never throws.
int main(int argc, char** argv);

}  // namespace npu::app
