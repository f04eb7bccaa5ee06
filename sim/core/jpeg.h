// JPEG decoding with libjpeg-turbo, set up as OpenCV's imread/imdecode and PIL's Image.open set
// it up (ISLOW integer IDCT, fancy upsampling, RGB out): a decoded JPEG equals theirs byte for
// byte. EXIF orientation is not applied (as PIL; OpenCV's imread applies it unless told
// IMREAD_IGNORE_ORIENTATION). Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/tensor.h"

namespace npu::sim {

// The most pixels an image may have (any format): a header claiming more is refused before
// anything is allocated.
constexpr uint64_t kMaxImagePixels = uint64_t{1} << 28;

// Starts with the JPEG SOI marker and a marker (FF D8 FF).
bool is_jpeg(const std::vector<uint8_t>& bytes);
// u8 (1, 3, H, W), RGB (grayscale JPEGs replicated); throws sim::Error naming `name` and
// libjpeg's reason for a corrupt file, a CMYK one, or more than 2^28 pixels.
Tensor decode_jpeg(const std::vector<uint8_t>& bytes, const std::string& name);
// The image's size from its header alone (no decoding); throws as decode_jpeg does for a header
// it refuses.
void jpeg_size(const std::vector<uint8_t>& bytes, const std::string& name, int& width, int& height);

}  // namespace npu::sim
