// A RISC-V RV64 hart as the firmware path sees it: memory and devices mapped into it, runs of a
// bounded number of instructions, machine-mode trap entry for exceptions and interrupts, and the
// reasons a run stops (budget, wfi, a semihosting call, a fault). The instruction-set simulator
// behind it is replaceable (unicorn_cpu.h today). Pure C++: time is the caller's, from the
// instruction counts a run returns (docs/k210_firmware.md).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace npu::rv64 {

// Machine-mode CSRs the adapter and its users read and write.
enum class Csr { Mstatus, Mie, Mip, Mtvec, Mepc, Mcause, Mtval, Mscratch, Fflags, Frm, Fcsr };

// mcause values (the privileged spec, table 3.6).
constexpr uint64_t kCauseIllegal = 2, kCauseBreakpoint = 3, kCauseEcallM = 11;
constexpr uint64_t kInterrupt = uint64_t{1} << 63;
constexpr uint64_t kIrqSoftware = 3, kIrqTimer = 7, kIrqExternal = 11;  // M-mode, | kInterrupt
constexpr uint64_t kMstatusMie = 1u << 3, kMstatusMpie = 1u << 7, kMstatusMpp = 3u << 11;

// A device's registers: called for every access of 1, 2, 4 or 8 bytes inside its range, with the
// offset from the range's start. A read returns the value; false from either marks a bus error.
struct Device {
    std::function<bool(uint64_t offset, unsigned size, uint64_t& value)> read;
    std::function<bool(uint64_t offset, unsigned size, uint64_t value)> write;
};

enum class Stop {
    Budget,      // the instruction budget ran out
    Wfi,         // wfi: the hart waits for an interrupt (pc is past the wfi)
    Semihost,    // the semihosting sequence: a0 = operation, a1 = parameter (pc at the ebreak)
    Breakpoint,  // an ebreak that is not semihosting (pc at the ebreak)
    Fault,       // an access outside every mapping (pc at it), or a device's bus error (noticed at
                 // the end of the access's block, like an imprecise bus error)
    Requested,   // request_stop() from a device callback (pc after the access's block)
    Exception,   // with stop_on_exceptions: an illegal instruction (pc at it, not trapped)
    Debug,       // a debugger's breakpoint (pc at it, not executed)
};

// Instruction classes of the time model: each class costs its configured cycles per instruction
// (docs/firmware.md, "Time"). A 16-bit (compressed) instruction is classed as what it expands to.
enum class InsnClass : uint8_t { Alu, Load, Store, Branch, Jump, Mul, Div, Fp, FpDiv, System };
constexpr size_t kInsnClasses = 10;
const char* to_string(InsnClass c);
// The class of the instruction whose first 16 or 32 bits are `insn` (16-bit ones: low half).
InsnClass classify(uint32_t insn);
// The address a load or store (32-bit or compressed, integer or FP) whose first 16 or 32 bits are
// `insn` accesses, with registers `x` (x[0] = 0); nothing for any other instruction.
std::optional<uint64_t> access_address(uint32_t insn, const std::array<uint64_t, 32>& x);
// Whether the instruction whose first 16 or 32 bits are `insn` changes nothing but integer
// registers and the pc: integer loads, arithmetic, branches, jumps, fences; not stores, atomics,
// CSR or system instructions, nor anything with floating point (a busy-wait loop made only of
// these, its registers the same after a turn, waits for something outside it).
bool spin_safe(uint32_t insn);
// Bytes of the instruction whose first 16 bits are `low16`: 2 (compressed) or 4.
constexpr unsigned insn_bytes(uint32_t low16) {
    return (low16 & 3) == 3 ? 4 : 2;
}

// Cycles per instruction by class (all 1: one instruction per cycle).
struct CycleModel {
    std::array<uint32_t, kInsnClasses> cycles{1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    uint32_t of(InsnClass c) const { return cycles[static_cast<size_t>(c)]; }
};

struct RunResult {
    Stop stop = Stop::Budget;
    uint64_t instructions = 0;  // retired in this run
    uint64_t cycles = 0;        // their cycles under the CycleModel
    uint64_t fault_addr = 0;    // Stop::Fault: the address
    // Stop::Fault by a device's bus error (not an unmapped address): the access and the pc of the
    // instruction that made it (the run itself stops at the end of its block).
    bool device_error = false, fault_write = false;
    unsigned fault_size = 0;
    uint64_t fault_pc = 0;
    uint64_t cause = 0;  // Stop::Exception: mcause
    uint64_t tval = 0;   // Stop::Exception: mtval (the instruction)
};

class Cpu {
public:
    virtual ~Cpu() = default;
    // RAM the hart reads and writes directly, backed by `host` (size bytes, kept alive by the
    // caller); the same host bytes may be mapped at two addresses (an uncached alias).
    virtual void map_ram(uint64_t addr, uint64_t size, uint8_t* host) = 0;
    virtual void map_device(uint64_t addr, uint64_t size, Device device) = 0;
    // Accesses to [addr, addr+size) of mapped RAM reported to `on_access` (address, bytes,
    // write?) without changing them: an uncached window whose bus time the caller accounts.
    virtual void watch(uint64_t addr, uint64_t size,
                       std::function<void(uint64_t addr, unsigned size, bool write)> on_access) = 0;
    // The cycles of each instruction class from now on.
    virtual void set_cycle_model(const CycleModel& m) = 0;
    // Whether an illegal instruction stops the run (Stop::Exception) instead of entering the
    // firmware's trap handler (ecall always enters it).
    virtual void stop_on_exceptions(bool on) = 0;
    // The interrupts pending now (bits of mip): a run stops (Stop::Requested) at the first block
    // where one of them becomes deliverable (mie and mstatus.MIE set by the firmware), so the
    // caller can take it where the hardware would.
    virtual void set_pending(uint64_t mip_bits) = 0;
    // Runs at most `budget` instructions from the current pc.
    virtual RunResult run(uint64_t budget) = 0;
    // Runs exactly one instruction (a debugger's single step; breakpoints do not stop it).
    virtual RunResult step() = 0;
    // A debugger's breakpoint: a run stops before executing the instruction at `addr`
    // (Stop::Debug), except at the pc it starts from (so that continuing from it moves on).
    virtual void add_breakpoint(uint64_t addr) = 0;
    virtual void remove_breakpoint(uint64_t addr) = 0;
    // From a device callback during run(): the cycles of the blocks entered so far in this run
    // (the access's block included), to time the access within the run.
    virtual uint64_t run_cycles() const = 0;
    // The same for instructions.
    virtual uint64_t run_instructions() const = 0;
    // From a device callback: end the current run at the next block boundary.
    virtual void request_stop() = 0;

    virtual uint64_t pc() const = 0;
    virtual void set_pc(uint64_t pc) = 0;
    virtual uint64_t x(unsigned reg) const = 0;  // x0..x31
    virtual void set_x(unsigned reg, uint64_t value) = 0;
    virtual uint64_t f(unsigned reg) const = 0;  // f0..f31 (64 bits: a float NaN-boxed)
    virtual void set_f(unsigned reg, uint64_t value) = 0;
    virtual uint64_t csr(Csr c) const = 0;
    virtual void set_csr(Csr c, uint64_t value) = 0;

    // Machine-mode trap entry (the ISS may not do it): mepc = epc, mcause, mtval,
    // mstatus.MPIE = MIE, MIE = 0, MPP = M, pc = mtvec (vectored: + 4 * cause for interrupts).
    void trap(uint64_t cause, uint64_t epc, uint64_t tval);
    // Takes the highest-priority pending interrupt (external, software, timer) among `pending`
    // (bits of mip) that mie and mstatus.MIE allow; returns whether it took one.
    bool take_interrupt(uint64_t pending);
};

// The hart of the K210's CPU (RV64IMAFDC, machine mode) on Unicorn 2, floating point enabled.
// Throws sim::Error when Unicorn cannot make one.
std::unique_ptr<Cpu> make_unicorn_cpu();

}  // namespace npu::rv64
