// The Kendryte SDK (kmodel v3) CPU layers the runtime executes, as kpu.c runs them, each over a
// RuntimeMemory (docs/k210_cpu_ops.md). Pure C++.
#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "platforms/k210/kmodel/cpu_ops.h"
#include "platforms/k210/kmodel/cpu_ops_spatial.h"
#include "platforms/k210/kmodel/cpu_ops_v3.h"
#include "platforms/k210/kmodel/runtime_detail.h"
#include "sim/core/error.h"

namespace npu::k210::detail {

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
    mem.result({kMainMemory, kFloat32, d.out_address, d.count * 4});
    return {d.count};
}

void check_main_count(const Kmodel& m, const KmodelLayer& l, uint64_t count, uint64_t elem,
                      const char* what) {
    if (count > m.main_mem_bytes / elem) {
        fail(m, l,
             fmt::format("the {}: {} {} do not fit the {}-byte working buffer", what, count,
                         elem == 4 ? "floats" : "bytes", m.main_mem_bytes));
    }
}

std::vector<float> read_floats(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                               uint32_t address, uint64_t count, const char* what) {
    check_main_count(m, l, count, 4, what);  // before anything is allocated
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
    mem.result({kMainMemory, kFloat32, address, static_cast<uint32_t>(v.size() * 4)});
}

std::vector<uint8_t> read_main_bytes(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                     uint32_t address, uint64_t count, const char* what) {
    check_main_count(m, l, count, 1, what);  // before anything is allocated
    check_range(m, l, {kMainMemory, kUint8, address, static_cast<uint32_t>(count)}, what);
    std::vector<uint8_t> v(count);
    mem.read(kMainMemory, address, v.data(), count);
    return v;
}

void write_main_bytes(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, uint32_t address,
                      const std::vector<uint8_t>& v) {
    check_range(m, l, {kMainMemory, kUint8, address, static_cast<uint32_t>(v.size())}, "output", -1,
                true);
    mem.write(kMainMemory, address, v.data(), v.size());
    mem.result({kMainMemory, kUint8, address, static_cast<uint32_t>(v.size())});
}

CpuLayerWork v3_quantize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "QUANTIZE body");
    r.u32("flags");
    const uint32_t in = r.u32("main_mem_in_address"), out = r.u32("mem_out_address");
    const uint32_t count = r.u32("count");
    const float scale = r.f32("scale"), bias = r.f32("bias");
    const std::vector<float> x = read_floats(m, l, mem, in, count, "input");
    check_range(m, l, {kMainMemory, kUint8, out, count}, "output", -1, true);
    std::vector<uint8_t> q(count);
    quantize_v3(x.data(), count, scale, bias, q.data());
    write_main_bytes(m, l, mem, out, q);
    return {count, 0};
}

CpuLayerWork v3_add(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
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

CpuLayerWork v3_global_average_pool(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                    bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "GLOBAL_AVERAGE_POOL2D body");
    r.u32("flags");
    const uint32_t in = r.u32("main_mem_in_address"), out = r.u32("main_mem_out_address");
    const uint32_t kernel = r.u32("kernel_size"), channels = r.u32("channels");
    check_main_count(m, l, channels, 4, "output");
    const std::vector<float> x = read_floats(m, l, mem, in, uint64_t{kernel} * channels, "input");
    std::vector<float> y(channels);
    global_average_pool_v3(x.data(), channels, kernel, y.data());
    write_floats(m, l, mem, out, y);
    return {uint64_t{kernel} * channels, 0};
}

CpuLayerWork v3_softmax(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
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

CpuLayerWork v3_concat(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
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
    write_main_bytes(m, l, mem, out, y);
    return {y.size(), 0};  // bytes: kpu.c's memcpy copies byte by byte (docs/k210_platform.md)
}

CpuLayerWork v3_upload(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "K210_UPLOAD body");
    r.u32("flags");
    const uint32_t in = r.u32("main_mem_in_address"), line = r.u32("kpu_mem_out_address");
    const uint32_t w = r.u32("width"), h = r.u32("height"), c = r.u32("channels");
    if (w < 1 || h < 1 || c < 1 || w > 4096 || h > 4096 || c > 4096) {
        fail(m, l, fmt::format("{}x{}x{} (c x h x w) is not a KPU feature map (1..4096)", c, h, w));
    }
    const uint64_t bytes = uint64_t{c} * h * w;
    check_main_count(m, l, bytes, 1, "input");
    check_range(m, l, {kMainMemory, kUint8, in, static_cast<uint32_t>(bytes)}, "input");
    const uint64_t lines =
        kpu::fmap_lines(static_cast<int>(c), static_cast<int>(w), static_cast<int>(h));
    if (uint64_t{line} + lines > kpu::kRamLines) {
        fail(m, l, fmt::format("{} lines at line {} run past the 2 MiB AI SRAM", lines, line));
    }
    std::vector<uint8_t> x(bytes);
    mem.read(kMainMemory, in, x.data(), x.size());
    const kpu::FmapGeometry g =
        kpu::FmapGeometry::natural(static_cast<int>(c), static_cast<int>(w), static_cast<int>(h));
    upload_fmap(mem, uint64_t{line} * kpu::kLineBytes, g, 1, x.data());
    mem.kpu_result(uint64_t{line} * kpu::kLineBytes, g, 1);
    return {bytes, 0};
}

CpuLayerWork v3_average_pool(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                             bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "AVERAGE_POOL2D body");
    const V3Pool p = read_v3_pool(r, true);
    check_v3_pool(m, l, p);
    check_main_count(m, l, p.out_shape.elements(), 4, "output");
    const std::vector<float> x =
        read_floats(m, l, mem, p.in_address, p.in_shape.elements(), "input");
    std::vector<float> y(p.out_shape.elements());
    average_pool_v3(x.data(), p, y.data());
    write_floats(m, l, mem, p.out_address, y);
    return {y.size() * p.kernel_w * p.kernel_h, 0};
}

CpuLayerWork v3_l2_normalization(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                 bool fma) {
    sim::ByteReader r = body_reader(m, l, "L2_NORMALIZATION body");
    const V3Channels c = read_v3_channels(r, "L2_NORMALIZATION");
    const std::vector<float> x = read_floats(m, l, mem, c.in_address, c.channels, "input");
    std::vector<float> y(x.size());
    l2_normalization_v3(x.data(), x.size(), y.data(), fma);
    write_floats(m, l, mem, c.out_address, y);
    return {uint64_t{c.channels} * 2, 0};  // the sum and the scaling passes
}

CpuLayerWork v3_logistic(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "LOGISTIC body");
    const V3Channels c = read_v3_channels(r, "LOGISTIC");
    const std::vector<float> x = read_floats(m, l, mem, c.in_address, c.channels, "input");
    std::vector<float> y(x.size());
    logistic_v3(x.data(), x.size(), y.data());
    write_floats(m, l, mem, c.out_address, y);
    return {c.channels, 0};
}

CpuLayerWork v3_flatten(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "TENSORFLOW_FLATTEN body");
    const V3Flatten f = read_v3_flatten(r);
    const std::vector<float> x = read_floats(m, l, mem, f.in_address, f.shape.elements(), "input");
    std::vector<float> y(x.size());
    flatten_v3(x.data(), f.shape, y.data());
    write_floats(m, l, mem, f.out_address, y);
    return {y.size(), 0};
}

// RESIZE_NEAREST_NEIGHBOR (elem 4) and QUANTIZED_RESIZE_NEAREST_NEIGHBOR (elem 1): kpu.c's
// arithmetic is v4's nearest resize_image over a (1, C, H, W) map.
CpuLayerWork resize_v3(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, size_t elem) {
    sim::ByteReader r = body_reader(m, l, "RESIZE_NEAREST_NEIGHBOR body");
    const V3Resize z = read_v3_resize(r);
    const V3Shape& s = z.in_shape;
    V4ResizeImage p;
    p.in_shape = {1, static_cast<int32_t>(s.channels), static_cast<int32_t>(s.height),
                  static_cast<int32_t>(s.width)};
    p.out_h = static_cast<int32_t>(z.out_height);
    p.out_w = static_cast<int32_t>(z.out_width);
    p.mode = ResizeMode::nearest;
    const uint64_t n_out = uint64_t{s.channels} * z.out_height * z.out_width;
    check_main_count(m, l, n_out, elem, "output");
    if (s.elements() == 0) {
        fail(m, l, fmt::format("in_shape {}x{}x{} is empty", s.width, s.height, s.channels));
    }
    const std::vector<uint8_t> x =
        read_main_bytes(m, l, mem, z.in_address, s.elements() * elem, "input");
    std::vector<uint8_t> y(static_cast<size_t>(n_out * elem));
    resize_image(x.data(), elem, p, y.data());
    write_main_bytes(m, l, mem, z.out_address, y);
    return {n_out, 0};
}

CpuLayerWork v3_resize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool /*fma*/) {
    return resize_v3(m, l, mem, 4);
}

CpuLayerWork v3_quantized_resize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                 bool /*fma*/) {
    return resize_v3(m, l, mem, 1);
}

}  // namespace npu::k210::detail
