// The vendor's C reference model of LoadImageToLocal (asc-devkit dav_3510
// kernel_operator_mm_impl.h, LoadImageToLocalCalLoop0/Loop1, as paraphrased in
// ../shared/reference/seed_systems.md §2.3), transcribed element by element: pass 1 over every
// output element n (channel padding, image region with swap / CSC / DTC), pass 2 over the padded
// border. No tables, no row loops: the independent oracle for models/aipp/aipp_func.cpp. The one
// deliberate difference from the C model: the mean/min/var of output channel k are those of k
// (the model indexes them by the swapped source channel, past its 3-entry arrays for XRGB).
#pragma once

#include <cstdint>
#include <vector>

#include "models/aipp/aipp_params.h"

namespace npu::test {

// Output elements as bit patterns (uint8/int8 in the low byte, half bits).
std::vector<uint16_t> aipp_reference(const aipp::Params& p, const aipp::LoadParams& l,
                                     const aipp::Fidelity& f, const std::vector<uint8_t>& src0,
                                     const std::vector<uint8_t>& src1);

}  // namespace npu::test
