#include "platforms/finn/finn_face.h"

#include <cmath>
#include <optional>
#include <random>

#include <fmt/format.h>

#include "models/finn/finn_design.h"
#include "platforms/finn/finn_import.h"
#include "platforms/finn/finn_report.h"
#include "sim/core/address_map.h"
#include "sim/core/error.h"
#include "sim/core/npy.h"
#include "sim/tlm/kernel.h"

namespace npu::finn {

namespace {

// One element of the input .npy, whatever its dtype.
double element(const sim::Tensor& t, size_t i) {
    switch (t.dtype()) {
    case sim::DType::u8: return t.data<uint8_t>()[i];
    case sim::DType::i8: return t.data<int8_t>()[i];
    case sim::DType::i16: return t.data<int16_t>()[i];
    case sim::DType::i32: return t.data<int32_t>()[i];
    case sim::DType::f32: return static_cast<double>(t.data<float>()[i]);
    case sim::DType::f16: break;
    }
    return sim::half_to_float(t.data<uint16_t>()[i]);
}

// output.npy: int32 (float32 values for a fixed-point output type), the frames first, then the
// graph output's shape without its batch.
platform::OutputFile output_file(const std::vector<int64_t>& y, const FinnModel& m,
                                 uint64_t frames) {
    const sim::Shape shape = output_shape(m, frames);
    if (m.out_type.kind() == DataType::Kind::Fixed) {
        sim::Tensor f(sim::DType::f32, shape);
        const double unit = std::ldexp(1.0, -static_cast<int>(m.out_type.frac_bits()));
        for (size_t i = 0; i < y.size(); ++i) {
            f.data<float>()[i] = static_cast<float>(static_cast<double>(y[i]) * unit);
        }
        return {"output.npy", sim::encode_npy(f)};
    }
    sim::Tensor t(sim::DType::i32, shape);
    for (size_t i = 0; i < y.size(); ++i) {
        if (y[i] < INT32_MIN || y[i] > INT32_MAX) {
            throw sim::Error(
                fmt::format("output value {} is {}: beyond output.npy's int32", i, y[i]));
        }
        t.data<int32_t>()[i] = static_cast<int32_t>(y[i]);
    }
    return {"output.npy", sim::encode_npy(t)};
}

void refuse_options(const platform::RunRequest& r, const std::string& source) {
    if (r.model.empty()) {
        throw sim::Error(source +
                         ": a FINN run needs --model NET.onnx (a FINN-ONNX dataflow graph of "
                         "finn.custom_op.fpgadataflow layers), e.g. "
                         "configs/networks/finn/tfc_digits.onnx");
    }
    if (!r.network.empty() || !r.demo.empty() || r.dump_all) {
        throw sim::Error(source +
                         ": a FINN run takes --model, --folding, --input, "
                         "--size-fifos, --functional and --trace (no --network, "
                         "--demo or --dump-all)");
    }
    if (r.functional && r.option.has("size-fifos")) {
        throw sim::Error("--size-fifos simulates the design: not with --functional");
    }
    if (r.option.has("size-fifos") && !r.to_files) {
        throw sim::Error(
            "--size-fifos writes folding_sized.json into the output directory: add --out DIR");
    }
}

}  // namespace

// The frames of `path` (any number of whole frames of the model's input, values of its input
// type), or `cfg.frames` pseudo-random frames.
std::vector<int64_t> read_inputs(const std::string& path, const FinnModel& m,
                                 const FinnPlatformConfig& cfg, std::string& described) {
    std::vector<int64_t> x;
    if (path.empty()) {
        std::mt19937 rng(cfg.seed);
        const DataType t = m.in_type;
        const auto span = static_cast<uint64_t>(t.max() - t.min()) + 1;
        for (uint64_t i = 0; i < cfg.frames * m.in_elements; ++i) {
            const int64_t v = t.min() + static_cast<int64_t>(rng() % span);
            x.push_back(t.kind() == DataType::Kind::Bipolar ? (v < 0 ? -1 : 1) : v);
        }
        described = fmt::format("pseudo-random {} (seed {})", t.name(), cfg.seed);
        return x;
    }
    const sim::Tensor t = sim::read_npy_narrowing(path);  // numpy's default int64 too
    const auto n = static_cast<size_t>(t.numel());
    if (n == 0 || n % m.in_elements != 0) {
        throw sim::Error(
            fmt::format("{}: {} values, expected whole frames of {} (the graph input "
                        "'{}' {})",
                        path, n, m.in_elements, m.input_name, sim::shape_str(m.in_shape)));
    }
    x.reserve(n);
    const double scale = std::ldexp(1.0, static_cast<int>(m.in_type.frac_bits()));
    for (size_t i = 0; i < n; ++i) {
        const double v = element(t, i) * scale;  // a fixed-point input as its raw integer
        const auto iv = static_cast<int64_t>(v);
        if (static_cast<double>(iv) != v || !m.in_type.allowed(iv) ||
            (m.in_type.kind() == DataType::Kind::Bipolar && iv == 0)) {
            throw sim::Error(
                fmt::format("{}: value {} is {}: not a {} value (the model's input "
                            "type)",
                            path, i, v, m.in_type.name()));
        }
        x.push_back(iv);
    }
    described = path;
    return x;
}

FinnPlatformConfig read_finn_platform(const sim::ConfigNode& p) {
    FinnPlatformConfig c;
    c.name = p.get<std::string>("name", c.name);
    p.get<std::string>("kind", "finn");
    c.clock_hz = p.get_hz("clock_hz", c.clock_hz);
    c.frames = p.get<uint64_t>("frames", c.frames, 1u, 1u << 20);
    c.seed = p.get<uint32_t>("seed", c.seed);
    c.min_fifo_depth = p.get<uint64_t>("min_fifo_depth", c.min_fifo_depth, 1u, 1u << 20);
    const std::string dsp = p.get<std::string>("dsp_block", "DSP48");
    if (dsp != "DSP48" && dsp != "DSP58") {
        p.error_at("dsp_block", fmt::format("'{}': expected DSP48 or DSP58", dsp));
    }
    c.dsp58 = dsp == "DSP58";
    return c;
}

FinnFace::FinnFace(FinnPlatformConfig cfg, std::string source)
    : Platform("finn", std::move(source))
    , m_cfg(std::move(cfg)) {
}

std::string FinnFace::describe() const {
    return fmt::format(
        "platform {} (finn), from {}\nclock {}; FIFO sizing down to depth {}; without --input, "
        "{} frames of pseudo-random input (seed {})\n",
        m_cfg.name, source(), sim::format_frequency(m_cfg.clock_hz), m_cfg.min_fifo_depth,
        m_cfg.frames, m_cfg.seed);
}

std::string FinnFace::describe_program(const std::string& path) const {
    return program_table(load_finn(path, ""), path);
}

platform::RunReport FinnFace::run(const platform::RunRequest& request) {
    refuse_options(request, source());
    FinnModel m = load_finn(request.model, request.option("folding"));
    RunContext ctx{m_cfg, source(), request, {}, 0};
    const std::vector<int64_t> x = read_inputs(request.input, m, m_cfg, ctx.input);
    ctx.frames = x.size() / m.in_elements;
    platform::RunReport rep;
    if (request.functional) {
        const std::vector<int64_t> y = evaluate(m.design, x);
        rep.files.push_back(output_file(y, m, ctx.frames));
        functional_report(rep, m, ctx);
        return rep;
    }
    sim::install_report_handler({}, request.verbose);  // for every simulation of the design
    std::optional<Sizing> sizing;
    if (request.option.has("size-fifos")) {
        sizing = Sizing{simulate(m.design, x, ctx.frames),
                        size_fifos(m.design, x, ctx.frames, m_cfg.min_fifo_depth)};
        m.design.fifo_depths = sizing->result.depths;
    }
    SimulateOptions opts;
    opts.record = request.trace != nullptr && request.trace->enabled();
    const DesignRun r = simulate(m.design, x, ctx.frames, opts);
    try {  // after a simulation a problem is returned, not thrown (platform_face.h, RunReport)
        rep.files.push_back(output_file(r.output, m, ctx.frames));
        if (sizing) {
            rep.files.push_back(sized_folding(m, request.option("folding"), sizing->result.depths));
        }
    } catch (const sim::Error& e) {
        rep.error = e.what();
        return rep;
    }
    timed_report(rep, m, r, sizing ? &*sizing : nullptr, ctx);
    if (opts.record) {
        add_trace(*request.trace, r, m_cfg.clock_hz);
    }
    return rep;
}

platform::EstimateReport FinnFace::estimate(const platform::EstimateRequest& request) const {
    if (request.model.empty()) {
        throw sim::Error(source() +
                         ": a FINN estimate takes --model NET.onnx [--folding F.json] "
                         "[--layers SWEEP.json]");
    }
    const FinnModel m = load_finn(request.model, request.option("folding"));
    return request.layers.empty() ? estimate_report(m, request, m_cfg, source())
                                  : sweep_report(m, request, m_cfg, source());
}

platform::PlatformKind finn_platform_kind() {
    platform::PlatformKind k{
        "finn",
        "a FINN-style streaming dataflow design from FINN-ONNX: layers, FIFOs, "
        "folding (configs/finn.yaml)",
        [](const sim::ConfigNode& p, const std::string& source) {
            return std::make_unique<FinnFace>(read_finn_platform(p), source);
        }};
    k.builtin_config = "finn.yaml";  // loaded when --folding or --size-fifos is given alone
    k.options = {
        {"folding",
         "A FINN folding config (JSON: node name -> PE, SIMD, inFIFODepths, ...; \"Defaults\") "
         "applied to --model's layers, as FINN's ApplyConfig does",
         true,
         "model",
         false,
         {"run", "estimate", "regress"}},
        {"size-fifos",
         "Find the smallest FIFO depths that keep the interval of unbounded FIFOs, by "
         "simulation; run with them and write folding_sized.json into --out",
         false,
         "model",
         true,
         {"run"}}};
    return k;
}

}  // namespace npu::finn
