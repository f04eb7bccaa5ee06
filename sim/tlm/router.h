// An interconnect that decodes addresses with a AddressMap: initiators bind to
// `target_socket`, targets to `initiator_socket` (port = bind order). A window translates a global
// address to the target-local one, so one target may appear at several windows (aliases). DMI
// grants and invalidations are translated and clipped to the window. An access that hits no window
// (or runs past its end) gets TLM_ADDRESS_ERROR_RESPONSE and one warning.
#pragma once

#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/multi_passthrough_initiator_socket.h>
#include <tlm_utils/multi_passthrough_target_socket.h>

#include "sim/core/address_map.h"
#include "sim/core/stats.h"

namespace npu::sim {

class Router : public sc_core::sc_module {
public:
    tlm_utils::multi_passthrough_target_socket<Router> target_socket;        // from initiators
    tlm_utils::multi_passthrough_initiator_socket<Router> initiator_socket;  // to targets

    explicit Router(sc_core::sc_module_name name);

    // Binds a target and returns its port index.
    unsigned bind_target(tlm::tlm_base_target_socket<>& target);
    // Maps [base, base+size) to `port`, where `base` lands on target-local address `target_base`.
    // Throws Error on overlap with an existing window (elaboration fails with the message).
    void map(const std::string& name, uint64_t base, uint64_t size, unsigned port,
             uint64_t target_base = 0);

    const AddressMap& address_map() const { return m_map; }
    StatGroup& stats() { return m_stats; }

private:
    void b_transport(int id, tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
    bool get_direct_mem_ptr(int id, tlm::tlm_generic_payload& tx, tlm::tlm_dmi& dmi);
    unsigned transport_dbg(int id, tlm::tlm_generic_payload& tx);
    void invalidate_direct_mem_ptr(int port, sc_dt::uint64 start, sc_dt::uint64 end);
    void unmapped(const tlm::tlm_generic_payload& tx);
    // Decodes [addr, addr+len), trying the window of the previous access first (accesses cluster).
    const MapWindow* decode(uint64_t addr, uint64_t len);

    AddressMap m_map;
    unsigned m_ports = 0;
    const MapWindow* m_last = nullptr;  // window of the previous access (into m_map.windows())
    StatGroup m_stats;
    Counter& m_transactions;
    Counter& m_unmapped;
};

}  // namespace npu::sim
