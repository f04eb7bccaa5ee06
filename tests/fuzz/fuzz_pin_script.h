// Fuzz entry for pin scripts (--pin-input, models/k210_soc/pin_script.h): any bytes give events
// in time order on real pads, or one sim::Error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "models/k210_soc/pin_script.h"
#include "sim/core/error.h"

namespace npu::fuzz {

inline void pin_script(const uint8_t* data, size_t size) {
    try {
        const auto events = soc::parse_pin_script(
            std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.txt");
        for (size_t i = 0; i < events.size(); ++i) {
            if (events[i].pad >= 48 || (i > 0 && events[i].at_ps < events[i - 1].at_ps)) {
                std::abort();  // the parser let through what it promises to refuse
            }
        }
    } catch (const sim::Error&) {
    }
}

}  // namespace npu::fuzz
