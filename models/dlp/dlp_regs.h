// The DL processor's AXI4-Lite register block: the HDL Coder IP core's standard registers and the
// run-time control registers named after those MathWorks documents; the offsets are ours
// (docs/dlp.md "Registers"). 32-bit registers. Pure C++.
#pragma once

#include <cstdint>

#include "sim/core/regs.h"

namespace npu::dlp::regs {

enum Offset : uint64_t {
    IPCore_Reset = 0x000,      // WO: 1 resets the run state
    IPCore_Enable = 0x004,     // RW: 0 holds the processor (a start is refused)
    IPCore_Timestamp = 0x008,  // RO: the model's build stamp
    InputStart = 0x100,        // WO: 1 starts FrameCount frames
    FrameCount = 0x104,
    InputAddr = 0x108,   // DDR address of the first input frame
    InputSize = 0x10c,   // bytes per input frame
    OutputAddr = 0x110,  // DDR address of the first result frame
    OutputSize = 0x114,  // bytes per result frame
    InstructionAddr = 0x118,
    LayerCount = 0x11c,
    Done = 0x120,        // RO: 1 when the last frame is finished (cleared by InputStart)
    FramesDone = 0x124,  // RO
    Status = 0x128,      // RO: busy [0], error [1], error_code [15:8]
    IrqEnable = 0x12c,   // RW: done [0], error [1], input ready [2], output ready [3]
    IrqStatus = 0x130,   // W1C: the same bits
    // Streaming control (StreamingMode 1): one frame at a time through the first input and
    // result slots, handshaken by the host.
    StreamingMode = 0x134,  // RW: 0 batch (FrameCount frames after a start), 1 streaming
    InputValid = 0x138,     // RO: the processor is ready for the next input frame
    InputNext = 0x13c,      // WO: 1 = the host has written the next frame
    OutputValid = 0x140,    // RO: a result is ready to read
    OutputNext = 0x144,     // WO: 1 = the host has read it
    StreamingStop = 0x148,  // WO: 1 = stop after the current frame
    StreamingDone = 0x14c,  // RO: 1 when streaming has ended
};
constexpr uint64_t kBlockBytes = 0x150;
constexpr uint32_t kTimestamp = 0x20261121;

using busy = sim::Field<0, 1>;
using error = sim::Field<1, 1>;
using error_code = sim::Field<8, 8>;
using irq_done = sim::Field<0, 1>;
using irq_error = sim::Field<1, 1>;
using irq_input_ready = sim::Field<2, 1>;
using irq_output_ready = sim::Field<3, 1>;

enum ErrorCode : uint64_t { kNoError = 0, kBadRecord = 1, kBusError = 2, kBadLayer = 3 };

}  // namespace npu::dlp::regs
