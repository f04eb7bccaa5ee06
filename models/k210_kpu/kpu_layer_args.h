// Kendryte K210 KPU layer argument: the 12 x 64-bit words firmware pushes into
// LAYER_ARGUMENT_FIFO per layer (kpu_layer_argument_t, Kendryte SDK kpu.h). Decode, encode and
// validation of every field. Bit positions: ../shared/reference/k210_kpu.md §2. Pure C++.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/regs.h"

namespace npu::kpu {

using Words = std::array<uint64_t, 12>;

// Field positions, word by word, names verbatim from the SDK struct.
namespace field {
using sim::Field;
// word 0 interrupt_enabe
using int_en = Field<0, 1>;
using ram_flag = Field<1, 1>;
using full_add = Field<2, 1>;
using depth_wise_layer = Field<3, 1>;
// word 1 image_addr
using image_src_addr = Field<0, 15>;
using image_dst_addr = Field<32, 15>;
// word 2 image_channel_num
using i_ch_num = Field<0, 10>;
using o_ch_num = Field<32, 10>;
using o_ch_num_coef = Field<48, 10>;
// word 3 image_size
using i_row_wid = Field<0, 10>;
using i_col_high = Field<10, 9>;
using o_row_wid = Field<32, 10>;
using o_col_high = Field<42, 9>;
// word 4 kernel_pool_type_cfg
using kernel_type = Field<0, 3>;
using pad_type = Field<3, 1>;
using pool_type = Field<4, 4>;
using first_stride = Field<8, 1>;
using bypass_conv = Field<9, 1>;
using load_para = Field<10, 1>;
using dma_burst_size = Field<16, 8>;
using pad_value = Field<24, 8>;
using bwsx_base_addr = Field<32, 32>;
// word 5 kernel_load_cfg
using load_coor = Field<0, 1>;
using load_time = Field<1, 6>;
using para_size = Field<15, 17>;
using para_start_addr = Field<32, 32>;
// word 6 kernel_offset
using coef_column_offset = Field<0, 4>;
using coef_row_offset = Field<4, 12>;
// word 7 kernel_calc_type_cfg
using channel_switch_addr = Field<0, 15>;
using row_switch_addr = Field<16, 4>;
using coef_size = Field<20, 8>;
using coef_group = Field<28, 3>;
using load_act = Field<31, 1>;
using active_addr = Field<32, 32>;
// word 8 write_back_cfg
using wb_channel_switch_addr = Field<0, 15>;
using wb_row_switch_addr = Field<16, 4>;
using wb_group = Field<20, 3>;
// word 9 conv_value
using shr_w = Field<0, 4>;
using shr_x = Field<4, 4>;
using arg_w = Field<8, 24>;
using arg_x = Field<32, 24>;
// word 10 conv_value2
using arg_add = Field<0, 40>;
// word 11 dma_parameter
using send_data_out = Field<0, 1>;
using channel_byte_num = Field<16, 16>;
using dma_total_byte = Field<32, 32>;
}  // namespace field

// Every field of a layer, as raw field values (counts are stored "minus one" as in hardware;
// the accessors below give the real sizes). Signed fields are sign-extended.
struct LayerArgs {
    // word 0
    bool int_en = false, ram_flag = false, full_add = false, depth_wise_layer = false;
    // word 1
    uint32_t image_src_addr = 0, image_dst_addr = 0;  // in 64-byte lines
    // word 2
    uint32_t i_ch_num = 0, o_ch_num = 0, o_ch_num_coef = 0;
    // word 3
    uint32_t i_row_wid = 0, i_col_high = 0, o_row_wid = 0, o_col_high = 0;
    // word 4
    uint32_t kernel_type = 0, pad_type = 0, pool_type = 0;
    bool first_stride = false, bypass_conv = false, load_para = false;
    uint32_t dma_burst_size = 0, pad_value = 0;
    uint32_t bwsx_base_addr = 0;  // BN table, bus address
    // word 5
    bool load_coor = false;
    uint32_t load_time = 0, para_size = 0;
    uint32_t para_start_addr = 0;  // weights, bus address
    // word 6
    uint32_t coef_column_offset = 0, coef_row_offset = 0;
    // word 7
    uint32_t channel_switch_addr = 0, row_switch_addr = 0, coef_size = 0, coef_group = 0;
    bool load_act = false;
    uint32_t active_addr = 0;  // activation table, bus address
    // word 8
    uint32_t wb_channel_switch_addr = 0, wb_row_switch_addr = 0, wb_group = 0;
    // word 9
    uint32_t shr_w = 0, shr_x = 0;
    int32_t arg_w = 0, arg_x = 0;  // signed 24-bit
    // word 10
    int64_t arg_add = 0;  // signed 40-bit
    // word 11
    bool send_data_out = false;
    uint32_t channel_byte_num = 0, dma_total_byte = 0;

    int in_channels() const { return static_cast<int>(i_ch_num) + 1; }
    int out_channels() const { return static_cast<int>(o_ch_num) + 1; }
    int in_width() const { return static_cast<int>(i_row_wid) + 1; }
    int in_height() const { return static_cast<int>(i_col_high) + 1; }
    int out_width() const { return static_cast<int>(o_row_wid) + 1; }
    int out_height() const { return static_cast<int>(o_col_high) + 1; }
    int kernel_size() const { return kernel_type == 1 ? 3 : 1; }

    bool operator==(const LayerArgs& o) const;
};

// Calls v(word_index, Field type tag, member, "name") for every field, in word order. One list
// serves decode, encode, comparison and dumps, so a field cannot be forgotten in one of them.
template <typename Args, typename V>
void visit_fields(Args& a, V&& v);

LayerArgs decode(const Words& w);
// Reserved bits are written as zero.
Words encode(const LayerArgs& a);

// A field the hardware would misbehave on: the field's SDK name and what was expected. A fatal
// problem means the layer cannot be run safely or meaningfully (unknown kernel or pool type,
// feature maps outside the RAM, unmodelled modes); the others are run as the fields say.
// "CxHxW -> CxHxW 3x3 dw" for tables and reports.
std::string shape_summary(const LayerArgs& a);

struct Problem {
    std::string field;
    std::string message;
    bool fatal = false;
};
bool any_fatal(const std::vector<Problem>& problems);
// Checks every field against what the hardware can run (sizes, kernel and pool types, strides
// against widths, groups 1/2/4, feature maps inside the 2 MiB RAM, table alignment, weight chunks).
// `eight_bit` is the global EIGHT_BIT_MODE. Empty when the layer is runnable.
std::vector<Problem> validate(const LayerArgs& a, bool eight_bit);

template <typename F>
struct Tag {
    using type = F;
};

template <typename Args, typename V>
void visit_fields(Args& a, V&& v) {
    namespace f = field;
    v(0, Tag<f::int_en>{}, a.int_en, "int_en");
    v(0, Tag<f::ram_flag>{}, a.ram_flag, "ram_flag");
    v(0, Tag<f::full_add>{}, a.full_add, "full_add");
    v(0, Tag<f::depth_wise_layer>{}, a.depth_wise_layer, "depth_wise_layer");
    v(1, Tag<f::image_src_addr>{}, a.image_src_addr, "image_src_addr");
    v(1, Tag<f::image_dst_addr>{}, a.image_dst_addr, "image_dst_addr");
    v(2, Tag<f::i_ch_num>{}, a.i_ch_num, "i_ch_num");
    v(2, Tag<f::o_ch_num>{}, a.o_ch_num, "o_ch_num");
    v(2, Tag<f::o_ch_num_coef>{}, a.o_ch_num_coef, "o_ch_num_coef");
    v(3, Tag<f::i_row_wid>{}, a.i_row_wid, "i_row_wid");
    v(3, Tag<f::i_col_high>{}, a.i_col_high, "i_col_high");
    v(3, Tag<f::o_row_wid>{}, a.o_row_wid, "o_row_wid");
    v(3, Tag<f::o_col_high>{}, a.o_col_high, "o_col_high");
    v(4, Tag<f::kernel_type>{}, a.kernel_type, "kernel_type");
    v(4, Tag<f::pad_type>{}, a.pad_type, "pad_type");
    v(4, Tag<f::pool_type>{}, a.pool_type, "pool_type");
    v(4, Tag<f::first_stride>{}, a.first_stride, "first_stride");
    v(4, Tag<f::bypass_conv>{}, a.bypass_conv, "bypass_conv");
    v(4, Tag<f::load_para>{}, a.load_para, "load_para");
    v(4, Tag<f::dma_burst_size>{}, a.dma_burst_size, "dma_burst_size");
    v(4, Tag<f::pad_value>{}, a.pad_value, "pad_value");
    v(4, Tag<f::bwsx_base_addr>{}, a.bwsx_base_addr, "bwsx_base_addr");
    v(5, Tag<f::load_coor>{}, a.load_coor, "load_coor");
    v(5, Tag<f::load_time>{}, a.load_time, "load_time");
    v(5, Tag<f::para_size>{}, a.para_size, "para_size");
    v(5, Tag<f::para_start_addr>{}, a.para_start_addr, "para_start_addr");
    v(6, Tag<f::coef_column_offset>{}, a.coef_column_offset, "coef_column_offset");
    v(6, Tag<f::coef_row_offset>{}, a.coef_row_offset, "coef_row_offset");
    v(7, Tag<f::channel_switch_addr>{}, a.channel_switch_addr, "channel_switch_addr");
    v(7, Tag<f::row_switch_addr>{}, a.row_switch_addr, "row_switch_addr");
    v(7, Tag<f::coef_size>{}, a.coef_size, "coef_size");
    v(7, Tag<f::coef_group>{}, a.coef_group, "coef_group");
    v(7, Tag<f::load_act>{}, a.load_act, "load_act");
    v(7, Tag<f::active_addr>{}, a.active_addr, "active_addr");
    v(8, Tag<f::wb_channel_switch_addr>{}, a.wb_channel_switch_addr, "wb_channel_switch_addr");
    v(8, Tag<f::wb_row_switch_addr>{}, a.wb_row_switch_addr, "wb_row_switch_addr");
    v(8, Tag<f::wb_group>{}, a.wb_group, "wb_group");
    v(9, Tag<f::shr_w>{}, a.shr_w, "shr_w");
    v(9, Tag<f::shr_x>{}, a.shr_x, "shr_x");
    v(9, Tag<f::arg_w>{}, a.arg_w, "arg_w");
    v(9, Tag<f::arg_x>{}, a.arg_x, "arg_x");
    v(10, Tag<f::arg_add>{}, a.arg_add, "arg_add");
    v(11, Tag<f::send_data_out>{}, a.send_data_out, "send_data_out");
    v(11, Tag<f::channel_byte_num>{}, a.channel_byte_num, "channel_byte_num");
    v(11, Tag<f::dma_total_byte>{}, a.dma_total_byte, "dma_total_byte");
}

}  // namespace npu::kpu
