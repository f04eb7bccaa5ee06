// Cost of a transfer on an AXI-style bus, as pure arithmetic (no SystemC), shared by the timed
// models (sim/tlm/axi_port.h) and by estimates. The formula (docs/counters.md, "Bus transfers"):
//   the transfer [addr, addr+bytes) is split at every `boundary_bytes` boundary (AXI: 4 KiB);
//   each piece occupies beats = ceil((piece_addr mod W + piece_bytes) / W) data beats of W bytes;
//   each piece is issued as ceil(beats / max_burst_beats) bursts;
//   cycles = Σ bursts · burst_latency_cycles + Σ beats.
#pragma once

#include <cstdint>

namespace npu::sim {

struct BusConfig {
    unsigned data_width_bytes = 8;      // W: bytes per beat (power of two)
    unsigned max_burst_beats = 16;      // longest burst (AXI4 INCR allows up to 256)
    unsigned burst_latency_cycles = 0;  // address phase + response per burst, in bus cycles
    uint64_t boundary_bytes = 4096;     // bursts never cross this boundary (power of two)
    uint64_t clock_hz = 100'000'000;    // bus clock

    // Throws sim::Error naming the field when a value is out of range (prefix: the config path).
    void validate(const char* where) const;
};

class ConfigNode;
// Reads bus keys over `defaults`: data_width_bytes, max_burst_beats, burst_latency_cycles,
// boundary_bytes, clock_hz (docs/config.md); problems are recorded in the node's document.
BusConfig read_bus_config(const ConfigNode& node, const BusConfig& defaults);

struct TransferCost {
    uint64_t beats = 0;
    uint64_t bursts = 0;
    uint64_t cycles = 0;  // bursts · burst_latency_cycles + beats
};

// Cost of moving `bytes` (>= 0) starting at `addr`. O(1): no loop over pages. `bus` must be
// valid (validate()).
TransferCost transfer_cost(const BusConfig& bus, uint64_t addr, uint64_t bytes);

}  // namespace npu::sim
