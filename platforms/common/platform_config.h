// Typed platform configuration shared by every platform: the bus, the memories with their
// windows and aliases, and the simulation quantum. Read once from YAML (sim::ConfigNode) here;
// models and modules take the typed structs. Keys and defaults: docs/config.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/address_map.h"
#include "sim/core/bus_cost.h"
#include "sim/core/config.h"
#include "sim/tlm/memory.h"

namespace npu::platform {

struct MemoryRegion {
    std::string name;
    uint64_t base_addr = 0;
    std::vector<uint64_t> alias_addrs;  // further windows onto the same storage
    sim::MemoryConfig memory;
};

struct PlatformConfig {
    std::string kind;  // which registered platform kind reads it (platforms/registry.cpp)
    std::string name;
    double quantum_ns = 1000;  // temporal-decoupling quantum of every initiator
    sim::BusConfig bus;
    std::vector<MemoryRegion> memories;
};

// The address-map windows of a memory: its own (named like the memory) and one per alias
// ("<name>.alias0", ...), all onto target port `port` from target-local address 0.
std::vector<sim::MapWindow> windows_of(const MemoryRegion& m, unsigned port);

// Reads name, base_addr, size_bytes, aliases, read_latency_ns, write_latency_ns, dmi.
MemoryRegion read_memory(const sim::ConfigNode& node);
// Reads the common keys of a `platform:` map (kind, name, quantum_ns, bus, memories). The caller
// reads its own keys, then calls ConfigDocument::finish() to report every problem at once.
PlatformConfig read_platform(const sim::ConfigNode& platform);

}  // namespace npu::platform
