// The KL730 conversion as the vendor's documentation writes it (Block A of
// ../shared/seeds/kl730_onnx_npu_data_conversion.md, ExampleHelper.py's quantization): per
// element, unravel the flat ONNX index, two dot products with the strides, the outer-group and HL
// index steps, the 16-bit split. Slow on purpose (it is the reference loop the docs call slow):
// the independent oracle for models/kl730 and the baseline of its benchmark.
#pragma once

#include <vector>

#include "models/kl730/kl730_layout.h"

namespace npu::test {

std::vector<uint8_t> kl730_reference_to_npu(const kl730::TensorInfo& t,
                                            const std::vector<float>& onnx);

}  // namespace npu::test
