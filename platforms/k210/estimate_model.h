// `npusim estimate --model M.kmodel`: every layer of a kmodel costed with the cost functions the
// timed platform charges (the KPU's layer_cost at the addresses the driver loads the model to,
// the CPU time model with the work a functional run counts), without SystemC or a bus. The KPU
// and CPU cycles of each layer equal the timed run's; the time leaves out the bus transactions
// and DMA drains only a simulation gives. docs/k210_platform.md "Estimating a model". Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/k210_kpu/kpu_cost.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/soc/k210_config.h"
#include "sim/core/run_record.h"

namespace npu::k210 {

// The KPU timing a model estimate uses: the platform's, as the timed run's (the fitted fetch rate
// stands for the bus and the SRAM's latency; docs/k210_kpu.md "Timing").
kpu::KpuTiming fetch_timing(const K210Config& cfg);

struct ModelEstimateRow {
    size_t index = 0;
    std::string type, shape;
    uint64_t macs = 0;
    uint64_t param_bytes = 0;  // weights and tables the KPU fetches
    uint64_t kpu_cycles = 0, kpu_fixed = 0, kpu_fetch = 0, kpu_compute = 0, kpu_output = 0;
    uint64_t cpu_cycles = 0, cpu_work = 0, cpu_overhead = 0, readback = 0;
    double time_us = 0;  // kpu at the KPU clock + cpu at the CPU clock
};

// Throws sim::Error for a model the runtimes cannot run (as `npusim run --functional`).
std::vector<ModelEstimateRow> estimate_model(const Kmodel& m, const K210Config& cfg);

std::string model_estimate_table(const std::vector<ModelEstimateRow>& rows);
std::string model_estimate_csv(const std::vector<ModelEstimateRow>& rows);
nlohmann::ordered_json model_estimate_json(const std::vector<ModelEstimateRow>& rows);
// The estimate as a run record's layers and totals (command "estimate"): per layer the KPU's
// time with the parts a timed run names (fixed, fetch, compute, output stream) and the CPU's
// (work, read-back, runtime), each at its clock; the layers have no start or end.
sim::RunRecord model_estimate_record(const std::vector<ModelEstimateRow>& rows,
                                     const K210Config& cfg);

}  // namespace npu::k210
