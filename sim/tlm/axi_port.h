// An AXI-style initiator port: how a model moves bytes over the bus and accounts their time.
// Data moves by DMI when the target grants it, otherwise by one b_transport per burst; both paths
// give the same time. Time follows transfer_cost (docs/counters.md, "Bus transfers"): the
// port is busy from the later of the request time and the end of its previous transfer until the
// last beat, so transfers through one port serialize. Callers pass their quantum-keeper local time;
// the port never calls wait(). A burst reaches its target annotated with the transfer's start
// (sc_time_stamp() + delay is when it happens: a register's side effects, a GPIO pin's change or
// a KPU layer's 12th word, take that time, not the caller's last synchronisation).
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_initiator_socket.h>

#include "sim/core/bus_cost.h"
#include "sim/core/stats.h"

namespace npu::sim {

class AxiPort : public sc_core::sc_module {
public:
    tlm_utils::simple_initiator_socket<AxiPort> socket;

    // `use_dmi` false forces the b_transport path (to check that both agree).
    AxiPort(sc_core::sc_module_name name, const BusConfig& bus, bool use_dmi = true);

    // Moves `len` bytes between `addr` and the caller's buffer. `local` is the caller's local time
    // offset (QuantumKeeper::local()); on return it is the time the last beat completed. Returns
    // TLM_OK_RESPONSE or the first error response (the transfer stops there; time is still spent
    // on the bursts that were issued).
    tlm::tlm_response_status read(uint64_t addr, void* dst, size_t len, sc_core::sc_time& local);
    tlm::tlm_response_status write(uint64_t addr, const void* src, size_t len,
                                   sc_core::sc_time& local);

    // A read by TLM's debug transport: no time, no counters, no side effects (a debugger's or a
    // report's view of memory). Returns the bytes the target delivered.
    size_t debug_read(uint64_t addr, void* dst, size_t len);
    // A debugger's write by debug transport: no time, no counters; a register target applies it
    // as a bus write (its effects included). Returns the bytes the target took.
    size_t debug_write(uint64_t addr, const void* src, size_t len);

    // Notified (delta) after each write this master makes, from the first call on (a run that
    // never asks pays nothing per write): for a CPU waiting on memory only another master changes.
    const sc_core::sc_event& written_event() {
        m_notify_writes = true;
        return m_wrote;
    }

    const BusConfig& bus() const { return m_bus; }
    sc_core::sc_time clock_period() const { return m_period; }
    // Absolute time at which the port finishes its last accepted transfer.
    sc_core::sc_time busy_until() const { return m_busy_until; }
    StatGroup& stats() { return m_stats; }
    uint64_t dmi_transfer_count() const { return m_dmi_transfers.value(); }
    // Bytes read plus written through this port so far.
    uint64_t bytes_transferred() const { return m_bytes_read.value() + m_bytes_written.value(); }

private:
    size_t debug(tlm::tlm_command cmd, uint64_t addr, uint8_t* data, size_t len);
    tlm::tlm_response_status transfer(tlm::tlm_command cmd, uint64_t addr, uint8_t* buf, size_t len,
                                      sc_core::sc_time& local);
    // Copies through a cached DMI region if one covers the whole range; adds its latency per burst.
    bool try_dmi(tlm::tlm_command cmd, uint64_t addr, uint8_t* buf, size_t len, uint64_t bursts,
                 sc_core::sc_time& target_latency);
    tlm::tlm_response_status by_bursts(tlm::tlm_command cmd, uint64_t addr, uint8_t* buf,
                                       size_t len, sc_core::sc_time offset,
                                       sc_core::sc_time& target_latency);
    void invalidate_direct_mem_ptr(sc_dt::uint64 start, sc_dt::uint64 end);

    BusConfig m_bus;
    bool m_use_dmi;
    sc_core::sc_time m_period;
    uint64_t m_period_ticks;  // m_period in kernel time-resolution units (integer arithmetic)
    sc_core::sc_time m_busy_until;
    sc_core::sc_event m_wrote;  // unnamed: several ports share a module
    bool m_notify_writes = false;
    std::vector<tlm::tlm_dmi> m_dmi;  // granted regions
    tlm::tlm_generic_payload m_tx;

    StatGroup m_stats;
    Counter& m_bytes_read;
    Counter& m_bytes_written;
    Counter& m_beats;
    Counter& m_bursts;
    Counter& m_busy_cycles;
    Counter& m_stall_cycles;
    Counter& m_dmi_transfers;
    Counter& m_errors;
};

}  // namespace npu::sim
