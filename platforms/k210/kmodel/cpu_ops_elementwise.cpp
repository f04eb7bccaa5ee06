// Compiled with -ffp-contract=off (CMakeLists.txt), as every kernel file: no operation here is
// fused unless it says so.
#include "platforms/k210/kmodel/cpu_ops_elementwise.h"

#include <algorithm>
#include <array>
#include <cmath>

#include <fmt/format.h>

#include "platforms/k210/kmodel/cpu_ops_detail.h"

namespace npu::k210 {

using namespace cpu_detail;

V4Reduce read_v4_reduce(sim::ByteReader& r) {
    V4Reduce p;
    p.in = read_memory_range(r, "reduce input");
    p.out = read_memory_range(r, "reduce output");
    p.op = static_cast<ReduceOp>(read_enum(
        r, "reduce reduce_op", static_cast<uint32_t>(ReduceOp::sum), "mean, min, max, sum"));
    p.in_shape = read_dims(r, "reduce in_shape");
    const size_t at = r.pos();
    p.out_shape = read_dims(r, "reduce out_shape");
    for (size_t k = 0; k < 4; ++k) {
        if (p.out_shape[k] != 1 && p.out_shape[k] != p.in_shape[k]) {
            r.fail(at, "reduce out_shape",
                   fmt::format("({}, {}, {}, {}) is not in_shape ({}, {}, {}, {}) with some "
                               "dimensions reduced to 1",
                               p.out_shape[0], p.out_shape[1], p.out_shape[2], p.out_shape[3],
                               p.in_shape[0], p.in_shape[1], p.in_shape[2], p.in_shape[3]));
        }
    }
    p.init_value = r.f32("reduce init_value");
    return p;
}

void reduce_f32(const float* in, const V4Reduce& p, std::vector<float>& out) {
    const Shape4& is = p.in_shape;
    const Shape4& os = p.out_shape;
    std::fill(out.begin(), out.begin() + static_cast<std::ptrdiff_t>(shape_elements(os)),
              p.init_value);
    Shape4 i{}, o{};
    for (i[0] = 0; i[0] < is[0] && shape_elements(is) != 0; ++i[0]) {
        for (i[1] = 0; i[1] < is[1]; ++i[1]) {
            for (i[2] = 0; i[2] < is[2]; ++i[2]) {
                for (i[3] = 0; i[3] < is[3]; ++i[3]) {
                    for (size_t k = 0; k < 4; ++k) {  // nncase's get_reduced_offset
                        o[k] = os[k] == 1 ? 0 : i[k];
                    }
                    const float a = *in++;
                    float& b = out[offset4(os, o)];
                    switch (p.op) {
                    case ReduceOp::mean:
                    case ReduceOp::sum: b = b + a; break;
                    case ReduceOp::min: b = a < b ? a : b; break;  // std::min(b, a)
                    case ReduceOp::max: b = b < a ? a : b; break;  // std::max(b, a)
                    }
                }
            }
        }
    }
    if (p.op == ReduceOp::mean) {
        // (float)output.size() / input.size(): both spans' float counts, as floats.
        const float mul = static_cast<float>(p.out.size / 4) / static_cast<float>(p.in.size / 4);
        for (float& v : out) {
            v = v * mul;
        }
    }
}

V4Unary read_v4_unary(sim::ByteReader& r) {
    V4Unary u;
    u.in = read_memory_range(r, "unary input");
    u.out = read_memory_range(r, "unary output");
    u.op =
        static_cast<UnaryOp>(read_enum(r, "unary unary_op", static_cast<uint32_t>(UnaryOp::square),
                                       "abs, ceil, cos, exp, floor, log, neg, rsqrt, sin, square"));
    return u;
}

float unary_f32(UnaryOp op, float x) {
    switch (op) {
    case UnaryOp::abs: return std::fabs(x);
    case UnaryOp::ceil: return std::ceil(x);
    case UnaryOp::cos: return std::cos(x);
    case UnaryOp::exp: return std::exp(x);
    case UnaryOp::floor: return std::floor(x);
    case UnaryOp::log: return std::log(x);
    case UnaryOp::neg: return -x;
    case UnaryOp::rsqrt: return 1.0f / std::sqrt(x);
    case UnaryOp::sin: return std::sin(x);
    case UnaryOp::square: return x * x;
    }
    return x;
}

// ---------------------------------------------------------------- nnil

namespace {

// runtime/nnil.h opcodes, with how many floats each pops and pushes.
struct NnilInfo {
    uint8_t opcode;
    const char* name;
    int pops, pushes;
};
constexpr std::array<NnilInfo, 24> kNnil = {{
    {0x00, "nop", 0, 0},    {0x01, "dup", 1, 2},      {0x02, "pop", 1, 0},
    {0x03, "lda_0", 0, 1},  {0x04, "ldc_r4_0", 0, 1}, {0x05, "ldc_r4_1", 0, 1},
    {0x06, "ldc_r4", 0, 1}, {0x20, "abs", 1, 1},      {0x21, "ceil", 1, 1},
    {0x22, "cos", 1, 1},    {0x23, "exp", 1, 1},      {0x24, "floor", 1, 1},
    {0x25, "log", 1, 1},    {0x26, "neg", 1, 1},      {0x27, "rsqrt", 1, 1},
    {0x28, "sin", 1, 1},    {0x29, "square", 1, 1},   {0x40, "add", 2, 1},
    {0x41, "sub", 2, 1},    {0x42, "mul", 2, 1},      {0x43, "div", 2, 1},
    {0x44, "min", 2, 1},    {0x45, "max", 2, 1},      {0x80, "clamp", 3, 1},
}};
constexpr uint8_t kNnilRet = 0xA0, kNnilLdcR4 = 0x06;
constexpr int kNnilStack = 64;  // nnil_evalstack's capacity

const NnilInfo* nnil_info(uint8_t opcode) {
    for (const NnilInfo& i : kNnil) {
        if (i.opcode == opcode) {
            return &i;
        }
    }
    return nullptr;
}

}  // namespace

V4NnilUnary read_v4_nnil_unary(sim::ByteReader& r, size_t body_end) {
    V4NnilUnary n;
    n.in = read_memory_range(r, "nnil_unary_method input");
    n.out = read_memory_range(r, "nnil_unary_method output");
    int depth = 0;
    while (r.pos() < body_end) {
        const size_t at = r.pos();
        NnilOp op{r.u8("nnil opcode"), 0};
        if (op.opcode == kNnilRet) {
            if (depth < 1) {
                r.fail(at, "nnil ret", "pops an empty stack");
            }
            n.program.push_back(op);
            return n;
        }
        const NnilInfo* info = nnil_info(op.opcode);
        if (info == nullptr) {
            r.fail(at, "nnil opcode", fmt::format("{:#04x} is not an nnil opcode", op.opcode));
        }
        if (op.opcode == kNnilLdcR4) {
            op.constant = r.f32("nnil ldc_r4 operand");
        }
        if (depth < info->pops) {
            r.fail(at, fmt::format("nnil {}", info->name).c_str(),
                   fmt::format("pops {} from a stack of {}", info->pops, depth));
        }
        depth += info->pushes - info->pops;
        if (depth > kNnilStack) {
            r.fail(at, fmt::format("nnil {}", info->name).c_str(),
                   fmt::format("overflows the {}-float stack", kNnilStack));
        }
        n.program.push_back(op);
    }
    r.fail(r.pos(), "nnil program", "ends without ret");
}

float nnil_eval(const std::vector<NnilOp>& program, float x) {
    std::array<float, kNnilStack> s{};
    size_t top = 0;  // depths were checked by the reader
    const auto pop = [&] {
        return s[--top];
    };
    const auto push = [&](float v) {
        s[top++] = v;
    };
    for (const NnilOp& op : program) {
        switch (op.opcode) {
        case 0x00: break;
        case 0x01: push(s[top - 1]); break;
        case 0x02: pop(); break;
        case 0x03: push(x); break;
        case 0x04: push(0.0f); break;
        case 0x05: push(1.0f); break;
        case 0x06: push(op.constant); break;
        case 0x20: push(unary_f32(UnaryOp::abs, pop())); break;
        case 0x21: push(unary_f32(UnaryOp::ceil, pop())); break;
        case 0x22: push(unary_f32(UnaryOp::cos, pop())); break;
        case 0x23: push(unary_f32(UnaryOp::exp, pop())); break;
        case 0x24: push(unary_f32(UnaryOp::floor, pop())); break;
        case 0x25: push(unary_f32(UnaryOp::log, pop())); break;
        case 0x26: push(unary_f32(UnaryOp::neg, pop())); break;
        case 0x27: push(unary_f32(UnaryOp::rsqrt, pop())); break;
        case 0x28: push(unary_f32(UnaryOp::sin, pop())); break;
        case 0x29: push(unary_f32(UnaryOp::square, pop())); break;
        case kNnilRet: return pop();
        default: {
            const float b = pop(), a = pop();
            switch (op.opcode) {
            case 0x40: push(a + b); break;
            case 0x41: push(a - b); break;
            case 0x42: push(a * b); break;
            case 0x43: push(a / b); break;
            case 0x44: push(b < a ? b : a); break;  // std::min(a, b)
            case 0x45: push(a < b ? b : a); break;  // std::max(a, b)
            default: {                              // clamp: v, low (a), high (b)
                const float v = pop();
                push(v < a ? a : (b < v ? b : v));  // std::clamp(v, low, high)
            }
            }
        }
        }
    }
    return 0.0f;  // not reached: the reader requires a ret
}

V4TableLookup read_v4_table_lookup(sim::ByteReader& r) {
    V4TableLookup t;
    t.in = read_memory_range(r, "table_lookup1d input");
    t.table = read_memory_range(r, "table_lookup1d table");
    t.out = read_memory_range(r, "table_lookup1d output");
    return t;
}

}  // namespace npu::k210
