// Compiler placement: KPU RAM and working-buffer allocation, tensors moved between their uint8,
// float32 and KPU-layout copies by the layers that do it, the kmodel started and finished
// (lowering.h).
#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "models/k210_kpu/kpu_cost.h"
#include "models/k210_kpu/kpu_layer_builder.h"
#include "platforms/k210/compiler/lowering.h"
#include "platforms/k210/kmodel/cpu_model.h"
#include "sim/core/error.h"
#include "sim/onnx/evaluator.h"

namespace npu::k210::lowering {

void Lowering::fail(const std::string& why) const {
    throw sim::Error(fmt::format("{}: {}", m_o.model_name, why));
}

void Lowering::fail(const onnx::Node& n, const std::string& why) const {
    fail(fmt::format("{}: {}", n.describe(), why));
}

// What only kmodel v4 has: in a v3 compilation, give up (compile_k210 decides what next).
void Lowering::needs_v4(const std::string& why) const {
    if (!m_v4) {
        throw NeedsV4{why};
    }
}

// Ranges in the working buffer (v4 nodes name their memory).
MemoryRange Lowering::main_u8(uint32_t at, uint64_t n) {
    return {kMainMemory, kUint8, at, static_cast<uint32_t>(n)};
}

MemoryRange Lowering::main_f32(uint32_t at, uint64_t n) {
    return {kMainMemory, kFloat32, at, static_cast<uint32_t>(n * 4)};
}

Shape4 Lowering::shape4(const Shape& s) {
    Shape4 r{1, 1, 1, 1};
    const size_t k = std::min<size_t>(s.size(), 4);
    for (size_t i = 0; i < k; ++i) {  // right-aligned: (C) -> (1, 1, 1, C)
        r[4 - k + i] = static_cast<int32_t>(s[s.size() - k + i]);
    }
    for (size_t i = 0; i + 4 < s.size(); ++i) {
        r[0] *= static_cast<int32_t>(s[i]);
    }
    return r;
}

uint32_t Lowering::add_constants(const std::vector<float>& v) {
    const auto at = static_cast<uint32_t>(m_constants.size());
    m_constants.resize(at + v.size() * 4);
    std::memcpy(m_constants.data() + at, v.data(), v.size() * 4);
    return at;
}

QuantParams Lowering::qparams(const std::string& t) const {
    auto it = m_ranges.find(t);
    if (it == m_ranges.end() || !(it->second.hi >= it->second.lo)) {
        fail(fmt::format("tensor '{}' has no calibrated range", t));
    }
    if (!std::isfinite(it->second.lo) || !std::isfinite(it->second.hi)) {
        fail(
            fmt::format("tensor '{}' takes non-finite values on the calibration samples ({} .. "
                        "{}): it cannot be quantized",
                        t, it->second.lo, it->second.hi));
    }
    return quant_params_u8(it->second.lo, it->second.hi);
}

uint32_t Lowering::alloc_main(uint64_t bytes) {
    const uint32_t at = m_main;
    const uint64_t next = (uint64_t{m_main} + bytes + 7) / 8 * 8;
    if (next > (6u << 20)) {
        fail(fmt::format("the working buffer would need {} bytes (the K210 has 6 MiB)", next));
    }
    m_main = static_cast<uint32_t>(next);
    return at;
}

uint32_t Lowering::alloc_kpu(uint64_t lines, const std::string& tensor, const std::string& what) {
    const int layer = static_cast<int>(m_spec.layers.size());
    std::optional<uint64_t> at = m_kpu.alloc(tensor, lines, layer);
    while (!at && move_one_out()) {
        at = m_kpu.alloc(tensor, lines, static_cast<int>(m_spec.layers.size()));
    }
    if (!at) {
        std::vector<std::string> live;
        for (const auto& [t, w] : m_t) {
            if (m_kpu.holds(t)) {
                live.push_back(t);
            }
        }
        const std::string named = what.find("'" + tensor + "'") == std::string::npos
                                      ? fmt::format("{} (tensor '{}')", what, tensor)
                                      : what;
        fail(fmt::format(
            "{} needs {} 64-byte lines of KPU RAM at layer {}; {} of the {} lines are held by "
            "tensors still to be read ({}), the largest free block has {}: the model does not "
            "fit the 2 MiB KPU RAM",
            named, lines, layer, m_kpu.in_use(), kpu::kRamLines, fmt::join(live, ", "),
            m_kpu.largest_free()));
    }
    return static_cast<uint32_t>(*at);
}

bool Lowering::move_one_out() {
    const std::vector<std::string>& reading = m_g.nodes[m_current].inputs;
    const CpuModel cpu;
    std::string victim;
    double victim_cost = 0;
    size_t victim_next = 0;
    for (const auto& [t, w] : m_t) {
        if (!w.kpu || !m_kpu.holds(t) || (!w.u8 && w.conv < 0) ||
            std::find(reading.begin(), reading.end(), t) != reading.end()) {
            continue;  // not in KPU RAM, no way to main memory, or read by this very node
        }
        size_t next = m_g.nodes.size();  // its next reader (none: the graph's output)
        if (const auto it = m_consumers.find(t); it != m_consumers.end()) {
            for (const size_t c : it->second) {
                if (c > m_current && m_done.count(c) == 0) {
                    next = std::min(next, c);
                }
            }
        }
        // What moving it costs the CPU, per line it frees: the upload before its next KPU
        // reader, and (kmodel v4, no copy in main memory yet) the read-back of the layer's
        // output; v3's KPU writes it out by DMA, without the CPU.
        const auto bytes = static_cast<double>(numel(w.shape));
        const double upload = bytes * cpu.element_cycles(m_v4 ? "kpu_upload" : "K210_UPLOAD");
        const double readback =
            w.u8 || !m_v4
                ? 0.0
                : static_cast<double>(cpu.readback_cycles(static_cast<uint64_t>(numel(w.shape))));
        const double cost = (upload + readback) / static_cast<double>(m_kpu.lines_of(t));
        if (victim.empty() || cost < victim_cost || (cost == victim_cost && next > victim_next)) {
            victim = t, victim_cost = cost, victim_next = next;
        }
    }
    if (victim.empty()) {
        return false;
    }
    to_main_u8(victim);  // the layer that wrote it writes it to main memory too
    m_kpu.release(victim, static_cast<int>(m_spec.layers.size()) - 1, true);
    m_t.at(victim).kpu.reset();
    return true;
}

void Lowering::release_dead(size_t index) {
    const int layer = static_cast<int>(m_spec.layers.size()) - 1;
    for (auto& [t, w] : m_t) {
        if (!w.kpu || !m_kpu.holds(t)) {
            continue;
        }
        bool read_later = false;
        if (const auto it = m_consumers.find(t); it != m_consumers.end()) {
            for (const size_t c : it->second) {
                read_later = read_later || (c > index && m_done.count(c) == 0);
            }
        }
        if (!read_later) {  // the graph's outputs leave by the layer's DMA, not from KPU RAM
            m_kpu.release(t, layer);
            w.kpu.reset();  // a later use would upload it again, never read freed lines
        }
    }
}

void Lowering::start() {
    const onnx::ValueInfo& in = m_g.inputs[0];
    m_out.input_name = in.name;
    m_out.output_name = m_g.outputs[0].name;
    for (const onnx::ValueInfo& o : m_g.outputs) {
        m_out.output_names.push_back(o.name);
    }
    m_out.input_shape = in.shape;
    m_out.input_q = qparams(in.name);
    const int c = static_cast<int>(in.shape[1]), h = static_cast<int>(in.shape[2]),
              w = static_cast<int>(in.shape[3]);
    const uint64_t lines = kpu::fmap_lines(c, w, h);
    if (lines > kpu::kRamLines) {
        fail(fmt::format("the input ({}) does not fit the 2 MiB KPU RAM", shape_str(in.shape)));
    }
    Where& x = m_t[in.name];
    x.shape = in.shape, x.q = m_out.input_q;
    if (m_v4) {
        // nncase's runtime takes the u8 image in memory and uploads it with a kpu_upload
        // node before the first KPU layer that reads it.
        x.u8 = alloc_main(static_cast<uint64_t>(numel(in.shape)));
        return;
    }
    m_kpu_top = kpu::kRamLines - lines;  // the input sits at the top, as the SDK places it
    m_kpu.reserve(in.name, m_kpu_top, lines);
    x.kpu = static_cast<uint32_t>(m_kpu_top);
    auto it = m_consumers.find(in.name);
    if (it == m_consumers.end() || it->second.size() != 1 ||
        m_g.nodes[it->second[0]].op_type != "Conv") {
        needs_v4(
            "the input does not feed exactly one Conv (a kmodel v3 starts with a KPU layer "
            "that reads the uploaded image)");
    }
}

CompiledLayer& Lowering::add_layer(const std::string& nodes, const std::string& target,
                                   const std::string& kind) {
    CompiledLayer l;
    l.nodes = nodes, l.target = target, l.kind = kind;
    l.kmodel_layer = static_cast<int>(m_spec.layers.size()) - 1;  // called after the push
    m_out.layers.push_back(l);
    return m_out.layers.back();
}

// A computed tensor, or an error naming the node that wants it.
Lowering::Where& Lowering::tensor(const onnx::Node& n, size_t input) {
    if (input >= n.inputs.size() || m_t.count(n.inputs[input]) == 0) {
        fail(n, fmt::format("its input {} is not computed by a compiled layer", input));
    }
    return m_t.at(n.inputs[input]);
}

// Tensor `t` as float32 in the working buffer (dense NCHW).
Lowering::Where& Lowering::to_f32(const std::string& t, const std::string& why) {
    Where& w = m_t.at(t);
    if (w.f32) {
        return w;
    }
    to_main_u8(t);
    const uint64_t n = static_cast<uint64_t>(numel(w.shape));
    const uint32_t out = alloc_main(n * 4);
    if (m_v4) {
        m_spec.layers.push_back(v4_dequantize_node(main_u8(*w.u8, n), main_f32(out, n),
                                                   w.q.zero_point,
                                                   static_cast<float>(1.0 / w.q.scale)));
    } else {
        m_spec.layers.push_back(DequantizeSpec{*w.u8, out, static_cast<uint32_t>(n),
                                               static_cast<float>(w.q.scale),
                                               static_cast<float>(-w.q.zero_point * w.q.scale)});
    }
    CompiledLayer& l = add_layer(t, "CPU", m_v4 ? "dequantize" : "DEQUANTIZE");
    l.why_cpu = why;
    l.in_shape = l.out_shape = w.shape;
    l.in_q = w.q;
    l.onnx_output = t;
    l.out_float = true, l.out_address = out, l.lsb = w.q;
    w.f32 = out;
    return w;
}

// Tensor `t` as dense uint8 in the working buffer (a KPU output: by the layer's DMA).
Lowering::Where& Lowering::to_main_u8(const std::string& t) {
    Where& w = m_t.at(t);
    if (w.u8) {
        return w;
    }
    if (w.conv >= 0) {
        auto& conv = std::get<ConvLayerSpec>(m_spec.layers[static_cast<size_t>(w.conv)]);
        conv.main_mem_out = true;
        conv.main_mem_out_address = alloc_main(static_cast<uint64_t>(numel(w.shape)));
        w.u8 = conv.main_mem_out_address;
        if (m_v4) {  // nncase v0.2 reads the output back with the CPU (CpuModel::readback_cycles)
            for (CompiledLayer& l : m_out.layers) {
                if (l.kmodel_layer == w.conv) {
                    l.est_cycles +=
                        CpuModel{}.readback_cycles(static_cast<uint64_t>(numel(w.shape)));
                }
            }
        }
        return w;
    }
    if (!w.f32) {
        fail(fmt::format("tensor '{}' (the input) has no uint8 copy in the working buffer", t));
    }
    w.q = qparams(t);
    const uint64_t count = static_cast<uint64_t>(numel(w.shape));
    const uint32_t out = alloc_main(count);
    push_quantize(*w.f32, out, count, w.q);
    CompiledLayer& l = add_layer(t, "CPU", m_v4 ? "quantize" : "QUANTIZE");
    l.why_cpu = "float tensor into a KPU layer";
    l.in_shape = l.out_shape = w.shape;
    l.out_q = l.lsb = w.q;
    l.out_address = out;
    w.u8 = out;
    return w;
}

void Lowering::push_quantize(uint32_t f32_at, uint32_t u8_at, uint64_t count,
                             const QuantParams& q) {
    if (m_v4) {
        m_spec.layers.push_back(v4_quantize_node(main_f32(f32_at, count), main_u8(u8_at, count),
                                                 q.zero_point, static_cast<float>(1.0 / q.scale)));
    } else {
        m_spec.layers.push_back(quantize_layer(f32_at, u8_at, static_cast<uint32_t>(count),
                                               static_cast<float>(q.scale),
                                               static_cast<float>(-q.zero_point * q.scale)));
    }
}

// Tensor `t` quantized in KPU RAM.
Lowering::Where& Lowering::to_kpu(const std::string& t, const onnx::Node& n) {
    Where& w = m_t.at(t);
    if (w.kpu) {
        return w;
    }
    if (w.shape.size() != 4) {
        fail(n, fmt::format("its input {} is not a 1 x C x H x W feature map", shape_str(w.shape)));
    }
    to_main_u8(t);
    const int c = static_cast<int>(w.shape[1]), h = static_cast<int>(w.shape[2]),
              wd = static_cast<int>(w.shape[3]);
    const uint64_t lines = kpu::fmap_lines(c, wd, h);
    const uint32_t line = alloc_kpu(lines, t, "the upload of " + t);
    if (m_v4) {
        const auto count = static_cast<uint64_t>(numel(w.shape));
        m_spec.layers.push_back(
            v4_upload_node(main_u8(*w.u8, count),
                           {kKpuMemory, kUint8, static_cast<uint32_t>(line * kpu::kLineBytes),
                            static_cast<uint32_t>(lines * kpu::kLineBytes)},
                           {1, c, h, wd}));
    } else {
        m_spec.layers.push_back(upload_layer(*w.u8, line, static_cast<uint32_t>(wd),
                                             static_cast<uint32_t>(h), static_cast<uint32_t>(c)));
    }
    CompiledLayer& l = add_layer(t, "CPU", m_v4 ? "kpu_upload" : "K210_UPLOAD");
    l.why_cpu = "feature map into the KPU RAM layout";
    l.in_shape = l.out_shape = w.shape;
    l.out_in_kpu = true, l.out_address = line, l.lsb = w.q;
    w.kpu = line;
    return w;
}

// A CPU layer's float output `t` at working-buffer byte `at`.
void Lowering::float_output(CompiledLayer& l, const std::string& t, uint32_t at) {
    l.onnx_output = t;
    l.out_float = true, l.out_address = at, l.lsb = qparams(t);
    Where& y = m_t[t];
    y.shape = l.out_shape, y.f32 = at, y.q = qparams(t);
}

const Lowering::Where& Lowering::to_main_u8_or_f32(const onnx::Node& n) {
    const Where& w = tensor(n, 0);
    return w.u8 || w.f32 ? w : to_main_u8(n.inputs[0]);
}

void Lowering::finish() {
    // The graph outputs in order, each as float32 in the working buffer (as nncase and the SDK's
    // compilers give a model's outputs).
    std::vector<std::pair<uint32_t, uint32_t>> outs;  // address, bytes
    for (const onnx::ValueInfo& o : m_g.outputs) {
        if (m_t.count(o.name) == 0) {
            fail(fmt::format("the graph output '{}' is not computed by a compiled layer", o.name));
        }
        const Where& w = to_f32(o.name, "the model output is float");
        outs.emplace_back(*w.f32, static_cast<uint32_t>(numel(w.shape) * 4));
    }
    if (m_v4) {
        V4ModelSpec v4;
        v4.main_mem = std::max<uint32_t>(m_main, 8);
        KmodelIo in;
        in.range =
            main_u8(*m_t.at(m_out.input_name).u8, static_cast<uint64_t>(numel(m_out.input_shape)));
        for (size_t i = 0; i < 4; ++i) {
            in.shape[i] = static_cast<int32_t>(m_out.input_shape[i]);
        }
        v4.inputs = {in};
        for (const auto& [at, bytes] : outs) {
            v4.outputs.push_back({kMainMemory, kFloat32, at, bytes});
        }
        v4.constants = m_constants;
        for (auto& layer : m_spec.layers) {
            if (auto* c = std::get_if<ConvLayerSpec>(&layer)) {
                v4.nodes.emplace_back(std::move(*c));
            } else {
                v4.nodes.emplace_back(std::move(std::get<RawLayerSpec>(layer)));
            }
        }
        m_out.kmodel = write_kmodel_v4(v4);
    } else {
        for (const auto& [at, bytes] : outs) {
            m_spec.outputs.push_back({at, bytes});
        }
        m_spec.eight_bit = true;
        m_spec.main_mem_usage = std::max<uint32_t>(m_main, 8);
        m_spec.max_start_address = static_cast<uint32_t>(m_kpu_top);
        m_out.kmodel = write_kmodel_v3(m_spec);
    }
    m_out.kmodel_version = m_v4 ? 4 : 3;
    m_out.kpu_lines = static_cast<uint32_t>(m_kpu.peak());
    for (const KpuRamPlan::Placement& p : m_kpu.placements()) {
        m_out.kpu_placements.push_back({p.tensor, static_cast<uint32_t>(p.first),
                                        static_cast<uint32_t>(p.lines), p.written, p.last,
                                        p.moved_out});
    }
    m_out.main_mem_bytes = m_main;
}

}  // namespace npu::k210::lowering
