// Input samples of an ONNX graph (npusim compile calibration, npusim regress): a file or a
// directory of files (sorted by name). A .npy holds one sample of the model input's shape, or a
// batch of them along its first axis (values read as float). An image (PNG, JPEG, BMP) is decoded
// to RGB, resized bilinearly to the input's H x W, reduced to luminance (0.299 R + 0.587 G + 0.114
// B) for a 1-channel input, and scaled by `image_scale` (default 1/255: pixels become 0..1).
#pragma once

#include <string>
#include <vector>

#include "sim/onnx/graph.h"

namespace npu::onnx {

// Throws sim::Error naming the file when a tensor fits neither one sample nor a batch, or when
// no sample is found.
std::vector<onnx::Value> read_samples(const std::string& path, const std::vector<int64_t>& shape,
                                      double image_scale = 1.0 / 255);

// Integer labels, one per sample (a .npy of integers).
std::vector<int64_t> read_labels(const std::string& path);

}  // namespace npu::onnx
