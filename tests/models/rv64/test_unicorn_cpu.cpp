// The RV64 hart on Unicorn: programs hand-assembled here (encodings from the RISC-V ISA manual)
// run with exact instruction counts, machine-mode traps done by the adapter (ecall, an illegal
// instruction, an injected timer interrupt) and returned from with mret, whole 64-bit device
// accesses, and every stop: wfi, budget, semihosting, an unmapped access, a device's bus error.
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "models/rv64/cpu.h"

namespace npu::rv64 {
namespace {

constexpr uint32_t T0 = 5, T1 = 6, T2 = 7, A0 = 10, A1 = 11;
constexpr uint64_t kRam = 0x80000000, kHandler = kRam + 0x100;

uint32_t i_type(int32_t imm, uint32_t rs1, uint32_t f3, uint32_t rd, uint32_t op) {
    return (static_cast<uint32_t>(imm) & 0xfff) << 20 | rs1 << 15 | f3 << 12 | rd << 7 | op;
}
uint32_t addi(uint32_t rd, uint32_t rs1, int32_t imm) {
    return i_type(imm, rs1, 0, rd, 0x13);
}
uint32_t ld(uint32_t rd, uint32_t rs1, int32_t imm) {
    return i_type(imm, rs1, 3, rd, 0x03);
}
uint32_t sd(uint32_t rs2, uint32_t rs1, int32_t imm) {
    const auto u = static_cast<uint32_t>(imm);
    return ((u >> 5) & 0x7f) << 25 | rs2 << 20 | rs1 << 15 | 3u << 12 | (u & 0x1f) << 7 | 0x23;
}
uint32_t bne(uint32_t rs1, uint32_t rs2, int32_t off) {
    const auto u = static_cast<uint32_t>(off);
    return ((u >> 12) & 1) << 31 | ((u >> 5) & 0x3f) << 25 | rs2 << 20 | rs1 << 15 | 1u << 12 |
           ((u >> 1) & 0xf) << 8 | ((u >> 11) & 1) << 7 | 0x63;
}
uint32_t lui(uint32_t rd, uint32_t imm20) {
    return imm20 << 12 | rd << 7 | 0x37;
}
uint32_t csrr(uint32_t rd, uint32_t csr) {
    return i_type(static_cast<int32_t>(csr), 0, 2, rd, 0x73);
}
uint32_t csrw(uint32_t csr, uint32_t rs) {
    return i_type(static_cast<int32_t>(csr), rs, 1, 0, 0x73);
}
constexpr uint32_t kEcall = 0x00000073, kEbreak = 0x00100073, kWfi = 0x10500073, kMret = 0x30200073,
                   kIllegal = 0xc0001073;  // csrw cycle, x0: read-only
constexpr uint32_t kMstatus = 0x300, kMtvec = 0x305, kMepc = 0x341, kMcause = 0x342, kMtval = 0x343;

struct Hart {
    std::vector<uint8_t> ram = std::vector<uint8_t>(64 * 1024);
    std::unique_ptr<Cpu> cpu = make_unicorn_cpu();
    Hart() {
        cpu->map_ram(kRam, ram.size(), ram.data());
        cpu->set_pc(kRam);
    }
    void code(uint64_t at, const std::vector<uint32_t>& words) {
        std::memcpy(ram.data() + (at - kRam), words.data(), words.size() * 4);
    }
    // A handler that reads mcause into a1 and mtval into a0... no: mtval into t2, steps mepc
    // past the 4-byte instruction and returns.
    void stepping_handler() {
        code(kHandler, {csrr(A1, kMcause), csrr(T2, kMtval), csrr(T1, kMepc), addi(T1, T1, 4),
                        csrw(kMepc, T1), kMret});
        cpu->set_csr(Csr::Mtvec, kHandler);
    }
};

TEST(UnicornCpu, ALoopRunsToItsWfiWithExactInstructionCounts) {
    Hart h;
    // li t0, 1000; loop: addi t0, t0, -1; bne t0, x0, loop; wfi
    h.code(kRam, {addi(T0, 0, 1000), addi(T0, T0, -1), bne(T0, 0, -4), kWfi});
    const RunResult r = h.cpu->run(1'000'000);
    EXPECT_EQ(r.stop, Stop::Wfi);
    EXPECT_EQ(r.instructions, 1u + 2 * 1000 + 1);  // li, 1000 x (addi, bne), wfi
    EXPECT_EQ(h.cpu->x(T0), 0u);
    EXPECT_EQ(h.cpu->pc(), kRam + 16);
}

TEST(UnicornCpu, BudgetsSplitARunWithoutLosingAnInstruction) {
    Hart h;
    h.code(kRam, {addi(T0, 0, 1000), addi(T0, T0, -1), bne(T0, 0, -4), kWfi});
    uint64_t total = 0;
    int runs = 0;
    for (RunResult r; r.stop != Stop::Wfi && runs < 1000; ++runs) {
        r = h.cpu->run(100);
        EXPECT_LE(r.instructions, 100u);
        EXPECT_GT(r.instructions, 0u);
        total += r.instructions;
    }
    EXPECT_EQ(total, 2002u);
    EXPECT_GE(runs, 21);  // at least 2002 / 100
}

TEST(UnicornCpu, CyclesFollowTheCycleModelByInstructionClass) {
    Hart h;
    CycleModel m;
    m.cycles[static_cast<size_t>(InsnClass::Alu)] = 2;
    m.cycles[static_cast<size_t>(InsnClass::Branch)] = 5;
    m.cycles[static_cast<size_t>(InsnClass::Load)] = 3;
    m.cycles[static_cast<size_t>(InsnClass::Store)] = 7;
    m.cycles[static_cast<size_t>(InsnClass::System)] = 11;
    h.cpu->set_cycle_model(m);
    // auipc t1, 1 (t1 = 0x80001000, alu); li t0, 10; loop: ld; addi; sd; addi; bne; wfi
    h.code(kRam, {1u << 12 | T1 << 7 | 0x17, addi(T0, 0, 10), ld(T2, T1, 0), addi(T2, T2, 1),
                  sd(T2, T1, 0), addi(T0, T0, -1), bne(T0, 0, -16), kWfi});
    uint64_t instructions = 0, cycles = 0;
    for (RunResult r; r.stop == Stop::Budget || r.instructions == 0;) {
        r = h.cpu->run(7);
        ASSERT_TRUE(r.stop == Stop::Budget || r.stop == Stop::Wfi)
            << "pc " << h.cpu->pc();  // budgets split blocks: the sums must not change
        instructions += r.instructions, cycles += r.cycles;
    }
    EXPECT_EQ(instructions, 2u + 10 * 5 + 1);
    // By hand: 2 alu (2 each) + 10 x (load 3 + alu 2 + store 7 + alu 2 + branch 5) + wfi 11.
    EXPECT_EQ(cycles, 2u * 2 + 10 * (3 + 2 + 7 + 2 + 5) + 11);
    EXPECT_EQ(h.ram[0x1000], 10);
}

TEST(UnicornCpu, BreakpointsStopBeforeTheirInstructionAndStepsRunOne) {
    Hart h;
    // a0 += 1 five times, then wfi; a breakpoint at the third addi.
    h.code(kRam, {addi(A0, A0, 1), addi(A0, A0, 1), addi(A0, A0, 1), addi(A0, A0, 1),
                  addi(A0, A0, 1), kWfi});
    h.cpu->add_breakpoint(kRam + 8);
    RunResult r = h.cpu->run(1000);
    EXPECT_EQ(r.stop, Stop::Debug);
    EXPECT_EQ(h.cpu->pc(), kRam + 8);
    EXPECT_EQ(h.cpu->x(A0), 2u);  // the third addi has not run
    EXPECT_EQ(r.instructions, 2u);
    r = h.cpu->step();  // from the breakpoint: exactly that instruction
    EXPECT_EQ(r.instructions, 1u);
    EXPECT_EQ(h.cpu->pc(), kRam + 12);
    EXPECT_EQ(h.cpu->x(A0), 3u);
    h.cpu->set_pc(kRam + 8);  // back at the breakpoint: a run starting there goes on
    h.cpu->set_x(A0, 2);
    r = h.cpu->run(1000);
    EXPECT_EQ(r.stop, Stop::Wfi);
    EXPECT_EQ(h.cpu->x(A0), 5u);
    h.cpu->remove_breakpoint(kRam + 8);
    h.cpu->set_pc(kRam);
    h.cpu->set_x(A0, 0);
    EXPECT_EQ(h.cpu->run(1000).stop, Stop::Wfi);  // removed: no stop
    EXPECT_EQ(h.cpu->x(A0), 5u);
}

// The address of a load or store, from encodings worked by hand from the ISA manual (a refused
// device access is reported at the instruction that made it).
TEST(AccessAddress, EveryLoadAndStoreFormAddressesWhatTheManualSays) {
    std::array<uint64_t, 32> x{};
    x[2] = 0x1000;   // sp
    x[10] = 0x2000;  // a0
    x[11] = 0x3000;  // a1
    x[15] = 0x4000;  // a5
    const std::pair<uint32_t, uint64_t> cases[] = {
        {0xffc12503, 0x0ffc},  // lw a0, -4(sp)
        {0x00b53823, 0x2010},  // sd a1, 16(a0)
        {0xfeb52c23, 0x1ff8},  // sw a1, -8(a0)
        {0x00052507, 0x2000},  // flw fa0, 0(a0)
        {0xc398, 0x4000},      // c.sw a4, 0(a5)
        {0x4148, 0x2004},      // c.lw a0, 4(a0)
        {0x6588, 0x3008},      // c.ld a0, 8(a1)
        {0x6522, 0x1008},      // c.ldsp a0, 8(sp)
        {0xe82a, 0x1010},      // c.sdsp a0, 16(sp)
        {0xc22a, 0x1004},      // c.swsp a0, 4(sp)
    };
    for (const auto& [insn, want] : cases) {
        EXPECT_EQ(access_address(insn, x), std::optional<uint64_t>(want)) << std::hex << insn;
    }
    EXPECT_FALSE(access_address(0x00b50533, x));  // add a0, a0, a1
    EXPECT_FALSE(access_address(0x0505, x));      // c.addi a0, 1
}

TEST(InsnClass, EncodingsFromTheIsaManualFallInTheirClasses) {
    EXPECT_EQ(classify(0x02b50533), InsnClass::Mul);    // mul a0, a0, a1
    EXPECT_EQ(classify(0x02b54533), InsnClass::Div);    // div a0, a0, a1
    EXPECT_EQ(classify(0x02b5753b), InsnClass::Div);    // remuw a0, a0, a1
    EXPECT_EQ(classify(0x00b50533), InsnClass::Alu);    // add a0, a0, a1
    EXPECT_EQ(classify(0x00052507), InsnClass::Load);   // flw fa0, 0(a0)
    EXPECT_EQ(classify(0x00a52027), InsnClass::Store);  // fsw fa0, 0(a0)
    EXPECT_EQ(classify(0x60b57543), InsnClass::Fp);     // fmadd.s fa0, fa0, fa1, fa2
    EXPECT_EQ(classify(0x18b57553), InsnClass::FpDiv);  // fdiv.s fa0, fa0, fa1
    EXPECT_EQ(classify(0x58057553), InsnClass::FpDiv);  // fsqrt.s fa0, fa0
    EXPECT_EQ(classify(0xd0157553), InsnClass::Fp);     // fcvt.s.wu fa0, a0
    EXPECT_EQ(classify(0x000500e7), InsnClass::Jump);   // jalr a0
    EXPECT_EQ(classify(0x100522af), InsnClass::Load);   // lr.w t0, (a0)
    EXPECT_EQ(classify(kWfi), InsnClass::System);
    EXPECT_EQ(classify(0x4108), InsnClass::Load);    // c.lw a0, 0(a0)
    EXPECT_EQ(classify(0xc108), InsnClass::Store);   // c.sw a0, 0(a0)
    EXPECT_EQ(classify(0x6502), InsnClass::Load);    // c.ldsp a0, 0(sp)
    EXPECT_EQ(classify(0xe02a), InsnClass::Store);   // c.sdsp a0, 0(sp)
    EXPECT_EQ(classify(0x0505), InsnClass::Alu);     // c.addi a0, 1
    EXPECT_EQ(classify(0xa001), InsnClass::Jump);    // c.j .
    EXPECT_EQ(classify(0xc101), InsnClass::Branch);  // c.beqz a0, .
    EXPECT_EQ(classify(0x8082), InsnClass::Jump);    // c.jr ra (ret)
    EXPECT_EQ(classify(0x852e), InsnClass::Alu);     // c.mv a0, a1
    EXPECT_EQ(classify(0x9002), InsnClass::System);  // c.ebreak
    EXPECT_EQ(classify(0x9502), InsnClass::Jump);    // c.jalr a0
    EXPECT_EQ(classify(0x952e), InsnClass::Alu);     // c.add a0, a1
    EXPECT_EQ(insn_bytes(0x4108), 2u);
    EXPECT_EQ(insn_bytes(0x0533), 4u);
}

// Busy-wait loops may hold only instructions that change integer registers and the pc.
TEST(InsnClass, SpinSafeAllowsOnlyRegisterAndPcChanges) {
    for (uint32_t ok : {0x00052503u,  // lw a0, 0(a0)
                        0x00b50533u,  // add a0, a0, a1
                        0x02b50533u,  // mul a0, a0, a1
                        0x00050663u,  // beq a0, x0, +12
                        0x000500e7u,  // jalr a0
                        0x0ff0000fu,  // fence
                        0x6398u,      // c.ld a4, 0(a5)
                        0x4108u,      // c.lw a0, 0(a0)
                        0xdf7du,      // c.beqz a4, .-2
                        0xa001u,      // c.j .
                        0x6502u,      // c.ldsp a0, 0(sp)
                        0x852eu,      // c.mv a0, a1
                        0x8082u}) {   // c.jr ra
        EXPECT_TRUE(spin_safe(ok)) << std::hex << ok;
    }
    for (uint32_t no : {0x00a52023u,  // sw a0, 0(a0)
                        0x00052507u,  // flw fa0, 0(a0)
                        0x100522afu,  // lr.w t0, (a0)
                        0xb00025f3u,  // csrr a1, mcycle
                        kWfi,
                        0x60b57543u,  // fmadd.s
                        0xc108u,      // c.sw a0, 0(a0)
                        0xe02au,      // c.sdsp a0, 0(sp)
                        0x2108u,      // c.fld fa0, 0(a0)
                        0x9002u}) {   // c.ebreak
        EXPECT_FALSE(spin_safe(no)) << std::hex << no;
    }
}

TEST(UnicornCpu, EcallAndIllegalInstructionsEnterTheTrapHandlerAndMretReturns) {
    Hart h;
    h.stepping_handler();
    h.cpu->set_csr(Csr::Mstatus, h.cpu->csr(Csr::Mstatus) | kMstatusMie);
    h.code(kRam, {kEcall, addi(A0, A0, 1), kWfi});
    RunResult r = h.cpu->run(1000);
    EXPECT_EQ(r.stop, Stop::Wfi);
    EXPECT_EQ(h.cpu->x(A1), kCauseEcallM);
    EXPECT_EQ(h.cpu->x(A0), 1u);  // the instruction after the ecall ran once
    EXPECT_EQ(h.cpu->csr(Csr::Mepc), kRam + 4);
    EXPECT_NE(h.cpu->csr(Csr::Mstatus) & kMstatusMie, 0u);  // mret restored MIE
    Hart g;
    g.stepping_handler();
    g.code(kRam, {addi(A0, 0, 7), kIllegal, addi(A0, A0, 1), kWfi});
    r = g.cpu->run(1000);
    EXPECT_EQ(r.stop, Stop::Wfi);
    EXPECT_EQ(g.cpu->x(A1), kCauseIllegal);
    EXPECT_EQ(g.cpu->x(T2), kIllegal);  // mtval: the instruction
    EXPECT_EQ(g.cpu->x(A0), 8u);
}

TEST(UnicornCpu, AnInjectedTimerInterruptRunsItsHandler) {
    Hart h;
    h.stepping_handler();
    h.code(kRam, {kWfi, addi(A0, A0, 1), kWfi});
    EXPECT_EQ(h.cpu->run(1000).stop, Stop::Wfi);
    const uint64_t mtip = uint64_t{1} << kIrqTimer;
    EXPECT_FALSE(h.cpu->take_interrupt(mtip));  // MIE clear: not taken
    h.cpu->set_csr(Csr::Mie, mtip);
    h.cpu->set_csr(Csr::Mstatus, h.cpu->csr(Csr::Mstatus) | kMstatusMie);
    EXPECT_FALSE(h.cpu->take_interrupt(uint64_t{1} << kIrqExternal));  // not enabled in mie
    ASSERT_TRUE(h.cpu->take_interrupt(mtip));
    EXPECT_EQ(h.cpu->pc(), kHandler);
    EXPECT_EQ(h.cpu->csr(Csr::Mcause), kInterrupt | kIrqTimer);
    EXPECT_EQ(h.cpu->csr(Csr::Mstatus) & (kMstatusMie | kMstatusMpie), kMstatusMpie);
    // The stepping handler skips the instruction after the wfi: a0 stays 0.
    EXPECT_EQ(h.cpu->run(1000).stop, Stop::Wfi);
    EXPECT_EQ(h.cpu->x(A1), kInterrupt | kIrqTimer);
    EXPECT_EQ(h.cpu->x(A0), 0u);
    EXPECT_EQ(h.cpu->pc(), kRam + 12);
}

TEST(UnicornCpu, DevicesSeeWholeSixtyFourBitAccesses) {
    Hart h;
    std::vector<std::tuple<char, uint64_t, unsigned, uint64_t>> seen;
    Device d;
    d.read = [&](uint64_t off, unsigned size, uint64_t& v) {
        v = 0x1122334455667788;
        seen.emplace_back('r', off, size, v);
        return true;
    };
    d.write = [&](uint64_t off, unsigned size, uint64_t v) {
        seen.emplace_back('w', off, size, v);
        return true;
    };
    h.cpu->map_device(0x40800000, 0x1000, d);
    // lui t0, 0x40800; li t1, -1; sd t1, 0(t0); ld t2, 8(t0); wfi
    h.code(kRam, {lui(T0, 0x40800), addi(T1, 0, -1), sd(T1, T0, 0), ld(T2, T0, 8), kWfi});
    const RunResult r = h.cpu->run(1000);
    EXPECT_EQ(r.stop, Stop::Wfi);
    EXPECT_EQ(r.instructions, 5u);
    ASSERT_EQ(seen.size(), 2u);
    EXPECT_EQ(seen[0], std::make_tuple('w', uint64_t{0}, 8u, ~uint64_t{0}));
    EXPECT_EQ(seen[1], std::make_tuple('r', uint64_t{8}, 8u, uint64_t{0x1122334455667788}));
    EXPECT_EQ(h.cpu->x(T2), 0x1122334455667788u);
}

TEST(UnicornCpu, SemihostingUnmappedAccessesAndBusErrorsStopTheRun) {
    Hart h;
    // li a0, 0x18; slli x0, x0, 0x1f; ebreak; srai x0, x0, 7
    h.code(kRam, {addi(A0, 0, 0x18), 0x01f01013, kEbreak, 0x40705013});
    RunResult r = h.cpu->run(1000);
    EXPECT_EQ(r.stop, Stop::Semihost);
    EXPECT_EQ(h.cpu->pc(), kRam + 8);
    EXPECT_EQ(h.cpu->x(A0), 0x18u);
    EXPECT_EQ(r.instructions, 2u);  // li and the slli marker; the ebreak is the caller's
    Hart b;
    b.code(kRam, {addi(A0, 0, 1), kEbreak});
    EXPECT_EQ(b.cpu->run(1000).stop, Stop::Breakpoint);
    Hart u;
    u.code(kRam, {lui(T0, 0x10000), ld(T1, T0, 0), kWfi});
    r = u.cpu->run(1000);
    EXPECT_EQ(r.stop, Stop::Fault);
    EXPECT_EQ(r.fault_addr, 0x10000000u);
    Hart e;
    Device d;
    d.write = [](uint64_t, unsigned, uint64_t) {
        return false;
    };
    e.cpu->map_device(0x50000000, 0x1000, d);
    e.code(kRam, {lui(T0, 0x50000), sd(0, T0, 0x10), addi(A0, 0, 1), kWfi});
    r = e.cpu->run(1000);
    EXPECT_EQ(r.stop, Stop::Fault);
    EXPECT_EQ(r.fault_addr, 0x50000010u);
}

}  // namespace
}  // namespace npu::rv64
