// The AIPP load-image function, bit-exact: crop (or single line) from the source, channel swap,
// CSC, data-type conversion, channel padding, then spatial padding on the converted tile. Order,
// formulas and the ambiguity switches: docs/aipp.md. Written for speed (row loops, per-channel
// tables); tests/models/aipp/aipp_reference.cpp is the element-by-element transcription of the
// vendor's C model it is checked against. Pure C++.
#pragma once

#include <array>
#include <cstdint>

#include "models/aipp/aipp_params.h"

namespace npu::aipp {

// The data-type conversion of channel k as a table over the 256 values the CSC (or the copy)
// produces: output element bits (uint8: v; int8: v − mean[k] wrapped or saturated; half:
// ((half)(v − mean[k]) − min[k]) · var[k], each operation rounded to half).
std::array<uint16_t, 256> dtc_table(const Params& p, const Fidelity& f, int k);

// LoadImageToLocal into `dst`: geometry(p, l).elements() elements of output_bytes(p.output)
// bytes each (half as binary16 bits). Throws sim::Error listing every invalid parameter, or when
// the source buffers are smaller than what the crop reads.
void load_image(const Params& p, const LoadParams& l, const Fidelity& f, const Source& s,
                void* dst);

// Pixels the image region has and pixels the padding adds, for the cost model.
struct Counts {
    uint64_t image_pixels = 0, pad_pixels = 0;
    uint64_t src0_bytes = 0, src1_bytes = 0;  // bytes the crop reads (row spans)
    uint64_t dst_bytes = 0;
};
Counts counts(const Params& p, const LoadParams& l);

}  // namespace npu::aipp
