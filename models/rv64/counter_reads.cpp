#include "models/rv64/counter_reads.h"

#include <cstring>

#include "models/rv64/cpu.h"

namespace npu::rv64 {
namespace {

// The window offset a read of `csr` becomes, or 0 when it is not a counter.
uint64_t counter_offset(uint32_t csr) {
    switch (csr) {
    case 0xC00:  // cycle
    case 0xB00:  // mcycle
        return kCounterCycle;
    case 0xC01:  // time
        return kCounterTime;
    case 0xC02:  // instret
    case 0xB02:  // minstret
        return kCounterInstret;
    case 0xF14:  // mhartid
        return kCounterHartId;
    default: return 0;
    }
}

// `insn` as `ld rd, off(x0)` if it only reads a counter CSR, else 0.
uint32_t rewrite(uint32_t insn) {
    if ((insn & 0x7f) != 0x73) {
        return 0;
    }
    const uint32_t funct3 = (insn >> 12) & 7, rs1 = (insn >> 15) & 31, rd = (insn >> 7) & 31;
    // csrrs/csrrc with rs1 = x0, csrrsi/csrrci with uimm = 0: reads that write nothing.
    const bool read_only = funct3 == 2 || funct3 == 3 || funct3 == 6 || funct3 == 7;
    const uint64_t off = counter_offset(insn >> 20);
    if (!read_only || rs1 != 0 || off == 0) {
        return 0;
    }
    return static_cast<uint32_t>(off << 20) | (3u << 12) | (rd << 7) | 0x03u;  // ld rd, off(x0)
}

}  // namespace

size_t redirect_counter_reads(uint8_t* code, size_t size, size_t* hartid_reads) {
    size_t patched = 0;
    for (size_t at = 0; at + 2 <= size;) {
        uint16_t low = 0;
        std::memcpy(&low, code + at, 2);
        if (insn_bytes(low) == 2 || at + 4 > size) {
            at += 2;
            continue;
        }
        uint32_t insn = 0;
        std::memcpy(&insn, code + at, 4);
        if (const uint32_t ld = rewrite(insn); ld != 0) {
            std::memcpy(code + at, &ld, 4);
            ++patched;
            if (hartid_reads != nullptr && (insn >> 20) == 0xF14) {
                ++*hartid_reads;
            }
        }
        at += 4;
    }
    return patched;
}

}  // namespace npu::rv64
