// Small checks on text that comes from users' files and programs. Pure C++.
#pragma once

#include <cstddef>
#include <string_view>

namespace npu::sim {

// The position of the first control character (below 0x20, or DEL) in `s`, else npos: text that
// reaches a terminal, a script or a file name must not hold one.
inline size_t control_char_at(std::string_view s) {
    for (size_t i = 0; i < s.size(); ++i) {
        const auto u = static_cast<unsigned char>(s[i]);
        if (u < 0x20 || u == 0x7f) {
            return i;
        }
    }
    return std::string_view::npos;
}

}  // namespace npu::sim
