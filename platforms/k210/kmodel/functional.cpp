#include "platforms/k210/kmodel/functional.h"

#include <cstring>
#include <utility>

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

// The KPU as a pure function on the buffer's AI SRAM: each layer's arguments as stored (their
// weight tables read from the model's bytes), checked first as the hardware model would.
class FunctionalKpu : public KpuPort {
public:
    FunctionalKpu(const Kmodel& m, BufferMemory& mem, const FunctionalOptions& opts)
        : m_model(m)
        , m_mem(mem)
        , m_opts(opts) {}

    void run(const KpuConvLayer& c, uint32_t src_line, uint32_t dst_line,
             bool stream_to_main) override {
        if (m_layer != &c) {
            check(c);
            m_params = conv_params(m_model, c);
            m_layer = &c;
        }
        kpu::LayerArgs a = c.args;
        a.image_src_addr = src_line;
        a.image_dst_addr = dst_line;
        kpu::LayerResult r =
            kpu::run_layer(a, m_params, m_model.eight_bit, m_opts.fidelity, m_mem.kpu_ram());
        m_work.macs += r.macs;
        m_work.overflows += r.overflows;
        if (stream_to_main) {
            m_mem.write(kMainMemory, c.main_mem_out_address, r.dense_output.data(),
                        r.dense_output.size());
        }
    }
    // The MACs and overflows since the last call.
    FunctionalLayer take() { return std::exchange(m_work, FunctionalLayer{}); }

private:
    void check(const KpuConvLayer& c) const {
        const std::vector<kpu::Problem> problems = kpu::validate(c.args, m_model.eight_bit);
        if (kpu::any_fatal(problems)) {
            std::string why;
            for (const kpu::Problem& p : problems) {
                why += (why.empty() ? "" : "; ") + p.field + " " + p.message;
            }
            throw sim::Error(fmt::format("{}: layer {}: the KPU cannot run it: {}", m_model.name,
                                         c.layer_index, why));
        }
    }

    const Kmodel& m_model;
    BufferMemory& m_mem;
    const FunctionalOptions& m_opts;
    const KpuConvLayer* m_layer = nullptr;
    kpu::LayerParams m_params;
    FunctionalLayer m_work;
};

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
    FunctionalKpu kpu(m, mem, opts);
    load_input(m, input, mem);
    FunctionalResult result;
    ResultRecorder recorder(mem);
    RuntimeMemory& run_mem = opts.dump_all ? static_cast<RuntimeMemory&>(recorder) : mem;
    size_t conv = 0;
    for (size_t i = 0; i < m.layers.size(); ++i) {
        FunctionalLayer l;
        if (is_kpu_layer(m.version, m.layers[i].type)) {
            run_kpu_conv(m, m.convs.at(conv++), run_mem, kpu);
            l = kpu.take();
        } else {
            const CpuLayerWork w = run_cpu_layer(m, i, run_mem, opts.fused_multiply_add);
            l.elements = w.elements;
            l.cpu_macs = w.macs;
        }
        l.index = i;
        result.layers.push_back(l);
        if (opts.on_layer) {
            opts.on_layer(l, i + 1, m.layers.size());
        }
        if (opts.on_layer_memory) {
            opts.on_layer_memory(l, mem);
        }
        if (opts.dump_all) {
            for (LayerDump& d : recorder.take(m, i, mem)) {
                result.dumps.push_back(std::move(d));
            }
        }
    }
    result.outputs = read_outputs(m, mem);
    return result;
}

}  // namespace npu::k210
