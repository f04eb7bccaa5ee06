// NumPy .npy files (format versions 1.0, 2.0 and 3.0), the way ML engineers hand tensors around.
// Supported: little-endian (or byte-order-free) u1/i1/i2/i4/f2/f4 in C order. Everything else is a
// sim::Error that names the file and says what to do (e.g. float64 -> ".astype(np.float32)").
// Pure C++, no SystemC.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/tensor.h"

namespace npu::sim {

// Parses a whole .npy image; `name` is used in messages. Trailing or missing data is an error.
Tensor parse_npy(const uint8_t* data, size_t size, const std::string& name);
Tensor read_npy(const std::string& path);
// Like read_npy, but integers wider than we hold (int64, numpy's default, and uint32/uint64)
// come as int32 when every value fits; the first that does not is one sim::Error naming it.
Tensor read_npy_narrowing(const std::string& path);

// Encodes as format 1.0 (2.0 when the header would not fit 64 KiB).
std::vector<uint8_t> encode_npy(const Tensor& t);
// Writes atomically: the file is either complete or untouched.
void write_npy(const std::string& path, const Tensor& t);

}  // namespace npu::sim
