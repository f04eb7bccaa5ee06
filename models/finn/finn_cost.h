// FINN's expected cycles per frame of each streaming layer (`get_exp_cycles` in
// finn/custom_op/fpgadataflow; the formulas: ../shared/reference/finn_dataflow.md), and the
// network estimate FINN reports (throughput at the slowest layer). Pure C++; docs/finn.md.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace npu::finn {

// MVAU: (MH/PE) · (MW/SIMD) · Π numInputVectors.
uint64_t mvau_cycles(uint64_t mh, uint64_t mw, uint64_t pe, uint64_t simd, uint64_t vectors);
// Thresholding: (C/PE) · Π numInputVectors.
uint64_t thresholding_cycles(uint64_t channels, uint64_t pe, uint64_t vectors);
// VVAU: (C · K_h · K_w / PE / SIMD) · H · W.
uint64_t vvau_cycles(uint64_t channels, uint64_t kh, uint64_t kw, uint64_t pe, uint64_t simd,
                     uint64_t h, uint64_t w);
// ConvolutionInputGenerator (HLS, 2D): IFM_w · K_h · dil_h · C/SIMD +
// OFM_h · max(OFM_w · K_w · K_h · C/SIMD, stride_w · IFM_w · C/SIMD).
struct SwgShape {
    uint64_t ifm_w = 0, ifm_h = 0, channels = 0, kh = 1, kw = 1;
    uint64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1, simd = 1;
    uint64_t ofm_w() const { return (ifm_w - dil_w * (kw - 1) - 1) / stride_w + 1; }
    uint64_t ofm_h() const { return (ifm_h - dil_h * (kh - 1) - 1) / stride_h + 1; }
};
uint64_t swg_hls_cycles(const SwgShape& s);

// FINN's network estimate: frames/s = clock / max(layer cycles); latency = the sum (FINN's
// critical path for a chain: "very pessimistic, assumes no overlap").
struct NetworkEstimate {
    uint64_t max_cycles = 0, sum_cycles = 0;
    size_t bottleneck = 0;  // index of the slowest layer
    double frames_per_second = 0;
};
NetworkEstimate estimate_chain(const std::vector<uint64_t>& layer_cycles, double clock_hz);

}  // namespace npu::finn
