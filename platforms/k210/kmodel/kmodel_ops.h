// The kmodel op sets as one table: every Kendryte SDK (kmodel v3) layer type and every nncase
// v0.2 (kmodel v4) opcode, named once with how the runtime executes it: on the KPU (the KPU
// path of the driver and the functional executor), on the CPU (a runner over a RuntimeMemory),
// or not at all. The reader's layer names, `layer_supported`, `is_kpu_layer`, `run_cpu_layer`'s
// dispatch, `npusim info --model` and the "not supported" message all derive from it; a test
// fails when an entry lacks a part. Adding an op: one entry here plus its runner and its test.
// Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"

namespace npu::k210 {

enum class OpRuns {
    not_supported,  // named (so models list and fail clearly), not executed
    kpu,            // a KPU convolution: the layer-argument path (kpu_conv in the driver)
    cpu,            // a CPU layer: `run`; the CPU time model charges its CpuLayerWork
};

using CpuRunner = CpuLayerWork (*)(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                   bool fma);

struct KmodelOp {
    int version;       // 3: a kpu.h layer type (Kendryte SDK); 4: an nncase v0.2 opcode
    uint32_t code;     // the value in the layer/node header
    const char* name;  // as the SDK or nncase names it
    OpRuns runs;
    CpuRunner run;  // set exactly when runs == cpu
};

// Every known op of both versions.
const std::vector<KmodelOp>& kmodel_ops();
// The entry, or nullptr for a code neither runtime defines.
const KmodelOp* find_op(int version, uint32_t code);
// "K210_CONV, DEQUANTIZE, ..." : the ops of `version` the simulator runs, in table order.
std::string supported_op_names(int version);

}  // namespace npu::k210
