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

uint64_t swg_cycles(const SwgShape& s) {
    const uint64_t folds = s.folds();
    if (!s.is_1d()) {
        const uint64_t row =
            std::max(s.ofm_w() * s.kw * s.kh * folds, s.stride_h * s.ifm_w * folds);
        return s.preload_words() + s.ofm_h() * (row + s.row_bubbles()) + s.frame_bubbles();
    }
    uint64_t write = 0;  // cycle of the latest output word
    const std::vector<uint32_t> src = swg_sources(s);
    for (size_t i = 0; i < src.size(); i += s.simd) {
        write = std::max(write + 1, uint64_t{src[i]} / s.simd + 1);
    }
    return std::max(write + 1, s.in_words());
}

uint64_t maxpool_cycles(const PoolShape& p) {
    if (!p.is_1d()) {
        return p.ifm_h * p.ifm_w + p.ofm_h() * p.ofm_w();
    }
    const uint64_t nf = p.words_per_pixel();
    return p.ofm_w() * nf * (p.k + 1) + (p.ifm_w - p.ofm_w() * p.k) * nf;
}

uint64_t labelselect_cycles(uint64_t labels, uint64_t pe, uint64_t k) {
    return labels / pe + k;
}

uint64_t dwc_cycles(uint64_t in_words, uint64_t out_words) {
    return std::max(in_words, out_words);
}

uint64_t finn_maxpool_cycles(const PoolShape& p) {
    if (!p.is_1d()) {
        const double k2 = static_cast<double>(p.k * p.k);
        return static_cast<uint64_t>(static_cast<double>(p.ifm_w * p.ifm_w) * (1 + 1 / k2));
    }
    return p.ofm_w() * p.words_per_pixel() * (p.k + 1);
}

uint64_t finn_labelselect_cycles(uint64_t labels, uint64_t pe) {
    return labels / pe;
}

uint64_t finn_dwc_cycles(uint64_t frame_elements) {
    return 2 * frame_elements;
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
