#include "platforms/k210/kmodel/kmodel_runtime.h"

#include <algorithm>
#include <cstring>

#include <fmt/format.h>

#include "platforms/k210/kmodel/cpu_ops.h"
#include "platforms/k210/kmodel/kmodel_ops.h"
#include "platforms/k210/kmodel/runtime_detail.h"
#include "sim/core/error.h"

namespace npu::k210 {

using namespace detail;  // the runtime's own internals (runtime_detail.h)

bool layer_supported(int version, uint32_t type) {
    const KmodelOp* op = find_op(version, type);
    return op != nullptr && op->runs != OpRuns::not_supported;
}

bool is_kpu_layer(int version, uint32_t type) {
    const KmodelOp* op = find_op(version, type);
    return op != nullptr && op->runs == OpRuns::kpu;
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

namespace {

// kpu_run_kmodel's second way in: a v3 model whose first layer is FULLY_CONNECTED takes
// in_channels floats, copied to its main_mem_in_address.
struct V3FloatInput {
    uint32_t address = 0, channels = 0;
};
V3FloatInput v3_float_input(const Kmodel& m) {
    sim::ByteReader r = body_reader(m, m.layers.front(), "FULLY_CONNECTED body");
    r.u32("flags");
    V3FloatInput in;
    in.address = r.u32("main_mem_in_address");
    r.u32("main_mem_out_address");
    in.channels = r.u32("in_channels");
    if (in.channels < 1 || uint64_t{in.address} + uint64_t{in.channels} * 4 > m.main_mem_bytes) {
        throw sim::Error(
            fmt::format("{}: the first layer's {} input floats at main+{:#x} do not "
                        "fit the {}-byte main memory",
                        m.name, in.channels, in.address, m.main_mem_bytes));
    }
    return in;
}

bool v3_starts_on_cpu(const Kmodel& m) {
    return m.version == 3 && !m.layers.empty() && m.layers.front().type == op::kV3FullyConnected;
}

}  // namespace

sim::Shape model_input_shape(const Kmodel& m) {
    if (v3_starts_on_cpu(m)) {
        return {1, static_cast<int64_t>(v3_float_input(m).channels), 1, 1};
    }
    if (m.version == 3) {
        if (m.convs.empty() || m.convs.front().layer_index != 0) {
            throw sim::Error(m.name +
                             ": the first layer is neither K210_CONV nor FULLY_CONNECTED, the two "
                             "kpu_run_kmodel starts");
        }
        const kpu::LayerArgs& a = m.convs.front().args;
        return {1, a.in_channels(), a.in_height(), a.in_width()};
    }
    if (m.inputs.size() != 1) {
        throw sim::Error(fmt::format("{}: {} inputs; only models with one input are supported",
                                     m.name, m.inputs.size()));
    }
    const KmodelIo& in = m.inputs[0];
    const uint64_t elem = in.range.datatype == kFloat32 ? 4 : 1;
    if (in.shape[0] != 1 || in.shape[1] < 1 || in.shape[2] < 1 || in.shape[3] < 1 ||
        shape_elements({in.shape[0], in.shape[1], in.shape[2], in.shape[3]}) * elem >
            in.range.size) {
        throw sim::Error(
            fmt::format("{}: input shape ({}, {}, {}, {}) does not fit its {}-byte "
                        "range (one tensor of at least 1x1x1 expected)",
                        m.name, in.shape[0], in.shape[1], in.shape[2], in.shape[3], in.range.size));
    }
    return {1, in.shape[1], in.shape[2], in.shape[3]};
}

sim::DType model_input_dtype(const Kmodel& m) {
    if (v3_starts_on_cpu(m)) {
        return sim::DType::f32;
    }
    if (m.version == 4 && m.inputs.size() == 1 && m.inputs[0].range.datatype == kFloat32) {
        return sim::DType::f32;
    }
    return sim::DType::u8;
}

void check_input(const Kmodel& m, const sim::Tensor& input) {
    const sim::Shape want = model_input_shape(m);
    const sim::DType type = model_input_dtype(m);
    // The model's shape, or without its batch of 1: the same element count in another shape (an
    // HWC photo, a flattened vector) would be read in the wrong order, so it is refused.
    const sim::Shape chw = {want[1], want[2], want[3]};
    if (input.dtype() != type || (input.shape() != want && input.shape() != chw)) {
        const bool hwc = input.shape() == sim::Shape{want[2], want[3], want[1]} ||
                         input.shape() == sim::Shape{1, want[2], want[3], want[1]};
        throw sim::Error(fmt::format(
            "input is {} of {}, the model expects {} {} (or {}){}", sim::shape_str(input.shape()),
            sim::dtype_name(input.dtype()), sim::dtype_name(type), sim::shape_str(want),
            sim::shape_str(chw),
            hwc ? ": an HWC image needs its channels first (numpy: x.transpose(2, 0, 1))" : ""));
    }
}

void load_input(const Kmodel& m, const sim::Tensor& input, RuntimeMemory& mem) {
    check_input(m, input);
    const sim::Shape s = model_input_shape(m);
    const auto c = static_cast<int>(s[1]), h = static_cast<int>(s[2]), w = static_cast<int>(s[3]);
    if (v3_starts_on_cpu(m)) {
        mem.write(kMainMemory, v3_float_input(m).address, input.bytes(), input.size_bytes());
        return;
    }
    if (m.version == 3) {
        const kpu::LayerArgs& first = m.convs.front().args;
        upload_fmap(mem, uint64_t{first.image_src_addr} * kpu::kLineBytes,
                    kpu::input_geometry(first), 1, input.bytes());
        return;
    }
    const MemoryRange& r = m.inputs[0].range;
    if (r.memory_type == kKpuMemory && r.datatype == kUint8) {
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

void run_kpu_conv(const Kmodel& m, const KpuConvLayer& c, RuntimeMemory& mem, KpuPort& kpu) {
    check_kpu_conv(m, c);
    const kpu::FmapGeometry in = kpu::input_geometry(c.args), out = kpu::output_geometry(c.args);
    const uint64_t in_lines = kpu::fmap_lines(in.channels, in.width, in.height);
    const uint64_t out_lines = kpu::fmap_lines(out.channels, out.width, out.height);
    uint32_t src = c.args.image_src_addr, dst = c.args.image_dst_addr;
    const bool stream_to_main = m.version == 3 && c.main_mem_out;
    for (uint32_t n = 0; n < c.batches; ++n) {
        kpu.run(c, src, dst, stream_to_main);
        src = static_cast<uint32_t>((src + in_lines) % kpu::kRamLines);
        dst = static_cast<uint32_t>((dst + out_lines) % kpu::kRamLines);
    }
    const uint64_t dense = uint64_t{c.batches} * static_cast<uint64_t>(out.channels) *
                           static_cast<uint64_t>(out.height) * static_cast<uint64_t>(out.width);
    if (m.version == 4 && c.main_mem_out) {
        const std::vector<uint8_t> data =
            download_fmap(mem, uint64_t{c.args.image_dst_addr} * kpu::kLineBytes, out, c.batches);
        mem.write(kMainMemory, c.main_mem_out_address, data.data(), data.size());
    }
    if (c.main_mem_out) {  // the dense map streamed (v3, by DMA) or downloaded (v4) to main
        mem.result({kMainMemory, kUint8, c.main_mem_out_address, static_cast<uint32_t>(dense)});
    } else {
        mem.kpu_result(uint64_t{c.args.image_dst_addr} * kpu::kLineBytes, out, c.batches);
    }
}

CpuLayerWork run_cpu_layer(const Kmodel& m, size_t index, RuntimeMemory& mem, bool fma) {
    const KmodelLayer& l = m.layers.at(index);
    const KmodelOp* op = find_op(m.version, l.type);
    if (op != nullptr && op->runs == OpRuns::cpu) {
        return op->run(m, l, mem, fma);
    }
    // Every op the reference runtimes run is in the table: what is left they refuse too.
    throw sim::Error(fmt::format(
        "{}: {} {} is {} ({} {:#x}): {}", m.name, m.version == 3 ? "layer" : "node", index,
        l.type_name, m.version == 3 ? "type" : "opcode", l.type,
        m.version == 3 ? "the Kendryte SDK's kpu.c does not run this layer type, nor does the "
                         "simulator"
                       : "nncase v0.2.0-beta4's K210 runtime has no such opcode, nor does the "
                         "simulator"));
}

}  // namespace npu::k210
