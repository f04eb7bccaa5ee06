#include "platforms/k210/kmodel/kmodel_runtime.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "platforms/k210/kmodel/cpu_ops.h"
#include "sim/core/error.h"

namespace npu::k210 {

namespace {

const char* memory_name(uint32_t t) {
    static const char* const kNames[] = {"const", "main", "kpu"};
    return t < 3 ? kNames[t] : "?";
}

uint64_t memory_size(const Kmodel& m, uint32_t t) {
    switch (t) {
    case kConstMemory: return m.constants_bytes;
    case kMainMemory: return m.main_mem_bytes;
    default: return kpu::kRamBytes;
    }
}

size_t elem_size(uint32_t datatype) {
    return datatype == kFloat32 ? 4 : 1;
}

[[noreturn]] void fail(const Kmodel& m, const KmodelLayer& l, const std::string& why) {
    throw sim::Error(
        fmt::format("{}: {} at byte {:#x}: {}", m.name, l.type_name, l.body_offset, why));
}

void need(const Kmodel& m, const KmodelLayer& l, const MemoryRange& r, const char* what,
          uint64_t bytes) {
    if (r.size < bytes) {
        fail(m, l,
             fmt::format("the {} range holds {} bytes, the operation needs {}", what, r.size,
                         bytes));
    }
}

void check_shape(const Kmodel& m, const KmodelLayer& l, const Shape4& s, const char* what) {
    for (int32_t d : s) {
        if (d < 0 || d > (1 << 24)) {
            fail(m, l,
                 fmt::format("{} ({}, {}, {}, {}) has a dimension outside 0..2^24", what, s[0],
                             s[1], s[2], s[3]));
        }
    }
}

void write_range(RuntimeMemory& mem, const MemoryRange& r, const std::vector<uint8_t>& data) {
    mem.write(r.memory_type, r.start, data.data(), data.size());
}

// ---------------------------------------------------------------- v4 nodes

CpuLayerWork v4_quantize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma,
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
        mem.write(p.out.memory_type, p.out.start, x.data(), x.size() * 4);
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

CpuLayerWork v4_memory_copy(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem) {
    sim::ByteReader r = body_reader(m, l, "memory_copy body");
    const V4MemoryCopy c = read_v4_memory_copy(r);
    check_range(m, l, c.in, "input");
    check_range(m, l, c.out, "output", -1, true);
    // The runtime copies the input as floats: size / 4 of them.
    const uint32_t bytes = c.in.size / 4 * 4;
    need(m, l, c.out, "output", bytes);
    std::vector<uint8_t> data(bytes);
    mem.read(c.in.memory_type, c.in.start, data.data(), bytes);
    mem.write(c.out.memory_type, c.out.start, data.data(), bytes);
    return {bytes / 4};
}

CpuLayerWork v4_concat(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem) {
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
    for (uint64_t o = 0; o < c.outer_size; ++o) {
        for (size_t i = 0; i < ins.size(); ++i) {
            const uint64_t block = uint64_t{c.inner_size} * static_cast<uint64_t>(c.dims[i]);
            const uint8_t* src = ins[i].data() + o * block;
            out.insert(out.end(), src, src + block);
        }
    }
    write_range(mem, c.out, out);
    return {total / elem_size(c.out.datatype)};
}

CpuLayerWork v4_pad(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem) {
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
    pad(in.data(), elem, p.in_shape, p.paddings, p.pad_value, out.data());
    mem.write(p.out.memory_type, p.out.start, out.data(), out.size());
    return {shape_elements(os)};
}

CpuLayerWork v4_transpose(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem) {
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
    transpose(in.data(), elem, t.in_shape, t.perm, out.data());
    mem.write(t.out.memory_type, t.out.start, out.data(), out.size());
    return {n};
}

CpuLayerWork v4_quantized_binary(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem) {
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
    quantized_binary(a.data(), b.data(), q, out.data());
    mem.write(q.out.memory_type, q.out.start, out.data(), out.size());
    return {out.size()};
}

// An f32 range read as floats: the first `n` of them (the caller checked the size).
std::vector<float> read_floats(RuntimeMemory& mem, const MemoryRange& r, uint64_t n) {
    std::vector<float> v(static_cast<size_t>(n));
    mem.read(r.memory_type, r.start, v.data(), v.size() * 4);
    return v;
}
void write_floats(RuntimeMemory& mem, const MemoryRange& r, const std::vector<float>& v) {
    mem.write(r.memory_type, r.start, v.data(), v.size() * 4);
}

// No float node may compute more than this many multiply-accumulates or window taps: a hostile
// body cannot keep the host busy for hours (a real K210 layer of 2^32 MACs runs minutes).
constexpr uint64_t kMaxCpuWork = uint64_t{1} << 32;

void check_work(const Kmodel& m, const KmodelLayer& l, uint64_t outputs, uint64_t per_output) {
    if (per_output != 0 && outputs > kMaxCpuWork / per_output) {
        fail(m, l,
             fmt::format("{} outputs of {} taps each exceed the {} operations a CPU node may "
                         "take",
                         outputs, per_output, kMaxCpuWork));
    }
}

void check_broadcast(const Kmodel& m, const KmodelLayer& l, const Shape4& a, const Shape4& b,
                     const Shape4& out) {
    for (size_t k = 0; k < 4; ++k) {
        for (const Shape4* s : {&a, &b}) {
            if ((*s)[k] != 1 && (*s)[k] != out[k]) {
                fail(m, l,
                     fmt::format("an input shape ({}, {}, {}, {}) does not broadcast to the "
                                 "output ({}, {}, {}, {})",
                                 (*s)[0], (*s)[1], (*s)[2], (*s)[3], out[0], out[1], out[2],
                                 out[3]));
            }
        }
    }
}

CpuLayerWork v4_binary(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem) {
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
    binary_f32(a.data(), bb.data(), b, out.data());
    write_floats(mem, b.out, out);
    return {no};
}

// The output plane of a window over `in`, N · C · out_h · out_w for `channels` output channels;
// an error naming the node when the window leaves no output.
uint64_t window_outputs(const Kmodel& m, const KmodelLayer& l, const Window2d& w, const Shape4& in,
                        int32_t channels) {
    const int64_t oh = w.out_h(in), ow = w.out_w(in);
    if (oh < 1 || ow < 1) {
        fail(m, l,
             fmt::format("a {}x{} filter (dilation {}x{}, stride {}x{}) leaves no output on the "
                         "{}x{} input with its padding",
                         w.filter_h, w.filter_w, w.dilation_h, w.dilation_w, w.stride_h, w.stride_w,
                         in[2], in[3]));
    }
    return static_cast<uint64_t>(in[0]) * static_cast<uint64_t>(channels) *
           static_cast<uint64_t>(oh) * static_cast<uint64_t>(ow);
}

uint64_t window_size(const Window2d& w) {
    return static_cast<uint64_t>(w.filter_h) * static_cast<uint64_t>(w.filter_w);
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

CpuLayerWork v4_reduce_window2d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem) {
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

CpuLayerWork v4_softmax(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem) {
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

CpuLayerWork v4_upload(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem) {
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
    return {shape_elements(s)};
}

// ---------------------------------------------------------------- v3 layers

CpuLayerWork v3_dequantize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma) {
    sim::ByteReader r = body_reader(m, l, "DEQUANTIZE body");
    const V3Dequantize d = read_v3_dequantize(r);
    check_range(m, l, {kMainMemory, kUint8, d.in_address, d.count}, "input");
    if (uint64_t{d.count} * 4 > 0xffffffffu) {
        fail(m, l, fmt::format("count {} is too large", d.count));
    }
    check_range(m, l, {kMainMemory, kFloat32, d.out_address, d.count * 4}, "output", -1, true);
    std::vector<uint8_t> q(d.count);
    mem.read(kMainMemory, d.in_address, q.data(), q.size());
    std::vector<float> x(d.count);
    dequantize_v3(q.data(), q.size(), d.scale, d.bias, x.data(), fma);
    mem.write(kMainMemory, d.out_address, x.data(), x.size() * 4);
    return {d.count};
}

// Reads `count` floats at main+`address` after checking the range.
std::vector<float> read_floats(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                               uint32_t address, uint64_t count, const char* what) {
    if (count > (uint64_t{1} << 28)) {
        fail(m, l, fmt::format("the {} count {} is too large", what, count));
    }
    check_range(m, l, {kMainMemory, kFloat32, address, static_cast<uint32_t>(count * 4)}, what);
    std::vector<float> v(count);
    mem.read(kMainMemory, address, v.data(), count * 4);
    return v;
}

void write_floats(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, uint32_t address,
                  const std::vector<float>& v) {
    check_range(m, l, {kMainMemory, kFloat32, address, static_cast<uint32_t>(v.size() * 4)},
                "output", -1, true);
    mem.write(kMainMemory, address, v.data(), v.size() * 4);
}

CpuLayerWork v3_quantize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem) {
    sim::ByteReader r = body_reader(m, l, "QUANTIZE body");
    r.u32("flags");
    const uint32_t in = r.u32("main_mem_in_address"), out = r.u32("mem_out_address");
    const uint32_t count = r.u32("count");
    const float scale = r.f32("scale"), bias = r.f32("bias");
    const std::vector<float> x = read_floats(m, l, mem, in, count, "input");
    check_range(m, l, {kMainMemory, kUint8, out, count}, "output", -1, true);
    std::vector<uint8_t> q(count);
    quantize_v3(x.data(), count, scale, bias, q.data());
    mem.write(kMainMemory, out, q.data(), q.size());
    return {count, 0};
}

CpuLayerWork v3_add(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem) {
    sim::ByteReader r = body_reader(m, l, "ADD body");
    r.u32("flags");
    const uint32_t a = r.u32("main_mem_in_a_address"), b = r.u32("main_mem_in_b_address");
    const uint32_t out = r.u32("main_mem_out_address"), count = r.u32("count");
    const std::vector<float> va = read_floats(m, l, mem, a, count, "input a");
    const std::vector<float> vb = read_floats(m, l, mem, b, count, "input b");
    std::vector<float> y(count);
    add_v3(va.data(), vb.data(), count, y.data());
    write_floats(m, l, mem, out, y);
    return {count, 0};
}

CpuLayerWork v3_global_average_pool(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem) {
    sim::ByteReader r = body_reader(m, l, "GLOBAL_AVERAGE_POOL2D body");
    r.u32("flags");
    const uint32_t in = r.u32("main_mem_in_address"), out = r.u32("main_mem_out_address");
    const uint32_t kernel = r.u32("kernel_size"), channels = r.u32("channels");
    const std::vector<float> x = read_floats(m, l, mem, in, uint64_t{kernel} * channels, "input");
    std::vector<float> y(channels);
    global_average_pool_v3(x.data(), channels, kernel, y.data());
    write_floats(m, l, mem, out, y);
    return {uint64_t{kernel} * channels, 0};
}

CpuLayerWork v3_softmax(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem) {
    sim::ByteReader r = body_reader(m, l, "SOFTMAX body");
    r.u32("flags");
    const uint32_t in = r.u32("main_mem_in_address"), out = r.u32("main_mem_out_address");
    const uint32_t channels = r.u32("channels");
    const std::vector<float> x = read_floats(m, l, mem, in, channels, "input");
    std::vector<float> y(channels);
    softmax_v3(x.data(), channels, y.data());
    write_floats(m, l, mem, out, y);
    return {uint64_t{channels} * 3, 0};  // max, exp and divide passes
}

CpuLayerWork v3_fully_connected(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                bool fma) {
    sim::ByteReader r = body_reader(m, l, "FULLY_CONNECTED body");
    r.u32("flags");
    const uint32_t in = r.u32("main_mem_in_address"), out = r.u32("main_mem_out_address");
    const uint32_t ic = r.u32("in_channels"), oc = r.u32("out_channels"), act = r.u32("act");
    if (act > 2) {
        fail(m, l, fmt::format("act {} is not 0 (linear), 1 (relu) or 2 (relu6)", act));
    }
    const uint64_t params = uint64_t{ic} * oc + oc;
    if (params > r.remaining() / 4) {
        fail(m, l,
             fmt::format("{}x{} weights and {} biases need {} bytes, the body has {}", oc, ic, oc,
                         params * 4, r.remaining()));
    }
    std::vector<float> w(params);
    for (float& v : w) {
        v = r.f32("weights");
    }
    const std::vector<float> x = read_floats(m, l, mem, in, ic, "input");
    std::vector<float> y(oc);
    fully_connected_v3(x.data(), w.data(), w.data() + uint64_t{ic} * oc, ic, oc, act, y.data(),
                       fma);
    write_floats(m, l, mem, out, y);
    return {oc, uint64_t{ic} * oc};
}

CpuLayerWork v3_concat(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem) {
    sim::ByteReader r = body_reader(m, l, "CONCAT body");
    r.u32("flags");
    const uint32_t out = r.u32("main_mem_out_address"), count = r.u32("input_count");
    if (count > r.remaining() / 8) {
        fail(m, l,
             fmt::format("{} inputs need {} bytes, the body has {}", count, uint64_t{count} * 8,
                         r.remaining()));
    }
    std::vector<uint8_t> y;
    for (uint32_t i = 0; i < count; ++i) {
        const uint32_t start = r.u32("inputs_mem.start"), size = r.u32("inputs_mem.size");
        check_range(m, l, {kMainMemory, kUint8, start, size}, "input");
        if (y.size() + size > m.main_mem_bytes) {
            fail(m, l, "the inputs together are larger than the working buffer");
        }
        const size_t at = y.size();
        y.resize(at + size);
        mem.read(kMainMemory, start, y.data() + at, size);
    }
    check_range(m, l, {kMainMemory, kUint8, out, static_cast<uint32_t>(y.size())}, "output", -1,
                true);
    mem.write(kMainMemory, out, y.data(), y.size());
    return {y.size() / 4, 0};  // bytes copied, counted as 4-byte elements
}

CpuLayerWork v3_upload(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem) {
    sim::ByteReader r = body_reader(m, l, "K210_UPLOAD body");
    r.u32("flags");
    const uint32_t in = r.u32("main_mem_in_address"), line = r.u32("kpu_mem_out_address");
    const uint32_t w = r.u32("width"), h = r.u32("height"), c = r.u32("channels");
    if (w < 1 || h < 1 || c < 1 || w > 4096 || h > 4096 || c > 4096) {
        fail(m, l, fmt::format("{}x{}x{} (c x h x w) is not a KPU feature map (1..4096)", c, h, w));
    }
    const uint64_t bytes = uint64_t{c} * h * w;
    check_range(m, l, {kMainMemory, kUint8, in, static_cast<uint32_t>(bytes)}, "input");
    const uint64_t lines =
        kpu::fmap_lines(static_cast<int>(c), static_cast<int>(w), static_cast<int>(h));
    if (uint64_t{line} + lines > kpu::kRamLines) {
        fail(m, l, fmt::format("{} lines at line {} run past the 2 MiB AI SRAM", lines, line));
    }
    std::vector<uint8_t> x(bytes);
    mem.read(kMainMemory, in, x.data(), x.size());
    upload_fmap(
        mem, uint64_t{line} * kpu::kLineBytes,
        kpu::FmapGeometry::natural(static_cast<int>(c), static_cast<int>(w), static_cast<int>(h)),
        1, x.data());
    return {bytes, 0};
}

}  // namespace

bool layer_supported(int version, uint32_t type) {
    if (version == 3) {
        switch (type) {
        case op::kV3Conv:
        case op::kV3Dequantize:
        case op::kV3Quantize:
        case op::kV3Add:
        case op::kV3GlobalAveragePool:
        case op::kV3Softmax:
        case op::kV3FullyConnected:
        case op::kV3Concat:
        case op::kV3Upload: return true;
        default: return false;
        }
    }
    switch (type) {
    case op::kV4Concat:
    case op::kV4Dequantize:
    case op::kV4Pad:
    case op::kV4Quantize:
    case op::kV4MemoryCopy:
    case op::kV4Transpose:
    case op::kV4QuantizedBinary:
    case op::kV4Upload:
    case op::kV4Binary:
    case op::kV4Conv2d:
    case op::kV4Matmul:
    case op::kV4ReduceWindow2d:
    case op::kV4Softmax:
    case op::kV4Conv: return true;
    default: return false;
    }
}

bool is_kpu_layer(int version, uint32_t type) {
    return type == (version == 3 ? op::kV3Conv : op::kV4Conv);
}

void check_range(const Kmodel& m, const KmodelLayer& l, const MemoryRange& r, const char* what,
                 int want_type, bool written) {
    const uint64_t size = memory_size(m, r.memory_type);
    if (uint64_t{r.start} + r.size > size) {
        fail(m, l,
             fmt::format("the {} range {}+{:#x} ({} bytes) runs past the {}-byte {} memory", what,
                         memory_name(r.memory_type), r.start, r.size, size,
                         memory_name(r.memory_type)));
    }
    if (want_type >= 0 && r.datatype != static_cast<uint32_t>(want_type)) {
        fail(m, l,
             fmt::format("the {} range is {}, expected {}", what,
                         r.datatype == kFloat32 ? "f32" : "u8",
                         want_type == kFloat32 ? "f32" : "u8"));
    }
    if (written && r.memory_type == kConstMemory) {
        fail(m, l, fmt::format("the {} range is in const memory", what));
    }
}

void check_kpu_conv(const Kmodel& m, const KpuConvLayer& c) {
    const KmodelLayer& l = m.layers.at(c.layer_index);
    const kpu::FmapGeometry in = kpu::input_geometry(c.args), out = kpu::output_geometry(c.args);
    const uint64_t in_lines = kpu::fmap_lines(in.channels, in.width, in.height);
    const uint64_t out_lines = kpu::fmap_lines(out.channels, out.width, out.height);
    if (c.batches > 1 && (c.args.image_src_addr + c.batches * in_lines > kpu::kRamLines ||
                          c.args.image_dst_addr + c.batches * out_lines > kpu::kRamLines)) {
        fail(m, l,
             fmt::format("{} batches of maps ({} input, {} output lines each) run past the "
                         "{}-line AI SRAM",
                         c.batches, in_lines, out_lines, kpu::kRamLines));
    }
    if (c.main_mem_out) {
        const uint64_t bytes = static_cast<uint64_t>(out.channels) *
                               static_cast<uint64_t>(out.height) *
                               static_cast<uint64_t>(out.width) * c.batches;
        const uint32_t size = m.version == 3 ? static_cast<uint32_t>(bytes) : c.main_mem_out_size;
        check_range(m, l, {kMainMemory, kUint8, c.main_mem_out_address, size}, "main_mem_output",
                    -1, true);
        need(m, l, {kMainMemory, kUint8, c.main_mem_out_address, size}, "main_mem_output", bytes);
    }
}

std::vector<uint8_t> read_range(RuntimeMemory& mem, const MemoryRange& r) {
    std::vector<uint8_t> data(r.size);
    mem.read(r.memory_type, r.start, data.data(), data.size());
    return data;
}

void upload_fmap(RuntimeMemory& mem, uint64_t kpu_start, const kpu::FmapGeometry& g,
                 uint32_t batches, const uint8_t* nchw) {
    const uint64_t fmap_bytes = kpu::fmap_lines(g.channels, g.width, g.height) * kpu::kLineBytes;
    const auto w = static_cast<size_t>(g.width);
    for (uint32_t n = 0; n < batches; ++n) {
        const uint64_t base = kpu_start + n * fmap_bytes;
        for (int c = 0; c < g.channels; ++c) {
            for (int y = 0; y < g.height; ++y) {
                mem.write(kKpuMemory, base + g.offset(c, y, 0), nchw, w);
                nchw += w;
            }
        }
    }
}

std::vector<uint8_t> download_fmap(RuntimeMemory& mem, uint64_t kpu_start,
                                   const kpu::FmapGeometry& g, uint32_t batches) {
    const uint64_t fmap_bytes = kpu::fmap_lines(g.channels, g.width, g.height) * kpu::kLineBytes;
    std::vector<uint8_t> out(static_cast<size_t>(g.channels) * static_cast<size_t>(g.height) *
                             static_cast<size_t>(g.width) * batches);
    uint8_t* p = out.data();
    const auto w = static_cast<size_t>(g.width);
    for (uint32_t n = 0; n < batches; ++n) {
        const uint64_t base = kpu_start + n * fmap_bytes;
        for (int c = 0; c < g.channels; ++c) {
            for (int y = 0; y < g.height; ++y) {
                mem.read(kKpuMemory, base + g.offset(c, y, 0), p, w);
                p += w;
            }
        }
    }
    return out;
}

sim::Shape model_input_shape(const Kmodel& m) {
    if (m.version == 3) {
        if (m.convs.empty() || m.convs.front().layer_index != 0) {
            throw sim::Error(m.name +
                             ": the first layer is not K210_CONV: only models that start on the "
                             "KPU are supported");
        }
        const kpu::LayerArgs& a = m.convs.front().args;
        return {1, a.in_channels(), a.in_height(), a.in_width()};
    }
    if (m.inputs.size() != 1 || m.inputs[0].range.datatype != kUint8) {
        throw sim::Error(m.name + ": only models with one u8 input are supported");
    }
    const KmodelIo& in = m.inputs[0];
    if (in.shape[0] != 1 || in.shape[1] < 1 || in.shape[2] < 1 || in.shape[3] < 1 ||
        shape_elements({in.shape[0], in.shape[1], in.shape[2], in.shape[3]}) > in.range.size) {
        throw sim::Error(
            fmt::format("{}: input shape ({}, {}, {}, {}) does not fit its {}-byte "
                        "range (one image of at least 1x1x1 expected)",
                        m.name, in.shape[0], in.shape[1], in.shape[2], in.shape[3], in.range.size));
    }
    return {1, in.shape[1], in.shape[2], in.shape[3]};
}

void check_input(const Kmodel& m, const sim::Tensor& input) {
    const sim::Shape want = model_input_shape(m);
    if (input.dtype() != sim::DType::u8 ||
        static_cast<int64_t>(input.numel()) != want[1] * want[2] * want[3]) {
        throw sim::Error(fmt::format("input is {} of {}, the model expects u8 {}",
                                     sim::shape_str(input.shape()), sim::dtype_name(input.dtype()),
                                     sim::shape_str(want)));
    }
}

void load_input(const Kmodel& m, const sim::Tensor& input, RuntimeMemory& mem) {
    check_input(m, input);
    const sim::Shape s = model_input_shape(m);
    const auto c = static_cast<int>(s[1]), h = static_cast<int>(s[2]), w = static_cast<int>(s[3]);
    if (m.version == 3) {
        const kpu::LayerArgs& first = m.convs.front().args;
        upload_fmap(mem, uint64_t{first.image_src_addr} * kpu::kLineBytes,
                    kpu::input_geometry(first), 1, input.bytes());
        return;
    }
    const MemoryRange& r = m.inputs[0].range;
    if (r.memory_type == kKpuMemory) {
        const kpu::FmapGeometry g = kpu::FmapGeometry::natural(c, w, h);
        if (uint64_t{r.start} + g.extent() > kpu::kRamBytes) {
            throw sim::Error(
                fmt::format("{}: the input at kpu+{:#x} runs past the AI SRAM", m.name, r.start));
        }
        upload_fmap(mem, r.start, g, 1, input.bytes());
    } else {
        if (r.memory_type != kMainMemory || uint64_t{r.start} + r.size > m.main_mem_bytes) {
            throw sim::Error(fmt::format("{}: the input range is not inside main memory", m.name));
        }
        mem.write(r.memory_type, r.start, input.bytes(), input.size_bytes());
    }
}

std::vector<sim::Tensor> read_outputs(const Kmodel& m, RuntimeMemory& mem) {
    std::vector<sim::Tensor> outs;
    for (size_t i = 0; i < m.outputs.size(); ++i) {
        const KmodelIo& o = m.outputs[i];
        if (uint64_t{o.range.start} + o.range.size > memory_size(m, o.range.memory_type)) {
            throw sim::Error(fmt::format("{}: output {} ({}+{:#x}, {} bytes) runs past its memory",
                                         m.name, i, memory_name(o.range.memory_type), o.range.start,
                                         o.range.size));
        }
        const bool f32 = o.range.datatype == kFloat32;
        const sim::DType t = f32 ? sim::DType::f32 : sim::DType::u8;
        const uint64_t n = f32 ? o.range.size / 4 : o.range.size;
        const bool shaped = std::all_of(o.shape, o.shape + 4, [](int32_t d) { return d >= 1; }) &&
                            shape_elements({o.shape[0], o.shape[1], o.shape[2], o.shape[3]}) == n;
        sim::Tensor out = shaped ? sim::Tensor(t, {o.shape[0], o.shape[1], o.shape[2], o.shape[3]})
                                 : sim::Tensor(t, {static_cast<int64_t>(n)});  // flat
        mem.read(o.range.memory_type, o.range.start, out.bytes(), out.size_bytes());
        outs.push_back(std::move(out));
    }
    return outs;
}

CpuLayerWork run_cpu_layer(const Kmodel& m, size_t index, RuntimeMemory& mem, bool fma) {
    const KmodelLayer& l = m.layers.at(index);
    if (m.version == 3) {
        switch (l.type) {
        case op::kV3Dequantize: return v3_dequantize(m, l, mem, fma);
        case op::kV3Quantize: return v3_quantize(m, l, mem);
        case op::kV3Add: return v3_add(m, l, mem);
        case op::kV3GlobalAveragePool: return v3_global_average_pool(m, l, mem);
        case op::kV3Softmax: return v3_softmax(m, l, mem);
        case op::kV3FullyConnected: return v3_fully_connected(m, l, mem, fma);
        case op::kV3Concat: return v3_concat(m, l, mem);
        case op::kV3Upload: return v3_upload(m, l, mem);
        default: break;
        }
    } else {
        switch (l.type) {
        case op::kV4Dequantize: return v4_quantize(m, l, mem, fma, true);
        case op::kV4Quantize: return v4_quantize(m, l, mem, fma, false);
        case op::kV4MemoryCopy: return v4_memory_copy(m, l, mem);
        case op::kV4Concat: return v4_concat(m, l, mem);
        case op::kV4Pad: return v4_pad(m, l, mem);
        case op::kV4Transpose: return v4_transpose(m, l, mem);
        case op::kV4QuantizedBinary: return v4_quantized_binary(m, l, mem);
        case op::kV4Upload: return v4_upload(m, l, mem);
        case op::kV4Binary: return v4_binary(m, l, mem);
        case op::kV4Conv2d: return v4_conv2d(m, l, mem, fma);
        case op::kV4Matmul: return v4_matmul(m, l, mem, fma);
        case op::kV4ReduceWindow2d: return v4_reduce_window2d(m, l, mem);
        case op::kV4Softmax: return v4_softmax(m, l, mem);
        default: break;
        }
    }
    throw sim::Error(
        fmt::format("{}: {} {} is {} ({} {:#x}): not supported by the K210 runtime "
                    "model (supported: docs/k210_platform.md)",
                    m.name, m.version == 3 ? "layer" : "node", index, l.type_name,
                    m.version == 3 ? "type" : "opcode", l.type));
}

}  // namespace npu::k210
