// Internals of the kmodel runtime shared by its files (kmodel_runtime.cpp, v3_layers.cpp,
// v4_nodes.cpp, kmodel_ops.cpp): range and shape checks that name the layer, typed reads and
// writes, and the CPU layer runners the op table (kmodel_ops.h) points at. Not for other folders.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platforms/k210/kmodel/cpu_ops.h"
#include "platforms/k210/kmodel/cpu_ops_v3.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"

namespace npu::k210::detail {

const char* memory_name(uint32_t t);
uint64_t memory_size(const Kmodel& m, uint32_t t);
size_t elem_size(uint32_t datatype);
[[noreturn]] void fail(const Kmodel& m, const KmodelLayer& l, const std::string& why);
void need(const Kmodel& m, const KmodelLayer& l, const MemoryRange& r, const char* what,
          uint64_t bytes);
void check_shape(const Kmodel& m, const KmodelLayer& l, const Shape4& s, const char* what);
// The writers every runner ends with: they also tell the memory where the result is.
void write_range(RuntimeMemory& mem, const MemoryRange& r, const std::vector<uint8_t>& data);
std::vector<float> read_floats(RuntimeMemory& mem, const MemoryRange& r, uint64_t n);
void write_floats(RuntimeMemory& mem, const MemoryRange& r, const std::vector<float>& v);
void check_work(const Kmodel& m, const KmodelLayer& l, uint64_t outputs, uint64_t per_output);
void check_broadcast(const Kmodel& m, const KmodelLayer& l, const Shape4& a, const Shape4& b,
                     const Shape4& out);
uint64_t window_size(const Window2d& w);
// A v3 pool whose last window starts past its input (kpu.c's unsigned tap arithmetic would
// then read outside it) is refused, naming the axis.
void check_v3_pool(const Kmodel& m, const KmodelLayer& l, const V3Pool& p);
CpuLayerWork resize_v3(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, size_t elem);
// The output plane of a window over NCHW `in`, N · C · out_h · out_w for `channels` output
// channels; an error naming the node when the window leaves no output.
uint64_t window_outputs(const Kmodel& m, const KmodelLayer& l, const Window2d& w, const Shape4& in,
                        int32_t channels);
// v3 layers address main memory by offset: `count` floats or bytes read at main+`address`, and
// written there, each range checked first.
std::vector<float> read_floats(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                               uint32_t address, uint64_t count, const char* what);
// Before a v3 layer allocates `count` elements of `elem` bytes it will write to main memory:
// they must fit the working buffer (counts in v3 bodies are the file's word).
void check_main_count(const Kmodel& m, const KmodelLayer& l, uint64_t count, uint64_t elem,
                      const char* what);
void write_floats(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, uint32_t address,
                  const std::vector<float>& v);
std::vector<uint8_t> read_main_bytes(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                     uint32_t address, uint64_t count, const char* what);
void write_main_bytes(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, uint32_t address,
                      const std::vector<uint8_t>& v);

// The CPU layer runners: one per v3 layer type and v4 opcode the runtime executes. `fma`: a·b + c
// as one fused operation (K210Config::cpu), for the runners with float arithmetic.
CpuLayerWork v3_dequantize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v3_quantize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v3_add(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v3_global_average_pool(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                    bool fma);
CpuLayerWork v3_softmax(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v3_fully_connected(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                bool fma);
CpuLayerWork v3_concat(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v3_upload(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v3_average_pool(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v3_l2_normalization(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                 bool fma);
CpuLayerWork v3_flatten(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v3_resize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v3_logistic(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v3_quantized_add(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v3_quantized_max_pool(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                   bool fma);
CpuLayerWork v3_requantize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v3_quantized_resize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                 bool fma);
CpuLayerWork v3_channelwise_dequantize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                       bool fma);
CpuLayerWork v3_add_padding(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v3_remove_padding(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_quantize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_dequantize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_memory_copy(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_concat(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_pad(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_transpose(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_quantized_binary(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                 bool fma);
CpuLayerWork v4_binary(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_conv2d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_matmul(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_reduce_window2d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                bool fma);
CpuLayerWork v4_softmax(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_upload(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_reduce(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_unary(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_nnil_unary_method(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                  bool fma);
CpuLayerWork v4_table_lookup1d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_resize_image(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_strided_slice(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_conv2d_transpose(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                 bool fma);
CpuLayerWork v4_quantized_conv2d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                 bool fma);
CpuLayerWork v4_quantized_matmul(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                 bool fma);
CpuLayerWork v4_cpu_conv2d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma);
CpuLayerWork v4_cpu_depthwise_conv2d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                     bool fma);
CpuLayerWork v4_cpu_reduce_window2d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                    bool fma);
CpuLayerWork v4_cpu_quantized_conv2d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                     bool fma);
CpuLayerWork v4_cpu_quantized_depthwise_conv2d(const Kmodel& m, const KmodelLayer& l,
                                               RuntimeMemory& mem, bool fma);

}  // namespace npu::k210::detail
