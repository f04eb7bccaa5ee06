// npusim estimate: layer configurations -> cycles, bytes and utilization per configuration, from
// the same cost functions the timed simulation uses, without moving data.
#include <chrono>
#include <cstdio>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "platforms/dlp/dlp_estimate.h"
#include "platforms/k210/estimate.h"
#include "sim/app/app.h"
#include "sim/app/platform_loader.h"
#include "sim/core/error.h"
#include "sim/core/files.h"

namespace npu::app {

namespace {

// A network on the DL processor: compile it (memory map) and cost every layer.
int estimate_dlp(const EstimateOptions& opts, const LoadedPlatform& p) {
    const dlp::DlpPlatformConfig& c = *p.dlp;
    sim::ConfigDocument doc = sim::ConfigDocument::load_file(opts.layers);
    dlp::NetworkFile f = dlp::read_network(doc.root().child("network"));
    doc.finish();
    dlp::check_network(f.network, c.dlp);
    dlp::fill_parameters(f.network, c.dlp, f.seed);
    dlp::CompileOptions co;
    co.ddr_base_addr = c.ddr_base_addr;
    co.frames = f.frames;
    const dlp::Program prog = dlp::compile(f.network, c.dlp, co);
    const dlp::NetworkEstimate e = dlp::estimate(f.network, prog, c.dlp, c.timing);
    std::unique_ptr<sim::OutputDir> out;
    if (!opts.out.empty()) {
        out = std::make_unique<sim::OutputDir>(opts.out);
    }
    fmt::print("{} on {} ({} threads: C = {}, N = {}; {}; {})\n\n", f.network.name, c.name,
               c.dlp.conv_thread_number, c.dlp.threads_c(), c.dlp.transfer_n(),
               dlp::data_type_name(c.dlp.data_type), p.source);
    fmt::print("{}\n{}", prog.table(), dlp::table(e));
    if (out) {
        nlohmann::ordered_json j = dlp::to_json(e);
        nlohmann::ordered_json map = nlohmann::ordered_json::array();
        for (const dlp::MemoryRegion& r : prog.map) {
            map.push_back({{"name", r.name}, {"addr", r.addr}, {"size", r.size}});
        }
        j["memory_map"] = map;
        out->write_text("estimate.json", j.dump(1) + "\n");
        out->commit();
        fmt::print("wrote estimate.json to {}\n", out->dir().string());
    }
    return kExitOk;
}

}  // namespace

int cmd_estimate(const EstimateOptions& opts) {
    const LoadedPlatform p = load_platform(opts.platform);
    if (p.dlp) {
        return estimate_dlp(opts, p);
    }
    if (!p.k210) {
        throw sim::Error(fmt::format(
            "{}: estimate needs a platform with a model of compute (kind k210)", p.source));
    }
    sim::ConfigDocument doc = sim::ConfigDocument::load_file(opts.layers);
    const std::vector<k210::Sweep> sweeps = k210::read_sweeps(doc.root());
    doc.finish();
    std::unique_ptr<sim::OutputDir> out;
    if (!opts.out.empty()) {
        out = std::make_unique<sim::OutputDir>(opts.out);
    }
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<k210::EstimateRow> rows = k210::estimate(sweeps, p.k210->kpu.timing);
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    const uint64_t hz = p.k210->kpu.timing.clock_hz;
    const std::string csv = k210::to_csv(rows, hz);
    if (out) {
        out->write_text("estimate.csv", csv);
        out->write_text("estimate.json", k210::to_json(rows, hz).dump(1) + "\n");
        out->commit();
    } else {
        std::fwrite(csv.data(), 1, csv.size(), stdout);
    }
    size_t invalid = 0;
    for (const k210::EstimateRow& r : rows) {
        invalid += r.error.empty() ? 0u : 1u;
    }
    std::fprintf(
        stderr,
        "npusim: estimated %zu configurations (%zu not valid KPU layers) in %.1f ms at %s%s%s\n",
        rows.size(), invalid, ms, sim::format_frequency(hz).c_str(), out ? "; wrote " : "",
        out ? (opts.out + "/estimate.csv, estimate.json").c_str() : "");
    return kExitOk;
}

}  // namespace npu::app
