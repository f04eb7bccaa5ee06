// FINN/QONNX data types (qonnx core/datatype.py): BINARY (UINT1, {0, 1}), BIPOLAR ({-1, +1},
// one bit, 0 <-> -1), UINTn and INTn (two's complement), n = 1..64, and how FINN packs elements
// into stream words: element 0 in the least significant bits, each in its type's width, INTn as
// its two's-complement bits, BIPOLAR -1 as 0 (finn util/data_packing.py). Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npu::finn {

class DataType {
public:
    enum class Kind { Binary, Bipolar, UInt, Int };

    // "BINARY", "BIPOLAR", "UINT4", "INT8", ... Throws sim::Error naming `text` and the forms.
    static DataType parse(const std::string& text);
    static DataType uint(unsigned bits);
    static DataType sint(unsigned bits);
    static DataType binary() { return {Kind::Binary, 1}; }
    static DataType bipolar() { return {Kind::Bipolar, 1}; }

    Kind kind() const { return m_kind; }
    unsigned bits() const { return m_bits; }
    bool is_signed() const { return m_kind == Kind::Int || m_kind == Kind::Bipolar; }
    int64_t min() const;
    int64_t max() const;
    bool allowed(int64_t v) const { return v >= min() && v <= max(); }
    std::string name() const;
    bool operator==(const DataType& o) const { return m_kind == o.m_kind && m_bits == o.m_bits; }
    bool operator!=(const DataType& o) const { return !(*this == o); }

    // The element's bits in a stream word, and back (v must be allowed()).
    uint64_t encode(int64_t v) const;
    int64_t decode(uint64_t bits) const;

private:
    DataType(Kind k, unsigned bits)
        : m_kind(k)
        , m_bits(bits) {}
    Kind m_kind;
    unsigned m_bits;
};

// A stream word of `values.size()` elements of `t`, element 0 at bit 0, as little-endian bytes
// (ceil(n·bits / 8) of them). Throws sim::Error naming the element that `t` does not allow.
std::vector<uint8_t> pack(const std::vector<int64_t>& values, const DataType& t);
// The `n` elements of a packed word.
std::vector<int64_t> unpack(const std::vector<uint8_t>& word, size_t n, const DataType& t);

}  // namespace npu::finn
