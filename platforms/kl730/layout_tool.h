// `npusim layout`: the KL730 NPU data layouts (models/kl730) as a tool: convert an ONNX tensor
// (.npy) to the NPU's packed bytes (.bin) and back, or explain where each element lands.
// Pure C++. docs/kl730.md.
#pragma once

#include <cstddef>
#include <string>

namespace npu::kl730 {

struct LayoutRequest {
    std::string action;  // to-npu, to-onnx, explain
    std::string layout, shape, scale = "1", radix = "0", stride_npu;
    int axis = -1;        // quantized_axis; -1 per tensor (several scales: channels, axis 1)
    std::string in, out;  // to-npu: .npy -> .bin; to-onnx: .bin -> .npy
    bool fixed = false;   // to-onnx: the fixed-point values (int32 .npy), not floats
    size_t limit = 64;    // explain: elements listed
};

// Writes `out` (to-npu, to-onnx; atomically) and returns what to print. Throws sim::Error naming
// the option or file at fault.
std::string run_layout_tool(const LayoutRequest& request);

}  // namespace npu::kl730
