#include "platforms/k210/soc/driver.h"

#include <cmath>

#include <fmt/format.h>

#include "models/k210_dma/dmac_regs.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "sim/core/error.h"
#include "sim/tlm/sim_time.h"

namespace npu::k210 {

using sim::to_ps;

using sc_core::sc_time;
namespace kr = kpu::regs;
namespace dr = dma::regs;

namespace {
// The three causes the SDK's kpu_init / kpu_run clear and mask together (kpu.c writes 7): calc
// done and the layer FIFO's almost-empty and almost-full.
constexpr uint64_t kSdkInterrupts = kr::calc_done_int::MASK | kr::layer_cfg_almost_empty_int::MASK |
                                    kr::layer_cfg_almost_full_int::MASK;
static_assert(kSdkInterrupts == 7);
// A DMAC channel's INTCLEAR written with every cause set (write 1 to clear), as dmac.c does.
constexpr uint64_t kAllCauses = ~uint64_t{0};

uint64_t align_up(uint64_t v, uint64_t a) {
    return (v + a - 1) / a * a;
}
}  // namespace

// The kmodel runtime's memories as the firmware sees them: every access a bus transaction.
class K210Driver::BusMemory : public RuntimeMemory {
public:
    explicit BusMemory(K210Driver& d)
        : m_d(d) {}
    void read(uint32_t memory_type, uint64_t start, void* dst, size_t n) override {
        m_d.read(m_d.io_addr(memory_type, start), dst, n);
    }
    void write(uint32_t memory_type, uint64_t start, const void* src, size_t n) override {
        m_d.write(m_d.io_addr(memory_type, start), src, n);
    }

private:
    K210Driver& m_d;
};

// The same memories read by debug transport: what --dump-all sees, at no simulated time.
class DebugMemory : public RuntimeMemory {
public:
    DebugMemory(sim::AxiPort& port, std::function<uint64_t(uint32_t, uint64_t)> addr)
        : m_port(port)
        , m_addr(std::move(addr)) {}
    void read(uint32_t memory_type, uint64_t start, void* dst, size_t n) override {
        const uint64_t a = m_addr(memory_type, start);
        if (m_port.debug_read(a, dst, n) != n) {
            throw sim::Error(fmt::format("driver: debug read of {} bytes at {:#x} failed", n, a));
        }
    }
    void write(uint32_t, uint64_t, const void*, size_t) override {
        throw sim::Error("driver: the debug view of memory is read-only");
    }

private:
    sim::AxiPort& m_port;
    std::function<uint64_t(uint32_t, uint64_t)> m_addr;
};

// The kmodel runtime's KPU as the firmware reaches it: the layer's arguments with the tables'
// bus addresses (the model image in SRAM), pushed through the FIFO.
class K210Driver::BusKpu : public KpuPort {
public:
    explicit BusKpu(K210Driver& d)
        : m_d(d) {}
    void run(const KpuConvLayer& c, uint32_t src_line, uint32_t dst_line,
             bool stream_to_main) override {
        kpu::LayerArgs a = c.runtime_args(static_cast<uint32_t>(m_d.m_model_io));
        a.image_src_addr = src_line;
        a.image_dst_addr = dst_line;
        m_d.kpu_layer(a, stream_to_main, m_d.m_main_io + c.main_mem_out_address);
    }

private:
    K210Driver& m_d;
};

K210Driver::K210Driver(sc_core::sc_module_name name, K210Platform& platform,
                       sim::TraceWriter& trace)
    : sc_module(name)
    , m_p(platform)
    , m_trace(trace)
    , m_track(trace.track("cpu"))
    , m_irq_track(trace.track("irq"))
    , m_cpu_period(1.0 / static_cast<double>(platform.config().cpu.clock_hz), sc_core::SC_SEC)
    , m_mem(std::make_unique<BusMemory>(*this))
    , m_kpu(std::make_unique<BusKpu>(*this)) {
    SC_HAS_PROCESS(K210Driver);
    SC_THREAD(run);
}

K210Driver::~K210Driver() = default;

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
    check_input(model, input);
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

void K210Driver::cpu(uint64_t cycles, CpuWork kind) {
    m_qk.local() += m_cpu_period * static_cast<double>(cycles);
    m_current.cpu_cycles += cycles;
    (kind == CpuWork::work       ? m_current.cpu_work_cycles
     : kind == CpuWork::overhead ? m_current.cpu_overhead_cycles
                                 : m_current.readback_cycles) += cycles;
    m_qk.sync_if_needed();
}

void K210Driver::wait_irq(const sim::IrqLine& line) {
    m_qk.sync();  // everything the CPU did so far happened before it waits
    line.wait_high();
    const uint64_t taken_ps = to_ps(now());
    cpu(m_p.config().cpu.interrupt_cycles, CpuWork::overhead);
    m_trace.complete(m_irq_track, line.name(), "irq", taken_ps, to_ps(now()) - taken_ps);
}

uint64_t K210Driver::io_addr(uint32_t memory_type, uint64_t start) const {
    switch (memory_type) {
    case kConstMemory: return m_model_io + m_model->constants_offset + start;
    case kKpuMemory: return m_p.config().ai_ram_io_addr + start;
    default: return m_main_io + start;
    }
}

void K210Driver::begin_layer(size_t index, const std::string& type) {
    m_current = LayerRun{};
    m_current.index = index;
    m_current.type = type;
    m_current.start_ps = to_ps(now());
    m_bytes_before = m_p.cpu.bytes_transferred();
    cpu(m_p.config().cpu.layer_dispatch_cycles, CpuWork::overhead);
}

void K210Driver::end_layer() {
    m_current.end_ps = to_ps(now());
    m_current.bus_bytes = m_p.cpu.bytes_transferred() - m_bytes_before;
    if (m_current.kpu_layer < 0) {
        m_trace.complete(m_track, fmt::format("{} {}", m_current.index, m_current.type), "cpu",
                         m_current.start_ps, m_current.end_ps - m_current.start_ps,
                         {{"cpu_cycles", m_current.cpu_cycles},
                          {"cpu_work_cycles", m_current.cpu_work_cycles},
                          {"cpu_overhead_cycles", m_current.cpu_overhead_cycles}});
    }
    m_result.layers.push_back(m_current);
    if (m_on_layer) {
        m_on_layer(m_current, m_result.layers.size(), m_model->layers.size());
    }
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
    kpu_reg(kr::INTERRUPT_CLEAR, kSdkInterrupts);
    kpu_reg(kr::INTERRUPT_MASK, kSdkInterrupts);
    kpu_reg(kr::FIFO_THRESHOLD,
            kr::fifo_full_threshold::set(0, 10) | kr::fifo_empty_threshold::set(0, 1));
    kpu_reg(kr::EIGHT_BIT_MODE, kr::eight_bit_mode::set(0, m_model->eight_bit ? 1 : 0));
    run_layers();
    m_result.outputs = read_outputs(*m_model, *m_mem);
    m_qk.sync();
    m_result.end_ps = to_ps(sc_core::sc_time_stamp());
    m_result.done = true;
}

void K210Driver::kpu_layer(kpu::LayerArgs a, bool dma_to_main, uint64_t dma_dst_io) {
    a.send_data_out = dma_to_main;
    a.int_en = !dma_to_main;
    const unsigned ch = m_p.config().dma_channel;
    if (dma_to_main) {
        // kpu_conv with KLF_MAIN_MEM_OUT: DMA the output stream into main memory, completion by
        // DMA.
        const uint64_t words = (uint64_t{a.dma_total_byte} + 8) / 8;
        const uint64_t sel_addr = m_p.config().sysctl_base_addr + dr::dma_sel_register(ch);
        uint32_t sel = 0;
        read(sel_addr, &sel, 4);
        sel = static_cast<uint32_t>(dr::with_dma_sel(sel, ch, dr::kAiRxReq));
        write(sel_addr, &sel, 4);
        const uint64_t base = dr::channel_base(ch);
        dma_reg(dr::CFG, dr::dmac_en::MASK | dr::int_en::MASK);
        dma_reg(base + dr::INTCLEAR, kAllCauses);
        dma_reg(base + dr::INTSTATUS_EN, dr::dma_tfr_done::MASK);
        dma_reg(base + dr::INTSIGNAL_EN, dr::dma_tfr_done::MASK);
        dma_reg(base + dr::SAR, m_p.config().kpu_base_addr + kr::FIFO_DATA_OUT);
        dma_reg(base + dr::DAR, dma_dst_io);
        dma_reg(base + dr::BLOCK_TS, words - 1);
        dma_reg(base + dr::CTL, dr::sinc::set(0, 1) | dr::src_tr_width::set(0, 3) |
                                    dr::dst_tr_width::set(0, 3) | dr::src_msize::set(0, 2) |
                                    dr::dst_msize::set(0, 2));
        dma_reg(base + dr::CH_CFG, dr::tt_fc::set(0, 2) | dr::src_per::set(0, ch));
        dma_reg(dr::CHEN,
                dr::ch_en::set(0, uint64_t{1} << ch) | dr::ch_en_we::set(0, uint64_t{1} << ch));
        kpu_reg(kr::INTERRUPT_MASK, kSdkInterrupts);
    } else {
        kpu_reg(kr::INTERRUPT_CLEAR, kSdkInterrupts);
        kpu_reg(kr::INTERRUPT_MASK,  // calc_done only
                kr::layer_cfg_almost_empty_int::MASK | kr::layer_cfg_almost_full_int::MASK);
    }
    if (m_current.kpu_layer < 0) {
        m_current.kpu_layer = static_cast<int>(m_p.kpu.layers().size());
    }
    ++m_current.kpu_layers;
    for (uint64_t w : kpu::encode(a)) {
        kpu_reg(kr::LAYER_ARGUMENT_FIFO, w);
    }
    if (dma_to_main) {
        wait_irq(m_p.dmac.irq[ch]);
        dma_reg(dr::channel_base(ch) + dr::INTCLEAR, kAllCauses);
    } else {
        wait_irq(m_p.kpu.irq);
        kpu_reg(kr::INTERRUPT_CLEAR, kSdkInterrupts);
        kpu_reg(kr::INTERRUPT_MASK, kSdkInterrupts);
    }
}

void K210Driver::cpu_layer(size_t index, RuntimeMemory& mem) {
    const CpuLayerWork w = run_cpu_layer(*m_model, index, mem, m_p.config().cpu.fused_multiply_add);
    m_current.cpu_elements = w.elements, m_current.cpu_macs = w.macs;
    cpu(m_p.config().cpu.layer_work_cycles(m_model->layers[index].type_name, w.elements, w.macs),
        CpuWork::work);
}

// The model's layers in order, as kpu_run_kmodel (v3) and nncase's interpreter (v4) step
// through them: KPU convolutions by the runtime's one KPU path (run_kpu_conv, shared with the
// functional executor), everything else by the runtime's CPU layers.
void K210Driver::run_layers() {
    load_input(*m_model, m_input, *m_mem);
    m_result.load_end_ps = to_ps(now());
    ResultRecorder recorder(*m_mem);
    RuntimeMemory& mem = m_dump_all ? static_cast<RuntimeMemory&>(recorder) : *m_mem;
    DebugMemory debug(m_p.cpu, [this](uint32_t t, uint64_t start) { return io_addr(t, start); });
    size_t conv = 0;
    for (size_t i = 0; i < m_model->layers.size(); ++i) {
        const KmodelLayer& l = m_model->layers[i];
        begin_layer(i, l.type_name);
        if (is_kpu_layer(m_model->version, l.type)) {
            const KpuConvLayer& c = m_model->convs.at(conv++);
            run_kpu_conv(*m_model, c, mem, *m_kpu);
            if (m_model->version == 4 && c.main_mem_out) {  // nncase's kpu_download by the CPU
                const uint64_t from_ps = to_ps(now());
                cpu(m_p.config().cpu.readback_cycles(c.main_mem_out_size), CpuWork::readback);
                m_current.readback_bytes = c.main_mem_out_size;
                m_trace.complete(m_track, fmt::format("{} kpu_download", i), "cpu", from_ps,
                                 to_ps(now()) - from_ps,
                                 {{"bytes", c.main_mem_out_size},
                                  {"readback_cycles", m_current.readback_cycles}});
            }
        } else {
            cpu_layer(i, mem);
        }
        end_layer();
        if (m_dump_all) {
            for (LayerDump& d : recorder.take(*m_model, i, debug)) {
                m_result.dumps.push_back(std::move(d));
            }
        }
    }
}

}  // namespace npu::k210
