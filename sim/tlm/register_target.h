// Puts a RegisterBank on the bus. Wrong accesses become TLM error responses plus one warning
// naming the register: no register -> ADDRESS_ERROR, RO write / WO read -> COMMAND_ERROR, size or
// alignment the register does not support -> BURST_ERROR, byte enables -> BYTE_ENABLE_ERROR.
// Each access costs `access_latency`. transport_dbg (a debugger's access) takes no time: a read
// shows stored values, or a pure read hook's (no side effects); a write is the bus write it asks
// for.
#pragma once

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "sim/core/regs.h"
#include "sim/core/stats.h"

namespace npu::sim {

tlm::tlm_response_status to_tlm(BankResult r);

class RegisterTarget : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<RegisterTarget> socket;

    RegisterTarget(sc_core::sc_module_name name, RegisterBank& bank,
                   sc_core::sc_time access_latency);

    StatGroup& stats() { return m_stats; }
    // Inside a register hook: the simulated time of the access (the initiator's local time
    // included), e.g. for a timer the CPU reads while it runs ahead of the kernel.
    sc_core::sc_time access_time() const { return m_access_time; }

private:
    void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
    unsigned transport_dbg(tlm::tlm_generic_payload& tx);

    RegisterBank& m_bank;
    sc_core::sc_time m_latency;
    sc_core::sc_time m_access_time;
    StatGroup m_stats;
    Counter& m_reads;
    Counter& m_writes;
    Counter& m_errors;
};

}  // namespace npu::sim
