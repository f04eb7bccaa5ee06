#include "tests/k210_kpu/random_layer.h"

#include <algorithm>

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

void fill_derived_fields(LayerArgs& a, bool eight_bit) {
    const int w = a.in_width(), h = a.in_height(), ow = a.out_width(), oh = a.out_height();
    const kpu::RowLayout in = kpu::row_layout(w), out = kpu::row_layout(ow);
    a.coef_group = in.groups;
    a.row_switch_addr = in.row_lines;
    a.channel_switch_addr = in.row_lines * static_cast<uint32_t>(h);
    a.wb_group = out.groups;
    a.wb_row_switch_addr = out.row_lines;
    a.wb_channel_switch_addr = out.row_lines * static_cast<uint32_t>(oh);
    const uint32_t k2 = static_cast<uint32_t>(a.kernel_size() * a.kernel_size());
    const uint32_t per_oc = k2 *
                            (a.depth_wise_layer ? 1u : static_cast<uint32_t>(a.in_channels())) *
                            (eight_bit ? 1u : 2u);
    const uint32_t oc = static_cast<uint32_t>(a.out_channels());
    const uint32_t per_load = a.depth_wise_layer ? oc : std::max(1u, std::min(oc, 30720u / per_oc));
    a.o_ch_num_coef = per_load - 1;
    a.para_size = per_load * per_oc;
    a.load_time = (oc + per_load - 1) / per_load - 1;
    a.load_para = a.load_coor = a.load_act = true;
    a.dma_burst_size = 15;
    a.channel_byte_num = static_cast<uint32_t>(ow * oh - 1);
    a.dma_total_byte = static_cast<uint32_t>(ow * oh) * oc - 1;
}

RandomLayer random_layer(std::mt19937_64& rng, bool eight_bit, const LayerLimits& lim) {
    auto uni = [&](int64_t lo, int64_t hi) {
        return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    RandomLayer r;
    r.eight_bit = eight_bit;
    LayerArgs& a = r.args;
    for (;;) {
        a = LayerArgs{};
        a.kernel_type = static_cast<uint32_t>(uni(0, 1));
        a.depth_wise_layer = uni(0, 3) == 0;
        a.pool_type = static_cast<uint32_t>(uni(0, 9));
        const int ic = static_cast<int>(uni(1, lim.max_channels));
        const int oc = a.depth_wise_layer ? ic : static_cast<int>(uni(1, lim.max_channels));
        const int w = static_cast<int>(uni(1, lim.max_width)),
                  h = static_cast<int>(uni(1, lim.max_height));
        const int ow = kpu::pool_output_size(w, a.pool_type),
                  oh = kpu::pool_output_size(h, a.pool_type);
        const uint64_t macs = static_cast<uint64_t>(oc * w * h * (a.kernel_type ? 9 : 1) *
                                                    (a.depth_wise_layer ? 1 : ic));
        if (ow < 1 || oh < 1 || macs > lim.max_macs) {
            continue;
        }
        a.i_ch_num = static_cast<uint32_t>(ic - 1);
        a.o_ch_num = static_cast<uint32_t>(oc - 1);
        a.i_row_wid = static_cast<uint32_t>(w - 1);
        a.i_col_high = static_cast<uint32_t>(h - 1);
        a.o_row_wid = static_cast<uint32_t>(ow - 1);
        a.o_col_high = static_cast<uint32_t>(oh - 1);
        break;
    }
    fill_derived_fields(a, eight_bit);
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
