// External-memory data formats of the deep-learning processor (MATLAB Deep Learning HDL Toolbox,
// "External Memory Data Format"), both directions, bit-exact. Sources:
// ../shared/seeds/dlhdl_external_memory_data_format.md, ../shared/reference/seed_systems.md §1.3;
// formulas and the spatial-axis choice: docs/dlp.md. Pure C++.
//
// Conv module (input and output alike): channels go in N-wide words of which the first C lanes
// hold channels (the rest zero); word order: x fastest, then y, then the next block of channels.
// Channel z sits in block z / C, lane z % C:
//   index(x, y, z) = (z / C) · (X·Y·N) + (y·X + x) · N + z % C,   size X·Y·⌈Z/C⌉·N
// With C = N this is "Z zero-padded to a multiple of N"; with C < N (C = 3, 5, 6, 7) "a zero plane
// after every C channels". FC module: the 1-D vector padded to a multiple of FCThreadNumber.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace npu::dlp {

// A 3-D activation as the tools hold it: channel-major (Z, H, W), like ONNX CHW.
struct ActShape {
    int64_t z = 1, h = 1, w = 1;
};

struct ConvFormat {
    unsigned c = 4;           // threads: valid lanes per word
    unsigned n = 4;           // lanes per word (values per transfer)
    bool x_is_height = true;  // x = rows (h) or columns (w)
};

// Elements of the DDR image of an activation: X·Y·⌈Z/C⌉·N.
size_t conv_ddr_elements(const ActShape& s, const ConvFormat& f);
// Where (z, h, w) goes.
size_t conv_ddr_index(const ActShape& s, const ConvFormat& f, int64_t z, int64_t h, int64_t w);

// CHW -> DDR (padding lanes 0) and DDR -> CHW (padding dropped). T = float (single) or int8_t.
template <typename T>
std::vector<T> to_ddr_conv(const T* chw, const ActShape& s, const ConvFormat& f);
template <typename T>
std::vector<T> from_ddr_conv(const T* ddr, size_t ddr_elements, const ActShape& s,
                             const ConvFormat& f);

// FC: length padded up to a multiple of `threads`.
size_t fc_ddr_elements(size_t length, unsigned threads);
template <typename T>
std::vector<T> to_ddr_fc(const T* v, size_t length, unsigned threads);
template <typename T>
std::vector<T> from_ddr_fc(const T* ddr, size_t ddr_elements, size_t length);

// Little-endian bytes of a DDR image (float: 4 bytes each, int8: 1) and back.
std::vector<uint8_t> ddr_bytes(const std::vector<float>& v);
std::vector<uint8_t> ddr_bytes(const std::vector<int8_t>& v);

}  // namespace npu::dlp
