// A kmodel run for its values only: every layer through the same code the timed platform uses
// (kpu::run_layer for KPU layers, run_cpu_layer for the rest) over plain buffers, with no
// SystemC, no bus and no time. This is `npusim run --functional`, and the reference the platform
// tests compare the full MMIO/FIFO/DMA path with. Pure C++.
#pragma once

#include <functional>
#include <vector>

#include "models/k210_kpu/kpu_func.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "platforms/k210/kmodel/layer_dump.h"
#include "sim/core/tensor.h"

namespace npu::k210 {

struct FunctionalLayer {
    size_t index = 0;
    uint64_t macs = 0;       // KPU layers: Σ over batches
    uint64_t overflows = 0;  // KPU accumulator/BN values beyond 36 bits
    uint64_t elements = 0;   // CPU layers: the work units the CPU time model costs
    uint64_t cpu_macs = 0;   // CPU layers: the multiply-accumulates it costs
};

struct FunctionalResult {
    std::vector<sim::Tensor> outputs;
    std::vector<FunctionalLayer> layers;
    std::vector<LayerDump> dumps;  // with FunctionalOptions::dump_all
};

struct FunctionalOptions {
    kpu::Fidelity fidelity;
    bool fused_multiply_add = true;  // as K210Config::cpu
    bool dump_all = false;           // keep every layer's result (layer_dump.h)
    // A model's working buffer larger than this is refused (the K210 has 6 MiB of SRAM beside
    // the AI SRAM; a hostile header must not make us allocate gigabytes).
    uint64_t max_main_bytes = 6u << 20;
    // Called after each layer with the layers done so far (for a progress line).
    std::function<void(const FunctionalLayer&, size_t done, size_t total)> on_layer;
    // Called after each layer with the memories, to read what it wrote (npusim regress).
    std::function<void(const FunctionalLayer&, RuntimeMemory&)> on_layer_memory;
};

// Throws sim::Error for an input that does not fit, an unsupported layer or a malformed body.
FunctionalResult run_functional(const Kmodel& m, const sim::Tensor& input,
                                const FunctionalOptions& opts = {});

}  // namespace npu::k210
