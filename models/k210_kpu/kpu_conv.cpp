#include "models/k210_kpu/kpu_conv.h"

#include <algorithm>
#include <atomic>
#include <vector>

#include "models/k210_kpu/kpu_epilogue.h"
#include "models/k210_kpu/kpu_mac.h"
#include "sim/core/parallel.h"

namespace npu::kpu {
namespace {

// What every output pixel's sum shares: the layer's shape and the per-channel constant term
// ((arg_w · Σw) >> shr_w) + arg_add · taps_channels.
struct Layer {
    const LayerArgs& a;
    const LayerParams& p;
    Epilogue epilogue;
    int ic, oc, h, w, k, padded_w, padded_h;
    size_t plane;
    std::vector<int64_t> constant;  // per output channel
};

template <typename Wt>
Layer prepare(const LayerArgs& a, const LayerParams& p, const Fidelity& f) {
    // A table entry costs a few times less than activating a value by search: let a thread's
    // table grow to twice the values the layer activates.
    const size_t values = static_cast<size_t>(a.out_channels()) *
                          static_cast<size_t>(a.in_height()) * static_cast<size_t>(a.in_width());
    Layer l{a,
            p,
            Epilogue(p.act, f, std::max<size_t>(4096, 2 * values)),
            a.in_channels(),
            a.out_channels(),
            a.in_height(),
            a.in_width(),
            a.kernel_size(),
            0,
            0,
            0,
            {}};
    const int pad = l.k / 2;
    l.padded_w = l.w + 2 * pad, l.padded_h = l.h + 2 * pad;
    l.plane = static_cast<size_t>(l.h) * static_cast<size_t>(l.w);
    const int n_ic = a.depth_wise_layer ? 1 : l.ic;
    const size_t taps = static_cast<size_t>(n_ic * l.k * l.k);
    const Wt* weights = reinterpret_cast<const Wt*>(p.weights);
    for (int o = 0; o < l.oc; ++o) {
        int64_t sum_w = 0;
        for (size_t t = 0; t < taps; ++t) {
            sum_w += weights[static_cast<size_t>(o) * taps + t];
        }
        l.constant.push_back(((int64_t{a.arg_w} * sum_w) >> a.shr_w) + a.arg_add * n_ic);
    }
    return l;
}

// v = Σ x·w (+ the high bytes' sum · 256) + ((arg_x · Σx) >> shr_x) + constant, then BN and
// activation into `out`.
struct Scratch {
    std::vector<int64_t> v;
    EpilogueScratch epilogue;
};
uint64_t finish(const Layer& l, int o, const int32_t* acc, const int32_t* acc_high,
                const int32_t* sum_x, size_t n, Scratch& scratch, uint8_t* out) {
    std::vector<int64_t>& v = scratch.v;
    v.resize(n);
    pre_bn({acc, acc_high, sum_x, l.a.arg_x, l.a.shr_x, l.constant[static_cast<size_t>(o)]}, n,
           v.data());
    return l.epilogue.run(v.data(), n, l.p.bn[static_cast<size_t>(o)], out, scratch.epilogue);
}

// Dense layers: tiles of output pixels, each an im2col column tile times every channel's weights
// (plus a row of ones for Σx).
template <typename Wt>
uint64_t dense(const Layer& l, bool eight_bit, const uint8_t* xp, uint8_t* act_out) {
    const int taps = l.ic * l.k * l.k;
    const Wt* weights = reinterpret_cast<const Wt*>(l.p.weights);
    const PackedWeights low = pack_weights<Wt>(weights, l.oc, taps, 0, true);
    const PackedWeights high =
        eight_bit ? PackedWeights{} : pack_weights<Wt>(weights, l.oc, taps, 1, false);
    // Column tiles of at most 192 KiB (they stay in L2) and at most 512 pixels.
    const int tile = std::clamp(49152 / low.pairs / kMacBlock * kMacBlock, kMacBlock, 512);
    const int64_t tiles = (static_cast<int64_t>(l.plane) + tile - 1) / tile;
    const ColTileShape shape{l.ic, l.padded_w, l.padded_w * l.padded_h, l.k, l.w};
    std::atomic<uint64_t> overflows{0};
    sim::parallel_for(tiles, 1, [&](int64_t begin, int64_t end) {
        std::vector<uint32_t> col(static_cast<size_t>(low.pairs) * static_cast<size_t>(tile));
        std::vector<int32_t> acc(static_cast<size_t>(low.rows) * static_cast<size_t>(tile));
        std::vector<int32_t> acc_high(eight_bit ? 0 : static_cast<size_t>(l.oc * tile));
        thread_local Scratch scratch;
        uint64_t count = 0;
        for (int64_t t = begin; t < end; ++t) {
            const int p0 = static_cast<int>(t) * tile;
            const int cols = std::min(tile, static_cast<int>(l.plane) - p0);
            column_tile(xp, shape, p0, cols, tile, col.data());
            dense_gemm(low, col.data(), tile, cols, acc.data(), static_cast<size_t>(tile));
            if (!eight_bit) {
                dense_gemm(high, col.data(), tile, cols, acc_high.data(),
                           static_cast<size_t>(tile));
            }
            const int32_t* sum_x = acc.data() + static_cast<ptrdiff_t>(l.oc) * tile;
            for (int o = 0; o < l.oc; ++o) {
                const size_t row = static_cast<size_t>(o) * static_cast<size_t>(tile);
                count += finish(l, o, acc.data() + row, eight_bit ? nullptr : acc_high.data() + row,
                                sum_x, static_cast<size_t>(cols), scratch,
                                act_out + static_cast<size_t>(o) * l.plane + p0);
            }
        }
        overflows += count;
    });
    return overflows;
}

// Depthwise layers: one channel at a time, from its plane's pair rows.
uint64_t depthwise_layer(const Layer& l, bool eight_bit, const uint8_t* xp, uint8_t* act_out) {
    const int stride = l.padded_w + 2 + kMacBlock, kk = l.k * l.k;
    const size_t padded_plane = static_cast<size_t>(l.padded_w) * static_cast<size_t>(l.padded_h);
    std::atomic<uint64_t> overflows{0};
    const int64_t grain = std::max<int64_t>(1, 16384 / static_cast<int64_t>(l.plane));
    sim::parallel_for(l.oc, grain, [&](int64_t begin, int64_t end) {
        std::vector<uint32_t> pairs(static_cast<size_t>(l.padded_h) * static_cast<size_t>(stride));
        const size_t room = l.plane + kMacBlock;
        std::vector<int32_t> acc(room), acc_high(eight_bit ? 0 : room), sum_x(room);
        thread_local Scratch scratch;
        uint8_t taps[2][9];
        uint64_t count = 0;
        for (int64_t o = begin; o < end; ++o) {
            for (int t = 0; t < kk; ++t) {
                const size_t at = static_cast<size_t>(o * kk + t);
                const uint32_t wv = eight_bit ? l.p.weights[at]
                                              : reinterpret_cast<const uint16_t*>(l.p.weights)[at];
                taps[0][t] = static_cast<uint8_t>(wv), taps[1][t] = static_cast<uint8_t>(wv >> 8);
            }
            pair_rows(xp + static_cast<size_t>(o) * padded_plane, l.padded_h, l.padded_w, stride,
                      pairs.data());
            depthwise(pairs.data(), stride, l.k, l.h, l.w, taps[0], acc.data(), sum_x.data());
            if (!eight_bit) {
                depthwise(pairs.data(), stride, l.k, l.h, l.w, taps[1], acc_high.data(), nullptr);
            }
            count +=
                finish(l, static_cast<int>(o), acc.data(), eight_bit ? nullptr : acc_high.data(),
                       sum_x.data(), l.plane, scratch, act_out + static_cast<size_t>(o) * l.plane);
        }
        overflows += count;
    });
    return overflows;
}

}  // namespace

uint64_t conv_bn_act(const LayerArgs& a, const LayerParams& p, bool eight_bit, const Fidelity& f,
                     const uint8_t* xp, uint8_t* act_out) {
    if (eight_bit) {
        const Layer l = prepare<uint8_t>(a, p, f);
        return a.depth_wise_layer ? depthwise_layer(l, true, xp, act_out)
                                  : dense<uint8_t>(l, true, xp, act_out);
    }
    const Layer l = prepare<uint16_t>(a, p, f);
    return a.depth_wise_layer ? depthwise_layer(l, false, xp, act_out)
                              : dense<uint16_t>(l, false, xp, act_out);
}

}  // namespace npu::kpu
