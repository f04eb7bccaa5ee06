#include "platforms/dlp/dlp_face.h"

#include <algorithm>
#include <cmath>
#include <iterator>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "models/dlp/dlp_exec.h"
#include "platforms/dlp/dlp_estimate.h"
#include "platforms/dlp/dlp_platform.h"
#include "platforms/dlp/dlp_sweep_report.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/json_text.h"
#include "sim/core/npy.h"
#include "sim/core/version.h"
#include "sim/tlm/kernel.h"

namespace npu::dlp {

namespace {

// A network file read, checked, its parameters filled and compiled for this processor: the one
// sequence `run` and `estimate` share.
struct Compiled {
    NetworkFile file;
    Program program;
};

// --mean/--std on run and estimate: one number, or one per channel, separated by commas.
std::vector<float> channel_values(const platform::GivenOptions& given, const char* name) {
    const std::string text = given(name);
    std::vector<float> out;
    for (size_t at = 0; !text.empty() && at <= text.size();) {
        const size_t comma = std::min(text.find(',', at), text.size());
        std::string why;
        const std::optional<double> v = sim::parse_f64(text.substr(at, comma - at), why);
        if (!v || !std::isfinite(*v)) {
            throw sim::Error(
                fmt::format("--{} {}: expected numbers separated by commas", name, text));
        }
        out.push_back(static_cast<float>(*v));
        at = comma + 1;
    }
    return out;
}

template <typename Request>
Compiled compile_network(const std::string& path, const DlpPlatformConfig& cfg,
                         const Request& request, bool time_only) {
    Compiled c{
        load_network(path, cfg, request.option("calibrate"), time_only,
                     channel_values(request.option, "mean"), channel_values(request.option, "std")),
        {}};
    CompileOptions co;
    co.ddr_base_addr = cfg.ddr_base_addr;
    co.frames = c.file.frames;
    c.program = compile(c.file.network, cfg.dlp, co);
    return c;
}

std::vector<uint8_t> format_frame(const void* values, size_t per, const Network& n,
                                  const DlpConfig& cfg) {
    if (cfg.data_type == DataType::single) {
        const auto* p = static_cast<const float*>(values);
        return format_activation(std::vector<float>(p, p + per), n.input, cfg);
    }
    const auto* p = static_cast<const int8_t*>(values);
    return format_activation(std::vector<int8_t>(p, p + per), n.input, cfg);
}

// One input image per frame: the .npy (Z, H, W) or (frames, Z, H, W), or pseudo-random values
// from the network's seed (single: uniform −1..1; int8: −127..127).
std::vector<std::vector<uint8_t>> inputs(const std::string& path, const NetworkFile& f,
                                         const DlpConfig& cfg, std::string& described) {
    const Network& n = f.network;
    const bool single = cfg.data_type == DataType::single;
    const size_t per = static_cast<size_t>(n.input.z * n.input.h * n.input.w);
    std::vector<std::vector<uint8_t>> images;
    if (path.empty()) {
        std::mt19937 rng(f.seed);
        for (uint32_t k = 0; k < f.frames; ++k) {
            std::vector<float> x(per);
            std::vector<int8_t> q(per);
            for (size_t i = 0; i < per; ++i) {
                x[i] = std::uniform_real_distribution<float>(-1, 1)(rng);
                q[i] = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
            }
            images.push_back(single ? format_activation(x, n.input, cfg)
                                    : format_activation(q, n.input, cfg));
        }
        described = fmt::format("pseudo-random (seed {})", f.seed);
        return images;
    }
    const sim::Tensor t = sim::read_npy(path);
    const sim::DType want = single ? sim::DType::f32 : sim::DType::i8;
    // An int8 processor also takes float32 images: the host quantizes them at input_exp.
    const bool to_int8 = !single && t.dtype() == sim::DType::f32;
    if ((t.dtype() != want && !to_int8) || t.numel() != per * f.frames) {
        throw sim::Error(fmt::format("{}: {} of {}, the network takes {} frame(s) of {} {}x{}x{}{}",
                                     path, sim::shape_str(t.shape()), sim::dtype_name(t.dtype()),
                                     f.frames, sim::dtype_name(want), n.input.z, n.input.h,
                                     n.input.w, single ? "" : " (or f32, quantized at input_exp)"));
    }
    for (uint32_t k = 0; k < f.frames; ++k) {
        if (to_int8) {
            std::vector<int8_t> q(per);
            for (size_t i = 0; i < per; ++i) {
                const double v = std::ldexp(t.data<float>()[k * per + i], -n.input_exp);
                if (!std::isfinite(v)) {
                    throw sim::Error(
                        fmt::format("{}: element {} is not a finite number", path, k * per + i));
                }
                q[i] = static_cast<int8_t>(std::clamp(std::round(v), -128.0, 127.0));
            }
            images.push_back(format_frame(q.data(), per, n, cfg));
        } else {
            images.push_back(format_frame(t.bytes() + k * per * (single ? 4 : 1), per, n, cfg));
        }
    }
    described = to_int8 ? fmt::format("{} (float32, quantized at 2^{})", path, n.input_exp) : path;
    return images;
}

// The result images as tensors (output_<i>.npy) and their entries of the record.
void add_outputs(std::vector<platform::OutputFile>& files, sim::RunRecord& rec, const HostResult& r,
                 const Network& n, const DlpConfig& cfg) {
    const Layer& last = n.layers.back();
    const bool fc = last.kind == LayerKind::fc;
    const bool single = cfg.data_type == DataType::single;
    for (size_t i = 0; i < r.outputs.size(); ++i) {
        const sim::Shape shape =
            fc ? sim::Shape{last.out.z} : sim::Shape{last.out.z, last.out.h, last.out.w};
        sim::Tensor t(single ? sim::DType::f32 : sim::DType::i8, shape);
        if (single) {
            // What the application sees: the processor's values through the host's software
            // layers (softmax, sigmoid).
            const std::vector<float> v =
                run_software(n, read_activation_single(r.outputs[i].data(), last.out, cfg, fc));
            std::copy(v.begin(), v.end(), t.data<float>());
        } else {
            const std::vector<int8_t> v =
                read_activation_int8(r.outputs[i].data(), last.out, cfg, fc);
            std::copy(v.begin(), v.end(), t.data<int8_t>());
        }
        const std::string name = fmt::format("output_{}.npy", i);
        files.push_back({name, sim::encode_npy(t)});
        rec.outputs.push_back({fmt::format("output {}", i), name,
                               std::vector<int64_t>(t.shape().begin(), t.shape().end()),
                               sim::dtype_name(t.dtype()), "", "", std::nullopt});
    }
}

// The module's cycles as the parts that add up to them: its overhead, then, when compute and
// transfers overlap, the longer of the two (the transfers by kind), else all of them
// (models/dlp/dlp_cost.cpp total_cycles).
std::vector<sim::Part> exposed_parts(const LayerCost& c, bool overlap) {
    std::vector<sim::Part> parts = {{"overhead", c.overhead_cycles}};
    const uint64_t transfers = c.read_cycles + c.weight_cycles + c.write_cycles;
    if (!overlap || c.compute_cycles >= transfers) {
        parts.push_back({"compute", c.compute_cycles});
    }
    if (!overlap || transfers > c.compute_cycles) {
        parts.push_back({"input read", c.read_cycles});
        parts.push_back({"weight read", c.weight_cycles});
        parts.push_back({"output write", c.write_cycles});
    }
    return parts;
}

// A layer's "CxHxW -> CxHxW".
std::string shape_of(const Network& n, const Layer& l) {
    const ActShape in = input_shape(n, l);
    return fmt::format("{}x{}x{} -> {}x{}x{}", in.z, in.h, in.w, l.out.z, l.out.h, l.out.w);
}

std::vector<sim::LayerRecord> layer_records(const std::vector<LayerRun>& runs, const Network& n,
                                            const NetworkEstimate& est,
                                            const DlpPlatformConfig& job) {
    std::vector<sim::LayerRecord> layers;
    for (const LayerRun& run : runs) {
        const Layer& l = n.layers[run.layer];
        sim::LayerRecord r;
        r.index = layers.size();
        r.name = l.name;
        r.op = module_name(l.kind);
        r.shape = shape_of(n, l);
        r.macs = run.cost.macs;
        r.param_bytes = run.cost.weight_bytes;
        r.start_ps = run.start_ps, r.end_ps = run.end_ps;
        r.engines.push_back({"DL processor", run.end_ps - run.start_ps, "dlp",
                             static_cast<double>(job.dlp.target_frequency_hz),
                             exposed_parts(run.cost, job.timing.overlap)});
        r.measures = {{"frame", static_cast<double>(run.frame), ""},
                      {"cycles", static_cast<double>(run.cost.total_cycles), "cycles"},
                      {"estimate_cycles",
                       static_cast<double>(est.layers[run.layer].cost.total_cycles), "cycles"},
                      {"compute_cycles", static_cast<double>(run.cost.compute_cycles), "cycles"},
                      {"read_cycles", static_cast<double>(run.cost.read_cycles), "cycles"},
                      {"weight_cycles", static_cast<double>(run.cost.weight_cycles), "cycles"},
                      {"write_cycles", static_cast<double>(run.cost.write_cycles), "cycles"}};
        layers.push_back(std::move(r));
    }
    return layers;
}

// The run's record (its outputs are added as they are written).
sim::RunRecord run_record(const DlpPlatformConfig& cfg, const std::string& source,
                          const platform::RunRequest& request, const Compiled& c,
                          const NetworkEstimate& est, DlpPlatform& soc,
                          const std::string& described, uint64_t total) {
    const Network& n = c.file.network;
    const HostResult& r = soc.result();
    sim::RunRecord rec;
    rec.command = "run";
    rec.mode = "timed";
    rec.platform = {"dlp",
                    cfg.name,
                    source,
                    {{"clock_hz", static_cast<double>(cfg.dlp.target_frequency_hz), "Hz"},
                     {"axi_bits", static_cast<double>(cfg.dlp.axi_bits()), "bits"}}};
    rec.program = {request.network.empty() ? request.model : request.network,
                   "DL processor network",
                   {{"layers", static_cast<double>(n.layers.size()), "layers"},
                    {"frames", static_cast<double>(c.file.frames), "frames"}}};
    rec.inputs.push_back(
        {"input", request.input,
         std::vector<int64_t>{c.file.frames, n.input.z, n.input.h, n.input.w},
         sim::dtype_name(cfg.dlp.data_type == DataType::single ? sim::DType::f32 : sim::DType::i8),
         described, "", std::nullopt});
    rec.layers = layer_records(soc.dlp.runs(), n, est, cfg);
    rec.totals = {{"cycles", static_cast<double>(total), "cycles"},
                  {"estimate_cycles", static_cast<double>(est.total_cycles), "cycles"},
                  {"start_ps", static_cast<double>(r.start_ps), "ps"},
                  {"end_ps", static_cast<double>(r.end_ps), "ps"}};
    rec.stats = soc.dlp.stats().to_json();
    rec.extra = {{"network", n.name}, {"memory_map", c.program.table()}};
    return rec;
}

// The estimate as a record: per layer of a frame the module's cycles split as the timed run's
// (exposed_parts), the cost's terms as measures; the estimate's totals.
sim::RunRecord estimate_record(const DlpPlatformConfig& cfg, const std::string& source,
                               const std::string& file, const Compiled& c,
                               const NetworkEstimate& e) {
    const Network& n = c.file.network;
    sim::RunRecord rec;
    rec.command = "estimate";
    rec.mode = "estimate";
    const auto hz = static_cast<double>(cfg.dlp.target_frequency_hz);
    rec.platform = {
        "dlp",
        cfg.name,
        source,
        {{"clock_hz", hz, "Hz"}, {"axi_bits", static_cast<double>(cfg.dlp.axi_bits()), "bits"}}};
    rec.program = {file,
                   "DL processor network",
                   {{"layers", static_cast<double>(n.layers.size()), "layers"},
                    {"frames", static_cast<double>(c.file.frames), "frames"}}};
    for (size_t i = 0; i < e.layers.size() && i < n.layers.size(); ++i) {
        const LayerCost& k = e.layers[i].cost;
        const auto d = [](uint64_t v) {
            return static_cast<double>(v);
        };
        sim::LayerRecord r{i,
                           e.layers[i].module,
                           shape_of(n, n.layers[i]),
                           k.macs,
                           k.weight_bytes,
                           std::nullopt,
                           std::nullopt,
                           {},
                           {},
                           e.layers[i].name};
        r.engines.push_back({"DL processor",
                             static_cast<uint64_t>(d(k.total_cycles) * 1e12 / hz + 0.5), "dlp", hz,
                             exposed_parts(k, cfg.timing.overlap)});
        r.measures = {{"cycles", d(k.total_cycles), "cycles"},
                      {"compute_cycles", d(k.compute_cycles), "cycles"},
                      {"read_cycles", d(k.read_cycles), "cycles"},
                      {"weight_cycles", d(k.weight_cycles), "cycles"},
                      {"write_cycles", d(k.write_cycles), "cycles"},
                      {"read_bytes", d(k.read_bytes), "bytes"},
                      {"write_bytes", d(k.write_bytes), "bytes"},
                      {"tiles", d(k.tiles), ""}};
        rec.layers.push_back(std::move(r));
    }
    rec.totals = {{"frames", static_cast<double>(e.frames), "frames"},
                  {"last_frame_latency_cycles", static_cast<double>(e.frame_cycles), "cycles"},
                  {"total_latency_cycles", static_cast<double>(e.total_cycles), "cycles"},
                  {"frames_per_second", e.frames_per_second(), "frames/s"}};
    rec.extra = {{"network", n.name}, {"memory_map", c.program.table()}};
    return rec;
}

nlohmann::ordered_json resources_json(const DlpResources& r, const FpgaDevice& d) {
    nlohmann::ordered_json modules = nlohmann::ordered_json::array();
    for (const ModuleResources& m : r.modules) {
        modules.push_back({{"module", m.module}, {"DSP", m.dsp}, {"BRAM", m.bram}, {"LUT", m.lut}});
    }
    return {{"part", d.part},
            {"family", family_name(d.family)},
            {"bram_unit", d.family == FpgaFamily::intel ? "bits" : "36 Kb tiles"},
            {"available", {{"DSP", d.dsp}, {"BRAM", d.bram}, {"LUT", d.lut}}},
            {"DSP", r.dsp},
            {"BRAM", r.bram},
            {"LUT", r.lut},
            {"modules", modules}};
}

}  // namespace

DlpFace::DlpFace(DlpPlatformConfig cfg, std::string source)
    : Platform("dlp", std::move(source))
    , m_cfg(std::move(cfg)) {
}

void DlpFace::check() const {
    m_cfg.dlp.validate(source());
}

std::string DlpFace::describe() const {
    const DlpConfig& d = m_cfg.dlp;
    std::string s = fmt::format("platform {} (dlp), from {}\n", m_cfg.name, source());
    auto it = std::back_inserter(s);
    fmt::format_to(it,
                   "ConvThreadNumber {} (C = {} channels at once, N = {} values per transfer), "
                   "FCThreadNumber {}\n",
                   d.conv_thread_number, d.threads_c(), d.transfer_n(), d.fc_thread_number);
    fmt::format_to(it, "ProcessorDataType {}, TargetFrequency {}, AXI masters {} bits\n",
                   data_type_name(d.data_type), sim::format_frequency(d.target_frequency_hz),
                   d.axi_bits());
    fmt::format_to(it, "conv buffers in [{}, {}, {}] out [{}, {}, {}], fc buffers in {} out {}\n",
                   d.conv_input_memory_size[0], d.conv_input_memory_size[1],
                   d.conv_input_memory_size[2], d.conv_output_memory_size[0],
                   d.conv_output_memory_size[1], d.conv_output_memory_size[2],
                   d.fc_input_memory_size, d.fc_output_memory_size);
    fmt::format_to(it, "DDR at {:#x} ({}), registers at {:#x}; spatial x = {}\n",
                   m_cfg.ddr_base_addr, sim::format_size(m_cfg.ddr_size_bytes),
                   m_cfg.register_base_addr, d.x_is_height ? "height" : "width");
    return s;
}

platform::RunReport DlpFace::run(const platform::RunRequest& request) {
    if (request.network.empty() == request.model.empty()) {
        throw sim::Error(source() +
                         ": a DL processor run needs --network NETWORK.yaml (e.g. "
                         "configs/networks/dlp_tiny.yaml) or --model NET.onnx (one of them)");
    }
    if (request.functional) {
        throw sim::Error(source() + ": a DL processor runs timed (no --functional)");
    }
    const Compiled c = compile_network(request.network.empty() ? request.model : request.network,
                                       m_cfg, request, false);
    const Network& n = c.file.network;
    std::string described;
    std::vector<std::vector<uint8_t>> images = inputs(request.input, c.file, m_cfg.dlp, described);
    sim::Session session({nullptr, request.verbose});
    DlpPlatform soc("dlp", m_cfg);
    soc.load(c.program, std::move(images));
    session.run();
    const HostResult& r = soc.result();
    if (!r.done) {  // returned, not thrown, after a simulation (platform::RunReport::error)
        platform::RunReport failed;
        failed.error = r.error.empty() ? "the DL processor did not finish" : r.error;
        return failed;
    }
    const NetworkEstimate est = dlp::estimate(n, c.program, m_cfg.dlp, m_cfg.timing);
    platform::RunReport rep;
    auto it = std::back_inserter(rep.text);
    fmt::format_to(it, "npusim {}: {} on {} ({}), {} frame(s), input {}\n\n", sim::npusim_version(),
                   n.name, m_cfg.name, source(), c.file.frames, described);
    fmt::format_to(it, "{:>6} {:<20} {:<14} {:>12} {:>12} {:>12}\n", "frame", "layer", "module",
                   "cycles", "estimate", "compute");
    uint64_t total = 0;
    for (const LayerRun& run : soc.dlp.runs()) {
        const Layer& l = n.layers[run.layer];
        fmt::format_to(it, "{:>6} {:<20} {:<14} {:>12} {:>12} {:>12}\n", run.frame, l.name,
                       module_name(l.kind), run.cost.total_cycles,
                       est.layers[run.layer].cost.total_cycles, run.cost.compute_cycles);
        total += run.cost.total_cycles;
    }
    fmt::format_to(it,
                   "\n{} frames in {} cycles ({:.6f} s simulated from InputStart to the done "
                   "interrupt at {}), estimate {} cycles\n",
                   c.file.frames, total, static_cast<double>(r.end_ps - r.start_ps) / 1e12,
                   sim::format_frequency(m_cfg.dlp.target_frequency_hz), est.total_cycles);
    rep.record = run_record(m_cfg, source(), request, c, est, soc, described, total);
    add_outputs(rep.files, *rep.record, r, n, m_cfg.dlp);
    return rep;
}

// A network on the DL processor: compile it (memory map), cost every layer, count the resources;
// with a sweep file beside the model, every configuration it lists (dlp_sweep_report.h).
platform::EstimateReport DlpFace::estimate(const platform::EstimateRequest& request) const {
    if (request.model.empty() && request.layers.empty()) {
        throw sim::Error(source() +
                         ": a DL processor estimate takes --model NET.onnx (or NETWORK.yaml), "
                         "with --sweep SWEEP.yaml to sweep processor configurations");
    }
    if (!request.model.empty() && !request.layers.empty()) {
        DlpPlatformConfig shapes = m_cfg;  // the sweep costs shapes: single loads any network
        shapes.dlp.data_type = DataType::single;
        const NetworkFile f = load_network(request.model, shapes, "", true);
        return sweep_report(f.network, request.model, request, m_cfg, source());
    }
    const std::string& file = request.layers.empty() ? request.model : request.layers;
    const Compiled c = compile_network(file, m_cfg, request, true);
    const NetworkEstimate e = dlp::estimate(c.file.network, c.program, m_cfg.dlp, m_cfg.timing);
    const DlpResources res =
        resources(m_cfg.dlp, m_cfg.fpga.family, ResourceModel{}, m_cfg.timing.taps_per_pass);
    platform::EstimateReport rep;
    rep.text = fmt::format("{} on {} ({} threads: C = {}, N = {}; {}; {})\n\n", c.file.network.name,
                           m_cfg.name, m_cfg.dlp.conv_thread_number, m_cfg.dlp.threads_c(),
                           m_cfg.dlp.transfer_n(), data_type_name(m_cfg.dlp.data_type), source());
    rep.text +=
        fmt::format("{}\n{}\n{}", c.program.table(), table(e), resource_table(res, m_cfg.fpga));
    if (request.to_files) {
        nlohmann::ordered_json j = to_json(e);
        nlohmann::ordered_json map = nlohmann::ordered_json::array();
        for (const MemoryRegion& r : c.program.map) {
            map.push_back({{"name", r.name}, {"addr", r.addr}, {"size", r.size}});
        }
        j["memory_map"] = map;
        j["resources"] = resources_json(res, m_cfg.fpga);
        const std::string text = sim::json_text(j, 1) + "\n";
        rep.files.push_back({"estimate.json", {text.begin(), text.end()}});
    }
    rep.record = estimate_record(m_cfg, source(), file, c, e);
    for (auto [name, v] : {std::pair{"DSP", res.dsp}, {"BRAM", res.bram}, {"LUT", res.lut}}) {
        rep.record->totals.push_back({name, static_cast<double>(v), ""});
    }
    return rep;
}

platform::PlatformKind dlp_platform_kind() {
    return {"dlp",
            "a DL processor (MATLAB dlhdl style): DDR, conv/fc/adder modules, host "
            "(configs/dlp_zcu102_*.yaml)",
            [](const sim::ConfigNode& p, const std::string& source) {
                return std::make_unique<DlpFace>(read_dlp_platform(p), source);
            },
            false,
            false,
            {},
            {{"calibrate",
              "Calibration samples for an ONNX network on an int8 processor (float32 .npy, "
              "(N, C, H, W) as the model takes them): per-layer power-of-two exponents from their "
              "ranges, as dlquantizer chooses them",
              true,
              "",
              false,
              {"run", "estimate", "regress"}},
             {"mean",
              "An ONNX model's input normalization when it has none: the mean, one value or one "
              "per channel (comma-separated), subtracted on the processor's adder",
              false,
              "",
              false,
              {"run", "estimate"}},
             {"std",
              "The same's standard deviation (the adder multiplies by its inverse)",
              false,
              "",
              false,
              {"run", "estimate"}}}};
}

}  // namespace npu::dlp
