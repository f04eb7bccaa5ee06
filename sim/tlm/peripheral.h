// A memory-mapped block's registers as its sc_module holds them: the registers (owned, at stable
// addresses: the bank keeps pointers to them), their bank, and the TLM target serving the bank
// (its socket, access latency and statistics). reset() puts every register back to its reset
// value, as the chip's reset does. A block declares `sim::Peripheral regs;` and adds its
// registers with regs.add() in its constructor; the platform binds regs.socket.
#pragma once

#include <cstdint>
#include <deque>

#include "sim/core/regs.h"
#include "sim/tlm/register_target.h"

namespace npu::sim {

namespace detail {
// Constructed before the target that serves it (a base listed first).
struct PeripheralRegisters {
    PeripheralRegisters(const char* bank_name, uint64_t bytes)
        : bank(bank_name, bytes) {}
    std::deque<Register> registers;
    RegisterBank bank;
};
}  // namespace detail

class Peripheral : private detail::PeripheralRegisters, public RegisterTarget {
public:
    // `bank_name` names the bank in access messages (e.g. "uarths"), `bytes` its size.
    Peripheral(sc_core::sc_module_name name, const char* bank_name, uint64_t bytes,
               sc_core::sc_time access_latency)
        : PeripheralRegisters(bank_name, bytes)
        , RegisterTarget(name, bank, access_latency) {}

    Register& add(Register::Spec spec) {
        bank.add(registers.emplace_back(std::move(spec)));
        return registers.back();
    }
    RegisterBank& registers_bank() { return bank; }
    const RegisterBank& registers_bank() const { return bank; }
    void reset() { bank.reset(); }
};

}  // namespace npu::sim
