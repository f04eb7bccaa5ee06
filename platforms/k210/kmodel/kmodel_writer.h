// Writes kmodel v3 files (the format the Kendryte SDK runs, ../shared/reference/k210_kpu.md §4.1):
// header, outputs, layer headers, then bodies padded to 8 bytes. A K210_CONV body holds its layer
// argument (8-aligned), weights (128-aligned), BN table (128-aligned) and activation table
// (256-aligned), referenced by absolute file offsets. Used for the bundled default model and for
// tests; parse_kmodel() reads everything back. Pure C++.
#pragma once

#include <cstdint>
#include <utility>
#include <variant>
#include <vector>

#include "models/k210_kpu/kpu_func.h"
#include "platforms/k210/kmodel/cpu_ops.h"
#include "platforms/k210/kmodel/cpu_ops_elementwise.h"
#include "platforms/k210/kmodel/cpu_ops_spatial.h"
#include "platforms/k210/kmodel/kmodel.h"

namespace npu::k210 {

struct ConvLayerSpec {
    kpu::LayerArgs args;  // table pointers are ignored (the file offsets are written instead)
    std::vector<uint8_t> weights;
    std::vector<kpu::BnParam> bn;
    kpu::ActTable act{};
    bool main_mem_out = false;  // DMA the output stream into the working buffer
    uint32_t main_mem_out_address = 0;
};

struct DequantizeSpec {
    uint32_t in_address = 0, out_address = 0, count = 0;
    float scale = 1, bias = 0;
};

// Any other layer: its type and its body bytes (see the builders below).
struct RawLayerSpec {
    uint32_t type = 0;
    std::vector<uint8_t> body;
};

// Bodies of the SDK's CPU layers (kpu.h structs, all fields little-endian uint32/float).
RawLayerSpec quantize_layer(uint32_t in_address, uint32_t out_address, uint32_t count, float scale,
                            float bias);
RawLayerSpec add_layer(uint32_t a_address, uint32_t b_address, uint32_t out_address,
                       uint32_t count);
RawLayerSpec global_average_pool_layer(uint32_t in_address, uint32_t out_address,
                                       uint32_t kernel_size, uint32_t channels);
RawLayerSpec softmax_layer(uint32_t in_address, uint32_t out_address, uint32_t channels);
// TENSORFLOW_FLATTEN: a float CHW map to HWC (a Transpose 0, 2, 3, 1 of a 1 x C x H x W map).
RawLayerSpec tf_flatten_layer(uint32_t in_address, uint32_t out_address, uint32_t width,
                              uint32_t height, uint32_t channels);
// weights [out][in], then bias [out]; act 0 linear, 1 relu, 2 relu6.
RawLayerSpec fully_connected_layer(uint32_t in_address, uint32_t out_address, uint32_t in_channels,
                                   uint32_t out_channels, uint32_t act,
                                   const std::vector<float>& weights,
                                   const std::vector<float>& bias);
// CONCAT: the inputs' bytes ({start, size} in the working buffer) one after another.
RawLayerSpec concat_layer(uint32_t out_address,
                          const std::vector<std::pair<uint32_t, uint32_t>>& inputs);
RawLayerSpec upload_layer(uint32_t in_address, uint32_t kpu_line, uint32_t width, uint32_t height,
                          uint32_t channels);

struct OutputSpec {
    uint32_t address = 0;  // in the working buffer
    uint32_t size = 0;     // bytes (f32)
};

struct V3ModelSpec {
    bool eight_bit = true;
    uint32_t main_mem_usage = 0;
    uint32_t max_start_address = 0;
    std::vector<OutputSpec> outputs;
    std::vector<std::variant<ConvLayerSpec, DequantizeSpec, RawLayerSpec>> layers;
};

std::vector<uint8_t> write_kmodel_v3(const V3ModelSpec& spec);

// ---------------------------------------------------------------- kmodel v4 (nncase v0.2)
// Header, inputs (ranges, then shapes), outputs, constants, node headers, then bodies one after
// another (../shared/reference/k210_kpu.md §4.2). A ConvLayerSpec becomes a kpu_conv2d node
// (batches 1; its tables at absolute 256-byte alignment with the skipped byte counts stored in
// bwsx_base_addr, active_addr and para_start_addr, as nncase writes them; main_mem_out is a CPU
// download of the whole map to main memory). Every other node is a RawLayerSpec built below.

// quantize (float -> u8) and dequantize nodes: q = x · scale + zp, x = (q − zp) / scale, with
// nncase v0.2's inverse step `scale`.
RawLayerSpec v4_quantize_node(const MemoryRange& in, const MemoryRange& out, int32_t zero_point,
                              float scale);
RawLayerSpec v4_dequantize_node(const MemoryRange& in, const MemoryRange& out, int32_t zero_point,
                                float scale);
RawLayerSpec v4_upload_node(const MemoryRange& in, const MemoryRange& out, const Shape4& shape);
RawLayerSpec v4_node(const V4Binary& b);
RawLayerSpec v4_node(const V4Conv2d& c);
RawLayerSpec v4_node(const V4Matmul& m);
RawLayerSpec v4_node(const V4ReduceWindow2d& w);
RawLayerSpec v4_node(const V4Softmax& s);
RawLayerSpec v4_node(const V4Concat& c);
RawLayerSpec v4_node(const V4Transpose& t);
RawLayerSpec v4_node(const V4QuantizedBinary& q);
RawLayerSpec v4_node(const V4Pad& p);
RawLayerSpec v4_node(const V4Reduce& r);
RawLayerSpec v4_node(const V4Unary& u);
RawLayerSpec v4_node(const V4NnilUnary& n);  // the program should end with ret (0xA0)
RawLayerSpec v4_node(const V4ResizeImage& r);
RawLayerSpec v4_node(const V4StridedSlice& s);

struct V4ModelSpec {
    uint32_t main_mem = 0;
    std::vector<KmodelIo> inputs;
    std::vector<MemoryRange> outputs;
    std::vector<uint8_t> constants;
    std::vector<std::variant<ConvLayerSpec, RawLayerSpec>> nodes;
};

std::vector<uint8_t> write_kmodel_v4(const V4ModelSpec& spec);

}  // namespace npu::k210
