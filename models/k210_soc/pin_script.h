// Levels applied to the K210's pads from outside the chip over time (a key pressed, a line
// pulled): a text file of "<time> io<N> <level>" lines, the time a duration with its unit (or 0),
// the level 0, 1 or z (released: the pad's pull decides). Blank lines and '#' comments are
// skipped; times may not go back. Plain C++; npusim run --pin-input FILE. docs/firmware.md, "Pins".
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace npu::soc {

struct PinEvent {
    uint64_t at_ps = 0;
    unsigned pad = 0;           // io0..io47
    std::optional<bool> level;  // none: released
    unsigned line = 0;          // in the file, for messages
};

// Throws sim::Error naming `source`, the line and what was expected.
std::vector<PinEvent> parse_pin_script(std::string_view text, const std::string& source);

}  // namespace npu::soc
