// K210 kmodel files: v3 (nncase v0.1, run by the Kendryte SDK) and v4 (nncase v0.2). This part
// reads the structure (header, inputs/outputs, the layer or node table) and every KPU convolution
// with its layer argument, weights, BN and activation tables located in the file. Formats:
// ../shared/reference/k210_kpu.md §4. Malformed or hostile files give one sim::Error naming the
// byte offset and what was expected.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/k210_kpu/kpu_func.h"
#include "models/k210_kpu/kpu_layer_args.h"
#include "sim/core/bytes.h"

namespace npu::k210 {

// Where a tensor lives: {memory_type, datatype, start, size} as in v4 files; v3 outputs are
// main-memory f32 ranges.
enum MemoryType : uint32_t { kConstMemory = 0, kMainMemory = 1, kKpuMemory = 2 };
enum DataType : uint32_t { kFloat32 = 0, kUint8 = 1 };
struct MemoryRange {
    uint32_t memory_type = kMainMemory;
    uint32_t datatype = kFloat32;
    uint32_t start = 0;
    uint32_t size = 0;
};
// Reads 16 bytes; an unknown memory type or datatype is an error naming the offset.
MemoryRange read_memory_range(sim::ByteReader& r, const char* what);

struct KmodelIo {
    MemoryRange range;
    int32_t shape[4] = {1, 1, 1, 1};  // NCHW; v3 outputs are flat: {1, 1, 1, size / 4}
};

struct KmodelLayer {
    uint32_t type = 0;       // v3 kpu_model_layer_type_t, v4 runtime opcode
    size_t body_offset = 0;  // file offset of the body
    size_t body_size = 0;
    const char* type_name = "";
};

struct KpuConvLayer {
    size_t layer_index = 0;     // position in the layer (v3) or node (v4) table
    kpu::LayerArgs args;        // as stored; the three table pointers are fixed up at run time
    size_t args_offset = 0;     // file offset of the 96-byte layer argument
    size_t weights_offset = 0;  // file offsets of the tables the KPU fetches
    size_t weights_bytes = 0;
    size_t bn_offset = 0;       // out_channels × 8 bytes
    size_t act_offset = 0;      // 144 bytes
    bool main_mem_out = false;  // output also goes to main memory (v3: by DMA; v4: CPU download)
    uint32_t main_mem_out_address = 0;
    uint32_t main_mem_out_size = 0;  // v4 (v3: the layer's output size)
    uint32_t batches = 1;            // v4

    // The layer argument as the runtime pushes it when the file is loaded at bus address
    // `file_bus_addr`: para_start_addr, bwsx_base_addr and active_addr point into the file.
    kpu::LayerArgs runtime_args(uint32_t file_bus_addr) const;
};

struct Kmodel {
    std::string name;
    int version = 0;  // 3 or 4
    bool eight_bit = true;
    uint32_t main_mem_bytes = 0;
    std::vector<KmodelIo> inputs;  // v4 only (a v3 model's input is its first layer's)
    std::vector<KmodelIo> outputs;
    size_t constants_offset = 0;  // v4 constants region in the file
    size_t constants_bytes = 0;
    std::vector<KmodelLayer> layers;
    std::vector<KpuConvLayer> convs;
    std::vector<uint8_t> bytes;  // the whole file
};

// The tables a conv layer's KPU fetch would bring, decoded from the file: weights (pointer into
// m.bytes), BN entries, activation table.
kpu::LayerParams conv_params(const Kmodel& m, const KpuConvLayer& c);
// A reader positioned at a layer's body, errors naming `what`.
sim::ByteReader body_reader(const Kmodel& m, const KmodelLayer& l, const char* what);

// Throws sim::Error "<name>: at byte 0x..: (what): why" for anything malformed.
Kmodel parse_kmodel(std::vector<uint8_t> bytes, const std::string& name);
Kmodel load_kmodel(const std::string& path);

const char* v3_layer_name(uint32_t type);
const char* v4_opcode_name(uint32_t opcode);

}  // namespace npu::k210
