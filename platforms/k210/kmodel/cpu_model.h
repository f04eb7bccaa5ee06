// The K210 CPU time model: what the RISC-V core's work in CPU layers costs (configs/k210.yaml
// `cpu:`, docs/k210_platform.md "CPU time model"). Pure C++: the timed driver charges it and the
// compiler's estimates use the same functions, so the two agree layer by layer.
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <string>

namespace npu::k210 {

// What the RISC-V core's work costs, in CPU cycles (documented model, not a core simulation).
// Each constant's source: docs/k210_platform.md ("CPU time model").
struct CpuModel {
    uint64_t clock_hz = 400'000'000;
    double cycles_per_element = 4;  // a CPU layer's work unit (docs/k210_cpu_ops.md), assumed
    double cycles_per_mac = 3;      // per multiply-accumulate (load, load, fmadd), assumed
    // Per work unit of the kmodel v4 nodes whose cost boards show (docs/k210_platform.md "CPU
    // time model": nncase v0.2's NNCASE_DEBUG per node at 400 MHz, on models rebuilt with their
    // 160x120 maps; fitted by `npusim calibrate`, less what the bus model charges):
    // `dequantize` 11.323 (nncase#95: 9.357 ms for 307,200 elements); `quantize` the same
    // (inferred: nncase's riscv kernels run both as one hand-pipelined two-element loop; no board
    // figure); `quantized_binary` 75.914 (nncase#97: 58.699 ms for a 307,200-element add);
    // `kpu_upload` 26.171 per byte (nncase#97: 20.367 ms for 307,200 bytes stored into the
    // uncached KPU RAM); kmodel v3's `DEQUANTIZE` 17.040 (nncase#77: the SDK's kpu.c, 0.404 ms
    // for face_detect_v3's 9,000 elements in its one-element loop).
    std::map<std::string, double> op_cycles_per_element{{"DEQUANTIZE", 17.040},
                                                        {"dequantize", 11.323},
                                                        {"quantize", 11.323},
                                                        {"quantized_binary", 75.914},
                                                        {"kpu_upload", 26.171}};
    // nncase v0.2 reads a KPU output bound for main memory back with the CPU, byte by byte
    // through the AI SRAM's uncached window (kpu_download): per byte, on top of the bus transfers
    // (nncase#95: 26.563 ms for the last layer's 307,200 bytes, less the KPU layer and the bus).
    double kpu_readback_cycles_per_byte = 33.894;
    uint64_t interrupt_cycles = 200;       // entering and leaving an interrupt handler, assumed
    uint64_t layer_dispatch_cycles = 500;  // per layer: decode the body, set up the next step
    // Values, not time: a·b + c in CPU layers is one fused fmadd.s, as GCC compiles the K210
    // runtimes (docs/k210_platform.md); false gives a separate multiply and add.
    bool fused_multiply_add = true;

    // The work of CPU layer `type` (its name in the op table): ⌈per element · elements + per
    // MAC · macs⌉, without the dispatch.
    uint64_t layer_work_cycles(const std::string& type, uint64_t elements, uint64_t macs) const {
        const auto it = op_cycles_per_element.find(type);
        const double per = it == op_cycles_per_element.end() ? cycles_per_element : it->second;
        return static_cast<uint64_t>(std::ceil(per * static_cast<double>(elements) +
                                               cycles_per_mac * static_cast<double>(macs)));
    }
    // nncase v0.2's CPU read-back of `bytes` of a KPU output into main memory.
    uint64_t readback_cycles(uint64_t bytes) const {
        return static_cast<uint64_t>(
            std::ceil(kpu_readback_cycles_per_byte * static_cast<double>(bytes)));
    }
};

}  // namespace npu::k210
