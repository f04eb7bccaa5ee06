// The arithmetic of FINN's streaming layers, bit-exact, over plain integer vectors (values as
// their data type says: BIPOLAR as -1/+1), folding-independent (folding changes time, not
// values). Semantics: qonnx MultiThreshold and XnorPopcountMatMul, finn-hlslib's
// Matrix_Vector_Activate_Batch and ThresholdsActivation (../shared/reference/seed_systems.md
// §4.3-4.5). Pure C++.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "models/finn/finn_types.h"

namespace npu::finn {

// Thresholds per channel, each row ascending; one row may serve every channel.
using Thresholds = std::vector<std::vector<int64_t>>;

// Channel `channel`'s row of `t` (the only row when one serves every channel).
inline const std::vector<int64_t>& threshold_row(const Thresholds& t, size_t channel) {
    return t[t.size() == 1 ? 0 : channel];
}

// Number of thresholds of `row` the value reaches (t <= v), as ThresholdsActivation counts.
int64_t threshold_count(int64_t v, const std::vector<int64_t>& row);

// One value through its channel's thresholds: act_val + count, or 2 · count − 1 for a BIPOLAR
// output (FINN's out_scale 2, out_bias −1).
int64_t activation(int64_t v, const std::vector<int64_t>& row, int64_t act_val, bool bipolar_out);

// MultiThreshold on channel-last vectors: out = act_val + count, or for a BIPOLAR output
// 2 · count - 1 (FINN's out_scale 2, out_bias -1). `x` holds vectors of `channels` elements.
std::vector<int64_t> thresholding(const std::vector<int64_t>& x, size_t channels,
                                  const Thresholds& t, int64_t act_val, bool bipolar_out);

// Thresholding (MultiThreshold on a stream of channel-last vectors).
struct ThresholdingLayer {
    unsigned channels = 0, pe = 1;
    Thresholds thresholds;  // one row per channel, or one for all
    int64_t act_val = 0;
    bool bipolar_out = false;
    uint64_t vectors = 1;  // input vectors a frame (Π numInputVectors): time only
};
// "NumChannels % PE == 0: ...", the threshold rows.
std::vector<std::string> check(const ThresholdingLayer& t);

struct Mvau {
    unsigned mw = 0, mh = 0;  // input length, outputs (MW, MH)
    unsigned pe = 1, simd = 1;
    DataType in = DataType::sint(8), weight = DataType::sint(8), out = DataType::sint(32);
    bool binary_xnor =
        false;  // binaryXnorMode: BINARY inputs and weights as bipolar, XNOR-popcount
    std::vector<int64_t> weights;  // MH x MW, row-major: W[o][m]
    Thresholds thresholds;         // empty: noActivation (the output is the accumulator)
    int64_t act_val = 0;           // ActVal: the output of "no threshold reached"
    uint64_t vectors = 1;          // input vectors a frame (Π numInputVectors): time only
    // accDataType: the accumulator wraps to its bits as the hardware's ap_int does (FINN sizes
    // it so that it never does); none: no limit.
    std::optional<DataType> acc;
};

// Folding and shape problems, one message each ("MH % PE == 0: MH 10 is not a multiple of PE
// 4"); empty when the layer is valid.
std::vector<std::string> check(const Mvau& m);

// The layer on `x` (vectors of MW elements): MH outputs per vector. With XNOR-popcount (BIPOLAR
// inputs and weights, or binary_xnor) the accumulator is the number of agreeing positions,
// (dot + MW) / 2, not the ±1 dot product.
std::vector<int64_t> mvau(const Mvau& m, const std::vector<int64_t>& x);

// VectorVectorActivation (depthwise): per pixel, channel c's K = K_h·K_w window values times its
// own K weights. Its input is the depthwise sliding window's order with SIMD = PE: per pixel
// (c / PE, k, c % PE) — the order FINN's VVAU reads (vectorvectoractivation.py).
struct Vvau {
    unsigned channels = 0, kh = 1, kw = 1;
    unsigned pe = 1, simd = 1;
    DataType in = DataType::sint(8), weight = DataType::sint(8), out = DataType::sint(32);
    std::vector<int64_t> weights;  // C x K, row-major: W[c][ky·K_w + kx]
    Thresholds thresholds;         // empty: noActivation
    int64_t act_val = 0;
    uint64_t pixels = 1;          // output pixels a frame (H·W): time only
    std::optional<DataType> acc;  // accDataType, as the MVAU's
    unsigned k() const { return kh * kw; }
};

// "Channels % PE == 0", "K_h·K_w % SIMD == 0", the weight count and range, the threshold rows.
std::vector<std::string> check(const Vvau& v);
// `x` holds pixels of C·K values in the order above; C outputs per pixel.
std::vector<int64_t> vvau(const Vvau& v, const std::vector<int64_t>& x);
// The PE outputs of channel fold `fold` from its block of K·PE input values (in (k, c % PE)
// order): what the VVAU computes per fold; vvau() is this over every fold of every pixel.
std::vector<int64_t> vvau_fold(const Vvau& v, const int64_t* block, unsigned fold);

// LabelSelect: the indices of the k largest of each vector of `labels` values, largest first,
// the lower index first among equals (as ONNX TopK and finn-hlslib's insertion keep them).
std::vector<int64_t> label_select(const std::vector<int64_t>& x, size_t labels, size_t k);

// StreamingDataWidthConverter: the same elements in words of another width.
struct DwcLayer {
    uint64_t in_elements = 1, out_elements = 1;  // per word
    uint64_t frame_elements = 1;                 // a multiple of both
};
std::vector<std::string> check(const DwcLayer& d);

struct LabelSelectLayer {
    unsigned labels = 0, pe = 1, k = 1;
};
std::vector<std::string> check(const LabelSelectLayer& l);

}  // namespace npu::finn
