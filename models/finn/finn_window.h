// The sliding-window layers of FINN, bit-exact and folding-aware where folding changes the
// element order: ConvolutionInputGenerator (im2col without padding: 1D/2D, stride, dilation,
// depthwise order, SIMD) and StreamingMaxPool (kernel = stride, no padding). Shapes are
// channel-last (H, W, C), as FINN streams them. Semantics: ../shared/reference/seed_systems.md
// §4.6-4.7; docs/finn.md, "Sliding windows". Pure C++.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace npu::finn {

struct SwgShape {
    uint64_t ifm_h = 0, ifm_w = 0, channels = 0, kh = 1, kw = 1;
    uint64_t stride_h = 1, stride_w = 1, dil_h = 1, dil_w = 1, simd = 1;
    bool depthwise = false;  // element order per window (c-fold, kh, kw, SIMD) for a VVAU
    bool rtl = false;        // FINN's RTL generator (ConvolutionInputGenerator_rtl), not HLS

    uint64_t ofm_h() const { return (ifm_h - dil_h * (kh - 1) - 1) / stride_h + 1; }
    uint64_t ofm_w() const { return (ifm_w - dil_w * (kw - 1) - 1) / stride_w + 1; }
    uint64_t folds() const { return channels / simd; }  // words per pixel
    // FINN's is1D: a single row with a 1 x K_w kernel.
    bool is_1d() const { return ifm_h == 1 && kh == 1; }
    uint64_t in_words() const { return ifm_h * ifm_w * folds(); }
    uint64_t out_words() const { return ofm_h() * ofm_w() * kh * kw * folds(); }
    // The words read before the first output: HLS K_h·dil_h rows; RTL one window's span,
    // ((K_h − 1)·dil_h·IFM_w + (K_w − 1)·dil_w + 1)·C/SIMD (finn-rtllib's minimal buffer).
    uint64_t preload_words() const {
        return rtl ? ((kh - 1) * dil_h * ifm_w + (kw - 1) * dil_w + 1) * folds()
                   : ifm_w * kh * dil_h * folds();
    }
    // RTL, depthwise: idle iterations per output row and at the end of a frame (FINN's RTL
    // formula's terms for its controller with a stride; 0 otherwise).
    uint64_t row_bubbles() const {
        return rtl && depthwise ? ofm_w() * (stride_w - 1) * (folds() - 1) : 0;
    }
    uint64_t frame_bubbles() const {
        return rtl && depthwise ? (stride_h - 1) * ifm_w * folds() : 0;
    }
};

// One message per broken rule ("IFMChannels % SIMD == 0: IFMChannels 6 is not a multiple of
// SIMD 4", a kernel larger than the image); empty when valid.
std::vector<std::string> check(const SwgShape& s);

// For each output element of one frame, the index of the input element it copies
// ((y · IFM_w + x) · C + c). Output order per window: (kh, kw, c), or (c / SIMD, kh, kw, SIMD)
// when depthwise.
std::vector<uint32_t> swg_sources(const SwgShape& s);

// The layer on whole frames (`x` holds frames of H·W·C values).
std::vector<int64_t> sliding_window(const SwgShape& s, const std::vector<int64_t>& x);

struct PoolShape {
    uint64_t ifm_h = 0, ifm_w = 0, channels = 0, k = 2;  // kernel = stride (1 x k when ifm_h 1)
    uint64_t pe = 0;  // channels per word (1D only; 2D streams whole pixels): 0 = all
    bool is_1d() const { return ifm_h == 1; }
    uint64_t kh() const { return is_1d() ? 1 : k; }
    uint64_t ofm_h() const { return ifm_h / kh(); }
    uint64_t ofm_w() const { return ifm_w / k; }
    uint64_t words_per_pixel() const { return is_1d() && pe != 0 ? channels / pe : 1; }
};

std::vector<std::string> check(const PoolShape& p);

// Max over each k x k (or 1 x k) window per channel; rows/columns past the last whole window
// are dropped (floor mode).
std::vector<int64_t> maxpool(const PoolShape& p, const std::vector<int64_t>& x);

}  // namespace npu::finn
