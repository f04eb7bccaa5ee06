// The nncase v0.2 (kmodel v4) neutral nodes beyond v4_nodes.cpp: reduce, unary,
// nnil_unary_method, table_lookup1d, resize_image, strided_slice, conv2d_transpose,
// quantized_conv2d, quantized_matmul; each over a RuntimeMemory (docs/k210_platform.md "CPU
// layers"). Pure C++.
#include <algorithm>

#include <fmt/format.h>

#include "platforms/k210/kmodel/cpu_ops_elementwise.h"
#include "platforms/k210/kmodel/cpu_ops_spatial.h"
#include "platforms/k210/kmodel/runtime_detail.h"
#include "sim/core/error.h"

namespace npu::k210::detail {

CpuLayerWork v4_reduce(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "reduce body");
    const V4Reduce p = read_v4_reduce(r);
    check_range(m, l, p.in, "input", kFloat32);
    check_range(m, l, p.out, "output", kFloat32, true);
    const uint64_t n_in = shape_elements(p.in_shape), n_out = shape_elements(p.out_shape);
    need(m, l, p.in, "input", n_in * 4);
    need(m, l, p.out, "output", n_out * 4);
    const std::vector<float> in = read_floats(mem, p.in, n_in);
    // The whole output range: the mean scales every float of it.
    std::vector<float> out = read_floats(mem, p.out, p.out.size / 4);
    reduce_f32(in.data(), p, out);
    write_floats(mem, p.out, out);
    return {n_in + (p.op == ReduceOp::mean ? out.size() : 0)};
}

CpuLayerWork v4_unary(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "unary body");
    const V4Unary u = read_v4_unary(r);
    check_range(m, l, u.in, "input", kFloat32);
    check_range(m, l, u.out, "output", kFloat32, true);
    const uint64_t n = u.in.size / 4;
    need(m, l, u.out, "output", n * 4);
    std::vector<float> v = read_floats(mem, u.in, n);
    for (float& x : v) {
        x = unary_f32(u.op, x);
    }
    write_floats(mem, u.out, v);
    return {n};
}

CpuLayerWork v4_nnil_unary_method(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                  bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "nnil_unary_method body");
    const V4NnilUnary p =
        read_v4_nnil_unary(r, std::min(l.body_offset + l.body_size, m.bytes.size()));
    check_range(m, l, p.in, "input", kFloat32);
    check_range(m, l, p.out, "output", kFloat32, true);
    const uint64_t n = p.in.size / 4;
    need(m, l, p.out, "output", n * 4);
    check_work(m, l, n, p.program.size());
    std::vector<float> v = read_floats(mem, p.in, n);
    for (float& x : v) {
        x = nnil_eval(p.program, x);
    }
    write_floats(mem, p.out, v);
    return {n * p.program.size()};  // ops interpreted
}

CpuLayerWork v4_table_lookup1d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                               bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "table_lookup1d body");
    const V4TableLookup t = read_v4_table_lookup(r);
    check_range(m, l, t.in, "input", kUint8);
    check_range(m, l, t.table, "table", kUint8);
    check_range(m, l, t.out, "output", kUint8, true);
    need(m, l, t.out, "output", t.in.size);
    const std::vector<uint8_t> in = read_range(mem, t.in);
    const std::vector<uint8_t> table = read_range(mem, t.table);
    std::vector<uint8_t> out(in.size());
    for (size_t i = 0; i < in.size(); ++i) {
        if (in[i] >= table.size()) {
            fail(m, l,
                 fmt::format("input {} is {}, past the {}-entry table", i, in[i], table.size()));
        }
        out[i] = table[in[i]];
    }
    write_range(mem, t.out, out);
    return {out.size()};
}

namespace {

// u8 or f32, as the runtime's FP_OR_Q / ELEM_SIZE dispatch accepts; the output of the same type.
size_t same_type_io(const Kmodel& m, const KmodelLayer& l, const MemoryRange& in,
                    const MemoryRange& out) {
    check_range(m, l, in, "input");
    check_range(m, l, out, "output", static_cast<int>(in.datatype), true);
    return elem_size(in.datatype);
}

}  // namespace

CpuLayerWork v4_resize_image(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma) {
    sim::ByteReader r = body_reader(m, l, "resize_image body");
    const V4ResizeImage p = read_v4_resize_image(r);
    const size_t elem = same_type_io(m, l, p.in, p.out);
    const Shape4& s = p.in_shape;
    if (shape_elements(s) == 0) {
        fail(m, l, fmt::format("in_shape ({}, {}, {}, {}) is empty", s[0], s[1], s[2], s[3]));
    }
    const uint64_t n_out = static_cast<uint64_t>(s[0]) * static_cast<uint64_t>(s[1]) *
                           static_cast<uint64_t>(p.out_h) * static_cast<uint64_t>(p.out_w);
    need(m, l, p.in, "input", shape_elements(s) * elem);
    need(m, l, p.out, "output", n_out * elem);
    check_work(m, l, n_out, 4);
    const std::vector<uint8_t> in = read_range(mem, p.in);
    std::vector<uint8_t> out(static_cast<size_t>(n_out * elem));
    resize_image(in.data(), elem, p, out.data(), fma);
    write_range(mem, p.out, out);
    return {n_out};
}

CpuLayerWork v4_strided_slice(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                              bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "strided_slice body");
    const V4StridedSlice p = read_v4_strided_slice(r);
    const size_t elem = same_type_io(m, l, p.in, p.out);
    uint64_t n_out = 1;
    for (size_t k = 0; k < 4; ++k) {
        n_out *= static_cast<uint64_t>(slice_count(p, k));
    }
    for (size_t k = 0; k < 4 && n_out > 0; ++k) {
        const int64_t first = p.begin[k];
        const int64_t last = first + (slice_count(p, k) - 1) * int64_t{p.strides[k]};
        if (std::min(first, last) < 0 || std::max(first, last) >= p.in_shape[k]) {
            fail(m, l,
                 fmt::format("dimension {} slices {}..{} by {}: indices {} to {} leave 0..{}", k,
                             p.begin[k], p.end[k], p.strides[k], first, last, p.in_shape[k] - 1));
        }
    }
    need(m, l, p.in, "input", shape_elements(p.in_shape) * elem);
    need(m, l, p.out, "output", n_out * elem);
    if (n_out == 0) {  // a dimension visits nothing (the others may span 2^32 indices each)
        return {0};
    }
    const std::vector<uint8_t> in = read_range(mem, p.in);
    std::vector<uint8_t> out(static_cast<size_t>(n_out * elem));
    strided_slice(in.data(), elem, p, out.data());
    write_range(mem, p.out, out);
    return {n_out};
}

CpuLayerWork v4_conv2d_transpose(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                 bool fma) {
    sim::ByteReader r = body_reader(m, l, "conv2d_transpose body");
    const V4Conv2dTranspose c = read_v4_conv2d_transpose(r);
    check_range(m, l, c.in, "input", kFloat32);
    check_range(m, l, c.out, "output", kFloat32, true);
    const uint64_t n_in = shape_elements(c.in_shape), n_out = shape_elements(c.out_shape);
    need(m, l, c.in, "input", n_in * 4);
    need(m, l, c.out, "output", n_out * 4);
    check_work(m, l, n_in, static_cast<uint64_t>(c.out_shape[1] / c.groups) * window_size(c.win));
    check_work(m, l, n_out, 1);
    const std::vector<float> in = read_floats(mem, c.in, n_in);
    std::vector<float> out(static_cast<size_t>(n_out));
    const uint64_t macs = conv2d_transpose_f32(in.data(), c, out.data(), fma);
    write_floats(mem, c.out, out);
    return {n_out, macs};
}

CpuLayerWork v4_quantized_conv2d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                 bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "quantized_conv2d body");
    const V4QuantizedConv2d c = read_v4_quantized_conv2d(r);
    check_range(m, l, c.in, "input", kUint8);
    check_range(m, l, c.out, "output", kUint8, true);
    const uint64_t n_out = window_outputs(m, l, c.win, c.in_shape, c.out_channels);
    need(m, l, c.in, "input", shape_elements(c.in_shape));
    need(m, l, c.out, "output", n_out);
    check_work(m, l, n_out, static_cast<uint64_t>(c.in_shape[1] / c.groups) * window_size(c.win));
    const std::vector<uint8_t> in = read_range(mem, c.in);
    std::vector<uint8_t> out(static_cast<size_t>(n_out));
    const uint64_t macs = quantized_conv2d(in.data(), c, out.data());
    write_range(mem, c.out, out);
    return {n_out, macs};
}

CpuLayerWork v4_quantized_matmul(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                 bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "quantized_matmul body");
    const V4QuantizedMatmul q = read_v4_quantized_matmul(r);
    check_range(m, l, q.a, "input_a", kUint8);
    check_range(m, l, q.b, "input_b", kUint8);
    check_range(m, l, q.out, "output", kUint8, true);
    const auto rows = static_cast<uint64_t>(q.a_rows), cols = static_cast<uint64_t>(q.a_cols),
               bcols = static_cast<uint64_t>(q.b_cols);
    need(m, l, q.a, "input_a", rows * cols);
    need(m, l, q.b, "input_b", cols * bcols);
    need(m, l, q.out, "output", rows * bcols);
    check_work(m, l, rows * bcols, cols);
    const std::vector<uint8_t> a = read_range(mem, q.a), b = read_range(mem, q.b);
    std::vector<uint8_t> out(static_cast<size_t>(rows * bcols));
    const uint64_t macs = quantized_matmul(a.data(), b.data(), q, out.data());
    write_range(mem, q.out, out);
    return {out.size(), macs};
}

}  // namespace npu::k210::detail
