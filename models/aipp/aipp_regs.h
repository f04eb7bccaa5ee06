// The AIPP register block. SPR0..SPR9 carry SetAippFunctions' configuration packed as the Ascend C
// kernel_reg.h writes it (../shared/reference/seed_systems.md §2.5); a command block after them
// holds LoadImageToLocal's arguments (the intrinsic passes them as instruction fields: here they
// are registers), the destination, a start bit, status and interrupt enables. Map and semantics:
// docs/aipp.md "Registers". Pure C++.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "models/aipp/aipp_params.h"
#include "sim/core/regs.h"

namespace npu::aipp::regs {

using sim::Field;

enum Offset : uint64_t {
    SPR0 = 0x00,  // src0 address
    SPR1 = 0x08,  // src1 address | CSC enable
    SPR2 = 0x10,  // CSC R0C0 R0C1 R0C2 R1C0
    SPR3 = 0x18,  // CSC R1C1 R1C2 R2C0 R2C1
    SPR4 = 0x20,  // CSC R2C2, biases
    SPR5 = 0x28,  // DTC mean
    SPR6 = 0x30,  // DTC min (fp16)
    SPR7 = 0x38,  // DTC var (fp16)
    SPR8 = 0x40,  // padding values
    SPR9 = 0x48,  // control word
    LOAD_SIZE = 0x80,
    LOAD_START = 0x88,
    LOAD_PAD = 0x90,
    DST_ADDR = 0x98,
    DST_TYPE = 0xa0,
    CMD = 0xa8,
    STATUS = 0xb0,
    INT_EN = 0xb8,
};
constexpr uint64_t kBlockBytes = 0xc0;

using src_addr = Field<0, 48>;    // SPR0, SPR1
using csc_enable = Field<63, 1>;  // SPR1
// SPR2..SPR4: int16 bit patterns at 0/16/32/48; SPR4 also 8-bit biases.
using spr_lane0 = Field<0, 16>;
using spr_lane1 = Field<16, 16>;
using spr_lane2 = Field<32, 16>;
using spr_lane3 = Field<48, 16>;
using bias_out0 = Field<16, 8>;
using bias_out1 = Field<24, 8>;
using bias_out2 = Field<32, 8>;
using bias_in0 = Field<40, 8>;
using bias_in1 = Field<48, 8>;
using bias_in2 = Field<56, 8>;
// SPR9, the control word.
using c_padding_value = Field<0, 16>;
using swap_rb = Field<16, 1>;
using swap_uv = Field<17, 1>;
using swap_ax = Field<18, 1>;
using input_format = Field<19, 5>;
using single_line = Field<24, 1>;
using padding_mode = Field<27, 2>;
using dtc_round_mode = Field<34, 1>;
using c_padding_mode = Field<40, 1>;
// Command block.
using horiz_size_m1 = Field<0, 12>;  // LOAD_SIZE
using vert_size_m1 = Field<16, 12>;
using src_horiz_size_m1 = Field<32, 12>;
using horiz_start = Field<0, 12>;  // LOAD_START
using vert_start = Field<16, 12>;
using top_pad = Field<0, 6>;  // LOAD_PAD
using bot_pad = Field<8, 6>;
using left_pad = Field<16, 6>;
using right_pad = Field<24, 6>;
using sid = Field<32, 4>;
using dst_addr = Field<0, 48>;  // DST_ADDR
using dst_type = Field<0, 2>;   // DST_TYPE: 0 uint8, 1 int8, 2 half
using start = Field<0, 1>;      // CMD
using busy = Field<0, 1>;       // STATUS
using done = Field<1, 1>;
using error = Field<2, 1>;
using error_code = Field<8, 8>;
using done_int_en = Field<0, 1>;  // INT_EN
using error_int_en = Field<1, 1>;

// STATUS.error_code values.
enum ErrorCode : uint64_t {
    kNoError = 0,
    kBadParameters = 1,   // a parameter out of range (aipp::check)
    kBadFormat = 2,       // SPR9.format is not 0, 1, 4 or 9, or DST_TYPE is 3
    kBadDestination = 3,  // DST_ADDR not 32-byte aligned, or the tile leaves L1
    kBusError = 4,        // a GM read or L1 write got an error response
};

// What the registers hold, decoded.
struct Programmed {
    Params params;
    LoadParams load;
    uint64_t src0_addr = 0, src1_addr = 0, dst_addr = 0;
};

// SPR0..SPR9 for a configuration (what SetAippFunctions writes).
std::array<uint64_t, 10> pack_sprs(const Params& p, uint64_t src0_addr, uint64_t src1_addr);
// LOAD_SIZE, LOAD_START, LOAD_PAD (what LoadImageToLocal passes). Sizes are stored minus one.
std::array<uint64_t, 3> pack_load(const LoadParams& l);
uint64_t pack_dst_type(OutputType t);

// The inverse. Returns an empty string, or why the words cannot be decoded (an unknown format or
// output type): the engine's kBadFormat.
std::string unpack(const std::array<uint64_t, 10>& spr, const std::array<uint64_t, 3>& load,
                   uint64_t dst_addr, uint64_t dst_type, Programmed& out);

}  // namespace npu::aipp::regs
