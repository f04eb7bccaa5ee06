#include "models/aipp/aipp_regs.h"

#include <fmt/format.h>

namespace npu::aipp::regs {

namespace {
uint64_t u16(int16_t v) {
    return static_cast<uint16_t>(v);
}
int16_t s16(uint64_t v) {
    return static_cast<int16_t>(static_cast<uint16_t>(v));
}
}  // namespace

std::array<uint64_t, 10> pack_sprs(const Params& p, uint64_t src0_addr, uint64_t src1_addr) {
    std::array<uint64_t, 10> s{};
    const auto& m = p.csc_matrix;
    s[0] = src_addr::set(0, src0_addr);
    s[1] = csc_enable::set(src_addr::set(0, src1_addr), p.csc_enable ? 1 : 0);
    s[2] = spr_lane3::set(
        spr_lane2::set(spr_lane1::set(spr_lane0::set(0, u16(m[0])), u16(m[1])), u16(m[2])),
        u16(m[3]));
    s[3] = spr_lane3::set(
        spr_lane2::set(spr_lane1::set(spr_lane0::set(0, u16(m[4])), u16(m[5])), u16(m[6])),
        u16(m[7]));
    uint64_t s4 = spr_lane0::set(0, u16(m[8]));
    s4 = bias_out0::set(s4, p.csc_bias_out[0]);
    s4 = bias_out1::set(s4, p.csc_bias_out[1]);
    s4 = bias_out2::set(s4, p.csc_bias_out[2]);
    s4 = bias_in0::set(s4, p.csc_bias_in[0]);
    s4 = bias_in1::set(s4, p.csc_bias_in[1]);
    s[4] = bias_in2::set(s4, p.csc_bias_in[2]);
    s[5] = spr_lane2::set(spr_lane1::set(spr_lane0::set(0, p.dtc_mean[0]), p.dtc_mean[1]),
                          p.dtc_mean[2]);
    s[6] =
        spr_lane2::set(spr_lane1::set(spr_lane0::set(0, p.dtc_min[0]), p.dtc_min[1]), p.dtc_min[2]);
    s[7] =
        spr_lane2::set(spr_lane1::set(spr_lane0::set(0, p.dtc_var[0]), p.dtc_var[1]), p.dtc_var[2]);
    const auto& pv = p.padding_value;
    s[8] = spr_lane3::set(spr_lane2::set(spr_lane1::set(spr_lane0::set(0, pv[0]), pv[1]), pv[2]),
                          pv[3]);
    uint64_t c = c_padding_value::set(0, p.c_padding_value);
    c = swap_rb::set(c, p.swap_rb ? 1 : 0);
    c = swap_uv::set(c, p.swap_uv ? 1 : 0);
    c = swap_ax::set(c, p.swap_ax ? 1 : 0);
    c = input_format::set(c, static_cast<uint64_t>(p.format));
    c = single_line::set(c, p.single_line ? 1 : 0);
    c = padding_mode::set(c, p.padding_mode);
    c = dtc_round_mode::set(c, p.dtc_round_mode);
    s[9] = c_padding_mode::set(c, p.c_padding_mode);
    return s;
}

std::array<uint64_t, 3> pack_load(const LoadParams& l) {
    uint64_t size = horiz_size_m1::set(0, l.horiz_size - 1u);
    size = vert_size_m1::set(size, l.vert_size - 1u);
    size = src_horiz_size_m1::set(size, l.src_horiz_size - 1u);
    const uint64_t origin = vert_start::set(horiz_start::set(0, l.horiz_start), l.vert_start);
    uint64_t pad = top_pad::set(0, l.top_pad);
    pad = bot_pad::set(pad, l.bot_pad);
    pad = left_pad::set(pad, l.left_pad);
    pad = right_pad::set(pad, l.right_pad);
    return {size, origin, sid::set(pad, l.sid)};
}

uint64_t pack_dst_type(OutputType t) {
    return dst_type::set(0, static_cast<uint64_t>(t));
}

std::string unpack(const std::array<uint64_t, 10>& s, const std::array<uint64_t, 3>& load,
                   uint64_t dst, uint64_t type, Programmed& out) {
    Params& p = out.params;
    const uint64_t f = input_format::get(s[9]);
    if (f != 0 && f != 1 && f != 4 && f != 9) {
        return fmt::format(
            "SPR9 format is {}, expected 0 (YUV420SP_U8), 1 (XRGB8888_U8), 4 "
            "(RGB888_U8) or 9 (YUV400_U8)",
            f);
    }
    const uint64_t t = dst_type::get(type);
    if (t > 2) {
        return fmt::format("DST_TYPE is {}, expected 0 (uint8), 1 (int8) or 2 (half)", t);
    }
    p.format = static_cast<InputFormat>(f);
    p.output = static_cast<OutputType>(t);
    out.src0_addr = src_addr::get(s[0]);
    out.src1_addr = src_addr::get(s[1]);
    p.csc_enable = csc_enable::get(s[1]) != 0;
    p.csc_matrix = {
        s16(spr_lane0::get(s[2])), s16(spr_lane1::get(s[2])), s16(spr_lane2::get(s[2])),
        s16(spr_lane3::get(s[2])), s16(spr_lane0::get(s[3])), s16(spr_lane1::get(s[3])),
        s16(spr_lane2::get(s[3])), s16(spr_lane3::get(s[3])), s16(spr_lane0::get(s[4]))};
    p.csc_bias_out = {static_cast<uint8_t>(bias_out0::get(s[4])),
                      static_cast<uint8_t>(bias_out1::get(s[4])),
                      static_cast<uint8_t>(bias_out2::get(s[4]))};
    p.csc_bias_in = {static_cast<uint8_t>(bias_in0::get(s[4])),
                     static_cast<uint8_t>(bias_in1::get(s[4])),
                     static_cast<uint8_t>(bias_in2::get(s[4]))};
    for (size_t k = 0; k < 3; ++k) {
        const unsigned shift = static_cast<unsigned>(16 * k);
        p.dtc_mean[k] = static_cast<uint8_t>(s[5] >> shift);
        p.dtc_min[k] = static_cast<uint16_t>(s[6] >> shift);
        p.dtc_var[k] = static_cast<uint16_t>(s[7] >> shift);
    }
    for (size_t k = 0; k < 4; ++k) {
        p.padding_value[k] = static_cast<uint16_t>(s[8] >> (16 * k));
    }
    p.c_padding_value = static_cast<uint16_t>(c_padding_value::get(s[9]));
    p.swap_rb = swap_rb::get(s[9]) != 0;
    p.swap_uv = swap_uv::get(s[9]) != 0;
    p.swap_ax = swap_ax::get(s[9]) != 0;
    p.single_line = single_line::get(s[9]) != 0;
    p.padding_mode = static_cast<uint32_t>(padding_mode::get(s[9]));
    p.dtc_round_mode = static_cast<uint32_t>(dtc_round_mode::get(s[9]));
    p.c_padding_mode = static_cast<uint32_t>(c_padding_mode::get(s[9]));
    LoadParams& l = out.load;
    l.horiz_size = static_cast<uint32_t>(horiz_size_m1::get(load[0])) + 1;
    l.vert_size = static_cast<uint32_t>(vert_size_m1::get(load[0])) + 1;
    l.src_horiz_size = static_cast<uint32_t>(src_horiz_size_m1::get(load[0])) + 1;
    l.horiz_start = static_cast<uint32_t>(horiz_start::get(load[1]));
    l.vert_start = static_cast<uint32_t>(vert_start::get(load[1]));
    l.top_pad = static_cast<uint32_t>(top_pad::get(load[2]));
    l.bot_pad = static_cast<uint32_t>(bot_pad::get(load[2]));
    l.left_pad = static_cast<uint32_t>(left_pad::get(load[2]));
    l.right_pad = static_cast<uint32_t>(right_pad::get(load[2]));
    l.sid = static_cast<uint32_t>(sid::get(load[2]));
    out.dst_addr = dst_addr::get(dst);
    return "";
}

}  // namespace npu::aipp::regs
