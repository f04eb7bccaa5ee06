// The source image of an AIPP job in its input format, from what a user has at hand: a decoded
// RGB image (converted as stated in `conversion`), a .npy array laid out as the format is, or raw
// YUV bytes of a given size. Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/aipp/aipp_params.h"
#include "sim/core/tensor.h"

namespace npu::ascend {

struct SourceImage {
    uint32_t width = 0, height = 0;
    std::vector<uint8_t> src0, src1;  // src1: the NV12/NV21 UV plane
    std::string conversion;           // what was done to the user's file
    aipp::Source view() const {
        return {src0.data(), src0.size(), src1.empty() ? nullptr : src1.data(), src1.size()};
    }
};

// u8 RGB (1, 3, H, W) -> the format: RGB888 interleaved; XRGB8888 as X, R, G, B with X = 0 (so
// isSwapAX selects R, G, B); YUV400 as BT.601 luma; YUV420SP as NV12 with BT.601 full-range (JPEG)
// Y, and U, V of each 2x2 block's mean colour (odd sizes drop the last row/column).
SourceImage from_rgb(const sim::Tensor& rgb, aipp::InputFormat f);
// A .npy array: RGB888 (H, W, 3), XRGB8888 (H, W, 4), YUV400 (H, W), YUV420SP (H·3/2, W) with
// the Y plane on top of the UV plane. Throws sim::Error naming `name` and the expected shape.
SourceImage from_array(const sim::Tensor& a, aipp::InputFormat f, const std::string& name);
// Raw bytes of a width x height image: YUV420SP W·H·3/2 (NV12/NV21), YUV400 W·H, RGB888 W·H·3,
// XRGB8888 W·H·4.
SourceImage from_raw(const std::vector<uint8_t>& bytes, aipp::InputFormat f, uint32_t width,
                     uint32_t height, const std::string& name);

}  // namespace npu::ascend
