#include "models/rv64/cpu.h"

namespace npu::rv64 {

const char* to_string(InsnClass c) {
    static constexpr const char* kNames[kInsnClasses] = {
        "alu", "load", "store", "branch", "jump", "mul", "div", "fp", "fp_div", "system"};
    return kNames[static_cast<size_t>(c)];
}

namespace {

// Compressed instructions (the C extension's quadrants 0-2, by funct3).
InsnClass classify16(uint32_t h) {
    const uint32_t quadrant = h & 3, f3 = (h >> 13) & 7;
    if (quadrant == 0) {
        return f3 == 0 ? InsnClass::Alu : f3 < 4 ? InsnClass::Load : InsnClass::Store;
    }
    if (quadrant == 1) {
        return f3 == 5 ? InsnClass::Jump : f3 >= 6 ? InsnClass::Branch : InsnClass::Alu;
    }
    if (f3 == 0) {
        return InsnClass::Alu;  // c.slli
    }
    if (f3 != 4) {
        return f3 < 4 ? InsnClass::Load : InsnClass::Store;  // c.*lsp / c.*sdsp
    }
    const uint32_t rs1 = (h >> 7) & 31, rs2 = (h >> 2) & 31, bit12 = (h >> 12) & 1;
    if (rs2 != 0) {
        return InsnClass::Alu;  // c.mv, c.add
    }
    if (bit12 == 1 && rs1 == 0) {
        return InsnClass::System;  // c.ebreak
    }
    return InsnClass::Jump;  // c.jr, c.jalr
}

int64_t sext(uint32_t v, unsigned bits) {
    const uint32_t m = 1u << (bits - 1);
    return static_cast<int64_t>(static_cast<int32_t>((v ^ m) - m));
}

// Compressed loads and stores: c.lw/c.ld/c.fld/c.sw/c.sd/c.fsd (rs1' + scaled offset) and the
// sp-relative ones; nothing for other instructions.
std::optional<uint64_t> access_address16(uint32_t h, const std::array<uint64_t, 32>& x) {
    const uint32_t quadrant = h & 3, f3 = (h >> 13) & 7;
    if (quadrant == 0 && f3 != 0 && f3 != 4) {
        const uint64_t base = x[8 + ((h >> 7) & 7)];
        const bool word = f3 == 2 || f3 == 6;  // c.lw, c.sw; else 8-byte: c.ld/c.fld/c.sd/c.fsd
        const uint32_t off = word ? ((h >> 7) & 0x38) | ((h << 1) & 0x40) | ((h >> 4) & 4)
                                  : ((h >> 7) & 0x38) | ((h << 1) & 0xc0);
        return base + off;
    }
    if (quadrant == 2 && f3 != 0 && f3 != 4) {
        const bool load = f3 < 4, word = f3 == 2 || f3 == 6;
        uint32_t off = 0;
        if (load) {
            off = word ? ((h >> 7) & 0x20) | ((h >> 2) & 0x1c) | ((h << 4) & 0xc0)
                       : ((h >> 7) & 0x20) | ((h >> 2) & 0x18) | ((h << 4) & 0x1c0);
        } else {
            off = word ? ((h >> 7) & 0x3c) | ((h >> 1) & 0xc0)
                       : ((h >> 7) & 0x38) | ((h >> 1) & 0x1c0);
        }
        return x[2] + off;
    }
    return std::nullopt;
}

}  // namespace

std::optional<uint64_t> access_address(uint32_t insn, const std::array<uint64_t, 32>& x) {
    if (insn_bytes(insn) == 2) {
        return access_address16(insn & 0xffff, x);
    }
    const uint64_t base = x[(insn >> 15) & 31];
    switch (insn & 0x7f) {
    case 0x03:
    case 0x07: return base + static_cast<uint64_t>(sext(insn >> 20, 12));  // I-type loads
    case 0x23:
    case 0x27:  // S-type stores
        return base + static_cast<uint64_t>(sext(((insn >> 20) & 0xfe0) | ((insn >> 7) & 31), 12));
    default: return std::nullopt;
    }
}

InsnClass classify(uint32_t insn) {
    if (insn_bytes(insn) == 2) {
        return classify16(insn & 0xffff);
    }
    const uint32_t funct7 = insn >> 25;
    switch (insn & 0x7f) {
    case 0x03:
    case 0x07:
    case 0x2f: return InsnClass::Load;  // loads, FP loads, atomics (a read first)
    case 0x23:
    case 0x27: return InsnClass::Store;
    case 0x63: return InsnClass::Branch;
    case 0x67:
    case 0x6f: return InsnClass::Jump;
    case 0x33:
    case 0x3b:
        if (funct7 == 1) {
            return ((insn >> 12) & 7) < 4 ? InsnClass::Mul : InsnClass::Div;
        }
        return InsnClass::Alu;
    case 0x53: {
        const uint32_t funct5 = funct7 >> 2;
        return funct5 == 0x03 || funct5 == 0x0b ? InsnClass::FpDiv : InsnClass::Fp;  // fdiv fsqrt
    }
    case 0x43:
    case 0x47:
    case 0x4b:
    case 0x4f: return InsnClass::Fp;  // fused multiply-add
    case 0x73: return InsnClass::System;
    default: return InsnClass::Alu;
    }
}

bool spin_safe(uint32_t insn) {
    if (insn_bytes(insn) == 2) {
        const uint32_t h = insn & 0xffff, quadrant = h & 3, f3 = (h >> 13) & 7;
        if (quadrant == 1) {
            return true;  // c.addi, c.addiw, c.li, c.lui, c.addi16sp, ALU, c.j, c.beqz, c.bnez
        }
        if (quadrant == 0) {
            return f3 == 0 || f3 == 2 || f3 == 3;  // c.addi4spn, c.lw, c.ld
        }
        // c.slli, c.lwsp, c.ldsp, c.jr/c.mv/c.jalr/c.add (not c.ebreak)
        return f3 == 0 || f3 == 2 || f3 == 3 || (f3 == 4 && h != 0x9002);
    }
    switch (insn & 0x7f) {
    case 0x03:               // loads
    case 0x0f:               // fences
    case 0x13:               // OP-IMM
    case 0x17:               // auipc
    case 0x1b:               // OP-IMM-32
    case 0x33:               // OP (with M)
    case 0x37:               // lui
    case 0x3b:               // OP-32
    case 0x63:               // branches
    case 0x67:               // jalr
    case 0x6f: return true;  // jal
    default: return false;
    }
}

void Cpu::trap(uint64_t cause, uint64_t epc, uint64_t tval) {
    uint64_t st = csr(Csr::Mstatus);
    st = (st & ~(kMstatusMpie | kMstatusMie)) | ((st & kMstatusMie) != 0 ? kMstatusMpie : 0) |
         kMstatusMpp;
    set_csr(Csr::Mstatus, st);
    set_csr(Csr::Mepc, epc);
    set_csr(Csr::Mcause, cause);
    set_csr(Csr::Mtval, tval);
    const uint64_t tvec = csr(Csr::Mtvec);
    const bool vectored = (tvec & 3) == 1 && (cause & kInterrupt) != 0;
    set_pc((tvec & ~uint64_t{3}) + (vectored ? 4 * (cause & ~kInterrupt) : 0));
}

bool Cpu::take_interrupt(uint64_t pending) {
    if ((csr(Csr::Mstatus) & kMstatusMie) == 0) {
        return false;
    }
    const uint64_t ready = pending & csr(Csr::Mie);
    for (uint64_t irq : {kIrqExternal, kIrqSoftware, kIrqTimer}) {  // the spec's priority order
        if ((ready >> irq) & 1) {
            trap(kInterrupt | irq, pc(), 0);
            return true;
        }
    }
    return false;
}

}  // namespace npu::rv64
