#include "models/finn/finn_types.h"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::finn {

namespace {
[[noreturn]] void bad_type(const std::string& text, const char* why) {
    throw sim::Error(
        fmt::format("data type '{}': {}; expected BINARY, BIPOLAR, UINTn or INTn "
                    "(n = 1..64), or FIXED<w,i> (1 <= i <= w <= 64)",
                    text, why));
}
}  // namespace

DataType DataType::uint(unsigned bits) {
    if (bits < 1 || bits > 64) {
        bad_type(fmt::format("UINT{}", bits), "width out of range");
    }
    return {Kind::UInt, bits};
}

DataType DataType::sint(unsigned bits) {
    if (bits < 1 || bits > 64) {
        bad_type(fmt::format("INT{}", bits), "width out of range");
    }
    return {Kind::Int, bits};
}

DataType DataType::fixed(unsigned w, unsigned i) {
    if (w < 1 || w > 64 || i < 1 || i > w) {
        bad_type(fmt::format("FIXED<{},{}>", w, i), "width out of range");
    }
    return {Kind::Fixed, w, w - i};
}

namespace {
// A decimal number of 1..2 digits without a leading zero, or -1.
int small_number(const std::string& d) {
    if (d.empty() || d.size() > 2 || d[0] == '0' ||
        !std::all_of(d.begin(), d.end(), [](char c) { return std::isdigit(c) != 0; })) {
        return -1;
    }
    return std::stoi(d);
}
}  // namespace

DataType DataType::parse(const std::string& text) {
    if (text.rfind("FIXED<", 0) == 0 && text.size() > 7 && text.back() == '>') {
        const std::string inner = text.substr(6, text.size() - 7);
        const size_t comma = inner.find(',');
        const int w = comma == std::string::npos ? -1 : small_number(inner.substr(0, comma));
        const int i = comma == std::string::npos ? -1 : small_number(inner.substr(comma + 1));
        if (w < 1 || i < 1 || i > w || w > 64) {
            bad_type(text, "not FIXED<w,i> with 1 <= i <= w <= 64");
        }
        return fixed(static_cast<unsigned>(w), static_cast<unsigned>(i));
    }
    if (text == "BINARY") {
        return binary();
    }
    if (text == "BIPOLAR") {
        return bipolar();
    }
    const bool is_uint = text.rfind("UINT", 0) == 0, is_int = !is_uint && text.rfind("INT", 0) == 0;
    if (!is_uint && !is_int) {
        bad_type(text, "not a type name");
    }
    const int n = small_number(text.substr(is_uint ? 4 : 3));
    if (n < 0) {
        bad_type(text, "not a type name");
    }
    const auto bits = static_cast<unsigned>(n);
    if (bits < 1 || bits > 64) {
        bad_type(text, "width out of range");
    }
    return is_uint ? uint(bits) : sint(bits);
}

int64_t DataType::min() const {
    switch (m_kind) {
    case Kind::Binary: return 0;
    case Kind::Bipolar: return -1;
    case Kind::UInt: return 0;
    case Kind::Int:
    case Kind::Fixed: return m_bits == 64 ? INT64_MIN : -(int64_t{1} << (m_bits - 1));
    }
    return 0;
}

int64_t DataType::max() const {
    switch (m_kind) {
    case Kind::Binary:
    case Kind::Bipolar: return 1;
    case Kind::UInt: return m_bits >= 63 ? INT64_MAX : (int64_t{1} << m_bits) - 1;
    case Kind::Int:
    case Kind::Fixed: return m_bits == 64 ? INT64_MAX : (int64_t{1} << (m_bits - 1)) - 1;
    }
    return 0;
}

std::string DataType::name() const {
    switch (m_kind) {
    case Kind::Binary: return "BINARY";
    case Kind::Bipolar: return "BIPOLAR";
    case Kind::UInt: return fmt::format("UINT{}", m_bits);
    case Kind::Int: return fmt::format("INT{}", m_bits);
    case Kind::Fixed: return fmt::format("FIXED<{},{}>", m_bits, m_bits - m_frac);
    }
    return "";
}

uint64_t DataType::encode(int64_t v) const {
    if (m_kind == Kind::Bipolar) {
        return v > 0 ? 1 : 0;
    }
    const uint64_t mask = m_bits == 64 ? ~uint64_t{0} : (uint64_t{1} << m_bits) - 1;
    return static_cast<uint64_t>(v) & mask;
}

int64_t DataType::decode(uint64_t bits) const {
    const uint64_t mask = m_bits == 64 ? ~uint64_t{0} : (uint64_t{1} << m_bits) - 1;
    bits &= mask;
    if (m_kind == Kind::Bipolar) {
        return bits != 0 ? 1 : -1;
    }
    if ((m_kind == Kind::Int || m_kind == Kind::Fixed) && m_bits < 64 &&
        ((bits >> (m_bits - 1)) & 1) != 0) {
        return static_cast<int64_t>(bits | ~mask);  // sign-extend
    }
    return static_cast<int64_t>(bits);
}

std::vector<uint8_t> pack(const std::vector<int64_t>& values, const DataType& t) {
    std::vector<uint8_t> word((values.size() * t.bits() + 7) / 8, 0);
    for (size_t i = 0; i < values.size(); ++i) {
        if (!t.allowed(values[i]) || (t.kind() == DataType::Kind::Bipolar && values[i] == 0)) {
            throw sim::Error(fmt::format("element {} is {}: not a {} value ({}..{})", i, values[i],
                                         t.name(), t.min(), t.max()));
        }
        const uint64_t bits = t.encode(values[i]);
        for (unsigned b = 0; b < t.bits(); ++b) {
            const size_t at = i * t.bits() + b;
            word[at / 8] = static_cast<uint8_t>(word[at / 8] | (((bits >> b) & 1) << (at % 8)));
        }
    }
    return word;
}

std::vector<int64_t> unpack(const std::vector<uint8_t>& word, size_t n, const DataType& t) {
    std::vector<int64_t> out(n);
    for (size_t i = 0; i < n; ++i) {
        uint64_t bits = 0;
        for (unsigned b = 0; b < t.bits(); ++b) {
            const size_t at = i * t.bits() + b;
            if (at / 8 < word.size()) {
                bits |= ((uint64_t{word[at / 8]} >> (at % 8)) & 1) << b;
            }
        }
        out[i] = t.decode(bits);
    }
    return out;
}

}  // namespace npu::finn
