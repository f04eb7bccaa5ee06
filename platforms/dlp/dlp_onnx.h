// ONNX networks as the DL processor runs them (PyTorch exports and MATLAB's exportONNXNetwork
// alike): Conv with BatchNormalization folded and ReLU / LeakyReLU / clipped ReLU (Clip 0..max)
// fused as dlhdl fuses them; MaxPool, AveragePool and GlobalAveragePool as conv-module layers of
// their own; Gemm or MatMul (+ Add) after Flatten/Reshape as fc layers; Add and Mul of two
// activations on the adder, of a per-channel constant as an adder with a constant operand; the
// input's normalization (Sub, Div or Mul of constants at the input, or --mean/--std) as dlhdl's
// two adder layers; Softmax and Sigmoid at the end as software layers on the host; Identity and
// Dropout pass through. Anything else is one error naming the node and why. docs/dlp.md "ONNX
// networks". Pure C++.
#pragma once

#include <string>
#include <vector>

#include "platforms/dlp/dlp_job.h"
#include "sim/onnx/graph.h"

namespace npu::dlp {

struct OnnxNetworkOptions {
    std::vector<float> mean, std;  // --mean/--std: the input's normalization (one per channel)
};

// The graph as a network of the processor's layers (the model's float parameters), checked
// against `cfg` (check_network). `source` names the file in messages. An int8 processor needs
// them quantized (dlp_quantize.h: load_network does it).
NetworkFile network_from_onnx(const onnx::Graph& g, const std::string& source,
                              const DlpPlatformConfig& cfg, const OnnxNetworkOptions& opts = {});

// The ops network_from_onnx reads (the importer refuses others before it runs).
const std::vector<std::string>& dlp_onnx_ops();

}  // namespace npu::dlp
