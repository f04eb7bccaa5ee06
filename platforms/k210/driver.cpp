#include "platforms/k210/driver.h"

#include <cmath>

#include <fmt/format.h>

#include "models/k210_dma/dmac_regs.h"
#include "platforms/k210/cpu_ops.h"
#include "sim/core/error.h"

namespace npu::k210 {

using sc_core::sc_time;
namespace kr = kpu::regs;
namespace dr = dma::regs;

namespace {
uint64_t to_ps(const sc_time& t) {
    return static_cast<uint64_t>(t.value() / sc_time(1, sc_core::SC_PS).value());
}
uint64_t align_up(uint64_t v, uint64_t a) {
    return (v + a - 1) / a * a;
}
constexpr uint32_t kV3Conv = 10240, kV3Dequantize = 12;
constexpr uint32_t kV4Dequantize = 0x03, kV4Upload = 0x2001, kV4Conv = 0x2002;
}  // namespace

K210Driver::K210Driver(sc_core::sc_module_name name, K210Platform& platform,
                       sim::TraceWriter& trace)
    : sc_module(name)
    , m_p(platform)
    , m_trace(trace)
    , m_track(trace.track("cpu"))
    , m_cpu_period(1.0 / static_cast<double>(platform.config().cpu.clock_hz), sc_core::SC_SEC) {
    SC_HAS_PROCESS(K210Driver);
    SC_THREAD(run);
}

void K210Driver::load(const Kmodel& model, const sim::Tensor& input) {
    const K210Config& c = m_p.config();
    const platform::MemoryRegion& sram = c.platform.memories.front();
    m_model = &model;
    m_model_io = sram.base_addr - c.io_offset;
    m_main_io = align_up(m_model_io + model.bytes.size(), 4096);
    const uint64_t end = m_main_io + model.main_mem_bytes;
    if (end - m_model_io > sram.memory.size_bytes) {
        throw sim::Error(fmt::format(
            "{}: model ({} bytes) and its working buffer ({} bytes) do not fit "
            "the {}-byte SRAM",
            model.name, model.bytes.size(), model.main_mem_bytes, sram.memory.size_bytes));
    }
    // The model's input: v3 the first KPU layer's input, v4 inputs[0].
    int64_t c_in = 0, h_in = 0, w_in = 0;
    if (model.version == 3) {
        if (model.convs.empty() || model.convs.front().layer_index != 0) {
            throw sim::Error(model.name +
                             ": the first layer is not K210_CONV: only models that start "
                             "on the KPU are supported");
        }
        const kpu::LayerArgs& a = model.convs.front().args;
        c_in = a.in_channels(), h_in = a.in_height(), w_in = a.in_width();
    } else {
        if (model.inputs.size() != 1 || model.inputs[0].range.datatype != kUint8) {
            throw sim::Error(model.name + ": only models with one u8 input are supported");
        }
        c_in = model.inputs[0].shape[1], h_in = model.inputs[0].shape[2],
        w_in = model.inputs[0].shape[3];
    }
    if (input.dtype() != sim::DType::u8 ||
        static_cast<int64_t>(input.numel()) != c_in * h_in * w_in) {
        throw sim::Error(fmt::format("input is {} of {}, the model expects u8 {}",
                                     sim::shape_str(input.shape()), sim::dtype_name(input.dtype()),
                                     sim::shape_str({1, c_in, h_in, w_in})));
    }
    m_input = input;
}

// ---------------------------------------------------------------- bus helpers

void K210Driver::write(uint64_t addr, const void* data, size_t n) {
    if (m_p.cpu.write(addr, data, n, m_qk.local()) != tlm::TLM_OK_RESPONSE) {
        throw sim::Error(fmt::format("driver: bus error writing {} bytes at {:#x}", n, addr));
    }
    m_qk.sync_if_needed();
}

void K210Driver::read(uint64_t addr, void* data, size_t n) {
    if (m_p.cpu.read(addr, data, n, m_qk.local()) != tlm::TLM_OK_RESPONSE) {
        throw sim::Error(fmt::format("driver: bus error reading {} bytes at {:#x}", n, addr));
    }
    m_qk.sync_if_needed();
}

void K210Driver::kpu_reg(uint64_t offset, uint64_t value) {
    write(m_p.config().kpu_base_addr + offset, &value, 8);
}

void K210Driver::dma_reg(uint64_t offset, uint64_t value) {
    write(m_p.config().dmac_base_addr + offset, &value, 8);
}

void K210Driver::cpu(uint64_t cycles) {
    m_qk.local() += m_cpu_period * static_cast<double>(cycles);
    m_current.cpu_cycles += cycles;
    m_qk.sync_if_needed();
}

void K210Driver::wait_irq(const sim::IrqLine& line) {
    m_qk.sync();  // everything the CPU did so far happened before it waits
    line.wait_high();
    cpu(m_p.config().cpu.interrupt_cycles);
}

void K210Driver::upload(const kpu::FmapGeometry& g, uint64_t ram_io_addr, const uint8_t* nchw) {
    // As kpu_upload_core: one write per row of each channel into the row layout.
    const auto w = static_cast<size_t>(g.width);
    for (int c = 0; c < g.channels; ++c) {
        for (int y = 0; y < g.height; ++y) {
            write(ram_io_addr + g.offset(c, y, 0), nchw, w);
            nchw += w;
        }
    }
}

std::vector<uint8_t> K210Driver::download(const kpu::FmapGeometry& g, uint64_t ram_io_addr) {
    std::vector<uint8_t> out(static_cast<size_t>(g.channels * g.height * g.width));
    uint8_t* p = out.data();
    const auto w = static_cast<size_t>(g.width);
    for (int c = 0; c < g.channels; ++c) {
        for (int y = 0; y < g.height; ++y) {
            read(ram_io_addr + g.offset(c, y, 0), p, w);
            p += w;
        }
    }
    return out;
}

uint64_t K210Driver::io_addr(const MemoryRange& r) const {
    switch (r.memory_type) {
    case kConstMemory: return m_model_io + m_model->constants_offset + r.start;
    case kKpuMemory: return m_p.config().ai_ram_io_addr + r.start;
    default: return m_main_io + r.start;
    }
}

void K210Driver::begin_layer(size_t index, const std::string& type) {
    m_current = LayerRun{};
    m_current.index = index;
    m_current.type = type;
    m_current.start_ps = to_ps(now());
    m_bytes_before = m_p.cpu.bytes_transferred();
    cpu(m_p.config().cpu.layer_dispatch_cycles);
}

void K210Driver::end_layer() {
    m_current.end_ps = to_ps(now());
    m_current.bus_bytes = m_p.cpu.bytes_transferred() - m_bytes_before;
    if (m_current.kpu_layer < 0) {
        m_trace.complete(m_track, fmt::format("{} {}", m_current.index, m_current.type), "cpu",
                         m_current.start_ps, m_current.end_ps - m_current.start_ps,
                         {{"cpu_cycles", m_current.cpu_cycles}});
    }
    m_result.layers.push_back(m_current);
}

// ---------------------------------------------------------------- flows

void K210Driver::run() {
    if (m_model == nullptr) {
        return;  // nothing loaded: the platform idles
    }
    try {
        run_model();
    } catch (const sim::Error& e) {
        m_result.error = e.what();
        sc_core::sc_stop();
    }
}

void K210Driver::run_model() {
    // Copy the model into SRAM through the uncached alias, as kpu_load_kmodel does.
    write(m_model_io, m_model->bytes.data(), m_model->bytes.size());
    // KPU init, as every SDK and nncase runtime does it.
    kpu_reg(kr::INTERRUPT_CLEAR, 7);
    kpu_reg(kr::INTERRUPT_MASK, 7);
    kpu_reg(kr::FIFO_THRESHOLD, 10 | (1 << 4));
    kpu_reg(kr::EIGHT_BIT_MODE, m_model->eight_bit ? 1 : 0);
    if (m_model->version == 3) {
        run_v3();
    } else {
        run_v4();
    }
    for (const KmodelIo& o : m_model->outputs) {
        const bool f32 = o.range.datatype == kFloat32;
        sim::Tensor t(f32 ? sim::DType::f32 : sim::DType::u8,
                      {o.shape[0], o.shape[1], o.shape[2], o.shape[3]});
        if (t.size_bytes() != o.range.size) {
            t = sim::Tensor(f32 ? sim::DType::f32 : sim::DType::u8,
                            {static_cast<int64_t>(f32 ? o.range.size / 4 : o.range.size)});
        }
        read(io_addr(o.range), t.bytes(), t.size_bytes());
        m_result.outputs.push_back(std::move(t));
    }
    m_qk.sync();
    m_result.end_ps = to_ps(sc_core::sc_time_stamp());
    m_result.done = true;
}

void K210Driver::kpu_conv(const KpuConvLayer& c, bool dma_to_main, uint64_t dma_dst_io) {
    kpu::LayerArgs a = c.runtime_args(static_cast<uint32_t>(m_model_io));
    a.send_data_out = dma_to_main;
    a.int_en = !dma_to_main;
    const unsigned ch = m_p.config().dma_channel;
    if (dma_to_main) {
        // kpu_conv with KLF_MAIN_MEM_OUT: DMA the output stream into main memory, completion by
        // DMA.
        const uint64_t words = (uint64_t{a.dma_total_byte} + 8) / 8;
        const uint64_t sel_reg = ch < 5 ? dr::DMA_SEL0 : dr::DMA_SEL1;
        const uint64_t sel_shift = ch < 5 ? 6 * ch : 0;
        uint32_t sel = 0;
        read(m_p.config().sysctl_base_addr + sel_reg, &sel, 4);
        sel = static_cast<uint32_t>((sel & ~(0x3fu << sel_shift)) |
                                    (uint64_t{dr::kAiRxReq} << sel_shift));
        write(m_p.config().sysctl_base_addr + sel_reg, &sel, 4);
        const uint64_t base = dr::channel_base(ch);
        dma_reg(dr::CFG, dr::dmac_en::MASK | dr::int_en::MASK);
        dma_reg(base + dr::INTCLEAR, ~uint64_t{0});
        dma_reg(base + dr::INTSTATUS_EN, dr::dma_tfr_done::MASK);
        dma_reg(base + dr::INTSIGNAL_EN, dr::dma_tfr_done::MASK);
        dma_reg(base + dr::SAR, m_p.config().kpu_base_addr + kr::FIFO_DATA_OUT);
        dma_reg(base + dr::DAR, dma_dst_io);
        dma_reg(base + dr::BLOCK_TS, words - 1);
        dma_reg(base + dr::CTL, dr::sinc::set(0, 1) | dr::src_tr_width::set(0, 3) |
                                    dr::dst_tr_width::set(0, 3) | dr::src_msize::set(0, 2) |
                                    dr::dst_msize::set(0, 2));
        dma_reg(base + dr::CH_CFG, dr::tt_fc::set(0, 2) | dr::src_per::set(0, ch));
        dma_reg(dr::CHEN, (uint64_t{1} << ch) | (uint64_t{1} << (ch + 8)));
        kpu_reg(kr::INTERRUPT_MASK, 7);
    } else {
        kpu_reg(kr::INTERRUPT_CLEAR, 7);
        kpu_reg(kr::INTERRUPT_MASK, 0b110);  // calc_done only
    }
    m_current.kpu_layer = static_cast<int>(m_p.kpu.layers().size());
    for (uint64_t w : kpu::encode(a)) {
        kpu_reg(kr::LAYER_ARGUMENT_FIFO, w);
    }
    if (dma_to_main) {
        wait_irq(m_p.dmac.irq[ch]);
        dma_reg(dr::channel_base(ch) + dr::INTCLEAR, ~uint64_t{0});
    } else {
        wait_irq(m_p.kpu.irq);
        kpu_reg(kr::INTERRUPT_CLEAR, 7);
        kpu_reg(kr::INTERRUPT_MASK, 7);
    }
}

void K210Driver::run_v3() {
    const kpu::LayerArgs& first = m_model->convs.front().args;
    upload(kpu::input_geometry(first),
           m_p.config().ai_ram_io_addr + uint64_t{first.image_src_addr} * kpu::kLineBytes,
           m_input.bytes());
    m_result.load_end_ps = to_ps(now());
    size_t conv = 0;
    for (size_t i = 0; i < m_model->layers.size(); ++i) {
        const KmodelLayer& l = m_model->layers[i];
        begin_layer(i, l.type_name);
        if (l.type == kV3Conv) {
            const KpuConvLayer& c = m_model->convs[conv++];
            kpu_conv(c, c.main_mem_out, m_main_io + c.main_mem_out_address);
        } else if (l.type == kV3Dequantize) {
            sim::ByteReader r = body_reader(*m_model, l, "DEQUANTIZE body");
            const V3Dequantize d = read_v3_dequantize(r);
            std::vector<uint8_t> q(d.count);
            std::vector<float> x(d.count);
            read(m_main_io + d.in_address, q.data(), q.size());
            dequantize_v3(q.data(), q.size(), d.scale, d.bias, x.data());
            cpu(static_cast<uint64_t>(std::ceil(m_p.config().cpu.cycles_per_element * d.count)));
            write(m_main_io + d.out_address, x.data(), x.size() * 4);
        } else {
            throw sim::Error(
                fmt::format("{}: layer {} is {} (type {}): not supported by the K210 "
                            "runtime model yet",
                            m_model->name, i, l.type_name, l.type));
        }
        end_layer();
    }
}

void K210Driver::v4_upload(const KmodelLayer& l) {
    sim::ByteReader r = body_reader(*m_model, l, "kpu_upload body");
    const V4Upload u = read_v4_upload(r);
    std::vector<uint8_t> data(u.in.size);
    read(io_addr(u.in), data.data(), data.size());
    const kpu::FmapGeometry g = kpu::FmapGeometry::natural(u.shape[1], u.shape[3], u.shape[2]);
    if (static_cast<uint64_t>(u.shape[1]) * static_cast<uint64_t>(u.shape[2]) *
            static_cast<uint64_t>(u.shape[3]) >
        data.size()) {
        throw sim::Error(
            fmt::format("{}: kpu_upload at byte {:#x}: shape larger than its input range",
                        m_model->name, l.body_offset));
    }
    upload(g, io_addr(u.out), data.data());
}

void K210Driver::v4_dequantize(const KmodelLayer& l) {
    sim::ByteReader r = body_reader(*m_model, l, "dequantize body");
    const V4Dequantize d = read_v4_dequantize(r);
    std::vector<uint8_t> q(d.in.size);
    std::vector<float> x(d.in.size);
    read(io_addr(d.in), q.data(), q.size());
    dequantize_v4(q.data(), q.size(), d.zero_point, d.scale, x.data());
    cpu(static_cast<uint64_t>(
        std::ceil(m_p.config().cpu.cycles_per_element * static_cast<double>(q.size()))));
    write(io_addr(d.out), x.data(), std::min<size_t>(x.size() * 4, d.out.size));
}

void K210Driver::run_v4() {
    const KmodelIo& in = m_model->inputs.front();
    if (in.range.memory_type == kKpuMemory) {
        upload(kpu::FmapGeometry::natural(in.shape[1], in.shape[3], in.shape[2]), io_addr(in.range),
               m_input.bytes());
    } else {
        write(io_addr(in.range), m_input.bytes(), m_input.size_bytes());
    }
    m_result.load_end_ps = to_ps(now());
    size_t conv = 0;
    for (size_t i = 0; i < m_model->layers.size(); ++i) {
        const KmodelLayer& l = m_model->layers[i];
        begin_layer(i, l.type_name);
        if (l.type == kV4Conv) {
            const KpuConvLayer& c = m_model->convs[conv++];
            if (c.batches != 1) {
                throw sim::Error(
                    fmt::format("{}: node {}: kpu_conv2d with {} batches is not supported yet",
                                m_model->name, i, c.batches));
            }
            kpu_conv(c, false, 0);
            if (c.main_mem_out) {  // the nncase v0 runtime downloads by CPU
                const std::vector<uint8_t> out =
                    download(kpu::output_geometry(c.args),
                             m_p.config().ai_ram_io_addr +
                                 uint64_t{c.args.image_dst_addr} * kpu::kLineBytes);
                write(m_main_io + c.main_mem_out_address, out.data(), out.size());
            }
        } else if (l.type == kV4Upload) {
            v4_upload(l);
        } else if (l.type == kV4Dequantize) {
            v4_dequantize(l);
        } else {
            throw sim::Error(
                fmt::format("{}: node {} is {} (opcode {:#x}): not supported by the K210 "
                            "runtime model yet",
                            m_model->name, i, l.type_name, l.type));
        }
        end_layer();
    }
}

}  // namespace npu::k210
