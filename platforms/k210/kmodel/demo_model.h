// The bundled default model: a small K210 network whose weights mean something a person can
// check, written as a kmodel v3 by our own writer, with a synthetic input scene. Layers:
//   0 K210_CONV 3x3, 3 -> 5: gray blur (Gaussian 1-2-1 of luminance), Sobel x+, x-, y+, y-
//   1 K210_CONV 1x1, 5 -> 2: gray, edge magnitude |gx| + |gy| (halved) -> DMA to main memory
//   2 DEQUANTIZE -> output 0 (2 x 120 x 160 floats in 0..1)
//   3 K210_CONV 1x1, 5 -> 1 + 2x2 max pool: edge magnitude at half size -> DMA
//   4 DEQUANTIZE -> output 1 (1 x 60 x 80)
// docs/k210_platform.md explains the quantization.
#pragma once

#include <string>
#include <vector>

#include "sim/core/tensor.h"

namespace npu::k210 {

struct DemoModel {
    std::vector<uint8_t> kmodel;                          // a complete v3 file
    sim::Tensor input;                                    // u8 (1, 3, 120, 160)
    std::vector<sim::Shape> output_shapes;                // NCHW of each model output
    std::vector<std::vector<std::string>> channel_names;  // per output, per channel
};

DemoModel build_demo_model();

}  // namespace npu::k210
