#include "models/k210_kpu/kpu_layer_builder.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/k210_kpu/kpu_layout.h"
#include "sim/core/error.h"

namespace npu::kpu {

namespace {

// The shape a layer can have; throws sim::Error naming the first value out of range.
void check_shape(const LayerShape& s) {
    auto check = [](const char* what, int v, int lo, int hi) {
        if (v < lo || v > hi) {
            throw sim::Error(fmt::format("{} is {}, expected {}..{}", what, v, lo, hi));
        }
    };
    check("input channels", s.in_channels, 1, 1024);
    check("output channels", s.out_channels, 1, 1024);
    check("input width", s.in_width, 1, 1024);
    check("input height", s.in_height, 1, 512);
    if (s.kernel != 1 && s.kernel != 3) {
        throw sim::Error(fmt::format("kernel is {}, expected 1 or 3", s.kernel));
    }
    if (s.pool_type > 9) {
        throw sim::Error(fmt::format("pool type is {}, expected 0..9", s.pool_type));
    }
    if (s.depthwise && s.in_channels != s.out_channels) {
        throw sim::Error(
            fmt::format("a depthwise layer needs as many output channels as input channels "
                        "({} != {})",
                        s.out_channels, s.in_channels));
    }
    if (pool_output_size(s.in_width, s.pool_type) < 1 ||
        pool_output_size(s.in_height, s.pool_type) < 1) {
        throw sim::Error(fmt::format("pool type {} leaves nothing of a {}x{} map", s.pool_type,
                                     s.in_width, s.in_height));
    }
}

}  // namespace

LayerArgs build_layer(const LayerShape& s, uint32_t src_line, uint32_t dst_line) {
    check_shape(s);
    const int ow = pool_output_size(s.in_width, s.pool_type),
              oh = pool_output_size(s.in_height, s.pool_type);
    LayerArgs a;
    a.i_ch_num = static_cast<uint32_t>(s.in_channels - 1);
    a.o_ch_num = static_cast<uint32_t>(s.out_channels - 1);
    a.i_row_wid = static_cast<uint32_t>(s.in_width - 1);
    a.i_col_high = static_cast<uint32_t>(s.in_height - 1);
    a.o_row_wid = static_cast<uint32_t>(ow - 1);
    a.o_col_high = static_cast<uint32_t>(oh - 1);
    a.kernel_type = s.kernel == 3 ? 1 : 0;
    a.depth_wise_layer = s.depthwise;
    a.pool_type = s.pool_type;
    a.image_src_addr = src_line;
    a.image_dst_addr = dst_line;
    const RowLayout in = row_layout(s.in_width), out = row_layout(ow);
    a.coef_group = in.groups;
    a.row_switch_addr = in.row_lines;
    a.channel_switch_addr = in.row_lines * static_cast<uint32_t>(s.in_height);
    a.wb_group = out.groups;
    a.wb_row_switch_addr = out.row_lines;
    a.wb_channel_switch_addr = out.row_lines * static_cast<uint32_t>(oh);
    a.load_para = a.load_coor = a.load_act = true;
    a.dma_burst_size = 15;
    // Weight chunks of whole output channels: depthwise layers load at once; others at most
    // 30 KiB (8-bit) / 60 KiB (16-bit) per chunk (nncase v0.2 / v0.1).
    const uint32_t oc = static_cast<uint32_t>(s.out_channels);
    const uint32_t per_oc = static_cast<uint32_t>(s.kernel * s.kernel) *
                            (s.depthwise ? 1u : static_cast<uint32_t>(s.in_channels)) *
                            (s.eight_bit ? 1u : 2u);
    const uint32_t limit = s.eight_bit ? 30u * 1024 : 60u * 1024;
    const uint32_t per_load = s.depthwise ? oc : std::max(1u, std::min(oc, limit / per_oc));
    a.o_ch_num_coef = per_load - 1;
    a.para_size = per_load * per_oc;
    a.load_time = (oc + per_load - 1) / per_load - 1;
    a.channel_byte_num = static_cast<uint32_t>(ow * oh - 1);
    a.dma_total_byte = static_cast<uint32_t>(ow * oh) * oc - 1;
    return a;
}

}  // namespace npu::kpu
