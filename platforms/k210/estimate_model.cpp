#include "platforms/k210/estimate_model.h"

#include <cmath>
#include <iterator>

#include <fmt/format.h>

#include "models/k210_kpu/kpu_layer_args.h"
#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"

namespace npu::k210 {

kpu::KpuTiming fetch_timing(const K210Config& cfg) {
    return cfg.kpu.timing;  // the fitted fetch rate already includes the memory's latency
}

namespace {

double at_clock_us(uint64_t cycles, uint64_t hz) {
    return static_cast<double>(cycles) * 1e6 / static_cast<double>(hz);
}

// A KPU layer as the driver runs it: one layer per batch at the model's load address, one
// interrupt each, and in kmodel v4 the CPU read-back of an output bound for main memory.
void kpu_layer(ModelEstimateRow& row, const Kmodel& m, const KpuConvLayer& c, const K210Config& cfg,
               const kpu::KpuTiming& t) {
    const uint64_t model_io = cfg.platform.memories.front().base_addr - cfg.io_offset;
    kpu::LayerArgs a = c.runtime_args(static_cast<uint32_t>(model_io));
    // As run_kpu_conv issues it: kmodel v3 streams a main-memory output through fifo_data_out
    // (kpu.c's KLF_MAIN_MEM_OUT); v4 reads it back with the CPU.
    a.send_data_out = m.version == 3 && c.main_mem_out;
    const kpu::LayerCost cost = kpu::layer_cost(a, m.eight_bit, t);
    const uint64_t n = m.version == 4 ? c.batches : 1;
    row.shape = kpu::shape_summary(a) + (n > 1 ? fmt::format(" x{}", n) : "");
    row.macs = cost.macs * n;
    row.param_bytes = (cost.weight_bytes + cost.param_bytes) * n;
    row.kpu_cycles = cost.total_cycles * n;
    row.kpu_fixed = cost.fixed_cycles * n;
    row.kpu_fetch = (cost.param_fetch_cycles + cost.exposed_fetch_cycles) * n;
    row.kpu_compute = cost.compute_cycles * n;
    row.kpu_output = cost.output_cycles * n;
    row.cpu_overhead += cfg.cpu.interrupt_cycles * n;
    if (m.version == 4 && c.main_mem_out) {
        row.readback = cfg.cpu.readback_cycles(c.main_mem_out_size);
    }
}

}  // namespace

std::vector<ModelEstimateRow> estimate_model(const Kmodel& m, const K210Config& cfg) {
    FunctionalOptions fo;
    fo.fused_multiply_add = cfg.cpu.fused_multiply_add;
    const FunctionalResult f =
        run_functional(m, sim::Tensor(model_input_dtype(m), model_input_shape(m)), fo);
    const kpu::KpuTiming t = fetch_timing(cfg);
    std::vector<ModelEstimateRow> rows;
    size_t conv = 0;
    for (size_t i = 0; i < m.layers.size(); ++i) {
        const KmodelLayer& l = m.layers[i];
        ModelEstimateRow row;
        row.index = i;
        row.type = l.type_name;
        row.cpu_overhead = cfg.cpu.layer_dispatch_cycles;
        if (is_kpu_layer(m.version, l.type)) {
            kpu_layer(row, m, m.convs.at(conv++), cfg, t);
        } else {
            row.cpu_work =
                cfg.cpu.layer_work_cycles(l.type_name, f.layers[i].elements, f.layers[i].cpu_macs);
        }
        row.cpu_cycles = row.cpu_work + row.cpu_overhead + row.readback;
        row.time_us = at_clock_us(row.kpu_cycles, cfg.kpu.timing.clock_hz) +
                      at_clock_us(row.cpu_cycles, cfg.cpu.clock_hz);
        rows.push_back(row);
    }
    return rows;
}

std::string model_estimate_table(const std::vector<ModelEstimateRow>& rows) {
    std::string s = fmt::format("{:>4}  {:<16} {:<30} {:>11} {:>10} {:>10} {:>10}\n", "#", "layer",
                                "shape", "MACs", "KPU cyc", "CPU cyc", "time us");
    auto it = std::back_inserter(s);
    double total = 0;
    for (const ModelEstimateRow& r : rows) {
        fmt::format_to(it, "{:>4}  {:<16} {:<30} {:>11} {:>10} {:>10} {:>10.1f}\n", r.index, r.type,
                       r.shape, r.macs, r.kpu_cycles, r.cpu_cycles, r.time_us);
        total += r.time_us;
    }
    fmt::format_to(it, "\nestimated: {:.3f} ms of KPU and CPU time (bus and DMA not included)\n",
                   total / 1e3);
    return s;
}

std::string model_estimate_csv(const std::vector<ModelEstimateRow>& rows) {
    std::string s =
        "index,type,shape,macs,kpu_cycles,kpu_fixed_cycles,kpu_fetch_cycles,kpu_compute_cycles,"
        "kpu_output_cycles,cpu_cycles,cpu_work_cycles,cpu_overhead_cycles,readback_cycles,time_"
        "us\n";
    auto it = std::back_inserter(s);
    for (const ModelEstimateRow& r : rows) {
        fmt::format_to(it, "{},{},\"{}\",{},{},{},{},{},{},{},{},{},{},{:.3f}\n", r.index, r.type,
                       r.shape, r.macs, r.kpu_cycles, r.kpu_fixed, r.kpu_fetch, r.kpu_compute,
                       r.kpu_output, r.cpu_cycles, r.cpu_work, r.cpu_overhead, r.readback,
                       r.time_us);
    }
    return s;
}

nlohmann::ordered_json model_estimate_json(const std::vector<ModelEstimateRow>& rows) {
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const ModelEstimateRow& r : rows) {
        layers.push_back({{"index", r.index},
                          {"type", r.type},
                          {"shape", r.shape},
                          {"macs", r.macs},
                          {"kpu_cycles", r.kpu_cycles},
                          {"kpu_fixed_cycles", r.kpu_fixed},
                          {"kpu_fetch_cycles", r.kpu_fetch},
                          {"kpu_compute_cycles", r.kpu_compute},
                          {"kpu_output_cycles", r.kpu_output},
                          {"cpu_cycles", r.cpu_cycles},
                          {"cpu_work_cycles", r.cpu_work},
                          {"cpu_overhead_cycles", r.cpu_overhead},
                          {"readback_cycles", r.readback},
                          {"time_us", r.time_us}});
    }
    return {{"layers", layers}};
}

sim::RunRecord model_estimate_record(const std::vector<ModelEstimateRow>& rows,
                                     const K210Config& cfg) {
    sim::RunRecord r;
    r.command = "estimate";
    r.mode = "estimate";
    const auto kpu_hz = static_cast<double>(cfg.kpu.timing.clock_hz);
    const auto cpu_hz = static_cast<double>(cfg.cpu.clock_hz);
    const auto ps = [](uint64_t cycles, double hz) {
        return static_cast<uint64_t>(static_cast<double>(cycles) * 1e12 / hz + 0.5);
    };
    uint64_t kpu = 0, cpu = 0;
    double us = 0;
    for (const ModelEstimateRow& row : rows) {
        sim::LayerRecord l{row.index,    row.type,     row.shape, row.macs, row.param_bytes,
                           std::nullopt, std::nullopt, {},        {},       ""};
        l.engines.push_back({"KPU",
                             ps(row.kpu_cycles, kpu_hz),
                             "kpu",
                             kpu_hz,
                             {{"fixed", row.kpu_fixed},
                              {"fetch", row.kpu_fetch},
                              {"compute", row.kpu_compute},
                              {"output stream", row.kpu_output}}});
        l.engines.push_back(
            {"CPU",
             ps(row.cpu_cycles, cpu_hz),
             "cpu",
             cpu_hz,
             {{"work", row.cpu_work}, {"read-back", row.readback}, {"runtime", row.cpu_overhead}}});
        l.measures = {{"kpu_cycles", static_cast<double>(row.kpu_cycles), "cycles"},
                      {"cpu_cycles", static_cast<double>(row.cpu_cycles), "cycles"},
                      {"time_us", row.time_us, "us"}};
        r.layers.push_back(std::move(l));
        kpu += row.kpu_cycles, cpu += row.cpu_cycles, us += row.time_us;
    }
    r.totals = {{"layers", static_cast<double>(rows.size()), "layers"},
                {"kpu_cycles", static_cast<double>(kpu), "cycles"},
                {"cpu_cycles", static_cast<double>(cpu), "cycles"},
                {"time_us", us, "us"}};
    return r;
}

}  // namespace npu::k210
