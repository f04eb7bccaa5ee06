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
    double cycles_per_element = 4;  // an op with no constant below (docs/k210_cpu_ops.md), assumed
    // Per multiply-accumulate of an op with no MAC constant of its own: nncase v0.2's float
    // `conv2d` measured on the hart × the board/hart scale ("CPU kernels on the hart"), for the
    // generic loop nests of the convolutions (float, quantized, transposed, NHWC).
    double cycles_per_mac = 36.867;
    // Per work unit of a CPU op (docs/k210_platform.md "CPU time model"), at 400 MHz. From boards
    // (NNCASE_DEBUG per node, the SDK's kpu.c per layer; fitted by `npusim calibrate`, less what
    // the bus model charges): `dequantize` 11.323 (nncase#95: 9.357 ms for 307,200 elements),
    // `quantized_binary` 75.914 (nncase#97: 58.699 ms for a 307,200-element add), `kpu_upload`
    // 26.171 per byte (nncase#97: 20.367 ms for 307,200 bytes stored into the uncached KPU RAM),
    // kmodel v3's `DEQUANTIZE` 17.040 (nncase#77: 0.404 ms for face_detect_v3's 9,000 elements).
    // The others: the vendor runtimes' own kernels run on the hart, cycles per element × the
    // board/hart scale fitted on the three kernels above (docs/k210_platform.md "CPU kernels on
    // the hart", `scripts/k210-cpu-fit`; a test fails when these differ from its table).
    std::map<std::string, double> op_cycles_per_element{
        {"DEQUANTIZE", 17.040},
        {"dequantize", 11.323},
        {"quantized_binary", 75.914},
        {"kpu_upload", 26.171},
        {"quantize", 20.166},
        {"binary", 21.043},
        {"transpose", 12.275},
        {"concat", 12.275},
        {"pad", 17.615},
        {"memory_copy", 12.275},
        {"resize_image", 64.377},
        {"softmax", 71.689},
        {"unary", 228.769},
        {"reduce_window2d", 28.541},
        {"reduce", 140.810},
        {"strided_slice", 11.573},
        {"table_lookup1d", 15.782},
        {"QUANTIZE", 79.636},
        {"QUANTIZED_ADD", 70.456},
        {"K210_UPLOAD", 28.895},
        {"ADD", 22.796},
        {"GLOBAL_AVERAGE_POOL2D", 12.275},
        {"REQUANTIZE", 24.550},
        {"SOFTMAX", 92.824},
        {"CONCAT", 12.275},
        {"TENSORFLOW_FLATTEN", 23.843},
        {"RESIZE_NEAREST_NEIGHBOR", 81.255},
        {"QUANTIZED_RESIZE_NEAREST_NEIGHBOR", 77.792},
        {"LOGISTIC", 272.586},
        {"K210_REMOVE_PADDING", 24.550}};
    // Per MAC, the ops with a kernel of their own (the same source): nncase's `matmul`, kpu.c's
    // FULLY_CONNECTED (it copies its weights into the heap byte by byte on every call).
    std::map<std::string, double> op_cycles_per_mac{{"matmul", 14.028},
                                                    {"FULLY_CONNECTED", 87.459}};
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
        return static_cast<uint64_t>(
            std::ceil(element_cycles(type) * static_cast<double>(elements) +
                      mac_cycles(type) * static_cast<double>(macs)));
    }
    // The op's cycles per work unit and per MAC (its own constant, else the generic one).
    double element_cycles(const std::string& type) const {
        const auto it = op_cycles_per_element.find(type);
        return it == op_cycles_per_element.end() ? cycles_per_element : it->second;
    }
    double mac_cycles(const std::string& type) const {
        const auto it = op_cycles_per_mac.find(type);
        return it == op_cycles_per_mac.end() ? cycles_per_mac : it->second;
    }
    // nncase v0.2's CPU read-back of `bytes` of a KPU output into main memory.
    uint64_t readback_cycles(uint64_t bytes) const {
        return static_cast<uint64_t>(
            std::ceil(kpu_readback_cycles_per_byte * static_cast<double>(bytes)));
    }
};

}  // namespace npu::k210
