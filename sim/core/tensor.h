// A small dense tensor: shape, element type and little-endian C-order bytes. This is what moves
// between files (.npy), the loaders and the models. Pure C++, no SystemC.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/error.h"

namespace npu::sim {

enum class DType { u8, i8, i16, i32, f16, f32 };

size_t dtype_size(DType t);
const char* dtype_name(DType t);  // "u8", "f16", ...
// Parses "u8", "uint8", "i16", "int16", "f32", "float32", "f16", "float16"; throws sim::Error.
DType parse_dtype(std::string_view name);

// IEEE 754 binary16 <-> binary32, round to nearest even (NaN stays NaN, overflow -> inf).
uint16_t float_to_half(float f);
float half_to_float(uint16_t h);
// binary64 -> binary16 with one rounding (to nearest even): the correctly rounded result of a
// half operation whose exact value a double holds (a sum or product of two halves).
uint16_t double_to_half(double d);

using Shape = std::vector<int64_t>;
std::string shape_str(const Shape& s);  // "(1, 3, 224, 224)"
// Number of elements; throws sim::Error on a negative dimension or overflow past 2^48 elements.
int64_t shape_numel(const Shape& s);

template <typename T>
constexpr DType dtype_of();
template <>
constexpr DType dtype_of<uint8_t>() {
    return DType::u8;
}
template <>
constexpr DType dtype_of<int8_t>() {
    return DType::i8;
}
template <>
constexpr DType dtype_of<int16_t>() {
    return DType::i16;
}
template <>
constexpr DType dtype_of<int32_t>() {
    return DType::i32;
}
template <>
constexpr DType dtype_of<float>() {
    return DType::f32;
}
// f16 elements are accessed as uint16_t bit patterns.
template <>
constexpr DType dtype_of<uint16_t>() {
    return DType::f16;
}

class Tensor {
public:
    Tensor() = default;
    // A zero-filled tensor.
    Tensor(DType dtype, Shape shape);

    DType dtype() const { return m_dtype; }
    const Shape& shape() const { return m_shape; }
    int64_t dim(size_t i) const { return m_shape.at(i); }
    size_t rank() const { return m_shape.size(); }
    size_t numel() const { return m_numel; }
    size_t size_bytes() const { return m_bytes.size(); }

    uint8_t* bytes() { return m_bytes.data(); }
    const uint8_t* bytes() const { return m_bytes.data(); }

    // Typed element pointer; T must match dtype() (see dtype_of), else it is our bug.
    template <typename T>
    T* data() {
        NPU_ASSERT(dtype_of<T>() == m_dtype, "tensor of {} accessed as {}", dtype_name(m_dtype),
                   dtype_name(dtype_of<T>()));
        return reinterpret_cast<T*>(m_bytes.data());
    }
    template <typename T>
    const T* data() const {
        return const_cast<Tensor*>(this)->data<T>();
    }

    // Same elements, another shape; throws sim::Error when the element counts differ.
    void reshape(Shape shape);

    // Element value as double (f16 decoded), by flat C-order index.
    double get_f64(size_t flat) const;
    void set_f64(size_t flat, double v);  // integers: rounded half away from zero, saturated

    // Same dtype, shape and bytes.
    bool operator==(const Tensor& o) const {
        return m_dtype == o.m_dtype && m_shape == o.m_shape && m_bytes == o.m_bytes;
    }
    bool operator!=(const Tensor& o) const { return !(*this == o); }

private:
    DType m_dtype = DType::u8;
    Shape m_shape;
    size_t m_numel = 0;
    std::vector<uint8_t> m_bytes;
};

}  // namespace npu::sim
