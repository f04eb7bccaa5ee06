#include "models/finn/finn_window.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::finn {

std::vector<std::string> check(const SwgShape& s) {
    std::vector<std::string> e;
    if (s.ifm_h == 0 || s.ifm_w == 0 || s.channels == 0 || s.kh == 0 || s.kw == 0 ||
        s.stride_h == 0 || s.stride_w == 0 || s.dil_h == 0 || s.dil_w == 0 || s.simd == 0) {
        e.push_back(
            fmt::format("IFMDim {}x{}, IFMChannels {}, ConvKernelDim {}x{}, Stride {}x{}, "
                        "Dilation {}x{}, SIMD {}: each must be at least 1",
                        s.ifm_h, s.ifm_w, s.channels, s.kh, s.kw, s.stride_h, s.stride_w, s.dil_h,
                        s.dil_w, s.simd));
        return e;
    }
    if (s.channels % s.simd != 0) {
        e.push_back(
            fmt::format("IFMChannels % SIMD == 0: IFMChannels {} is not a multiple of "
                        "SIMD {}",
                        s.channels, s.simd));
    }
    if (s.dil_h * (s.kh - 1) + 1 > s.ifm_h || s.dil_w * (s.kw - 1) + 1 > s.ifm_w) {
        e.push_back(
            fmt::format("ConvKernelDim {}x{} with Dilation {}x{} spans more than IFMDim "
                        "{}x{}",
                        s.kh, s.kw, s.dil_h, s.dil_w, s.ifm_h, s.ifm_w));
    }
    return e;
}

std::vector<uint32_t> swg_sources(const SwgShape& s) {
    const std::vector<std::string> problems = check(s);
    if (!problems.empty()) {
        throw sim::Error("ConvolutionInputGenerator: " + problems.front());
    }
    const uint64_t c_all = s.channels, k = s.kh * s.kw;
    std::vector<uint32_t> src;
    src.reserve(s.ofm_h() * s.ofm_w() * k * c_all);
    auto index = [&](uint64_t oy, uint64_t ox, uint64_t ki, uint64_t c) {
        const uint64_t y = oy * s.stride_h + (ki / s.kw) * s.dil_h;
        const uint64_t x = ox * s.stride_w + (ki % s.kw) * s.dil_w;
        return static_cast<uint32_t>((y * s.ifm_w + x) * c_all + c);
    };
    for (uint64_t oy = 0; oy < s.ofm_h(); ++oy) {
        for (uint64_t ox = 0; ox < s.ofm_w(); ++ox) {
            if (!s.depthwise) {
                for (uint64_t ki = 0; ki < k; ++ki) {
                    for (uint64_t c = 0; c < c_all; ++c) {
                        src.push_back(index(oy, ox, ki, c));
                    }
                }
                continue;
            }
            for (uint64_t cf = 0; cf < s.folds(); ++cf) {
                for (uint64_t ki = 0; ki < k; ++ki) {
                    for (uint64_t lane = 0; lane < s.simd; ++lane) {
                        src.push_back(index(oy, ox, ki, cf * s.simd + lane));
                    }
                }
            }
        }
    }
    return src;
}

std::vector<int64_t> sliding_window(const SwgShape& s, const std::vector<int64_t>& x) {
    const std::vector<uint32_t> src = swg_sources(s);
    const size_t frame = s.ifm_h * s.ifm_w * s.channels;
    if (x.size() % frame != 0) {
        throw sim::Error(
            fmt::format("ConvolutionInputGenerator: {} input values are not frames "
                        "of {}x{}x{}",
                        x.size(), s.ifm_h, s.ifm_w, s.channels));
    }
    std::vector<int64_t> y;
    y.reserve(x.size() / frame * src.size());
    for (size_t f = 0; f < x.size(); f += frame) {
        for (uint32_t i : src) {
            y.push_back(x[f + i]);
        }
    }
    return y;
}

std::vector<std::string> check(const PoolShape& p) {
    std::vector<std::string> e;
    if (p.ifm_h == 0 || p.ifm_w == 0 || p.channels == 0 || p.k == 0) {
        e.push_back(
            fmt::format("ImgDim {}x{}, NumChannels {}, PoolDim {}: each must be at "
                        "least 1",
                        p.ifm_h, p.ifm_w, p.channels, p.k));
        return e;
    }
    if (p.pe != 0 && p.channels % p.pe != 0) {
        e.push_back(fmt::format("NumChannels % PE == 0: NumChannels {} is not a multiple of PE {}",
                                p.channels, p.pe));
    }
    if (!p.is_1d() && p.pe != 0 && p.pe != p.channels) {
        e.push_back(
            fmt::format("PE {}: a 2D StreamingMaxPool streams whole pixels, PE must be "
                        "NumChannels {}",
                        p.pe, p.channels));
    }
    if (p.kh() > p.ifm_h || p.k > p.ifm_w) {
        e.push_back(fmt::format("PoolDim {} is larger than ImgDim {}x{}", p.k, p.ifm_h, p.ifm_w));
    }
    return e;
}

std::vector<int64_t> maxpool(const PoolShape& p, const std::vector<int64_t>& x) {
    const std::vector<std::string> problems = check(p);
    if (!problems.empty()) {
        throw sim::Error("StreamingMaxPool: " + problems.front());
    }
    const size_t frame = p.ifm_h * p.ifm_w * p.channels;
    if (x.size() % frame != 0) {
        throw sim::Error(fmt::format("StreamingMaxPool: {} input values are not frames of {}x{}x{}",
                                     x.size(), p.ifm_h, p.ifm_w, p.channels));
    }
    std::vector<int64_t> y;
    y.reserve(x.size() / frame * p.ofm_h() * p.ofm_w() * p.channels);
    for (size_t f = 0; f < x.size(); f += frame) {
        for (uint64_t oy = 0; oy < p.ofm_h(); ++oy) {
            for (uint64_t ox = 0; ox < p.ofm_w(); ++ox) {
                for (uint64_t c = 0; c < p.channels; ++c) {
                    int64_t m = INT64_MIN;
                    for (uint64_t ky = 0; ky < p.kh(); ++ky) {
                        for (uint64_t kx = 0; kx < p.k; ++kx) {
                            const uint64_t px = (oy * p.kh() + ky) * p.ifm_w + ox * p.k + kx;
                            m = std::max(m, x[f + px * p.channels + c]);
                        }
                    }
                    y.push_back(m);
                }
            }
        }
    }
    return y;
}

}  // namespace npu::finn
