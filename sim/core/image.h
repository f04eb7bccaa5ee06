// Images in and out: JPEG (libjpeg-turbo, jpeg.h), BMP/PNG (and the other stb_image formats) to
// uint8 NCHW tensors; OpenCV's INTER_LINEAR resize; PNG out for feature maps a person can look
// at (stb_image_write). Pure C++, no SystemC.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/tensor.h"

namespace npu::sim {

// Reads an image as u8 (1, 3, H, W), RGB order; a JPEG decodes as OpenCV and PIL decode it
// (jpeg.h); throws sim::Error naming the file and the decoder's reason (more than
// kMaxImagePixels refused from the header, before decoding).
Tensor read_image(const std::string& path);
// What read_image refuses from the file's header alone (not decoding it): not an image a decoder
// takes, more than kMaxImagePixels, or fewer bytes than the header says (an uncompressed BMP, a
// TGA, a binary PNM). Throws sim::Error as read_image does.
void check_image(const std::string& path);
// The same two on bytes already read; `name` names them in the messages.
Tensor decode_image(const std::vector<uint8_t>& bytes, const std::string& name);
void check_image_bytes(const std::vector<uint8_t>& bytes, const std::string& name);
// A synthetic RGB scene, u8 (1, 3, height, width): sky gradient, a red disk, a green box, a
// checkerboard and a dark diagonal bar. Deterministic; the bundled demos' input.
Tensor test_scene(int height, int width);

// cv2.resize(img, (width, height), interpolation=cv2.INTER_LINEAR) of a u8 (1, C, H, W)
// tensor, C ≤ 4, computed by OpenCV itself on the interleaved image: byte for byte what a
// Python pipeline resizing a decoded HWC image gets.
Tensor resize_linear(const Tensor& in, int64_t height, int64_t width);

// PNG of one H x W plane (gray) or of three planes (RGB) in NCHW order.
std::vector<uint8_t> encode_png(const uint8_t* nchw, int channels, int height, int width);

// A float plane scaled to 0..255 over [lo, hi] (values outside are clamped).
std::vector<uint8_t> to_gray8(const float* plane, size_t n, float lo, float hi);

}  // namespace npu::sim
