// K210 KPU register block (kpu_config_t, Kendryte SDK kpu.h): nine 64-bit registers at
// 0x00..0x40 of AI_BASE_ADDR (0x40800000). Names verbatim from the SDK; offsets are checked by
// the bank (add_consecutive). Semantics: docs/k210_kpu.md "Registers".
#pragma once

#include "sim/core/regs.h"

namespace npu::kpu::regs {

using sim::Field;

enum Offset : uint64_t {
    LAYER_ARGUMENT_FIFO = 0x00,
    INTERRUPT_STATUS = 0x08,
    INTERRUPT_RAW = 0x10,
    INTERRUPT_MASK = 0x18,
    INTERRUPT_CLEAR = 0x20,
    FIFO_THRESHOLD = 0x28,
    FIFO_DATA_OUT = 0x30,
    FIFO_CTRL = 0x38,
    EIGHT_BIT_MODE = 0x40,
};
constexpr uint64_t kBlockBytes = 0x48;

// kpu_config_interrupt_t, in INTERRUPT_{STATUS,RAW,MASK,CLEAR}.
using calc_done_int = Field<0, 1>;
using layer_cfg_almost_empty_int = Field<1, 1>;
using layer_cfg_almost_full_int = Field<2, 1>;
// Simulator extension in a reserved bit: a layer the hardware would misbehave on was skipped.
using layer_error_int = Field<3, 1>;
constexpr uint64_t kInterruptBits = 0xf;

// kpu_config_fifo_threshold_t: in layers of 12 words (see docs/k210_kpu.md).
using fifo_full_threshold = Field<0, 4>;
using fifo_empty_threshold = Field<4, 4>;

// kpu_config_fifo_ctrl_t: active-low flush requests.
using dma_fifo_flush_n = Field<0, 1>;
using gs_fifo_flush_n = Field<1, 1>;
using cfg_fifo_flush_n = Field<2, 1>;
using cmd_fifo_flush_n = Field<3, 1>;
using resp_fifo_flush_n = Field<4, 1>;

using eight_bit_mode = Field<0, 1>;

}  // namespace npu::kpu::regs
