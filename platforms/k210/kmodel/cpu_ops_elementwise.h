// The element-wise and reducing float nodes of nncase v0.2 (kmodel v4): reduce, unary,
// nnil_unary_method, table_lookup1d. Bodies as neutral_ops_body.h lays them out (kendryte/nncase
// f6dcc80, the opcode table of v0.2.0-beta4), kernels as neutral_kernels.h computes them on the
// K210 (docs/k210_cpu_ops.md). Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "platforms/k210/kmodel/cpu_ops.h"

namespace npu::k210 {

// reduce {memory_range in, out, u32 reduce_op, shape in_shape, shape out_shape, f32 init_value}:
// every input element folded into the output element its index reduces to (a dimension of 1 in
// out_shape takes all); mean then multiplies every float of the output range by
// (float)(out.size / 4) / (in.size / 4).
struct V4Reduce {
    MemoryRange in, out;
    ReduceOp op = ReduceOp::mean;
    Shape4 in_shape{}, out_shape{};
    float init_value = 0;
};
V4Reduce read_v4_reduce(sim::ByteReader& r);
// `out` holds every float of the output range (out.size / 4, at least the out_shape elements):
// the mean's scaling reaches them all, as in the runtime.
void reduce_f32(const float* in, const V4Reduce& p, std::vector<float>& out);

// unary {memory_range in, out, u32 unary_op}: over in.size / 4 floats.
enum class UnaryOp : uint32_t { abs = 0, ceil, cos, exp, floor, log, neg, rsqrt, sin, square };
struct V4Unary {
    MemoryRange in, out;
    UnaryOp op = UnaryOp::abs;
};
V4Unary read_v4_unary(sim::ByteReader& r);
float unary_f32(UnaryOp op, float x);

// nnil_unary_method {memory_range in, out, u8 body[the rest of the node]}: a straight-line stack
// program (runtime/nnil.h) run once per input float; `ret` stores the top of the stack.
// The reader decodes and checks it once: known opcodes, no stack underflow or overflow (64
// floats), a `ret` reached. Ops after the first `ret` never run.
struct NnilOp {
    uint8_t opcode = 0;
    float constant = 0;  // ldc_r4's operand
};
struct V4NnilUnary {
    MemoryRange in, out;
    std::vector<NnilOp> program;  // up to and including the first ret
};
V4NnilUnary read_v4_nnil_unary(sim::ByteReader& r, size_t body_end);
float nnil_eval(const std::vector<NnilOp>& program, float x);

// table_lookup1d {memory_range in, table, out}: out[i] = table[in[i]] over u8.
struct V4TableLookup {
    MemoryRange in, table, out;
};
V4TableLookup read_v4_table_lookup(sim::ByteReader& r);

}  // namespace npu::k210
