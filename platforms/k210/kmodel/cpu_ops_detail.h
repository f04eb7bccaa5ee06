// Helpers the CPU kernel files share (cpu_ops.cpp, cpu_ops_*.cpp): field readers that name what
// they read and check its range, RV64 integer arithmetic, nncase's window geometry. Defined in
// cpu_ops.cpp, which (like every kernel file) is compiled without floating-point contraction, so
// mul_add is exactly the fused or unfused form it is asked for. Not for other folders.
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "platforms/k210/kmodel/cpu_ops.h"
#include "sim/core/bytes.h"

namespace npu::k210::cpu_detail {

// ---------------------------------------------------------------- readers
Shape4 read_shape(sim::ByteReader& r, const char* what);
// A shape whose every dimension is within 0..2^24.
Shape4 read_dims(sim::ByteReader& r, const char* what);
ValueRange read_value_range(sim::ByteReader& r, const char* what);
// {before, after}, each within ±2^24.
Padding read_padding(sim::ByteReader& r, const char* what);
// A filter, stride or dilation: 1..65535.
int32_t read_positive(sim::ByteReader& r, const char* what);
// `n` floats that must fit in what follows.
std::vector<float> read_f32s(sim::ByteReader& r, uint64_t n, const char* what);
// `n` bytes (u8 weights) that must fit in what follows.
std::vector<uint8_t> read_u8s(sim::ByteReader& r, uint64_t n, const char* what);
// A matmul's a_rows, a_cols, b_cols (each within 0..2^24), named "<op> a_rows, ...".
void read_matmul_dims(sim::ByteReader& r, const char* op, int32_t& a_rows, int32_t& a_cols,
                      int32_t& b_cols);
// An enum field: 0..max, else "is v, expected 0..max (names)".
uint32_t read_enum(sim::ByteReader& r, const char* what, uint32_t max, const char* names);
// groups and out_channels of a grouped convolution over `in_channels`: groups ≥ 1 dividing
// both channel counts.
std::pair<int32_t, int32_t> read_groups(sim::ByteReader& r, const char* op, int32_t in_channels);

// ---------------------------------------------------------------- arithmetic
// a·b + c as one rounding (fmadd.s) or two.
float mul_add(float a, float b, float c, bool fused);
uint8_t clamp_u8(int32_t v);
// RV64 32-bit arithmetic: wrapping.
int32_t wrap(int64_t v);
// std::clamp(v, min, max) as nncase's apply_activation evaluates it (NaN passes through).
float activate(float v, const ValueRange& a);
// Offset of index `i` in a row-major 4-D shape.
uint64_t offset4(const Shape4& s, const Shape4& i);

// ---------------------------------------------------------------- windows
// The first and one-past-last filter taps of a window starting at `origin` that fall inside
// 0..size (nncase's filter_*_start / filter_*_end, C division truncating toward zero).
std::pair<int64_t, int64_t> taps(int64_t origin, int64_t size, int64_t filter, int64_t dilation);
int64_t windowed_output_size(int32_t size, int32_t filter, int32_t stride, int32_t dilation,
                             const Padding& p);

}  // namespace npu::k210::cpu_detail
