// Input samples for npusim compile (calibration) and npusim regress: a .npy file or a directory
// of .npy files (sorted by name). A file holds one sample of the model input's shape, or a batch
// of them along its first axis. Values are read as float.
#pragma once

#include <string>
#include <vector>

#include "sim/onnx/graph.h"

namespace npu::app {

// Throws sim::Error naming the file when a tensor fits neither one sample nor a batch, or when
// no sample is found.
std::vector<onnx::Value> read_samples(const std::string& path, const std::vector<int64_t>& shape);

// Integer labels, one per sample (a .npy of integers).
std::vector<int64_t> read_labels(const std::string& path);

}  // namespace npu::app
