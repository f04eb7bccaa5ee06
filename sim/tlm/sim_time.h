// Simulated time in picoseconds, both ways: the unit of every report, trace and cost formula.
// The kernel counts time in its resolution (SystemC's default, 1 ps; nothing here changes it).
#pragma once

#include <cstdint>

#include <systemc>

namespace npu::sim {

inline uint64_t to_ps(const sc_core::sc_time& t) {
    return t.value() / sc_core::sc_time(1, sc_core::SC_PS).value();
}

// `ps` (not negative) rounded to the nearest picosecond (a period kept in fractions of a ps times
// a count).
inline sc_core::sc_time from_ps(double ps) {
    return sc_core::sc_time::from_value(static_cast<uint64_t>(ps + 0.5) *
                                        sc_core::sc_time(1, sc_core::SC_PS).value());
}

}  // namespace npu::sim
