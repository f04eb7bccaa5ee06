#include "sim/core/address_map.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::sim {

void AddressMap::add(const MapWindow& w) {
    if (w.size == 0) {
        throw Error(fmt::format("address map: window '{}' at {:#x} has size 0", w.name, w.base));
    }
    if (w.base + (w.size - 1) < w.base) {
        throw Error(
            fmt::format("address map: window '{}' at {:#x} with size {:#x} wraps past the end "
                        "of the 64-bit address space",
                        w.name, w.base, w.size));
    }
    for (const MapWindow& o : m_windows) {
        if (w.base <= o.last() && o.base <= w.last()) {
            throw Error(
                fmt::format("address map: window '{}' [{:#x}, {:#x}] overlaps '{}' [{:#x}, {:#x}]",
                            w.name, w.base, w.last(), o.name, o.base, o.last()));
        }
    }
    auto it = std::lower_bound(m_windows.begin(), m_windows.end(), w.base,
                               [](const MapWindow& a, uint64_t b) { return a.base < b; });
    m_windows.insert(it, w);
}

const MapWindow* AddressMap::decode(uint64_t addr) const {
    auto it = std::upper_bound(m_windows.begin(), m_windows.end(), addr,
                               [](uint64_t a, const MapWindow& w) { return a < w.base; });
    if (it == m_windows.begin()) {
        return nullptr;
    }
    const MapWindow& w = *(it - 1);
    return w.contains(addr) ? &w : nullptr;
}

const MapWindow* AddressMap::decode(uint64_t addr, uint64_t len) const {
    const MapWindow* w = decode(addr);
    if (w == nullptr || len == 0 || len - 1 > w->last() - addr) {
        return nullptr;
    }
    return w;
}

std::string format_size(uint64_t bytes) {
    static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    unsigned u = 0;
    while (u < 4 && bytes != 0 && bytes % 1024 == 0) {
        bytes /= 1024;
        ++u;
    }
    return fmt::format("{} {}", bytes, kUnits[u]);
}

std::string format_frequency(uint64_t hz) {
    if (hz >= 1'000'000'000 && hz % 1'000'000 == 0) {
        return fmt::format("{:g} GHz", static_cast<double>(hz) / 1e9);
    }
    if (hz >= 1'000'000 && hz % 1'000 == 0) {
        return fmt::format("{:g} MHz", static_cast<double>(hz) / 1e6);
    }
    if (hz >= 1'000 && hz % 1'000 == 0) {
        return fmt::format("{:g} kHz", static_cast<double>(hz) / 1e3);
    }
    return fmt::format("{} Hz", hz);
}

std::string AddressMap::table() const {
    std::string out;
    for (const MapWindow& w : m_windows) {
        out += fmt::format("  {:#010x}-{:#010x}  {:>8}  {:<18} port {} at {:#x}\n", w.base,
                           w.last(), format_size(w.size), w.name, w.port, w.target_base);
    }
    return out;
}

}  // namespace npu::sim
