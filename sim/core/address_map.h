// An address map: named windows [base, base+size) that decode to a target port and a target-local
// address. Overlaps, empty windows and windows that wrap past 2^64 are refused with a message
// naming both windows. Pure C++, no SystemC; sim/tlm/router.h puts it on a bus.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npu::sim {

struct MapWindow {
    std::string name;
    uint64_t base = 0;
    uint64_t size = 0;
    unsigned port = 0;         // target port index
    uint64_t target_base = 0;  // target-local address of `base` (aliases use the same target)

    uint64_t last() const { return base + (size - 1); }  // inclusive end
    bool contains(uint64_t addr) const { return addr >= base && addr - base < size; }
};

class AddressMap {
public:
    // Throws sim::Error on overlap, zero size or wrap-around.
    void add(const MapWindow& w);
    // The window containing addr, or nullptr.
    const MapWindow* decode(uint64_t addr) const;
    // The window containing all of [addr, addr+len) (len >= 1), or nullptr.
    const MapWindow* decode(uint64_t addr, uint64_t len) const;
    const std::vector<MapWindow>& windows() const { return m_windows; }  // sorted by base
    // One line per window: "  0x80000000-0x805fffff    6 MiB  sram (port 0, +0x0)".
    std::string table() const;

private:
    std::vector<MapWindow> m_windows;
};

// "6 MiB", "512 KiB", "100 B": the largest binary unit that divides the size.
std::string format_size(uint64_t bytes);
// "400 MHz", "1.5 GHz", "32768 Hz".
std::string format_frequency(uint64_t hz);

}  // namespace npu::sim
