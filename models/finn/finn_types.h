// FINN/QONNX data types (qonnx core/datatype.py): BINARY (UINT1, {0, 1}), BIPOLAR ({-1, +1},
// one bit, 0 <-> -1), UINTn and INTn (two's complement), n = 1..64, FIXED<w,i> (signed, w bits
// of which i integer bits: a value is raw · 2^−(w−i); npusim carries the raw integer, the
// INTw bits FINN streams), and how FINN packs elements
// into stream words: element 0 in the least significant bits, each in its type's width, INTn as
// its two's-complement bits, BIPOLAR -1 as 0 (finn util/data_packing.py). Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npu::finn {

class DataType {
public:
    enum class Kind { Binary, Bipolar, UInt, Int, Fixed };

    // "BINARY", "BIPOLAR", "UINT4", "INT8", "FIXED<8,4>", ... Throws sim::Error naming `text`
    // and the forms.
    static DataType parse(const std::string& text);
    static DataType uint(unsigned bits);
    static DataType sint(unsigned bits);
    static DataType binary() { return {Kind::Binary, 1}; }
    static DataType bipolar() { return {Kind::Bipolar, 1}; }
    // FIXED<w,i>: 1 <= i <= w <= 64.
    static DataType fixed(unsigned w, unsigned i);

    Kind kind() const { return m_kind; }
    unsigned bits() const { return m_bits; }
    bool is_signed() const { return m_kind != Kind::Binary && m_kind != Kind::UInt; }
    // Fraction bits: a raw value v means v · 2^−frac_bits() (w − i for FIXED<w,i>, else 0).
    unsigned frac_bits() const { return m_frac; }
    int64_t min() const;
    int64_t max() const;
    bool allowed(int64_t v) const { return v >= min() && v <= max(); }
    std::string name() const;
    bool operator==(const DataType& o) const {
        return m_kind == o.m_kind && m_bits == o.m_bits && m_frac == o.m_frac;
    }
    bool operator!=(const DataType& o) const { return !(*this == o); }

    // The element's bits in a stream word, and back (v must be allowed()).
    uint64_t encode(int64_t v) const;
    int64_t decode(uint64_t bits) const;

private:
    DataType(Kind k, unsigned bits, unsigned frac = 0)
        : m_kind(k)
        , m_bits(bits)
        , m_frac(frac) {}
    Kind m_kind;
    unsigned m_bits;
    unsigned m_frac;
};

// A stream word of `values.size()` elements of `t`, element 0 at bit 0, as little-endian bytes
// (ceil(n·bits / 8) of them). Throws sim::Error naming the element that `t` does not allow.
std::vector<uint8_t> pack(const std::vector<int64_t>& values, const DataType& t);
// The `n` elements of a packed word.
std::vector<int64_t> unpack(const std::vector<uint8_t>& word, size_t n, const DataType& t);

}  // namespace npu::finn
