// The platform face: the one seam between the npusim program and the simulated platforms.
// Each platform (platforms/<soc>/) implements `Platform` and registers one `PlatformKind` under
// the `kind:` its YAML names. The program reads options, calls the face, and writes what comes
// back (stdout, --out files, report.json, trace.json); it never tests a kind and never includes a
// model header. Adding a platform is a folder, one registration (platforms/registry.cpp) and a
// config. docs/architecture.md.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/config.h"
#include "sim/core/run_record.h"
#include "sim/core/trace.h"

namespace npu::platform {

// What the user asked `npusim run` for; a platform reads the parts it takes and refuses, with
// one clear message, the ones it cannot use.
// The options a platform's kind declares (PlatformOption) as given to a command, by name: the
// value, "1" for a flag.
struct GivenOptions {
    std::map<std::string, std::string> values;
    // "" when not given.
    std::string operator()(const std::string& name) const {
        const auto it = values.find(name);
        return it == values.end() ? std::string() : it->second;
    }
    bool has(const std::string& name) const { return values.count(name) != 0; }
};

struct RunRequest {
    std::string model;     // --model: a program file (e.g. a kmodel)
    std::string network;   // --network: a layer list (e.g. a DL processor network YAML)
    std::string input;     // --input: an input tensor or image
    std::string demo;      // no program given: which bundled job
    std::string script;    // --script: a register script to play (platforms that can)
    std::string firmware;  // --firmware: an ELF to run on the platform's CPU (platforms that can)
    std::vector<std::string> firmware_args;     // its arguments (argv[1..])
    uint64_t max_instructions = 2'000'000'000;  // its instruction budget
    bool max_instructions_given = false;        // by the user (else the default above)
    uint64_t max_time_ps = 0;                   // its simulated-time budget (0: none)
    // Semihosting files (the firmware's fopen): reads resolve inside the first folder, writes
    // inside the second; "" refuses them (the console, arguments, clock and exit always work).
    std::string semihost_read_root, semihost_write_root;
    std::string semihost_hint;  // how a user gives the firmware files, for a refusal's message
    int gdb_port = 0;     // --gdb: wait for a debugger on 127.0.0.1:port before running (0: none)
    GivenOptions option;  // the options its kind declares that were given
    // What the firmware prints (source: "console" for semihosting, else the UART), as it prints.
    std::function<void(const std::string& source, const std::string& text)> firmware_output;
    bool functional = false;            // values only, no time
    bool to_files = false;              // --out given: the files are written
    bool dump_all = false;              // every layer's result as a file (platforms that can)
    bool verbose = false;               // SystemC info messages
    sim::TraceWriter* trace = nullptr;  // enabled when --trace was given
    // Called after each layer or step with the steps done so far (a progress line).
    std::function<void(size_t done, size_t total, const std::string& what)> progress;
};

// A file of the output directory.
struct OutputFile {
    std::string name;
    std::vector<uint8_t> bytes;
};

// What a run gives back. The program prints `text`, and with --out writes `files`, then
// report.json (the record's; none without one), then
// `files_after`, layers.csv (the record's), trace.json when tracing and report.html; all or
// nothing.
struct RunReport {
    std::string text;
    std::optional<sim::RunRecord> record;
    std::vector<OutputFile> files;
    std::vector<OutputFile> files_after;
    bool passed = true;  // false: the run found a problem (exit 1)
    // A problem with the user's program or input met after a simulation ran: reported like a
    // thrown sim::Error (one line, exit 2), but returned, because an exception unwinding the main
    // stack after SystemC switched stacks confuses AddressSanitizer.
    std::string error;
};

// A regression's report: its verdict (sim/regress) as the record, `text` printed and written as
// report.txt, passed when every check passed.
RunReport verdict_report(sim::RunRecord verdict, std::string text);

// `npusim estimate`: a file of layer configurations (sweeps, a network) to cost without moving
// data.
struct EstimateRequest {
    std::string layers;     // --layers
    std::string model;      // --model: a program file to cost layer by layer (platforms that can)
    bool to_files = false;  // --out given: the result goes to files rather than stdout
    GivenOptions option;    // the options its kind declares that were given
};

struct EstimateReport {
    std::string text;               // printed on stdout
    std::string note;               // printed on stderr (host time, counts)
    std::vector<OutputFile> files;  // written into --out
    // The estimate as a record: a program's (its layers, engines and totals: report.json,
    // layers.csv and the page drawn like a run's) or a sweep's (its totals, `rows` the file of
    // configurations and `plot` what the page draws from it). None: no report.json.
    std::optional<sim::RunRecord> record;
};

// `npusim compile`: an ONNX model into the platform's program format.
// How the float model's input is made from the input the program takes (a vendor-compiled
// program folds this into its first layer): x = (raw[channel] · scale − mean[c]) / std[c], the
// channels reversed for "bgr", laid out "nchw" or "nhwc". Empty mean/std: 0 and 1.
struct Preprocessing {
    std::vector<double> mean, std;
    double scale = 1;
    std::string channel_order = "rgb";
    std::string layout = "nchw";
};

struct CompileRequest {
    std::string onnx;       // the float model
    std::string calibrate;  // samples: a .npy, an image or a directory of them
    std::string output;     // the program file to write
    std::string version;    // the program format's version ("auto" or a number)
    // How the model's input is made from the raw samples (images: pixels 0..255); empty
    // `pre_given`: none (images are pixels / 255, .npy as they are).
    Preprocessing pre;
    std::vector<std::string> pre_given;
};

// Files to write in place (atomically each), and what to print.
struct CompileReport {
    std::string text;
    std::vector<std::pair<std::string, std::vector<uint8_t>>> files;  // path, bytes
};

// `npusim regress`: a compiled program on the platform against its float ONNX model.
struct RegressRequest {
    std::string onnx, model;  // the float reference and the compiled program
    std::string report;       // the compile report (empty: <model>.json)
    std::string inputs;       // samples: a .npy or a directory of them
    std::string labels;       // optional class labels (.npy)
    std::string tolerances;   // optional YAML: max_lsb, min_cosine, min_top1_agreement
    GivenOptions option;      // the options its kind declares that were given
    double max_lsb = -1, min_cosine = -1, min_top1 = -1;  // < 0: from the file or the default
    bool timed = false;                                   // also a timed run of the first sample
    // A program we did not compile (no compile report): its preprocessing, from `preprocess` (a
    // YAML file, which may also match layers to ONNX tensors) and the command line (`pre`, whose
    // fields given override the file's: `pre_given` names them).
    std::string preprocess;
    Preprocessing pre;
    std::vector<std::string> pre_given;
};

// `npusim calibrate`: a program and the times a board measured for its layers.
struct CalibrateRequest {
    std::string model;      // the program the times came from
    std::string measured;   // CSV: layer, type, ms
    bool to_files = false;  // --out given
};

class Platform {
public:
    virtual ~Platform() = default;
    // `npusim info`: the platform as its config builds it (address map, registers, parameters).
    virtual std::string describe() const = 0;
    // `npusim info --model FILE`: a program's table (layers, and which ones the platform runs);
    // the default refuses with a message naming the platform.
    virtual std::string describe_program(const std::string& path) const;
    // `npusim run`. Throws sim::Error for the user's mistakes (a bad program, input or option).
    virtual RunReport run(const RunRequest& request) = 0;
    // `npusim estimate`; the default refuses with a message naming the platform.
    virtual EstimateReport estimate(const EstimateRequest& request) const;
    // `npusim compile` and `npusim regress`; the defaults refuse with a message naming the kind.
    virtual CompileReport compile(const CompileRequest& request) const;
    virtual RunReport regress(const RegressRequest& request) const;
    // `npusim calibrate`; the default refuses with a message naming the kind.
    // The fit as a run's report: what to print, the files for --out (the calibration YAML), the
    // record (command "calibrate": a layer per measured row with the board's and the model's
    // times before and after, the largest errors as totals, the fit's notes) and, as
    // RunReport::error, a problem met after a simulation ran.
    virtual RunReport calibrate(const CalibrateRequest& request) const;
    // Checks that span keys, after the whole file was read without problems; throws sim::Error.
    virtual void check() const {}

    const std::string& source() const { return m_source; }  // the YAML it was read from
    const std::string& kind() const { return m_kind; }

protected:
    Platform(std::string kind, std::string source)
        : m_kind(std::move(kind))
        , m_source(std::move(source)) {}

private:
    std::string m_kind;
    std::string m_source;
};

// An option of `npusim run`, `estimate` or `regress` that a platform kind declares: the program
// puts it on those commands' lines (its help, a flag or a value, the file check, the option it
// needs) and passes what was given to the platform (the request's `option`); given for another
// platform, it is refused naming the kinds that take it; given without --platform, the kind's
// built-in config is loaded. Adding such an option touches only its platform.
struct PlatformOption {
    std::string name;  // without the dashes, e.g. "uart-input"
    std::string help;
    bool existing_file = false;                // the value names a file that must exist
    std::string needs;                         // an option it needs, without the dashes ("": none)
    bool flag = false;                         // takes no value (given: "1")
    std::vector<std::string> commands{"run"};  // the commands that take it
};

// One platform kind: how to build a Platform from the `platform:` map of a YAML file. `read`
// records problems in the document (the loader calls finish() afterwards, then `validate`).
struct PlatformKind {
    std::string kind;     // the `kind:` value
    std::string summary;  // one line for --help and error messages
    std::function<std::unique_ptr<Platform>(const sim::ConfigNode& platform,
                                            const std::string& source)>
        read;
    bool plays_scripts = false;  // its run() takes RunRequest::script (npusim run --script)
    bool runs_firmware = false;  // its run() takes RunRequest::firmware (npusim run --firmware)
    // Its built-in config (configs/<file>), loaded when one of its options is given without
    // --platform (e.g. --folding: "finn.yaml"); empty: none.
    std::string builtin_config{};
    std::vector<PlatformOption> options{};  // its own options of run, estimate and regress
};

// Every registered kind, the built-in ones first (platforms/registry.cpp, library
// npusim_platforms).
const std::vector<PlatformKind>& platform_kinds();
// Adds a kind (tests add their own); a kind registered twice is our bug.
void register_platform(PlatformKind kind);

// Reads a platform YAML (`text` named `source` in messages) through its kind's reader; throws
// sim::Error listing every problem in the file at once, including an unknown or missing kind.
// `settings` ("KEY=VALUE", KEY a path under platform:, e.g. "kpu.clock_hz=200MHz") replace the
// file's values first, in order (npusim --set; docs/config.md); the platform's source() names
// them after the file.
std::unique_ptr<Platform> load_platform(const std::string& text, const std::string& source,
                                        const std::vector<std::string>& settings = {});
std::unique_ptr<Platform> load_platform_file(const std::string& path,
                                             const std::vector<std::string>& settings = {});

}  // namespace npu::platform
