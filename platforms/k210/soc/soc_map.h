// The K210's blocks around the KPU and the DMAC as firmware finds them: each block's base, size
// and first PLIC source, from `platform.devices` in configs/k210.yaml; the defaults are the
// Kendryte SDK's (lib/bsp/include/platform.h for the bases, lib/drivers/include/plic.h for the
// interrupts). The KPU, the DMAC and SYSCTL are in the map too, placed by their own keys
// (kpu.base_addr, dmac.base_addr, dmac.sysctl_base_addr). Blocks npusim does not model are in the
// map too, so that a firmware's access to one is named. Pure C++ (no SystemC): FirmwareSoc wires
// its blocks from it, `npusim info` prints it. docs/config.md "platform.devices".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/config.h"

namespace npu::k210 {

struct SocDevice {
    std::string name;         // "uart1": the key under platform.devices
    uint64_t base_addr = 0;   // the SDK's <NAME>_BASE_ADDR
    uint64_t size_bytes = 0;  // the window the router gives it
    unsigned irq = 0;         // its first PLIC source; 0: none (source 0 does not exist)
    unsigned irq_count = 0;   // sources irq .. irq + irq_count - 1 (fixed by the block)
    bool modelled = true;     // false: the chip has it, npusim does not (an access is a bus fault)
    // The least window that holds the block's registers (a smaller size_bytes is refused).
    uint64_t min_size_bytes = 1;
    // The key that places it when not platform.devices (the KPU: "kpu.base_addr"), or null.
    const char* placed_by = nullptr;

    uint64_t last() const { return base_addr + (size_bytes - 1); }
    bool contains(uint64_t addr) const {
        return addr >= base_addr && addr - base_addr < size_bytes;
    }
};

class SocMap {
public:
    // The Kendryte SDK's map (platform.h, plic.h).
    static SocMap sdk();

    // The device of that name; throws std::out_of_range for a name that is not in the map (a
    // programming error: every name the SoC wires is in sdk()).
    const SocDevice& at(std::string_view name) const;
    const std::vector<SocDevice>& devices() const { return m_devices; }
    // Moves a block placed by a key of its own (SocDevice::placed_by); read() checks it with the
    // rest.
    void place(std::string_view name, uint64_t base_addr);

    // `platform.devices` of the `platform:` map: each block's base_addr, size_bytes and irq over
    // the defaults (an unknown block or key is reported by the document's finish()); then the
    // whole map is checked (call place() first): two windows that overlap or two blocks on one
    // PLIC source are an error at the later block's key.
    void read(const sim::ConfigNode& platform);

    // For a bus fault's message: "in SPI1 (SPI1_BASE_ADDR 0x53000000), a block of the K210 npusim
    // does not model yet (...)" when `addr` is in a block not modelled, else "".
    std::string unmodelled(uint64_t addr) const;

    // One line per block in address order: base-last, size, name, PLIC sources or "-", and
    // "not modelled" where so.
    std::string table() const;

private:
    std::vector<SocDevice> m_devices;  // the modelled blocks first, in a run record's order
};

}  // namespace npu::k210
