// What the K210 runtime does for every non-KPU layer of a kmodel, written once over an abstract
// memory so that the timed platform (the driver: every access a bus transaction) and the
// functional executor (plain buffers, no SystemC) run the very same code path for values.
// Which layers exist and what each does: docs/k210_cpu_ops.md. Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "models/k210_kpu/kpu_layout.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "sim/core/tensor.h"

namespace npu::k210 {

// Names for the v3 layer types and v4 opcodes that code refers to directly (the reader, the
// writer, tests). Everything about an op lives in its kmodel_ops.h entry; a test checks that each
// name here is that entry's code.
namespace op {
constexpr uint32_t kV3Add = 1, kV3GlobalAveragePool = 5, kV3Quantize = 11, kV3Dequantize = 12,
                   kV3Softmax = 15, kV3Concat = 16, kV3FullyConnected = 18, kV3Conv = 10240,
                   kV3Upload = 10243;
constexpr uint32_t kV4Binary = 0x00, kV4Concat = 0x01, kV4Conv2d = 0x02, kV4Dequantize = 0x03,
                   kV4Matmul = 0x04, kV4Pad = 0x05, kV4Quantize = 0x06, kV4ReduceWindow2d = 0x08,
                   kV4MemoryCopy = 0x09, kV4Softmax = 0x0B, kV4Transpose = 0x0C,
                   kV4QuantizedBinary = 0x11, kV4Upload = 0x2001, kV4Conv = 0x2002;
}  // namespace op

// Whether the simulator runs this v3 layer type / v4 opcode (from the op table, kmodel_ops.h); a
// model with any other fails to run with an error naming the layer.
bool layer_supported(int version, uint32_t type);
bool is_kpu_layer(int version, uint32_t type);

// The memories a kmodel addresses: const (the model's constants, read-only), main (the working
// buffer of main_mem_bytes), kpu (the 2 MiB AI SRAM, raw bytes). `start` is relative to the
// memory. Bounds are checked before any access (check_range).
class RuntimeMemory {
public:
    virtual ~RuntimeMemory() = default;
    virtual void read(uint32_t memory_type, uint64_t start, void* dst, size_t n) = 0;
    virtual void write(uint32_t memory_type, uint64_t start, const void* src, size_t n) = 0;
    // Where a layer left its result, told once it is written: a range of main (or kpu) memory
    // with its data type, or `batches` maps of geometry `g` in the KPU's row layout from
    // kpu+`start`. What `npusim run --dump-all` saves; plain memories ignore it.
    virtual void result(const MemoryRange& r) { (void)r; }
    virtual void kpu_result(uint64_t start, const kpu::FmapGeometry& g, uint32_t batches) {
        (void)start, (void)g, (void)batches;
    }
};

// Throws a sim::Error naming the model, the layer's body offset and `what` if the range does not
// lie inside its memory, is of the wrong data type (`want_type` ≥ 0), or is the const memory
// written to.
void check_range(const Kmodel& m, const KmodelLayer& l, const MemoryRange& r, const char* what,
                 int want_type = -1, bool written = false);

std::vector<uint8_t> read_range(RuntimeMemory& mem, const MemoryRange& r);

// The KPU row layout through a RuntimeMemory: `batches` maps one after the other, each
// fmap_lines · 64 bytes (nncase's get_kpu_bytes), one access per row as kpu_upload does.
void upload_fmap(RuntimeMemory& mem, uint64_t kpu_start, const kpu::FmapGeometry& g,
                 uint32_t batches, const uint8_t* nchw);
std::vector<uint8_t> download_fmap(RuntimeMemory& mem, uint64_t kpu_start,
                                   const kpu::FmapGeometry& g, uint32_t batches);

// The model's input, (1, C, H, W), as the runtimes take it: v3 the first layer's (K210_CONV:
// its u8 map, which must be the first layer; FULLY_CONNECTED: in_channels floats, as (1, C, 1, 1)
// — kpu_run_kmodel's two starts), v4 inputs[0] (exactly one, u8 or f32). Throws sim::Error for
// models the runtime cannot feed.
sim::Shape model_input_shape(const Kmodel& m);
sim::DType model_input_dtype(const Kmodel& m);
// Throws sim::Error "input is ... the model expects ..." unless `input` is of that type and shape
// (N x C x H x W, or C x H x W): another shape of as many elements is refused, not reinterpreted.
void check_input(const Kmodel& m, const sim::Tensor& input);
// Places the input where the first layer reads it (the KPU row layout for a kpu-memory input).
void load_input(const Kmodel& m, const sim::Tensor& input, RuntimeMemory& mem);
// Every model output read from its range: f32 or u8 with its NCHW shape (v3: flat f32).
std::vector<sim::Tensor> read_outputs(const Kmodel& m, RuntimeMemory& mem);

// Before a KPU convolution runs: with its batches, every map lies in the AI SRAM, and a
// main-memory output fits its range and the working buffer. Throws sim::Error naming the layer.
void check_kpu_conv(const Kmodel& m, const KpuConvLayer& c);

// How a runtime reaches the KPU: the functional executor runs kpu::run_layer on a buffer, the
// timed driver pushes the layer arguments through MMIO and waits for the interrupt or the DMA.
// Everything else about a KPU convolution is run_kpu_conv's, shared by both.
class KpuPort {
public:
    virtual ~KpuPort() = default;
    // One KPU layer of `c` reading its input map at AI SRAM line `src_line` and writing its
    // output at `dst_line`. `stream_to_main`: the output stream also goes to main memory at
    // c.main_mem_out_address (kmodel v3 KLF_MAIN_MEM_OUT; by DMA on the chip).
    virtual void run(const KpuConvLayer& c, uint32_t src_line, uint32_t dst_line,
                     bool stream_to_main) = 0;
};

// A KPU convolution as the runtimes run it (v3 K210_CONV: one layer, the output optionally
// streamed to main memory; v4 kpu_conv2d: one layer per batch, the AI SRAM addresses advanced by
// a map each time (modulo the 32 Ki lines), then a CPU download of every batch into main memory
// when the output lives there). Checks the layer first (check_kpu_conv).
void run_kpu_conv(const Kmodel& m, const KpuConvLayer& c, RuntimeMemory& mem, KpuPort& kpu);

// No CPU node may compute more than this many multiply-accumulates or window taps: a hostile
// body cannot keep the host busy for hours (a real K210 layer of 2^32 MACs runs minutes). A
// fuzzer lowers it for its thread while a ScopedCpuWorkLimit lives.
constexpr uint64_t kDefaultCpuWorkLimit = uint64_t{1} << 32;
uint64_t cpu_work_limit();
class ScopedCpuWorkLimit {
public:
    explicit ScopedCpuWorkLimit(uint64_t limit);
    ~ScopedCpuWorkLimit();
    ScopedCpuWorkLimit(const ScopedCpuWorkLimit&) = delete;
    ScopedCpuWorkLimit& operator=(const ScopedCpuWorkLimit&) = delete;

private:
    uint64_t m_before;
};

struct CpuLayerWork {
    uint64_t elements = 0;  // output elements computed (the CPU time model's unit)
    uint64_t macs = 0;      // multiply-accumulates (FULLY_CONNECTED, conv2d, matmul), costed
                            // separately
};

// Runs layer `l` of `m` (not a KPU convolution) against `mem`. Throws sim::Error for an
// unsupported layer or a malformed body, naming the layer.
CpuLayerWork run_cpu_layer(const Kmodel& m, size_t index, RuntimeMemory& mem, bool fma = true);

}  // namespace npu::k210
