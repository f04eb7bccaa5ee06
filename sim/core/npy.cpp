#include "sim/core/npy.h"

#include <cctype>

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include "sim/core/files.h"

namespace npu::sim {

namespace {

constexpr uint8_t kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};

// A cursor over the header dict text: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }
class DictParser {
public:
    DictParser(std::string_view text, const std::string& name)
        : m_s(text)
        , m_name(name) {}

    void parse(std::string& descr, bool& fortran, Shape& shape) {
        bool have_descr = false, have_order = false, have_shape = false;
        expect('{');
        while (!peek('}')) {
            const std::string key = string_literal();
            expect(':');
            if (key == "descr") {
                descr = string_literal();
                have_descr = true;
            } else if (key == "fortran_order") {
                fortran = boolean();
                have_order = true;
            } else if (key == "shape") {
                shape = tuple();
                have_shape = true;
            } else {
                fail("unexpected key '" + key + "'");
            }
            if (!peek('}')) {
                expect(',');
            }
        }
        expect('}');
        if (!have_descr || !have_order || !have_shape) {
            fail("header must have the keys 'descr', 'fortran_order' and 'shape'");
        }
    }

private:
    [[noreturn]] void fail(const std::string& what) const {
        throw Error(
            fmt::format("{}: invalid .npy header at character {}: {}", m_name, m_pos, what));
    }
    void skip_ws() {
        while (m_pos < m_s.size() && std::isspace(static_cast<unsigned char>(m_s[m_pos]))) {
            ++m_pos;
        }
    }
    bool peek(char c) {
        skip_ws();
        return m_pos < m_s.size() && m_s[m_pos] == c;
    }
    void expect(char c) {
        if (!peek(c)) {
            fail(fmt::format("expected '{}'", c));
        }
        ++m_pos;
    }
    std::string string_literal() {
        skip_ws();
        if (m_pos >= m_s.size() || (m_s[m_pos] != '\'' && m_s[m_pos] != '"')) {
            fail("expected a quoted string");
        }
        const char q = m_s[m_pos++];
        const size_t end = m_s.find(q, m_pos);
        if (end == std::string_view::npos) {
            fail("unterminated string");
        }
        std::string out(m_s.substr(m_pos, end - m_pos));
        m_pos = end + 1;
        return out;
    }
    bool boolean() {
        skip_ws();
        if (m_s.substr(m_pos, 4) == "True") {
            m_pos += 4;
            return true;
        }
        if (m_s.substr(m_pos, 5) == "False") {
            m_pos += 5;
            return false;
        }
        fail("expected True or False");
    }
    Shape tuple() {
        Shape shape;
        expect('(');
        while (!peek(')')) {
            skip_ws();
            int64_t v = 0;
            size_t digits = 0;
            while (m_pos < m_s.size() && std::isdigit(static_cast<unsigned char>(m_s[m_pos]))) {
                if (v > (int64_t{1} << 48)) {
                    fail("dimension too large");
                }
                v = v * 10 + (m_s[m_pos++] - '0');
                ++digits;
            }
            if (digits == 0) {
                fail("expected a dimension");
            }
            // Python 2 era files may write long integers as "3L".
            if (m_pos < m_s.size() && m_s[m_pos] == 'L') {
                ++m_pos;
            }
            shape.push_back(v);
            if (!peek(')')) {
                expect(',');
            }
        }
        expect(')');
        return shape;
    }

    std::string_view m_s;
    const std::string& m_name;
    size_t m_pos = 0;
};

DType dtype_from_descr(const std::string& d, const std::string& name) {
    static const std::pair<const char*, DType> kDescr[] = {
        {"|u1", DType::u8},  {"<u1", DType::u8},  {"|i1", DType::i8},  {"<i1", DType::i8},
        {"<i2", DType::i16}, {"<i4", DType::i32}, {"<f2", DType::f16}, {"<f4", DType::f32}};
    for (const auto& [s, t] : kDescr) {
        if (d == s) {
            return t;
        }
    }
    std::string hint;
    if (!d.empty() && d[0] == '>') {
        hint = "; big-endian data: convert with .astype(a.dtype.newbyteorder('<'))";
    } else if (d == "<f8") {
        hint = "; convert with .astype(np.float32)";
    } else if (d == "<i8" || d == "<u4" || d == "<u8") {
        hint = "; convert with .astype(np.int32)";
    } else if (d == "|b1") {
        hint = "; convert with .astype(np.uint8)";
    }
    throw Error(
        fmt::format("{}: unsupported .npy dtype '{}': expected uint8, int8, int16, int32, "
                    "float16 or float32{}",
                    name, d, hint));
}

const char* descr_of(DType t) {
    switch (t) {
    case DType::u8: return "|u1";
    case DType::i8: return "|i1";
    case DType::i16: return "<i2";
    case DType::i32: return "<i4";
    case DType::f16: return "<f2";
    case DType::f32: return "<f4";
    }
    return "?";
}

}  // namespace

namespace {

// Element `i` of `width` bytes (4 or 8), signed or not, from little-endian data.
int64_t wide_element(const uint8_t* p, size_t width, bool is_signed, size_t i, bool& fits) {
    uint64_t u = 0;
    for (size_t b = 0; b < width; ++b) {
        u |= uint64_t{p[i * width + b]} << (8 * b);
    }
    const bool negative = is_signed && width == 8 && (u >> 63) != 0;
    const int64_t v = negative ? -static_cast<int64_t>(~u) - 1 : static_cast<int64_t>(u);
    fits = negative ? v >= INT32_MIN : u <= static_cast<uint64_t>(INT32_MAX);
    return v;
}

// The wide integers at `p` into the int32 tensor `t`, each range-checked.
void narrow_into(Tensor& t, const uint8_t* p, size_t width, bool is_signed,
                 const std::string& name) {
    for (size_t i = 0; i < t.numel(); ++i) {
        bool fits = true;
        const int64_t v = wide_element(p, width, is_signed, i, fits);
        if (!fits) {
            throw Error(
                fmt::format("{}: element {} is {}: outside int32, the widest integer the "
                            "input is read as",
                            name, i, v));
        }
        t.data<int32_t>()[i] = static_cast<int32_t>(v);
    }
}

Tensor parse(const uint8_t* data, size_t size, const std::string& name, bool narrow) {
    if (size < 10 || std::memcmp(data, kMagic, 6) != 0) {
        throw Error(fmt::format("{}: not a .npy file (expected the magic bytes \\x93NUMPY)", name));
    }
    const uint8_t major = data[6];
    size_t header_len = 0;
    size_t header_start = 0;
    if (major == 1) {
        header_len = boost::endian::load_little_u16(data + 8);
        header_start = 10;
    } else if (major == 2 || major == 3) {
        if (size < 12) {
            throw Error(fmt::format("{}: truncated .npy header", name));
        }
        header_len = boost::endian::load_little_u32(data + 8);
        header_start = 12;
    } else {
        throw Error(
            fmt::format("{}: unsupported .npy format version {}.{}: expected 1.0, 2.0 or 3.0", name,
                        major, data[7]));
    }
    if (header_len > size - header_start) {
        throw Error(fmt::format("{}: truncated .npy header: it declares {} bytes, the file has {}",
                                name, header_len, size - header_start));
    }
    const std::string_view header(reinterpret_cast<const char*>(data + header_start), header_len);
    std::string descr;
    bool fortran = false;
    Shape shape;
    DictParser(header, name).parse(descr, fortran, shape);
    const bool wide = narrow && (descr == "<i8" || descr == "<u4" || descr == "<u8");
    const DType dtype = wide ? DType::i32 : dtype_from_descr(descr, name);
    const size_t width = wide ? (descr == "<u4" ? 4 : 8) : dtype_size(dtype);
    if (fortran) {
        throw Error(
            fmt::format("{}: Fortran-order .npy arrays are not supported: save "
                        "np.ascontiguousarray(a)",
                        name));
    }
    // Check the declared size against the data before allocating anything: a tiny file must not
    // make us allocate what its header claims (found by fuzz_npy).
    const size_t payload = size - header_start - header_len;
    const uint64_t needed = static_cast<uint64_t>(shape_numel(shape)) * width;
    if (payload != needed) {
        throw Error(fmt::format("{}: .npy data is {} bytes, but shape {} of {} needs {} bytes",
                                name, payload, shape_str(shape), wide ? descr : dtype_name(dtype),
                                needed));
    }
    Tensor t(dtype, shape);
    if (wide) {
        narrow_into(t, data + header_start + header_len, width, descr == "<i8", name);
    }
    if (payload > 0 && !wide) {
        std::memcpy(t.bytes(), data + header_start + header_len, payload);
    }
    return t;
}

}  // namespace

Tensor parse_npy(const uint8_t* data, size_t size, const std::string& name) {
    return parse(data, size, name, false);
}

Tensor read_npy_narrowing(const std::string& path) {
    const std::vector<uint8_t> bytes = read_file(path);
    return parse(bytes.data(), bytes.size(), path, true);
}

Tensor read_npy(const std::string& path) {
    const std::vector<uint8_t> bytes = read_file(path);
    return parse_npy(bytes.data(), bytes.size(), path);
}

std::vector<uint8_t> encode_npy(const Tensor& t) {
    std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                   descr_of(t.dtype()), shape_str(t.shape()));
    // Pad with spaces and a newline so that magic + length + header is a multiple of 64.
    const bool v2 = dict.size() + 1 + 10 > 65535;
    const size_t prefix = v2 ? 12 : 10;
    const size_t total = (prefix + dict.size() + 1 + 63) / 64 * 64;
    dict.append(total - prefix - dict.size() - 1, ' ');
    dict.push_back('\n');

    std::vector<uint8_t> out(prefix + dict.size() + t.size_bytes());
    std::memcpy(out.data(), kMagic, 6);
    out[6] = v2 ? 2 : 1;
    out[7] = 0;
    if (v2) {
        boost::endian::store_little_u32(out.data() + 8, static_cast<uint32_t>(dict.size()));
    } else {
        boost::endian::store_little_u16(out.data() + 8, static_cast<uint16_t>(dict.size()));
    }
    std::memcpy(out.data() + prefix, dict.data(), dict.size());
    if (t.size_bytes() > 0) {
        std::memcpy(out.data() + prefix + dict.size(), t.bytes(), t.size_bytes());
    }
    return out;
}

void write_npy(const std::string& path, const Tensor& t) {
    write_file_atomic(path, encode_npy(t));
}

}  // namespace npu::sim
