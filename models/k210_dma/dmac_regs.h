// K210 DMAC (a DesignWare AXI DMAC, 6 channels) and the SYSCTL DMA handshake selectors: the
// register subset the Kendryte SDK uses to move data (dmac_set_single_mode, dmac_is_done,
// sysctl_dma_select). Offsets and fields from the SDK's dmac.h / sysctl.h structs.
#pragma once

#include "sim/core/regs.h"

namespace npu::dma::regs {

using sim::Field;

constexpr unsigned kChannels = 6;
constexpr uint64_t kBlockBytes = 0x100 + kChannels * 0x100;  // common block + 6 channels

// Common registers (dmac_t).
enum Common : uint64_t {
    ID = 0x00,
    COMPVER = 0x08,
    CFG = 0x10,
    CHEN = 0x18,
    INTSTATUS = 0x30,
    COM_INTCLEAR = 0x38,
    COM_INTSTATUS_EN = 0x40,
    COM_INTSIGNAL_EN = 0x48,
    COM_INTSTATUS = 0x50,
    RESET = 0x58,
};
using dmac_en = Field<0, 1>;  // CFG
using int_en = Field<1, 1>;
using ch_en = Field<0, 6>;     // CHEN: one bit per channel
using ch_en_we = Field<8, 6>;  // ... written only where the matching write-enable bit is 1
using dmac_rst = Field<0, 1>;  // RESET: 1 resets the DMAC; reads 1 until the reset is done
// CHx_INTSTATUS_ENABLEREG / CHx_INTSIGNAL_ENABLEREG reset value: every enable bit of the low word
// set (bit 2 reserved), as DesignWare's DW_axi_dmac resets them (its register descriptions in
// Espressif's ESP32-P4 and Intel's SEDI headers: "default: 1"). The Kendryte SDK never writes
// INTSIGNAL_ENABLEREG, and its DMA-complete interrupts come on boards.
constexpr uint64_t kChannelIntEnableReset = 0xfffffffb;

// Channel registers (dmac_channel_t), at 0x100 + channel · 0x100.
constexpr uint64_t channel_base(unsigned ch) {
    return 0x100 + uint64_t{ch} * 0x100;
}
enum Channel : uint64_t {
    SAR = 0x00,
    DAR = 0x08,
    BLOCK_TS = 0x10,
    CTL = 0x18,
    CH_CFG = 0x20,
    LLP = 0x28,
    STATUS = 0x30,
    SWHSSRC = 0x38,
    SWHSDST = 0x40,
    BLK_TFR = 0x48,
    AXI_ID = 0x50,
    AXI_QOS = 0x58,
    INTSTATUS_EN = 0x80,
    CH_INTSTATUS = 0x88,
    INTSIGNAL_EN = 0x90,
    INTCLEAR = 0x98,
};
using block_ts = Field<0, 22>;     // BLOCK_TS: data items - 1
using sinc = Field<4, 1>;          // CTL: 1 = source address does not change
using dinc = Field<6, 1>;          // 1 = destination address does not change
using src_tr_width = Field<8, 3>;  // item size 2^n bytes
using dst_tr_width = Field<11, 3>;
using src_msize = Field<14, 4>;  // burst length code: 0 -> 1, n -> 2^(n+1) items
using dst_msize = Field<18, 4>;
using tt_fc = Field<32, 3>;  // CH_CFG: 0 mem->mem, 1 mem->periph, 2 periph->mem (DMAC flow control)
using hs_sel_src = Field<35, 1>;  // 0 = hardware handshake
using hs_sel_dst = Field<36, 1>;
using src_per = Field<39, 4>;          // handshake interface of the source
using dst_per = Field<44, 4>;          // and of the destination
using cmpltd_blk_size = Field<0, 22>;  // STATUS
using block_tfr_done = Field<0, 1>;    // CH_INTSTATUS / INTCLEAR / *_EN
using dma_tfr_done = Field<1, 1>;
using src_dec_err = Field<5, 1>;
using dst_dec_err = Field<6, 1>;

// SYSCTL (0x50440000): which peripheral request drives each handshake interface.
constexpr uint64_t kSysctlBytes = 0x80;
enum Sysctl : uint64_t {
    DMA_SEL0 = 0x64,  // 32-bit: interfaces 0..4, 6 bits each
    DMA_SEL1 = 0x68,  // 32-bit: interface 5
};
constexpr unsigned kAiRxReq = 22;  // SYSCTL_DMA_SELECT_AI_RX_REQ
// sysctl_dma_sel0_t / sysctl_dma_sel1_t: the request that drives each handshake interface.
using dma_sel0 = Field<0, 6>;  // in DMA_SEL0
using dma_sel1 = Field<6, 6>;
using dma_sel2 = Field<12, 6>;
using dma_sel3 = Field<18, 6>;
using dma_sel4 = Field<24, 6>;
using dma_sel5 = Field<0, 6>;  // in DMA_SEL1

// The SYSCTL register holding channel `ch`'s selector, and that register's value `v` with the
// selector set to `request` (sysctl_dma_select).
constexpr uint64_t dma_sel_register(unsigned ch) {
    return ch < 5 ? DMA_SEL0 : DMA_SEL1;
}
constexpr uint64_t with_dma_sel(uint64_t v, unsigned ch, uint64_t request) {
    switch (ch) {
    case 0: return dma_sel0::set(v, request);
    case 1: return dma_sel1::set(v, request);
    case 2: return dma_sel2::set(v, request);
    case 3: return dma_sel3::set(v, request);
    case 4: return dma_sel4::set(v, request);
    default: return dma_sel5::set(v, request);
    }
}
static_assert(with_dma_sel(0, 2, kAiRxReq) == uint64_t{kAiRxReq} << 12);

}  // namespace npu::dma::regs
