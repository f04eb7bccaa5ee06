#include "sim/core/tensor.h"

#include <cmath>
#include <limits>

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

namespace npu::sim {

// Tensor bytes are little-endian; on a little-endian host they are also the native representation,
// which lets the models use typed pointers directly. Other hosts are not supported.
static_assert(boost::endian::order::native == boost::endian::order::little,
              "npusim assumes a little-endian host");

size_t dtype_size(DType t) {
    switch (t) {
    case DType::u8:
    case DType::i8: return 1;
    case DType::i16:
    case DType::f16: return 2;
    case DType::i32:
    case DType::f32: return 4;
    }
    return 0;
}

const char* dtype_name(DType t) {
    switch (t) {
    case DType::u8: return "u8";
    case DType::i8: return "i8";
    case DType::i16: return "i16";
    case DType::i32: return "i32";
    case DType::f16: return "f16";
    case DType::f32: return "f32";
    }
    return "?";
}

DType parse_dtype(std::string_view name) {
    static const std::pair<std::string_view, DType> kNames[] = {
        {"u8", DType::u8},   {"uint8", DType::u8},    {"i8", DType::i8},   {"int8", DType::i8},
        {"i16", DType::i16}, {"int16", DType::i16},   {"i32", DType::i32}, {"int32", DType::i32},
        {"f16", DType::f16}, {"float16", DType::f16}, {"f32", DType::f32}, {"float32", DType::f32}};
    for (const auto& [n, t] : kNames) {
        if (n == name) {
            return t;
        }
    }
    throw Error(
        fmt::format("unknown element type '{}': expected u8, i8, i16, i32, f16 or f32", name));
}

uint16_t float_to_half(float f) {
    uint32_t x = 0;
    std::memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t exp = (x >> 23) & 0xffu;
    uint32_t mant = x & 0x7fffffu;
    if (exp == 0xff) {  // inf or NaN (keep a quiet NaN)
        return static_cast<uint16_t>(sign | 0x7c00u | (mant != 0 ? 0x200u : 0u));
    }
    const int e = static_cast<int>(exp) - 127 + 15;
    if (e >= 31) {
        return static_cast<uint16_t>(sign | 0x7c00u);  // overflow -> inf
    }
    if (e <= 0) {  // subnormal half or zero
        if (e < -10) {
            return static_cast<uint16_t>(sign);
        }
        mant |= 0x800000u;  // implicit leading one
        const unsigned shift = static_cast<unsigned>(14 - e);
        uint32_t h = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1);
        const uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (h & 1u))) {
            ++h;
        }
        return static_cast<uint16_t>(sign | h);
    }
    uint32_t h = (static_cast<uint32_t>(e) << 10) | (mant >> 13);
    const uint32_t rem = mant & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (h & 1u))) {
        ++h;  // may carry into the exponent, up to inf: that is correct rounding
    }
    return static_cast<uint16_t>(sign | h);
}

uint16_t double_to_half(double d) {
    uint64_t x = 0;
    std::memcpy(&x, &d, 8);
    const auto sign = static_cast<uint32_t>((x >> 48) & 0x8000u);
    const auto exp = static_cast<uint32_t>((x >> 52) & 0x7ffu);
    uint64_t mant = x & ((uint64_t{1} << 52) - 1);
    if (exp == 0x7ff) {
        return static_cast<uint16_t>(sign | 0x7c00u | (mant != 0 ? 0x200u : 0u));
    }
    const int e = static_cast<int>(exp) - 1023 + 15;
    if (e >= 31) {
        return static_cast<uint16_t>(sign | 0x7c00u);
    }
    unsigned shift = 42;  // 52 − 10 mantissa bits
    uint64_t h = 0;
    if (e <= 0) {  // subnormal half or zero
        if (e < -10) {
            return static_cast<uint16_t>(sign);
        }
        mant |= uint64_t{1} << 52;
        shift = static_cast<unsigned>(43 - e);
    } else {
        h = static_cast<uint64_t>(e) << 10;
    }
    h |= mant >> shift;
    const uint64_t rem = mant & ((uint64_t{1} << shift) - 1);
    const uint64_t half = uint64_t{1} << (shift - 1);
    if (rem > half || (rem == half && (h & 1u))) {
        ++h;  // a carry into the exponent is right, up to infinity
    }
    return static_cast<uint16_t>(sign | h);
}

float half_to_float(uint16_t h) {
    const uint32_t sign = (uint32_t{h} & 0x8000u) << 16;
    const uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t x = 0;
    if (exp == 0x1f) {
        x = sign | 0x7f800000u | (mant << 13);
    } else if (exp != 0) {
        x = sign | ((exp - 15 + 127) << 23) | (mant << 13);
    } else if (mant == 0) {
        x = sign;
    } else {  // subnormal: normalise
        int e = -14;
        while ((mant & 0x400u) == 0) {
            mant <<= 1;
            --e;
        }
        mant &= 0x3ffu;
        x = sign | (static_cast<uint32_t>(e + 127) << 23) | (mant << 13);
    }
    float f = 0;
    std::memcpy(&f, &x, 4);
    return f;
}

std::string shape_str(const Shape& s) {
    std::string out = "(";
    for (size_t i = 0; i < s.size(); ++i) {
        out += (i ? ", " : "") + std::to_string(s[i]);
    }
    return out + (s.size() == 1 ? ",)" : ")");
}

int64_t shape_numel(const Shape& s) {
    constexpr int64_t kMax = int64_t{1} << 48;
    int64_t n = 1;
    for (int64_t d : s) {
        if (d < 0) {
            throw Error(fmt::format("shape {} has a negative dimension", shape_str(s)));
        }
        if (d != 0 && n > kMax / d) {
            throw Error(fmt::format("shape {} has more than 2^48 elements", shape_str(s)));
        }
        n *= d;
    }
    return n;
}

Tensor::Tensor(DType dtype, Shape shape)
    : m_dtype(dtype)
    , m_shape(std::move(shape))
    , m_numel(static_cast<size_t>(shape_numel(m_shape)))
    , m_bytes(m_numel * dtype_size(dtype), 0) {
}

void Tensor::reshape(Shape shape) {
    if (static_cast<size_t>(shape_numel(shape)) != m_numel) {
        throw Error(fmt::format("cannot reshape {} to {}: {} elements, not {}", shape_str(m_shape),
                                shape_str(shape), m_numel, shape_numel(shape)));
    }
    m_shape = std::move(shape);
}

double Tensor::get_f64(size_t flat) const {
    NPU_ASSERT(flat < m_numel, "index {} out of {} elements", flat, m_numel);
    switch (m_dtype) {
    case DType::u8: return data<uint8_t>()[flat];
    case DType::i8: return data<int8_t>()[flat];
    case DType::i16: return data<int16_t>()[flat];
    case DType::i32: return data<int32_t>()[flat];
    case DType::f16: return static_cast<double>(half_to_float(data<uint16_t>()[flat]));
    case DType::f32: return static_cast<double>(data<float>()[flat]);
    }
    return 0;
}

namespace {
template <typename T>
T saturate_round(double v) {
    if (std::isnan(v)) {
        return 0;
    }
    const double r = std::round(v);
    if (r <= static_cast<double>(std::numeric_limits<T>::min())) {
        return std::numeric_limits<T>::min();
    }
    if (r >= static_cast<double>(std::numeric_limits<T>::max())) {
        return std::numeric_limits<T>::max();
    }
    return static_cast<T>(r);
}
}  // namespace

void Tensor::set_f64(size_t flat, double v) {
    NPU_ASSERT(flat < m_numel, "index {} out of {} elements", flat, m_numel);
    switch (m_dtype) {
    case DType::u8: data<uint8_t>()[flat] = saturate_round<uint8_t>(v); break;
    case DType::i8: data<int8_t>()[flat] = saturate_round<int8_t>(v); break;
    case DType::i16: data<int16_t>()[flat] = saturate_round<int16_t>(v); break;
    case DType::i32: data<int32_t>()[flat] = saturate_round<int32_t>(v); break;
    case DType::f16: data<uint16_t>()[flat] = float_to_half(static_cast<float>(v)); break;
    case DType::f32: data<float>()[flat] = static_cast<float>(v); break;
    }
}

}  // namespace npu::sim
