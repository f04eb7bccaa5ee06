#include "models/finn/finn_cost.h"

#include <algorithm>

namespace npu::finn {

uint64_t mvau_cycles(uint64_t mh, uint64_t mw, uint64_t pe, uint64_t simd, uint64_t vectors) {
    return (mh / pe) * (mw / simd) * vectors;
}

uint64_t thresholding_cycles(uint64_t channels, uint64_t pe, uint64_t vectors) {
    return channels / pe * vectors;
}

uint64_t vvau_cycles(uint64_t channels, uint64_t kh, uint64_t kw, uint64_t pe, uint64_t simd,
                     uint64_t h, uint64_t w) {
    return channels * kh * kw / pe / simd * h * w;
}

uint64_t swg_hls_cycles(const SwgShape& s) {
    const uint64_t folds = s.channels / s.simd;
    return s.ifm_w * s.kh * s.dil_h * folds +
           s.ofm_h() * std::max(s.ofm_w() * s.kw * s.kh * folds, s.stride_w * s.ifm_w * folds);
}

NetworkEstimate estimate_chain(const std::vector<uint64_t>& layer_cycles, double clock_hz) {
    NetworkEstimate e;
    for (size_t i = 0; i < layer_cycles.size(); ++i) {
        e.sum_cycles += layer_cycles[i];
        if (layer_cycles[i] > e.max_cycles) {
            e.max_cycles = layer_cycles[i], e.bottleneck = i;
        }
    }
    e.frames_per_second = e.max_cycles == 0 ? 0 : clock_hz / static_cast<double>(e.max_cycles);
    return e;
}

}  // namespace npu::finn
