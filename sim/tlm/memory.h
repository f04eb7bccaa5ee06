// A plain memory as a TLM-2.0 target: b_transport, DMI and transport_dbg. Storage is an anonymous
// mapping, so a large memory costs address space, not RAM, until it is written (and reads zero).
// Out-of-range or unsupported accesses get a TLM error response, never a crash.
#pragma once

#include <cstdint>
#include <string>

#include <systemc>
#include <tlm>
#include <tlm_utils/simple_target_socket.h>

#include "sim/core/stats.h"

namespace npu::sim {

struct MemoryConfig {
    uint64_t size_bytes = 0;
    double read_latency_ns = 0;  // per transaction (and per DMI access, as the DMI latency)
    double write_latency_ns = 0;
    bool dmi = true;  // grant DMI pointers
};

class Memory : public sc_core::sc_module {
public:
    tlm_utils::simple_target_socket<Memory> socket;

    // Throws Error when size_bytes is 0 or cannot be mapped.
    Memory(sc_core::sc_module_name name, const MemoryConfig& cfg);
    ~Memory() override;
    Memory(const Memory&) = delete;
    Memory& operator=(const Memory&) = delete;

    uint64_t size_bytes() const { return m_cfg.size_bytes; }
    // Backing store, for loaders that place images before the simulation starts.
    uint8_t* data() { return m_data; }
    const uint8_t* data() const { return m_data; }
    StatGroup& stats() { return m_stats; }

private:
    void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay);
    bool get_direct_mem_ptr(tlm::tlm_generic_payload& tx, tlm::tlm_dmi& dmi);
    unsigned transport_dbg(tlm::tlm_generic_payload& tx);
    bool in_range(uint64_t addr, uint64_t len) const {
        return len <= m_cfg.size_bytes && addr <= m_cfg.size_bytes - len;
    }

    MemoryConfig m_cfg;
    uint8_t* m_data = nullptr;
    sc_core::sc_time m_read_latency;
    sc_core::sc_time m_write_latency;
    StatGroup m_stats;
    Counter& m_reads;
    Counter& m_writes;
    Counter& m_bytes_read;
    Counter& m_bytes_written;
    Counter& m_errors;
};

}  // namespace npu::sim
