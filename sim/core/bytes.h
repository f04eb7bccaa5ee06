// A bounds-checked little-endian reader over a byte buffer, for binary formats (kmodels, .npy).
// Every read past the end, or a count that cannot fit, throws sim::Error naming the file, the
// byte offset and what was being read. Pure C++, no SystemC.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::sim {

class ByteReader {
public:
    ByteReader(const uint8_t* data, size_t size, std::string name)
        : m_data(data)
        , m_size(size)
        , m_name(std::move(name)) {}

    size_t pos() const { return m_pos; }
    size_t size() const { return m_size; }
    size_t remaining() const { return m_size - m_pos; }
    const std::string& name() const { return m_name; }
    const uint8_t* data() const { return m_data; }

    // Moves to absolute offset `pos` (<= size), else throws naming `what`.
    void seek(size_t pos, const char* what) {
        if (pos > m_size) {
            fail(pos, what,
                 fmt::format("offset {:#x} is past the end of the {}-byte file", pos, m_size));
        }
        m_pos = pos;
    }
    void skip(size_t n, const char* what) { seek(checked_end(n, what), what); }

    uint8_t u8(const char* what) { return *take(1, what); }
    uint32_t u32(const char* what) { return boost::endian::load_little_u32(take(4, what)); }
    int32_t i32(const char* what) { return static_cast<int32_t>(u32(what)); }
    uint64_t u64(const char* what) { return boost::endian::load_little_u64(take(8, what)); }
    float f32(const char* what) {
        const uint32_t bits = u32(what);
        float f = 0;
        std::memcpy(&f, &bits, 4);
        return f;
    }
    // `n` bytes starting here; the pointer stays valid as long as the buffer does.
    const uint8_t* bytes(size_t n, const char* what) { return take(n, what); }

    // A count read from the file, refused if `count · unit_bytes` cannot fit in what remains.
    uint32_t count(const char* what, size_t unit_bytes) {
        const size_t at = m_pos;
        const uint32_t n = u32(what);
        if (unit_bytes != 0 && n > remaining() / unit_bytes) {
            fail(at, what,
                 fmt::format("{} entries of {} bytes do not fit in the {} bytes that follow", n,
                             unit_bytes, remaining()));
        }
        return n;
    }

    [[noreturn]] void fail(size_t at, const char* what, const std::string& why) const {
        throw Error(fmt::format("{}: at byte {:#x} ({}): {}", m_name, at, what, why));
    }

private:
    size_t checked_end(size_t n, const char* what) const {
        if (n > m_size - m_pos) {
            fail(m_pos, what,
                 fmt::format("needs {} bytes, the file has {} left", n, m_size - m_pos));
        }
        return m_pos + n;
    }
    const uint8_t* take(size_t n, const char* what) {
        const size_t end = checked_end(n, what);
        const uint8_t* p = m_data + m_pos;
        m_pos = end;
        return p;
    }

    const uint8_t* m_data;
    size_t m_size;
    std::string m_name;
    size_t m_pos = 0;
};

}  // namespace npu::sim
