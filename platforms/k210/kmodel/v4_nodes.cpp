// The nncase v0.2 (kmodel v4) CPU nodes the runtime executes, each over a RuntimeMemory, in
// nncase's loop order (docs/k210_cpu_ops.md). Pure C++.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "platforms/k210/kmodel/cpu_ops.h"
#include "platforms/k210/kmodel/runtime_detail.h"
#include "sim/core/error.h"

namespace npu::k210::detail {

namespace {

CpuLayerWork quantize_node(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma,
                           bool dequantize) {
    sim::ByteReader r = body_reader(m, l, dequantize ? "dequantize body" : "quantize body");
    const V4QuantParam p = read_v4_quant_param(r, l.type_name);
    check_range(m, l, p.in, "input", dequantize ? kUint8 : kFloat32);
    check_range(m, l, p.out, "output", dequantize ? kFloat32 : kUint8, true);
    const std::vector<uint8_t> in = read_range(mem, p.in);
    if (dequantize) {
        need(m, l, p.out, "output", uint64_t{p.in.size} * 4);
        std::vector<float> x(in.size());
        dequantize_v4(in.data(), in.size(), p.zero_point, p.scale, x.data(), fma);
        write_floats(mem, p.out, x);
        return {x.size()};
    }
    const size_t count = in.size() / 4;
    need(m, l, p.out, "output", count);
    std::vector<float> x(count);
    if (count != 0) {  // (a range under 4 bytes: nothing to convert, and no data pointer)
        std::memcpy(x.data(), in.data(), count * 4);
    }
    std::vector<uint8_t> q(count);
    quantize_v4(x.data(), count, p.zero_point, p.scale, q.data(), fma);
    write_range(mem, {p.out.memory_type, kUint8, p.out.start, static_cast<uint32_t>(count)}, q);
    return {count};
}

}  // namespace

CpuLayerWork v4_quantize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma) {
    return quantize_node(m, l, mem, fma, false);
}

CpuLayerWork v4_dequantize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma) {
    return quantize_node(m, l, mem, fma, true);
}

CpuLayerWork v4_memory_copy(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                            bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "memory_copy body");
    const V4MemoryCopy c = read_v4_memory_copy(r);
    check_range(m, l, c.in, "input");
    check_range(m, l, c.out, "output", -1, true);
    // The runtime copies the input as floats: size / 4 of them.
    const uint32_t bytes = c.in.size / 4 * 4;
    need(m, l, c.out, "output", bytes);
    std::vector<uint8_t> data(bytes);
    mem.read(c.in.memory_type, c.in.start, data.data(), bytes);
    write_range(mem, c.out, data);
    return {bytes};  // std::copy's memmove copies byte by byte (docs/k210_platform.md)
}

CpuLayerWork v4_concat(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "concat body");
    const V4Concat c = read_v4_concat(r);
    check_range(m, l, c.out, "output", -1, true);
    std::vector<uint8_t> out;
    std::vector<std::vector<uint8_t>> ins;
    uint64_t total = 0;
    for (size_t i = 0; i < c.inputs.size(); ++i) {
        check_range(m, l, c.inputs[i], "input");
        if (c.dims[i] < 0) {
            fail(m, l, fmt::format("input {} has concat dimension {}", i, c.dims[i]));
        }
        const uint64_t block = uint64_t{c.inner_size} * static_cast<uint64_t>(c.dims[i]);
        need(m, l, c.inputs[i], "input", block * c.outer_size);
        total += block * c.outer_size;
        ins.push_back(read_range(mem, c.inputs[i]));
    }
    need(m, l, c.out, "output", total);
    out.reserve(total);
    // An empty output copies nothing (its outer size may still be 2^32: fuzz_k210_run).
    for (uint64_t o = 0; total != 0 && o < c.outer_size; ++o) {
        for (size_t i = 0; i < ins.size(); ++i) {
            const uint64_t block = uint64_t{c.inner_size} * static_cast<uint64_t>(c.dims[i]);
            const uint8_t* src = ins[i].data() + o * block;
            out.insert(out.end(), src, src + block);
        }
    }
    write_range(mem, c.out, out);
    return {total};  // bytes: std::copy of each block, byte by byte
}

CpuLayerWork v4_pad(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "pad body");
    const V4Pad p = read_v4_pad(r);
    check_range(m, l, p.in, "input");
    check_range(m, l, p.out, "output", static_cast<int>(p.in.datatype), true);
    check_shape(m, l, p.in_shape, "in_shape");
    const Shape4 os = padded_shape(p.in_shape, p.paddings);
    check_shape(m, l, os, "padded shape");
    const size_t elem = elem_size(p.in.datatype);
    need(m, l, p.in, "input", shape_elements(p.in_shape) * elem);
    need(m, l, p.out, "output", shape_elements(os) * elem);
    const std::vector<uint8_t> in = read_range(mem, p.in);
    std::vector<uint8_t> out(shape_elements(os) * elem);
    if (!out.empty()) {  // an empty output: its other dimensions may span 2^24 each
        pad(in.data(), elem, p.in_shape, p.paddings, p.pad_value, out.data());
    }
    write_range(mem, p.out, out);
    return {shape_elements(os)};
}

CpuLayerWork v4_transpose(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "transpose body");
    const V4Transpose t = read_v4_transpose(r);
    check_range(m, l, t.in, "input");
    check_range(m, l, t.out, "output", static_cast<int>(t.in.datatype), true);
    check_shape(m, l, t.in_shape, "in_shape");
    Shape4 sorted = t.perm;
    std::sort(sorted.begin(), sorted.end());
    if (sorted != Shape4{0, 1, 2, 3}) {
        fail(m, l,
             fmt::format("perm ({}, {}, {}, {}) is not a permutation of 0..3", t.perm[0], t.perm[1],
                         t.perm[2], t.perm[3]));
    }
    const size_t elem = elem_size(t.in.datatype);
    const uint64_t n = shape_elements(t.in_shape);
    need(m, l, t.in, "input", n * elem);
    need(m, l, t.out, "output", n * elem);
    const std::vector<uint8_t> in = read_range(mem, t.in);
    std::vector<uint8_t> out(n * elem);
    if (n != 0) {  // an empty tensor: its other dimensions may span 2^24 each
        transpose(in.data(), elem, t.in_shape, t.perm, out.data());
    }
    write_range(mem, t.out, out);
    return {n};
}

CpuLayerWork v4_quantized_binary(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                 bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "quantized_binary body");
    const V4QuantizedBinary q = read_v4_quantized_binary(r);
    check_range(m, l, q.a, "input_a", kUint8);
    check_range(m, l, q.b, "input_b", kUint8);
    check_range(m, l, q.out, "output", kUint8, true);
    check_shape(m, l, q.a_shape, "in_a_shape");
    check_shape(m, l, q.b_shape, "in_b_shape");
    check_shape(m, l, q.out_shape, "out_shape");
    for (size_t k = 0; k < 4; ++k) {
        for (const Shape4* s : {&q.a_shape, &q.b_shape}) {
            if ((*s)[k] != 1 && (*s)[k] != q.out_shape[k]) {
                fail(m, l,
                     fmt::format("an input shape ({}, {}, {}, {}) does not broadcast to the "
                                 "output ({}, {}, {}, {})",
                                 (*s)[0], (*s)[1], (*s)[2], (*s)[3], q.out_shape[0], q.out_shape[1],
                                 q.out_shape[2], q.out_shape[3]));
            }
        }
    }
    need(m, l, q.a, "input_a", shape_elements(q.a_shape));
    need(m, l, q.b, "input_b", shape_elements(q.b_shape));
    need(m, l, q.out, "output", shape_elements(q.out_shape));
    const std::vector<uint8_t> a = read_range(mem, q.a);
    const std::vector<uint8_t> b = read_range(mem, q.b);
    std::vector<uint8_t> out(shape_elements(q.out_shape));
    if (!out.empty()) {  // an empty output: its other dimensions may span 2^24 each
        quantized_binary(a.data(), b.data(), q, out.data());
    }
    write_range(mem, q.out, out);
    return {out.size()};
}

CpuLayerWork v4_binary(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "binary body");
    const V4Binary b = read_v4_binary(r);
    check_range(m, l, b.a, "input_a", kFloat32);
    check_range(m, l, b.b, "input_b", kFloat32);
    check_range(m, l, b.out, "output", kFloat32, true);
    check_broadcast(m, l, b.a_shape, b.b_shape, b.out_shape);
    const uint64_t na = shape_elements(b.a_shape), nb = shape_elements(b.b_shape),
                   no = shape_elements(b.out_shape);
    need(m, l, b.a, "input_a", na * 4);
    need(m, l, b.b, "input_b", nb * 4);
    need(m, l, b.out, "output", no * 4);
    const std::vector<float> a = read_floats(mem, b.a, na), bb = read_floats(mem, b.b, nb);
    std::vector<float> out(static_cast<size_t>(no));
    if (no != 0) {  // an empty output: its other dimensions may span 2^24 each
        binary_f32(a.data(), bb.data(), b, out.data());
    }
    write_floats(mem, b.out, out);
    return {no};
}

CpuLayerWork v4_conv2d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma) {
    sim::ByteReader r = body_reader(m, l, "conv2d body");
    const V4Conv2d c = read_v4_conv2d(r);
    check_range(m, l, c.in, "input", kFloat32);
    check_range(m, l, c.out, "output", kFloat32, true);
    const uint64_t n_out = window_outputs(m, l, c.win, c.in_shape, c.out_channels);
    const uint64_t n_in = shape_elements(c.in_shape);
    need(m, l, c.in, "input", n_in * 4);
    need(m, l, c.out, "output", n_out * 4);
    check_work(m, l, n_out, static_cast<uint64_t>(c.in_shape[1] / c.groups) * window_size(c.win));
    const std::vector<float> in = read_floats(mem, c.in, n_in);
    std::vector<float> out(static_cast<size_t>(n_out));
    const uint64_t macs = conv2d_f32(in.data(), c, out.data(), fma);
    write_floats(mem, c.out, out);
    return {n_out, macs};
}

CpuLayerWork v4_matmul(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma) {
    sim::ByteReader r = body_reader(m, l, "matmul body");
    const V4Matmul mm = read_v4_matmul(r);
    check_range(m, l, mm.a, "input_a", kFloat32);
    check_range(m, l, mm.b, "input_b", kFloat32);
    check_range(m, l, mm.out, "output", kFloat32, true);
    const auto rows = static_cast<uint64_t>(mm.a_rows), cols = static_cast<uint64_t>(mm.a_cols),
               bcols = static_cast<uint64_t>(mm.b_cols);
    need(m, l, mm.a, "input_a", rows * cols * 4);
    need(m, l, mm.b, "input_b", cols * bcols * 4);
    need(m, l, mm.out, "output", rows * bcols * 4);
    check_work(m, l, rows * bcols, cols);
    const std::vector<float> a = read_floats(mem, mm.a, rows * cols);
    const std::vector<float> b = read_floats(mem, mm.b, cols * bcols);
    std::vector<float> out(static_cast<size_t>(rows * bcols));
    const uint64_t macs = matmul_f32(a.data(), b.data(), mm, out.data(), fma);
    write_floats(mem, mm.out, out);
    return {out.size(), macs};
}

CpuLayerWork v4_reduce_window2d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "reduce_window2d body");
    const V4ReduceWindow2d w = read_v4_reduce_window2d(r);
    check_range(m, l, w.in, "input", kFloat32);
    check_range(m, l, w.out, "output", kFloat32, true);
    const uint64_t n_out = window_outputs(m, l, w.win, w.in_shape, w.in_shape[1]);
    const uint64_t n_in = shape_elements(w.in_shape);
    need(m, l, w.in, "input", n_in * 4);
    need(m, l, w.out, "output", n_out * 4);
    check_work(m, l, n_out, window_size(w.win));
    const std::vector<float> in = read_floats(mem, w.in, n_in);
    std::vector<float> out(static_cast<size_t>(n_out));
    reduce_window2d_f32(in.data(), w, out.data());
    write_floats(mem, w.out, out);
    return {n_out * window_size(w.win)};
}

CpuLayerWork v4_softmax(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "softmax body");
    const V4Softmax s = read_v4_softmax(r);
    check_range(m, l, s.in, "input", kFloat32);
    check_range(m, l, s.out, "output", kFloat32, true);
    const uint64_t n = static_cast<uint64_t>(s.inner_size) * static_cast<uint64_t>(s.outer_size);
    need(m, l, s.in, "input", n * 4);
    need(m, l, s.out, "output", n * 4);
    const std::vector<float> in = read_floats(mem, s.in, n);
    std::vector<float> out(static_cast<size_t>(n));
    softmax_v4(in.data(), s, out.data());
    write_floats(mem, s.out, out);
    return {n * 3};
}

CpuLayerWork v4_upload(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "kpu_upload body");
    const V4Upload u = read_v4_upload(r);
    check_range(m, l, u.in, "input", kUint8);
    check_shape(m, l, u.shape, "shape");
    if (u.out.memory_type != kKpuMemory) {
        fail(m, l, "the output range is not in kpu memory");
    }
    const Shape4& s = u.shape;
    if (s[1] < 1 || s[2] < 1 || s[3] < 1 || s[3] > 4096 || s[2] > 4096 || s[1] > 4096) {
        fail(m, l,
             fmt::format("shape ({}, {}, {}, {}) is not a KPU feature map (c, h, w 1..4096)", s[0],
                         s[1], s[2], s[3]));
    }
    const kpu::FmapGeometry g = kpu::FmapGeometry::natural(s[1], s[3], s[2]);
    const uint64_t fmap_bytes = kpu::fmap_lines(s[1], s[3], s[2]) * kpu::kLineBytes;
    need(m, l, u.in, "input", shape_elements(s));
    const uint64_t extent = uint64_t{u.out.start} + fmap_bytes * static_cast<uint64_t>(s[0]);
    if (extent > kpu::kRamBytes) {
        fail(m, l,
             fmt::format("{} maps of {} bytes at kpu+{:#x} run past the 2 MiB AI SRAM", s[0],
                         fmap_bytes, u.out.start));
    }
    const std::vector<uint8_t> in = read_range(mem, u.in);
    upload_fmap(mem, u.out.start, g, static_cast<uint32_t>(s[0]), in.data());
    mem.kpu_result(u.out.start, g, static_cast<uint32_t>(s[0]));
    return {shape_elements(s)};
}

}  // namespace npu::k210::detail
