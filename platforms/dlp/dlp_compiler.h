// The DL processor's compiler: lays a network out in DDR the way the Deep Learning HDL Toolbox's
// compile does (InputDataOffset, OutputResultOffset, SchedulerDataOffset, SystemBufferOffset,
// InstructionDataOffset, ConvWeightDataOffset, FCWeightDataOffset, EndOffset), writes one
// instruction record per layer and the weights in the processor's formats. Layout rules:
// docs/dlp.md "Memory map and program". Pure C++.
#pragma once

#include <string>
#include <vector>

#include "models/dlp/dlp_network.h"
#include "models/dlp/dlp_program.h"

namespace npu::dlp {

struct MemoryRegion {
    std::string name;  // "InputDataOffset", ...
    uint64_t addr = 0;
    uint64_t size = 0;
};

struct Program {
    std::vector<MemoryRegion> map;  // in address order, the last is EndOffset (size 0)
    uint32_t frames = 1;
    uint64_t input_addr = 0, input_frame_bytes = 0;  // frame f at input_addr + f · bytes
    uint64_t output_addr = 0, output_frame_bytes = 0;
    uint64_t instruction_addr = 0;
    std::vector<Record> records;        // placement of frame 0
    std::vector<uint8_t> instructions;  // the records' bytes
    uint64_t conv_weight_addr = 0, fc_weight_addr = 0;
    std::vector<uint8_t> conv_weights, fc_weights;  // the weight regions' bytes
    uint64_t end_addr = 0;
    std::string table() const;  // "offset_name  offset_address  allocated_space"
};

struct CompileOptions {
    uint64_t ddr_base_addr = 0x80000000;
    uint32_t frames = 1;
    uint64_t system_buffer_bytes = 1 << 20;  // reserved, as the toolbox's SystemBufferOffset
    // The memory map and the records alone: no weight bytes, no instruction bytes (what a sweep
    // costs; the parameters may be absent).
    bool layout_only = false;
};

// The network must have passed check_network and carry its parameters (fill_parameters).
Program compile(const Network& n, const DlpConfig& cfg, const CompileOptions& opts = {});

}  // namespace npu::dlp
