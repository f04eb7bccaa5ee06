#include "platforms/k210/k210_face.h"

#include <chrono>
#include <cstring>
#include <iterator>
#include <memory>

#include <fmt/format.h>

#include "models/k210_kpu/kpu_func.h"
#include "models/k210_kpu/kpu_layer_args.h"
#include "models/k210_kpu/kpu_layout.h"
#include "platforms/k210/compiler/compiler.h"
#include "platforms/k210/estimate.h"
#include "platforms/k210/estimate_model.h"
#include "platforms/k210/firmware/firmware_run.h"
#include "platforms/k210/k210_run.h"
#include "platforms/k210/k210_script.h"
#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "platforms/k210/regress_common.h"
#include "platforms/k210/soc/k210_platform.h"
#include "sim/core/error.h"
#include "sim/core/image.h"
#include "sim/core/json_text.h"
#include "sim/core/npy.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"
#include "sim/onnx/samples.h"
#include "sim/tlm/kernel.h"

namespace npu::k210 {

namespace {

// A KPU layer's input and output lines of KPU RAM: "0-3599 -> 3600-9359".
std::string kpu_ram_span(const kpu::LayerArgs& a) {
    const kpu::FmapGeometry in = kpu::input_geometry(a), out = kpu::output_geometry(a);
    const uint64_t li = kpu::fmap_lines(in.channels, in.width, in.height);
    const uint64_t lo = kpu::fmap_lines(out.channels, out.width, out.height);
    return fmt::format("{}-{} -> {}-{}", a.image_src_addr, a.image_src_addr + li - 1,
                       a.image_dst_addr, a.image_dst_addr + lo - 1);
}

bool ends_with(const std::string& s, const char* suffix) {
    const size_t n = std::strlen(suffix);
    return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}

// .npy as it is; an image decoded to RGB and resized (cv2.resize INTER_LINEAR) to the model's
// input, saying so.
sim::Tensor read_input(const std::string& path, const Kmodel& m, std::string& conversion) {
    const sim::Shape want = model_input_shape(m);
    if (ends_with(path, ".npy")) {
        conversion = "none (.npy used as is)";
        return sim::read_npy(path);
    }
    if (model_input_dtype(m) != sim::DType::u8) {
        throw sim::Error(fmt::format("{}: the model takes {} input {}; give it as a .npy file",
                                     path, sim::dtype_name(model_input_dtype(m)),
                                     sim::shape_str(want)));
    }
    sim::Tensor img = sim::read_image(path);
    if (want[1] != 3) {
        throw sim::Error(fmt::format("{}: the model expects {} input channels; images give 3 (RGB)",
                                     path, want[1]));
    }
    conversion = fmt::format("decoded to RGB uint8 {}x{}", img.dim(3), img.dim(2));
    if (img.dim(2) != want[2] || img.dim(3) != want[3]) {
        img = sim::resize_linear(img, want[2], want[3]);
        conversion += fmt::format(", resized to {}x{} (OpenCV INTER_LINEAR)", want[3], want[2]);
    }
    conversion += ", NCHW, no normalization (the model's first layer folds its zero point)";
    return img;
}

std::string io_str(const KmodelIo& io) {
    static const char* const kMem[] = {"const", "main", "kpu"};
    return fmt::format("{} {}x{}x{}x{} at {}+{:#x} ({} bytes)",
                       io.range.datatype == kFloat32 ? "f32" : "u8", io.shape[0], io.shape[1],
                       io.shape[2], io.shape[3], kMem[io.range.memory_type], io.range.start,
                       io.range.size);
}

}  // namespace

K210Face::K210Face(K210Config cfg, std::string source)
    : Platform("k210", std::move(source))
    , m_cfg(std::move(cfg)) {
}

// The SoC is elaborated (not simulated) so that the map printed is the router's own.
std::string K210Face::describe() const {
    sim::install_report_handler();
    sim::TraceWriter trace(false);
    K210Platform soc("k210", m_cfg, trace);
    const K210Config& c = m_cfg;
    std::string s = fmt::format("platform {} (k210), from {}\n", c.platform.name, source());
    auto it = std::back_inserter(s);
    fmt::format_to(
        it, "clocks: KPU {}, CPU {}, CPU bus {}, DMAC bus {}\n",
        sim::format_frequency(c.kpu.timing.clock_hz), sim::format_frequency(c.cpu.clock_hz),
        sim::format_frequency(c.platform.bus.clock_hz), sim::format_frequency(c.dmac.bus.clock_hz));
    fmt::format_to(it, "\naddress map:\n{}", soc.address_map().table());
    fmt::format_to(it,
                   "\nblocks and their interrupts (platform.devices; a firmware run maps every "
                   "modelled one):\n{}",
                   c.devices.table());
    fmt::format_to(it, "\nKPU registers at {:#x} (kpu_config_t):\n{}", c.kpu_base_addr,
                   soc.kpu.register_map());
    fmt::format_to(it,
                   "\nKPU: layer FIFO {} words, strict {}, IRQ to PLIC {}; DMAC channel {} drains "
                   "FIFO_DATA_OUT (SYSCTL DMA select 22)\n",
                   c.kpu.layer_fifo_words, c.kpu.strict ? "on" : "off", c.devices.at("kpu").irq,
                   c.dma_channel);
    return s;
}

// A kmodel's header and layer table, with what the simulator supports.
std::string K210Face::describe_program(const std::string& path) const {
    const Kmodel m = load_kmodel(path);
    std::string s;
    auto it = std::back_inserter(s);
    fmt::format_to(it, "{}: kmodel v{} ({}), {} bytes, {}-bit KPU, main memory {} bytes\n", path,
                   m.version, m.version == 3 ? "nncase v0.1, Kendryte SDK" : "nncase v0.2",
                   m.bytes.size(), m.eight_bit ? 8 : 16, m.main_mem_bytes);
    for (size_t i = 0; i < m.inputs.size(); ++i) {
        fmt::format_to(it, "input {}: {}\n", i, io_str(m.inputs[i]));
    }
    for (size_t i = 0; i < m.outputs.size(); ++i) {
        fmt::format_to(it, "output {}: {}\n", i, io_str(m.outputs[i]));
    }
    fmt::format_to(it, "\n{:>4}  {:<28} {:>10} {:>8}  {:<28} {}\n", "#", "layer", "body at",
                   "bytes", "KPU RAM lines in -> out", "KPU shape");
    size_t conv = 0, unsupported = 0;
    for (size_t i = 0; i < m.layers.size(); ++i) {
        const KmodelLayer& l = m.layers[i];
        std::string shape, ram;
        if (conv < m.convs.size() && m.convs[conv].layer_index == i) {
            const kpu::LayerArgs& a = m.convs[conv++].args;
            shape = kpu::shape_summary(a);
            ram = kpu_ram_span(a);
        }
        const bool ok = layer_supported(m.version, l.type);
        unsupported += ok ? 0 : 1;
        fmt::format_to(it, "{:>4}  {:<28} {:>#10x} {:>8}  {:<28} {}{}\n", i,
                       fmt::format("{} ({:#x})", l.type_name, l.type), l.body_offset, l.body_size,
                       ram, shape, ok ? "" : "(not supported)");
    }
    fmt::format_to(it, "\n{} layers, {} on the KPU, {} not supported by the simulator\n",
                   m.layers.size(), m.convs.size(), unsupported);
    if (unsupported == 0) {
        // Every size and field a layer body declares is checked when it runs: run them all once,
        // values only, on a zero input, so a body the simulator refuses is reported here too.
        run_functional(m, sim::Tensor(model_input_dtype(m), model_input_shape(m)));
        fmt::format_to(it, "check: every layer runs (functional, on a zero input)\n");
    }
    return s;
}

platform::RunReport K210Face::run(const platform::RunRequest& request) {
    if (!request.script.empty()) {
        return run_script(m_cfg, source(), request);
    }
    if (!request.firmware.empty()) {
        return run_firmware(m_cfg, source(), request);
    }
    // No --model: a bundled job. `digits` (default): our digits CNN compiled from ONNX;
    // `edges`: a blur/Sobel network written with our kmodel writer, on a synthetic scene.
    if (!request.network.empty()) {
        throw sim::Error(source() +
                         ": --network is for a DL processor platform; the K210 runs "
                         "--model M.kmodel");
    }
    const bool bundled = request.model.empty();
    const std::string bundled_job =
        request.demo.empty() ? "digits" : request.demo;  // the default job
    if (bundled && bundled_job != "digits" && bundled_job != "edges") {
        throw sim::Error(fmt::format("--demo {}: expected digits or edges", bundled_job));
    }
    if (!bundled && request.input.empty()) {
        throw sim::Error(
            "--model needs --input FILE (.npy uint8 NCHW, or an image: PNG, JPEG, BMP)");
    }
    std::unique_ptr<DigitsDemo> digits;
    std::unique_ptr<DemoModel> demo;
    K210Job job;
    job.cfg = &m_cfg;
    job.source = source();
    job.model_file = request.model;
    if (bundled && bundled_job == "digits") {
        digits = std::make_unique<DigitsDemo>(run_digits(m_cfg));
        job.model = parse_kmodel(digits->compiled.kmodel, "<built-in digits.kmodel>");
        job.input = digits->input;
        job.conversion = digits->conversion;
        job.input_name = "<built-in held-out digit 0>";
        job.digits = digits.get();
    } else if (bundled) {
        demo = std::make_unique<DemoModel>(build_demo_model());
        job.model = parse_kmodel(demo->kmodel, "<built-in demo.kmodel>");
        job.input = demo->input;
        job.conversion = "none (built-in scene)";
        job.input_name = "<built-in scene>";
        job.demo = demo.get();
    } else {
        job.model = load_kmodel(request.model);
        job.input = read_input(request.input, job.model, job.conversion);
        job.input_name = request.input;
    }
    return request.functional ? run_values_only(job, request) : run_timed(job, request);
}

namespace {

// A sweep's record: its totals, the rows file (estimate.json with --out) and what to plot.
sim::RunRecord sweep_record(const K210Config& cfg, const std::string& source,
                            const platform::EstimateRequest& request, size_t configurations,
                            size_t invalid) {
    sim::RunRecord rec;
    rec.command = "estimate", rec.mode = "sweep";
    rec.platform = {"k210",
                    cfg.platform.name,
                    source,
                    {{"kpu_clock_hz", static_cast<double>(cfg.kpu.timing.clock_hz), "Hz"}}};
    rec.program = {request.layers, "layer sweep", {}};
    rec.totals = {{"configurations", static_cast<double>(configurations), ""},
                  {"invalid", static_cast<double>(invalid), ""}};
    rec.rows = request.to_files ? "estimate.json" : "";
    rec.plot = sim::SweepPlot{"name",
                              {"in_channels", "out_channels", "width", "height", "kernel",
                               "depthwise", "pool", "weight_bits"},
                              {{"total_cycles", "KPU cycles per layer"},
                               {"utilization", "utilization: MACs / (576 · cycles)"}},
                              "",
                              {},
                              {}};
    return rec;
}

}  // namespace

platform::EstimateReport K210Face::estimate(const platform::EstimateRequest& request) const {
    if (!request.model.empty() && !request.layers.empty()) {
        throw sim::Error(source() +
                         ": a K210 estimate takes --layers FILE or --model FILE, not both");
    }
    if (!request.model.empty()) {
        return estimate_program(request);
    }
    sim::ConfigDocument doc = sim::ConfigDocument::load_file(request.layers);
    const std::vector<Sweep> sweeps = read_sweeps(doc.root());
    doc.finish();
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<EstimateRow> rows = k210::estimate(sweeps, fetch_timing(m_cfg));
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const uint64_t hz = m_cfg.kpu.timing.clock_hz;
    platform::EstimateReport rep;
    const std::string csv = to_csv(rows, hz);
    if (request.to_files) {
        const std::string json = sim::json_text(to_json(rows, hz), 1) + "\n";
        rep.files.push_back({"estimate.csv", {csv.begin(), csv.end()}});
        rep.files.push_back({"estimate.json", {json.begin(), json.end()}});
    } else {
        rep.text = csv;
    }
    size_t invalid = 0;
    for (const EstimateRow& r : rows) {
        invalid += r.error.empty() ? 0u : 1u;
    }
    rep.record = sweep_record(m_cfg, source(), request, rows.size(), invalid);
    rep.note =
        fmt::format("estimated {} configurations ({} not valid KPU layers) in {:.1f} ms at {}",
                    rows.size(), invalid, ms, sim::format_frequency(hz));
    return rep;
}

// A kmodel's every layer costed as the timed run charges it (estimate_model.h).
platform::EstimateReport K210Face::estimate_program(
    const platform::EstimateRequest& request) const {
    const Kmodel m = load_kmodel(request.model);
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<ModelEstimateRow> rows = estimate_model(m, m_cfg);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    platform::EstimateReport rep;
    rep.text = fmt::format("{} (kmodel v{}) on {} ({})\n\n", m.name, m.version, m_cfg.platform.name,
                           source()) +
               model_estimate_table(rows);
    if (request.to_files) {
        const std::string csv = model_estimate_csv(rows);
        const std::string json = sim::json_text(model_estimate_json(rows), 1) + "\n";
        rep.files.push_back({"estimate.csv", {csv.begin(), csv.end()}});
        rep.files.push_back({"estimate.json", {json.begin(), json.end()}});
    }
    rep.record = model_estimate_record(rows, m_cfg);
    rep.record->platform = {"k210",
                            m_cfg.platform.name,
                            source(),
                            {{"kpu_clock_hz", static_cast<double>(m_cfg.kpu.timing.clock_hz), "Hz"},
                             {"cpu_clock_hz", static_cast<double>(m_cfg.cpu.clock_hz), "Hz"}}};
    rep.record->program = {request.model, fmt::format("kmodel v{}", m.version), {}};
    rep.note = fmt::format("estimated {} layers in {:.1f} ms", rows.size(), ms);
    return rep;
}

// An ONNX model, calibrated on sample inputs, into a kmodel v3, or v4 when a layer needs nncase
// v0.2's CPU nodes (compiler.h), with its report beside it as JSON.
platform::CompileReport K210Face::compile(const platform::CompileRequest& request) const {
    const onnx::Graph g = onnx::import_model(request.onnx, {onnx::supported_ops(), true});
    if (g.inputs.size() != 1) {
        throw sim::Error(fmt::format("{}: {} inputs; the K210 compiler takes one", request.onnx,
                                     g.inputs.size()));
    }
    CompileOptions co;
    co.model_name = request.onnx;
    if (request.version != "auto" && request.version != "3" && request.version != "4") {
        throw sim::Error(
            fmt::format("--kmodel-version {}: expected auto, 3 or 4", request.version));
    }
    co.kmodel_version = request.version == "auto" ? 0 : std::stoi(request.version);
    // With a preprocessing, the samples are raw (image pixels 0..255) and the model's input is
    // made from them; it is recorded in the report, so regress makes its inputs the same way.
    const bool pre = !request.pre_given.empty();
    for (onnx::Value& v :
         onnx::read_samples(request.calibrate, g.inputs[0].shape, pre ? 1.0 : 1.0 / 255)) {
        co.calibration.push_back(
            {{g.inputs[0].name,
              pre ? regress::onnx_input(v, request.pre, g.inputs[0]) : std::move(v)}});
    }
    const CompiledModel m = compile_k210(g, co);
    nlohmann::ordered_json report = compile_report_json(m);
    if (pre) {
        report["preprocess"] = regress::preprocessing_json(request.pre);
    }
    const std::string json = sim::json_text(report, 2) + "\n";
    platform::CompileReport r;
    r.files.push_back({request.output, m.kmodel});
    r.files.push_back({request.output + ".json", {json.begin(), json.end()}});
    r.text = fmt::format("{} -> {} (calibrated on {} samples{})\n{}", request.onnx, request.output,
                         co.calibration.size(),
                         pre ? "; input " + regress::preprocessing_formula(request.pre) : "",
                         compile_report(m));
    r.text += fmt::format("wrote {} and {}.json\n", request.output, request.output);
    return r;
}

platform::PlatformKind k210_platform_kind() {
    platform::PlatformKind k{
        "k210", "Kendryte K210: KPU, DMAC, SRAM; runs kmodels v3/v4 (configs/k210.yaml)",
        [](const sim::ConfigNode& p, const std::string& source) {
            return std::make_unique<K210Face>(read_k210_config(p), source);
        },
        true,   // npusim run --script: register scripts on the SoC
        true};  // npusim run --firmware: RISC-V firmware on the SoC
    // What the chip's outside world gives a firmware (docs/firmware.md).
    k.options = {
        {"uart-input",
         "With --firmware: bytes a UART receives, [PORT=]FILE (uart1-3; default uart3, the "
         "SDK's console), arriving at its line rate from when the firmware sets its baud rate",
         false, "firmware"},
        {"pin-input",
         "With --firmware: levels applied to the chip's pads from outside over time, a text file "
         "of '<time> io<N> <0|1|z>' lines (e.g. '5ms io26 0': a key pressed)",
         true, "firmware"},
        {"camera",
         "With --firmware: the scene in front of the board's camera: an image, a folder of images "
         "(the next one for each frame the DVP captures) or a video file; the sensor is the "
         "platform's camera.sensor (default: the built-in test scene)",
         false, "firmware"},
        {"flash",
         "With --firmware: the board's 16 MiB SPI3 flash holds FILE at OFFSET (FILE[@OFFSET], "
         "offset decimal or 0x hex; default 0); erased (0xFF) elsewhere",
         false, "firmware"},
        {"lcd-every",
         "With --firmware: write every Nth LCD frame as lcd/NNNN.png (0, N, 2N...; default 1: "
         "all); lcd/frames.txt and report.json list every frame",
         false, "firmware"},
        {"max-frames",
         "With --firmware: end the run when N LCD frames are finished (the run passes: the "
         "demos never exit)",
         false, "firmware"}};
    return k;
}

}  // namespace npu::k210
