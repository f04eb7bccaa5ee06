// Temporal decoupling for initiator threads: tlm_utils::tlm_quantumkeeper with a reference to its
// local time, so that calls such as AxiPort::read(..., qk.local()) advance it in place.
#pragma once

#include <systemc>
#include <tlm_utils/tlm_quantumkeeper.h>

namespace npu::sim {

class QuantumKeeper : public tlm_utils::tlm_quantumkeeper {
public:
    QuantumKeeper() { reset(); }
    // Offset of this thread's local time ahead of sc_time_stamp().
    sc_core::sc_time& local() { return m_local_time; }
    // Time left before the end of the current quantum (zero when a sync is due).
    sc_core::sc_time remaining() const {
        const sc_core::sc_time t = get_current_time();
        return m_next_sync_point > t ? m_next_sync_point - t : sc_core::SC_ZERO_TIME;
    }
    // Yields to the kernel only when the local time has reached the end of the quantum.
    void sync_if_needed() {
        if (need_sync()) {
            sync();
        }
    }
};

// Sets the global quantum (all initiators' QuantumKeepers use it).
inline void set_global_quantum(const sc_core::sc_time& q) {
    tlm_utils::tlm_quantumkeeper::set_global_quantum(q);
}

}  // namespace npu::sim
