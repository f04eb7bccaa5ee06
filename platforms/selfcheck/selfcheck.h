// The self-check platform: the memories of a platform config behind a router, and one initiator
// that writes a pseudo-random pattern through every memory window, reads it back through every
// alias, and checks the bytes and the simulated time of each transfer against the bus formula.
// It proves the TLM plumbing (router decode and aliases, b_transport bursts, DMI, AxiPort timing)
// on a fresh machine; the K210 platform replaces it as the default `npusim run`.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include <systemc>

#include "platforms/common/platform_config.h"
#include "sim/core/stats.h"
#include "sim/core/trace.h"
#include "sim/tlm/axi_port.h"
#include "sim/tlm/memory.h"
#include "sim/tlm/quantum.h"
#include "sim/tlm/router.h"

namespace npu::platform {

struct RoundTrip {
    std::string memory;
    std::string write_window;  // window the pattern was written through
    std::string read_window;   // window it was read back through (an alias where there is one)
    uint64_t write_addr = 0;
    uint64_t read_addr = 0;
    uint64_t bytes = 0;
    bool write_dmi = false;  // whether the port had a DMI pointer for the transfer
    bool read_dmi = false;
    sc_core::sc_time write_time;  // simulated duration of the write
    sc_core::sc_time read_time;
    sc_core::sc_time expected_write_time;  // from sim::transfer_cost + memory latency per burst
    sc_core::sc_time expected_read_time;
    bool data_ok = false;

    bool ok() const {
        return data_ok && write_time == expected_write_time && read_time == expected_read_time;
    }
};

class SelfCheckPlatform : public sc_core::sc_module {
public:
    // Throws sim::Error when the memories overlap in the address map.
    SelfCheckPlatform(sc_core::sc_module_name name, const PlatformConfig& cfg,
                      sim::TraceWriter& trace);

    const sim::AddressMap& address_map() const { return m_router.address_map(); }
    const std::vector<RoundTrip>& results() const { return m_results; }
    sim::StatGroup& stats() { return m_stats; }

private:
    void run();
    RoundTrip round_trip(size_t mem, uint64_t write_addr, uint64_t read_addr,
                         const std::string& read_window, uint64_t bytes);
    sc_core::sc_time expected(const sim::MemoryConfig& m, bool write, uint64_t addr,
                              uint64_t bytes) const;

    PlatformConfig m_cfg;
    sim::TraceWriter& m_trace;
    int m_track;
    sim::Router m_router;
    std::vector<std::unique_ptr<sim::Memory>> m_memories;
    sim::AxiPort m_cpu;
    sim::QuantumKeeper m_qk;
    std::vector<RoundTrip> m_results;
    sim::StatGroup m_stats;
};

}  // namespace npu::platform
