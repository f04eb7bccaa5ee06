// The K210 CPU time model: what the RISC-V core's work in CPU layers costs (configs/k210.yaml
// `cpu:`, docs/k210_platform.md). Pure C++: the compiler's estimates use it too.
#pragma once

#include <cstdint>

namespace npu::k210 {

// What the RISC-V core's work costs, in CPU cycles (documented model, not a core simulation).
struct CpuModel {
    uint64_t clock_hz = 400'000'000;
    double cycles_per_element = 4;  // elementwise layers (dequantize, ...): per output element
    double cycles_per_mac = 3;      // FULLY_CONNECTED: per multiply-accumulate (load, load, fmadd)
    uint64_t interrupt_cycles = 200;       // entering and leaving an interrupt handler
    uint64_t layer_dispatch_cycles = 500;  // per layer: decode the body, set up the next step
    // Values, not time: a·b + c in CPU layers is one fused fmadd.s, as GCC compiles the K210
    // runtimes (docs/k210_platform.md); false gives a separate multiply and add.
    bool fused_multiply_add = true;
};

}  // namespace npu::k210
