#include "tests/models/k210_kpu/random_layer.h"

#include <algorithm>

#include "models/k210_kpu/kpu_layer_builder.h"

namespace npu::test {

using kpu::LayerArgs;

kpu::LayerParams RandomLayer::params() const {
    kpu::LayerParams p;
    p.weights = weights.data();
    for (uint64_t w : bn_words) {
        p.bn.push_back(kpu::decode_bn(w));
    }
    p.act = kpu::decode_act(act.data());
    return p;
}

RandomLayer random_layer(std::mt19937_64& rng, bool eight_bit, const LayerLimits& lim) {
    auto uni = [&](int64_t lo, int64_t hi) {
        return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    RandomLayer r;
    r.eight_bit = eight_bit;
    LayerArgs& a = r.args;
    for (;;) {  // the same draws, in the same order, as before build_layer existed
        kpu::LayerShape s;
        s.kernel = uni(0, 1) == 1 ? 3 : 1;
        s.depthwise = uni(0, 3) == 0;
        s.pool_type = static_cast<uint32_t>(uni(0, 9));
        s.in_channels = static_cast<int>(uni(1, lim.max_channels));
        s.out_channels = s.depthwise ? s.in_channels : static_cast<int>(uni(1, lim.max_channels));
        s.in_width = static_cast<int>(uni(1, lim.max_width));
        s.in_height = static_cast<int>(uni(1, lim.max_height));
        s.eight_bit = eight_bit;
        const uint64_t macs =
            static_cast<uint64_t>(s.out_channels * s.in_width * s.in_height * s.kernel * s.kernel *
                                  (s.depthwise ? 1 : s.in_channels));
        if (kpu::pool_output_size(s.in_width, s.pool_type) < 1 ||
            kpu::pool_output_size(s.in_height, s.pool_type) < 1 || macs > lim.max_macs) {
            continue;
        }
        a = kpu::build_layer(s);
        break;
    }
    a.int_en = true;
    const bool compiler_like = uni(0, 1) == 1;
    if (compiler_like) {  // alu = Σ (x - Zx)(w - Zw), as nncase folds the zero points
        const int64_t zx = uni(0, 255), zw = uni(0, eight_bit ? 255 : 65535);
        a.pad_value = static_cast<uint32_t>(zx);
        a.arg_x = static_cast<int32_t>(-zw);
        a.arg_w = static_cast<int32_t>(-zx);
        a.arg_add = a.kernel_size() * a.kernel_size() * zx * zw;
    } else {
        a.pad_value = static_cast<uint32_t>(uni(0, 255));
        a.arg_x = static_cast<int32_t>(uni(-(1 << 23), (1 << 23) - 1));
        a.arg_w = static_cast<int32_t>(uni(-(1 << 23), (1 << 23) - 1));
        a.shr_x = static_cast<uint32_t>(uni(0, 15));
        a.shr_w = static_cast<uint32_t>(uni(0, 15));
        a.arg_add = uni(-(int64_t{1} << 34), int64_t{1} << 34);
    }
    a.image_src_addr = 0;
    a.image_dst_addr =
        static_cast<uint32_t>(kpu::fmap_lines(a.in_channels(), a.in_width(), a.in_height()));
    a.send_data_out = uni(0, 1) == 1;
    a.para_start_addr = 0x80100000;
    a.bwsx_base_addr = 0x80200000;
    a.active_addr = 0x80300000;

    r.weights.resize(kpu::weight_bytes(a, eight_bit));
    for (uint8_t& b : r.weights) {
        b = static_cast<uint8_t>(rng());
    }
    // Compiler-like: BN scales alu down to about ±2^12 and the segments cover that range.
    const int64_t x_range = compiler_like ? int64_t{1} << 12 : int64_t{1} << 34;
    for (int o = 0; o < a.out_channels(); ++o) {
        kpu::BnParam bn;
        if (compiler_like) {
            bn = {static_cast<int32_t>(uni(1, 1 << 12)), 15,
                  static_cast<int32_t>(uni(-4096, 4096))};
        } else {
            bn = {static_cast<int32_t>(uni(-(1 << 20), 1 << 20)), static_cast<uint32_t>(uni(0, 15)),
                  static_cast<int32_t>(uni(INT32_MIN, INT32_MAX))};
        }
        r.bn_words.push_back(kpu::encode_bn(bn));
    }
    // Activation: ascending x_start from -2^35, slopes, shifts and biases.
    kpu::ActTable t;
    std::vector<int64_t> starts;
    for (int i = 1; i < 16; ++i) {
        starts.push_back(uni(-x_range, x_range));
    }
    std::sort(starts.begin(), starts.end());
    for (size_t i = 0; i < 16; ++i) {
        t[i].x_start = i == 0 ? -(int64_t{1} << 35) : starts[i - 1];
        if (compiler_like) {
            t[i].y_mul = static_cast<int32_t>(uni(-256, 1024));
            t[i].shift = static_cast<uint32_t>(uni(4, 12));
        } else {
            t[i].y_mul = static_cast<int32_t>(uni(-32768, 32767));
            t[i].shift = static_cast<uint32_t>(uni(0, 40));
        }
        t[i].bias = static_cast<uint8_t>(uni(0, 255));
    }
    kpu::encode_act(t, r.act.data());
    r.input.resize(static_cast<size_t>(a.in_channels() * a.in_width() * a.in_height()));
    for (uint8_t& b : r.input) {
        b = static_cast<uint8_t>(rng());
    }
    return r;
}

}  // namespace npu::test
