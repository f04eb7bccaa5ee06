#include "platforms/k210/kmodel/functional.h"

#include <cstring>

#include <fmt/format.h>

#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "sim/core/error.h"

namespace npu::k210 {

namespace {

// The three memories as plain buffers; every access is bounds-checked.
class BufferMemory : public RuntimeMemory {
public:
    explicit BufferMemory(const Kmodel& m)
        : m_model(m)
        , m_main(m.main_mem_bytes)
        , m_kpu(kpu::kRamBytes) {}

    void read(uint32_t type, uint64_t start, void* dst, size_t n) override {
        if (n == 0) {
            return;
        }
        std::memcpy(dst, at(type, start, n, false), n);
    }
    void write(uint32_t type, uint64_t start, const void* src, size_t n) override {
        if (n == 0) {
            return;
        }
        std::memcpy(at(type, start, n, true), src, n);
    }
    uint8_t* kpu_ram() { return m_kpu.data(); }

private:
    uint8_t* at(uint32_t type, uint64_t start, size_t n, bool writing) {
        uint8_t* base = nullptr;
        uint64_t size = 0;
        switch (type) {
        case kConstMemory:
            if (writing) {
                throw sim::Error(m_model.name + ": write to const memory");
            }
            base = const_cast<uint8_t*>(m_model.bytes.data()) + m_model.constants_offset;
            size = m_model.constants_bytes;
            break;
        case kMainMemory: base = m_main.data(), size = m_main.size(); break;
        default: base = m_kpu.data(), size = m_kpu.size(); break;
        }
        if (start > size || n > size - start) {
            throw sim::Error(fmt::format("{}: access of {} bytes at {:#x} outside a {}-byte memory",
                                         m_model.name, n, start, size));
        }
        return base + start;
    }

    const Kmodel& m_model;
    std::vector<uint8_t> m_main, m_kpu;
};

// One KPU convolution (v3 K210_CONV or v4 kpu_conv2d with its batches), as the driver runs it.
FunctionalLayer kpu_conv(const Kmodel& m, const KpuConvLayer& c, BufferMemory& mem,
                         const FunctionalOptions& opts) {
    FunctionalLayer out;
    kpu::LayerArgs a = c.args;
    const std::vector<kpu::Problem> problems = kpu::validate(a, m.eight_bit);
    if (kpu::any_fatal(problems)) {
        std::string why;
        for (const kpu::Problem& p : problems) {
            why += (why.empty() ? "" : "; ") + p.field + " " + p.message;
        }
        throw sim::Error(
            fmt::format("{}: layer {}: the KPU cannot run it: {}", m.name, c.layer_index, why));
    }
    check_kpu_conv(m, c);
    const kpu::LayerParams params = conv_params(m, c);
    const kpu::FmapGeometry in = kpu::input_geometry(a), og = kpu::output_geometry(a);
    const uint64_t in_lines = kpu::fmap_lines(in.channels, in.width, in.height);
    const uint64_t out_lines = kpu::fmap_lines(og.channels, og.width, og.height);
    const uint64_t dst = a.image_dst_addr;
    std::vector<uint8_t> dense;
    for (uint32_t n = 0; n < c.batches; ++n) {
        kpu::LayerResult r = kpu::run_layer(a, params, m.eight_bit, opts.fidelity, mem.kpu_ram());
        out.macs += r.macs;
        out.overflows += r.overflows;
        dense = std::move(r.dense_output);
        a.image_src_addr = static_cast<uint32_t>((a.image_src_addr + in_lines) & 0x7fff);
        a.image_dst_addr = static_cast<uint32_t>((a.image_dst_addr + out_lines) & 0x7fff);
    }
    if (c.main_mem_out) {
        // v3: the DMA streams the output FIFO (the dense map) into main memory; v4: the CPU
        // downloads every batch from the AI SRAM.
        const std::vector<uint8_t> data =
            m.version == 3 ? dense : download_fmap(mem, dst * kpu::kLineBytes, og, c.batches);
        mem.write(kMainMemory, c.main_mem_out_address, data.data(), data.size());
    }
    return out;
}

}  // namespace

FunctionalResult run_functional(const Kmodel& m, const sim::Tensor& input,
                                const FunctionalOptions& opts) {
    if (m.main_mem_bytes > opts.max_main_bytes) {
        throw sim::Error(
            fmt::format("{}: the model's working buffer ({} bytes) is larger than "
                        "the {} bytes of SRAM",
                        m.name, m.main_mem_bytes, opts.max_main_bytes));
    }
    BufferMemory mem(m);
    load_input(m, input, mem);
    FunctionalResult result;
    size_t conv = 0;
    for (size_t i = 0; i < m.layers.size(); ++i) {
        FunctionalLayer l;
        if (is_kpu_layer(m.version, m.layers[i].type)) {
            l = kpu_conv(m, m.convs.at(conv++), mem, opts);
        } else {
            l.elements = run_cpu_layer(m, i, mem, opts.fused_multiply_add).elements;
        }
        l.index = i;
        result.layers.push_back(l);
        if (opts.on_layer) {
            opts.on_layer(l, i + 1, m.layers.size());
        }
        if (opts.on_layer_memory) {
            opts.on_layer_memory(l, mem);
        }
    }
    result.outputs = read_outputs(m, mem);
    return result;
}

}  // namespace npu::k210
