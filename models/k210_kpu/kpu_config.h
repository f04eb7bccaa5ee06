// Typed configuration of the K210 KPU model: defaults with units in their names, validate(), and
// reading from a platform YAML node (keys in docs/config.md). Pure C++.
#pragma once

#include <cstdint>

#include "models/k210_kpu/kpu_cost.h"
#include "models/k210_kpu/kpu_func.h"
#include "sim/core/config.h"

namespace npu::kpu {

struct KpuConfig {
    // Layer-argument FIFO depth in 64-bit words. The hardware depth is undocumented; the SDK's
    // batch flow pushes 12 layers (144 words) back to back, so the default holds them.
    uint32_t layer_fifo_words = 144;
    double register_latency_ns = 10;  // per register access
    bool strict = false;  // a layer with a problem is an error (CI) instead of a warning + skip
    Fidelity fidelity;
    KpuTiming timing;

    void validate() const;  // throws sim::Error naming the field
};

// Reads the keys of a `kpu:` map over the defaults; problems are recorded in the document.
KpuConfig read_kpu_config(const sim::ConfigNode& node);
// The timing model's fitted constants (docs/config.md), over the values in `t`: shared by the
// platform file's `kpu:` section and a calibration file.
void read_kpu_timing(const sim::ConfigNode& node, KpuTiming& t);

}  // namespace npu::kpu
