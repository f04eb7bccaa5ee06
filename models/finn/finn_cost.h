// FINN's expected cycles per frame of each streaming layer (`get_exp_cycles` in
// finn/custom_op/fpgadataflow; the formulas: ../shared/reference/finn_dataflow.md), and the
// network estimate FINN reports (throughput at the slowest layer). Pure C++; docs/finn.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/finn/finn_window.h"

namespace npu::finn {

// MVAU: (MH/PE) · (MW/SIMD) · Π numInputVectors.
uint64_t mvau_cycles(uint64_t mh, uint64_t mw, uint64_t pe, uint64_t simd, uint64_t vectors);
// Thresholding: (C/PE) · Π numInputVectors.
uint64_t thresholding_cycles(uint64_t channels, uint64_t pe, uint64_t vectors);
// VVAU: (C · K_h · K_w / PE / SIMD) · H · W.
uint64_t vvau_cycles(uint64_t channels, uint64_t kh, uint64_t kw, uint64_t pe, uint64_t simd,
                     uint64_t h, uint64_t w);
// ConvolutionInputGenerator. 2D HLS: IFM_w · K_h · dil_h · C/SIMD +
// OFM_h · max(OFM_w · K_w · K_h · C/SIMD, stride_h · IFM_w · C/SIMD) (FINN writes stride_w in the
// read term; the HLS generator's strides are square). 2D RTL ("default" style): the same with
// the preload ((K_h − 1)·dil_h·IFM_w + (K_w − 1)·dil_w + 1)·C/SIMD and, depthwise, FINN's terms
// OFM_w·(stride_w − 1)(C/SIMD − 1) per output row and (stride_h − 1)·IFM_w·C/SIMD a frame. 1D
// (FINN's is1D): one setup cycle, then one output word a cycle, none before the cycle after its
// source word was read (input words arrive one a cycle): 1 + OFM_w · K_w · C/SIMD without dilation,
// + (C/SIMD − 1)(K_w − 1) in depthwise order — FINN's ConvolutionInputGenerator_1D and _1D_dws
// formulas.
uint64_t swg_cycles(const SwgShape& s);
// StreamingMaxPool. 2D (whole pixels a word): IFM_h · IFM_w + OFM_h · OFM_w (FINN:
// IFM² · (1 + 1/K²)); 1D: OFM · NF · (K + 1), NF = C/PE (+ NF per dropped pixel).
uint64_t maxpool_cycles(const PoolShape& p);
// LabelSelect: Labels/PE reads, then K output words (FINN counts Labels/PE).
uint64_t labelselect_cycles(uint64_t labels, uint64_t pe, uint64_t k);
// StreamingDataWidthConverter: max(words in, words out) per frame.
uint64_t dwc_cycles(uint64_t in_words, uint64_t out_words);

// FINN's own get_exp_cycles where it differs from ours (what FINN's estimate reports): a 2D
// StreamingMaxPool int(IFM_w² · (1 + 1/K²)) in floating point (streamingmaxpool.py), a 1D one
// OFM · NF · (K + 1); LabelSelect int(Labels/PE); StreamingDataWidthConverter np.prod of the
// folded input shape + of the folded output shape, i.e. the frame's elements twice.
uint64_t finn_maxpool_cycles(const PoolShape& p);
uint64_t finn_labelselect_cycles(uint64_t labels, uint64_t pe);
uint64_t finn_dwc_cycles(uint64_t frame_elements);

// FINN's network estimate (dataflow_performance.py on a chain): max_cycles the first slowest
// layer's cycles (a later equal one does not replace it), frames/s = clock / max_cycles; latency
// = the sum (FINN's critical path on a chain: "very pessimistic, assumes no overlap").
struct NetworkEstimate {
    uint64_t max_cycles = 0, sum_cycles = 0;
    size_t bottleneck = 0;  // index of the slowest layer
    double frames_per_second = 0;
};
NetworkEstimate estimate_chain(const std::vector<uint64_t>& layer_cycles, double clock_hz);

}  // namespace npu::finn
