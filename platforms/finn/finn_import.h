// FINN-ONNX graphs into a design (models/finn/finn_chain.h): the chain of
// finn.custom_op.fpgadataflow layers FINN's build leaves after specializing layers (MVAU, VVAU,
// Thresholding, ConvolutionInputGenerator, StreamingMaxPool, StreamingDataWidthConverter,
// LabelSelect, with or without their _hls/_rtl suffix; StreamingFIFO nodes set the FIFO depth
// where they stand), their attributes, and their weights and thresholds as initializers; and
// FINN's folding-config JSON (node name -> PE, SIMD, inFIFODepths, …; "Defaults") applied on top,
// as FINN's ApplyConfig does. Every problem is one sim::Error naming the file, the node and the
// attribute or rule. Pure C++ (no SystemC); docs/finn.md, "FINN-ONNX".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "models/finn/finn_chain.h"
#include "models/finn/finn_types.h"
#include "sim/onnx/graph.h"

namespace npu::finn {

struct FinnModel {
    Design design;
    std::string input_name, output_name;  // the graph's tensors
    DataType in_type = DataType::sint(8), out_type = DataType::sint(32);
    std::vector<int64_t> in_shape, out_shape;    // one frame's normal shape (FINN's, batch 1)
    uint64_t in_elements = 0, out_elements = 0;  // a frame's
};

// FINN's op type without the backend suffix (_hls, _rtl, _Batch), legacy names mapped to
// today's ("MatrixVectorActivation" -> "MVAU"): the name op_name() gives a layer.
std::string base_op(const std::string& op);

// Sets each node's attributes from a FINN folding config: {"<node name>": {"PE": 4, "SIMD": 8,
// "inFIFODepths": [2], ...}, "Defaults": {"<attribute>": [value, ["<op type>", ...] or "all"]}}.
// Integers, strings and lists of integers; a node the graph does not have, or a value of another
// kind, is an error naming `source` and the key.
void apply_folding(onnx::Graph& g, const nlohmann::json& config, const std::string& source);

// The design of `g` (nodes in chain order). `source` names the file in messages.
FinnModel import_finn(const onnx::Graph& g, const std::string& source);

// Reads `onnx_path` (and `folding_path`, when not empty) and imports them.
FinnModel load_finn(const std::string& onnx_path, const std::string& folding_path);

}  // namespace npu::finn
