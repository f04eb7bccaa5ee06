// A FINN dataflow design as data: a chain of named layers and the FIFO depths between them, and
// the checks a chain must pass (each layer's folding rules; neighbours agreeing on a frame's
// elements and a word's). What the FINN-ONNX importer builds and finn_design.h simulates.
// Pure C++; docs/finn.md, "Designs".
#pragma once

#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "models/finn/finn_func.h"
#include "models/finn/finn_resources.h"
#include "models/finn/finn_window.h"

namespace npu::finn {

using LayerOp =
    std::variant<Mvau, Vvau, ThresholdingLayer, SwgShape, PoolShape, DwcLayer, LabelSelectLayer>;

struct Layer {
    std::string name;  // the FINN node's name, e.g. "MVAU_hls_0"
    LayerOp op;
    bool inserted = false;  // not in the graph: added as FINN's InsertDWC would (a converter)
    LayerStyle style = {};  // how a weight layer is built (resources only)
};

// FINN's resource estimate of the layer (finn_resources.h): MVAU and VVAU; zero for the others.
Resources resources(const Layer& l, bool dsp58 = false);

struct Design {
    std::vector<Layer> layers;
    // FIFO depths in words: [i] in front of layer i, the last behind the last layer. Empty: 2
    // each (FINN's default without FIFO sizing).
    std::vector<uint64_t> fifo_depths;
};

// Elements a frame and a word, in and out, of one layer.
struct FrameElements {
    uint64_t in = 0, out = 0, in_word = 1, out_word = 1;
};
FrameElements frame_elements(const LayerOp& op);

// The layer's own problems (its folding and shape rules), one message each; empty when valid.
std::vector<std::string> check(const LayerOp& op);

// FINN's formula for the valid layer's cycles a frame (finn_cost.h) and FINN's op type for it.
uint64_t formula_cycles(const LayerOp& op);
const char* op_name(const LayerOp& op);
// FINN's own get_exp_cycles of the layer as FINN computes it (finn_cost.h): the same as
// formula_cycles except for StreamingMaxPool, LabelSelect and StreamingDataWidthConverter.
uint64_t finn_exp_cycles(const LayerOp& op);

// "input -> MVAU_0", "MVAU_0 -> Thresholding_0", "... -> output": FIFO i of the chain.
std::string fifo_name(const Design& d, size_t i);

// Problems with the chain (one message each, naming the layer): a layer breaking a folding rule,
// neighbours that disagree on the elements of a frame, FIFO depths of the wrong count or 0.
std::vector<std::string> check(const Design& d);

// The chain's values on whole frames, layer by layer through the pure functions (no time): what
// `npusim run --functional` gives; the streaming nodes compute the same with the same functions.
// Throws sim::Error with check()'s first problem or on input that is not whole frames.
std::vector<int64_t> evaluate(const Design& d, const std::vector<int64_t>& input);
// The same, every layer's values kept (a regression compares each with the streaming design's).
std::vector<std::vector<int64_t>> evaluate_layers(const Design& d,
                                                  const std::vector<int64_t>& input);

}  // namespace npu::finn
