// The firmware side of a K210 inference, played in an SC_THREAD through bus transactions and
// interrupt lines only, the way the Kendryte SDK (kmodel v3, kpu_run_kmodel/ai_step) and the
// nncase v0 runtime (kmodel v4) drive the hardware: copy the model into SRAM, upload the input,
// push 12 words per KPU layer, wait for calc_done or the DMA, run CPU layers in between. It reads
// and writes nothing but the bus, so it doubles as a reference for firmware developers.
// Flows and the CPU time model: docs/k210_platform.md.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/kmodel/layer_dump.h"
#include "platforms/k210/soc/k210_platform.h"
#include "sim/core/tensor.h"
#include "sim/core/trace.h"
#include "sim/tlm/quantum.h"

namespace npu::k210 {

struct LayerRun {
    size_t index = 0;    // position in the model's layer/node table
    std::string type;    // "K210_CONV", "DEQUANTIZE", "kpu_conv2d", ...
    int kpu_layer = -1;  // index into the KPU's layer records of its first KPU layer
    int kpu_layers = 0;  // KPU layers it ran (v4 kpu_conv2d: one per batch)
    uint64_t start_ps = 0, end_ps = 0;
    uint64_t cpu_cycles = 0;           // CPU time model cycles spent by this layer: the three below
    uint64_t cpu_work_cycles = 0;      // a CPU layer's own work (elements, MACs)
    uint64_t cpu_overhead_cycles = 0;  // the runtime's dispatch and the interrupts taken
    uint64_t readback_cycles = 0;      // v4: the CPU's read-back of a KPU output to main memory
    uint64_t cpu_elements = 0, cpu_macs = 0;  // a CPU layer's work units (CpuLayerWork)
    uint64_t readback_bytes = 0;              // v4: the bytes of that read-back
    uint64_t bus_bytes = 0;                   // bytes the CPU moved over the bus for this layer
};

struct RunResult {
    std::vector<sim::Tensor> outputs;
    std::vector<LayerRun> layers;
    std::vector<LayerDump> dumps;  // with dump_all(): every layer's result, read at no time
    uint64_t load_end_ps = 0;      // model copied and input uploaded
    uint64_t end_ps = 0;
    bool done = false;
    // A user-facing problem met while running (unsupported layer, bus error): the run stopped.
    // It is kept here rather than thrown through the SystemC kernel, so the caller raises it in
    // its own context (exceptions that unwind a process's stack confuse sanitizers).
    std::string error;
};

class K210Driver : public sc_core::sc_module {
public:
    K210Driver(sc_core::sc_module_name name, K210Platform& platform, sim::TraceWriter& trace);
    ~K210Driver() override;

    // Before sc_start(): the model and its input, a u8 tensor of the model's input size (NCHW).
    // Throws sim::Error if the input does not fit the model or the model does not fit the SRAM.
    void load(const Kmodel& model, const sim::Tensor& input);
    const RunResult& result() const { return m_result; }
    // Called after each layer with the layers done so far (for a progress line).
    void on_layer(std::function<void(const LayerRun&, size_t done, size_t total)> f) {
        m_on_layer = std::move(f);
    }
    // Keep every layer's result (npusim run --dump-all): read by debug transport after each
    // layer, so the timing is that of a run without it.
    void dump_all(bool on) { m_dump_all = on; }

private:
    void run();
    void run_model();
    void run_layers();
    // One KPU layer through the layer-argument FIFO; with `dma_to_main`, its output stream DMAed
    // to `dma_dst_io` (completion by the DMAC's interrupt), else completion by calc_done.
    void kpu_layer(kpu::LayerArgs a, bool dma_to_main, uint64_t dma_dst_io);
    void cpu_layer(size_t index, RuntimeMemory& mem);

    // Bus access through the CPU port; an error response is a sim::Error naming the address.
    void write(uint64_t addr, const void* data, size_t n);
    void read(uint64_t addr, void* data, size_t n);
    void kpu_reg(uint64_t offset, uint64_t value);
    void dma_reg(uint64_t offset, uint64_t value);
    enum class CpuWork { work, overhead, readback };
    void cpu(uint64_t cycles, CpuWork kind);
    void wait_irq(const sim::IrqLine& line);
    uint64_t io_addr(uint32_t memory_type, uint64_t start) const;
    uint64_t io_addr(const MemoryRange& r) const { return io_addr(r.memory_type, r.start); }
    sc_core::sc_time now() const { return m_qk.get_current_time(); }
    void begin_layer(size_t index, const std::string& type);
    void end_layer();

    K210Platform& m_p;
    sim::TraceWriter& m_trace;
    int m_track;
    int m_irq_track;  // interrupts taken: one short span each (the CPU's interrupt_cycles)
    sim::QuantumKeeper m_qk;
    sc_core::sc_time m_cpu_period;
    const Kmodel* m_model = nullptr;
    sim::Tensor m_input;
    uint64_t m_model_io = 0;  // model image, uncached bus address
    uint64_t m_main_io = 0;   // main (working) buffer, uncached bus address
    RunResult m_result;
    LayerRun m_current;
    uint64_t m_bytes_before = 0;
    std::function<void(const LayerRun&, size_t, size_t)> m_on_layer;
    bool m_dump_all = false;
    class BusMemory;  // the kmodel runtime's memories, through the CPU port
    std::unique_ptr<BusMemory> m_mem;
    class BusKpu;  // the kmodel runtime's KPU port: MMIO, interrupts, DMA
    std::unique_ptr<BusKpu> m_kpu;
};

}  // namespace npu::k210
