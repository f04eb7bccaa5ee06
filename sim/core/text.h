// Small checks on text that comes from users' files and programs. Pure C++.
#pragma once

#include <cstddef>
#include <string>
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

// The length of the well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates,
// nothing past U+10FFFF) that starts at s[i], else 0.
inline size_t utf8_sequence_at(std::string_view s, size_t i) {
    const auto b = [&](size_t k) {
        return static_cast<unsigned char>(s[i + k]);
    };
    const unsigned char lead = b(0);
    size_t n = 0;
    unsigned char lo = 0x80, hi = 0xbf;  // the second byte's range
    if (lead < 0x80) {
        return 1;
    } else if (lead >= 0xc2 && lead <= 0xdf) {
        n = 2;
    } else if (lead >= 0xe0 && lead <= 0xef) {
        n = 3, lo = lead == 0xe0 ? 0xa0 : 0x80, hi = lead == 0xed ? 0x9f : 0xbf;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
        n = 4, lo = lead == 0xf0 ? 0x90 : 0x80, hi = lead == 0xf4 ? 0x8f : 0xbf;
    }
    if (n == 0 || i + n > s.size() || b(1) < lo || b(1) > hi) {
        return 0;
    }
    for (size_t k = 2; k < n; ++k) {
        if (b(k) < 0x80 || b(k) > 0xbf) {
            return 0;
        }
    }
    return n;
}

// `s` as text: each byte that starts no well-formed UTF-8 sequence replaced by U+FFFD. Names
// from users' files (ONNX tensor names) go into JSON, HTML and Python strings, which need text.
inline std::string valid_utf8(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (size_t i = 0; i < s.size();) {
        const size_t n = utf8_sequence_at(s, i);
        out.append(n ? s.substr(i, n) : std::string_view("\xef\xbf\xbd"));
        i += n ? n : 1;
    }
    return out;
}

// `s` safe to print on a terminal: each control character but the newline (an escape sequence
// from a user's file would drive the terminal) as \xHH, each byte that starts no well-formed UTF-8
// sequence as U+FFFD. Every error message goes through it before it is printed.
inline std::string printable(std::string_view s) {
    std::string out;
    for (const char c : valid_utf8(s)) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && c != '\n') || u == 0x7f) {
            static constexpr char kHex[] = "0123456789abcdef";
            out += {'\\', 'x', kHex[u >> 4], kHex[u & 15]};
        } else {
            out += c;
        }
    }
    return out;
}

}  // namespace npu::sim
