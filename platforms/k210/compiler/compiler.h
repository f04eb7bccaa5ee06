// The ONNX -> K210 compiler (`npusim compile --target k210`): calibrates a float ONNX model on
// sample inputs, fuses Conv -> BatchNormalization -> activation -> pooling into KPU layers,
// quantizes them (platforms/k210/quantize.h), maps what the KPU cannot do to the SDK's float
// CPU layers, allocates the 2 MiB KPU RAM and the working buffer, and writes a kmodel v3 that
// our runner (and the Kendryte SDK's kpu_run_kmodel) executes, or a kmodel v4 (nncase v0.2's
// format, run by the SDK's nncase v0 runtime) when a layer needs a float CPU convolution or
// pooling that v3 lacks. Pure C++. docs/k210_compiler.md.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "platforms/k210/compiler/quantize.h"
#include "sim/onnx/graph.h"

namespace npu::k210 {

struct CompileOptions {
    // Calibration inputs: one map of graph-input values per sample (at least one).
    std::vector<std::map<std::string, onnx::Value>> calibration;
    std::string model_name = "model.onnx";  // for messages
    // 3 or 4; 0 chooses: v3 (the Kendryte SDK runs it without nncase, and its runtime is the
    // faster one) unless a layer needs what only v4 has (a CPU convolution, pooling or a model
    // whose input does not go straight to a KPU layer).
    int kmodel_version = 0;
};

// One line of the compile report: one kmodel layer (or a KPU layer with its fused nodes).
struct CompiledLayer {
    std::string nodes;    // the ONNX nodes it implements, '+'-joined
    std::string target;   // "KPU" or "CPU"
    std::string kind;     // "conv3x3 + bn + relu + max_pool2x2", "FULLY_CONNECTED", ...
    std::string why_cpu;  // why a CPU layer is not on the KPU ("" for KPU layers)
    std::vector<int64_t> in_shape, out_shape;
    QuantParams in_q, out_q;  // KPU layers: input and output uint8 parameters
    uint64_t weight_bytes = 0;
    uint64_t macs = 0;
    uint64_t est_cycles = 0;  // KPU: kpu::layer_cost at 400 MHz; CPU: the default CPU model
    int act_error_lsb = 0;    // KPU: activation table error over the calibrated range
    std::string onnx_output;  // the ONNX tensor this layer's output equals (quantized or float)
    int kmodel_layer = -1;    // index of the layer in the kmodel
    // Where the output is after the layer ran: KPU RAM in the row layout from line
    // `out_address`, or the working buffer, dense, from byte `out_address`; uint8 or float32.
    bool out_in_kpu = false, out_float = false;
    uint32_t out_address = 0;
    QuantParams lsb;  // the tensor's calibrated uint8 parameters: its "LSB" for error reports
};

// Where a tensor sat in KPU RAM: lines [first_line, first_line + lines) from the kmodel layer that
// writes it (-1: the input, before the first) through the last layer that reads it (-1: the end).
struct KpuPlacement {
    std::string tensor;
    uint32_t first_line = 0, lines = 0;
    int written = -1, last = -1;
    bool moved_out = false;  // moved to main memory to make room; uploaded again when read
};

struct CompiledModel {
    std::vector<uint8_t> kmodel;  // kmodel v3 or v4
    int kmodel_version = 3;
    std::string version_why;                // why that version
    std::string input_name, output_name;    // output_name: the first of output_names
    std::vector<std::string> output_names;  // the graph outputs, in order: the kmodel's outputs
    std::vector<int64_t> input_shape;       // 1 x C x H x W
    QuantParams input_q;  // the float input is quantized as q = clamp(round(x / s) + z)
    std::vector<CompiledLayer> layers;
    uint32_t kpu_lines = 0;  // the peak of 32768 64-byte lines held by live tensors at once
    std::vector<KpuPlacement> kpu_placements;  // every tensor placed in KPU RAM, in order
    uint32_t main_mem_bytes = 0;               // the CPU working buffer
};

// Throws sim::Error naming the model, the node and the reason: an op with no KPU or CPU mapping,
// a convolution the KPU cannot run in a model forced to v3 (kmodel v3 has no CPU convolution), a
// model larger than the KPU RAM, an empty calibration set.
CompiledModel compile_k210(const onnx::Graph& g, const CompileOptions& opts);

// The report as a table a person reads.
std::string compile_report(const CompiledModel& m);
// The report as JSON (written next to the kmodel as <kmodel>.json): what `npusim regress` needs
// to map kmodel layers back to ONNX tensors and to quantize the input as the compiler assumed.
nlohmann::ordered_json compile_report_json(const CompiledModel& m);
// Reads it back (the kmodel bytes are not part of it). Throws sim::Error naming `name`.
CompiledModel read_compile_report(const nlohmann::ordered_json& j, const std::string& name);

}  // namespace npu::k210
