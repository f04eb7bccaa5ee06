// npusim run on a DL processor platform: compile a network (YAML layer list), run its frames
// through the SystemC platform (host, DDR, the processor's AXI masters), write the results as
// .npy and a report with every layer's simulated cycles next to the estimate.
#include <random>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "models/dlp/dlp_exec.h"
#include "platforms/dlp/dlp_estimate.h"
#include "platforms/dlp/dlp_platform.h"
#include "sim/app/app.h"
#include "sim/app/platform_loader.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/npy.h"
#include "sim/tlm/kernel.h"

namespace npu::app {

namespace {

// One input image per frame: the .npy (Z, H, W) or (frames, Z, H, W), or pseudo-random values
// from the network's seed (single: uniform −1..1; int8: −127..127).
std::vector<std::vector<uint8_t>> inputs(const RunOptions& opts, const dlp::Network& n,
                                         uint32_t frames, uint32_t seed, const dlp::DlpConfig& cfg,
                                         std::string& described) {
    const bool single = cfg.data_type == dlp::DataType::single;
    const size_t per = static_cast<size_t>(n.input.z * n.input.h * n.input.w);
    std::vector<std::vector<uint8_t>> images;
    if (opts.input.empty()) {
        std::mt19937 rng(seed);
        for (uint32_t f = 0; f < frames; ++f) {
            std::vector<float> x(per);
            std::vector<int8_t> q(per);
            for (size_t i = 0; i < per; ++i) {
                x[i] = std::uniform_real_distribution<float>(-1, 1)(rng);
                q[i] = static_cast<int8_t>(static_cast<int>(rng() % 255) - 127);
            }
            images.push_back(single ? dlp::format_activation(x, n.input, cfg)
                                    : dlp::format_activation(q, n.input, cfg));
        }
        described = fmt::format("pseudo-random (seed {})", seed);
        return images;
    }
    const sim::Tensor t = sim::read_npy(opts.input);
    const sim::DType want = single ? sim::DType::f32 : sim::DType::i8;
    if (t.dtype() != want || t.numel() != per * frames) {
        throw sim::Error(fmt::format("{}: {} of {}, the network takes {} frame(s) of {} {}x{}x{}",
                                     opts.input, sim::shape_str(t.shape()),
                                     sim::dtype_name(t.dtype()), frames, sim::dtype_name(want),
                                     n.input.z, n.input.h, n.input.w));
    }
    for (uint32_t f = 0; f < frames; ++f) {
        if (single) {
            const float* p = t.data<float>() + f * per;
            images.push_back(dlp::format_activation(std::vector<float>(p, p + per), n.input, cfg));
        } else {
            const int8_t* p = t.data<int8_t>() + f * per;
            images.push_back(dlp::format_activation(std::vector<int8_t>(p, p + per), n.input, cfg));
        }
    }
    described = opts.input;
    return images;
}

}  // namespace

int cmd_run_dlp(const RunOptions& opts, const LoadedPlatform& p) {
    const dlp::DlpPlatformConfig& cfg = *p.dlp;
    if (opts.network.empty()) {
        throw sim::Error(p.source +
                         ": a DL processor run needs --network NETWORK.yaml (e.g. "
                         "configs/networks/dlp_tiny.yaml)");
    }
    sim::ConfigDocument doc = sim::ConfigDocument::load_file(opts.network);
    dlp::NetworkFile f = dlp::read_network(doc.root().child("network"));
    doc.finish();
    dlp::check_network(f.network, cfg.dlp);
    dlp::fill_parameters(f.network, cfg.dlp, f.seed);
    dlp::CompileOptions co;
    co.ddr_base_addr = cfg.ddr_base_addr;
    co.frames = f.frames;
    const dlp::Program prog = dlp::compile(f.network, cfg.dlp, co);
    std::string described;
    std::vector<std::vector<uint8_t>> images =
        inputs(opts, f.network, f.frames, f.seed, cfg.dlp, described);
    std::unique_ptr<sim::OutputDir> out;
    if (!opts.out.empty()) {
        out = std::make_unique<sim::OutputDir>(opts.out);
    }
    sim::install_report_handler({}, opts.verbose);
    dlp::DlpPlatform soc("dlp", cfg);
    soc.load(prog, std::move(images));
    sc_core::sc_start();
    const dlp::HostResult& r = soc.result();
    if (!r.done) {
        throw sim::Error(r.error.empty() ? "the DL processor did not finish" : r.error);
    }
    const dlp::NetworkEstimate est = dlp::estimate(f.network, prog, cfg.dlp, cfg.timing);
    fmt::print("npusim {}: {} on {} ({}), {} frame(s), input {}\n\n", version(), f.network.name,
               cfg.name, p.source, f.frames, described);
    fmt::print("{:>6} {:<12} {:<14} {:>12} {:>12} {:>12}\n", "frame", "layer", "module", "cycles",
               "estimate", "compute");
    uint64_t total = 0;
    for (const dlp::LayerRun& run : soc.dlp.runs()) {
        const dlp::Layer& l = f.network.layers[run.layer];
        fmt::print("{:>6} {:<12} {:<14} {:>12} {:>12} {:>12}\n", run.frame, l.name,
                   dlp::module_name(l.kind), run.cost.total_cycles,
                   est.layers[run.layer].cost.total_cycles, run.cost.compute_cycles);
        total += run.cost.total_cycles;
    }
    const double seconds = static_cast<double>(r.end_ps - r.start_ps) / 1e12;
    fmt::print(
        "\n{} frames in {} cycles ({:.6f} s simulated from InputStart to the done "
        "interrupt at {}), estimate {} cycles\n",
        f.frames, total, seconds, sim::format_frequency(cfg.dlp.target_frequency_hz),
        est.total_cycles);
    if (out) {
        const dlp::Layer& last = f.network.layers.back();
        const bool fc = last.kind == dlp::LayerKind::fc;
        nlohmann::ordered_json outs = nlohmann::ordered_json::array();
        for (size_t i = 0; i < r.outputs.size(); ++i) {
            const sim::Shape shape =
                fc ? sim::Shape{last.out.z} : sim::Shape{last.out.z, last.out.h, last.out.w};
            sim::Tensor t(
                cfg.dlp.data_type == dlp::DataType::single ? sim::DType::f32 : sim::DType::i8,
                shape);
            if (cfg.dlp.data_type == dlp::DataType::single) {
                const std::vector<float> v =
                    dlp::read_activation_single(r.outputs[i].data(), last.out, cfg.dlp, fc);
                std::copy(v.begin(), v.end(), t.data<float>());
            } else {
                const std::vector<int8_t> v =
                    dlp::read_activation_int8(r.outputs[i].data(), last.out, cfg.dlp, fc);
                std::copy(v.begin(), v.end(), t.data<int8_t>());
            }
            const std::string name = fmt::format("output_{}.npy", i);
            out->write_bytes(name, sim::encode_npy(t));
            outs.push_back({{"file", name}, {"shape", t.shape()}});
        }
        nlohmann::ordered_json j;
        j["tool"] = "npusim";
        j["version"] = version();
        j["command"] = "run";
        j["platform"] = {{"kind", "dlp"}, {"name", cfg.name}, {"source", p.source}};
        j["network"] = {{"file", opts.network}, {"name", f.network.name}, {"frames", f.frames}};
        j["input"] = described;
        nlohmann::ordered_json layers = nlohmann::ordered_json::array();
        for (const dlp::LayerRun& run : soc.dlp.runs()) {
            layers.push_back({{"frame", run.frame},
                              {"layer", f.network.layers[run.layer].name},
                              {"total_cycles", run.cost.total_cycles},
                              {"estimate_cycles", est.layers[run.layer].cost.total_cycles},
                              {"compute_cycles", run.cost.compute_cycles},
                              {"read_cycles", run.cost.read_cycles},
                              {"weight_cycles", run.cost.weight_cycles},
                              {"write_cycles", run.cost.write_cycles},
                              {"start_ps", run.start_ps},
                              {"end_ps", run.end_ps}});
        }
        j["layers"] = layers;
        j["totals"] = {{"cycles", total},
                       {"estimate_cycles", est.total_cycles},
                       {"start_ps", r.start_ps},
                       {"end_ps", r.end_ps}};
        j["outputs"] = outs;
        j["memory_map"] = prog.table();
        j["stats"] = soc.dlp.stats().to_json();
        out->write_text("report.json", j.dump(2) + "\n");
        out->commit();
        fmt::print("wrote {} to {}\n", fmt::join(out->files(), ", "), out->dir().string());
    }
    return kExitOk;
}

}  // namespace npu::app
