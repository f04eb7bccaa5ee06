// The AIPP register packing: SPR words worked by hand from the kernel_reg.h layout
// (../shared/reference/seed_systems.md §2.5), and pack/unpack round trips on random
// configurations.
#include <random>

#include <gtest/gtest.h>

#include "models/aipp/aipp_regs.h"

namespace npu::test {
namespace {

using namespace aipp;

TEST(AippRegs, ControlWordAndCscLanesByHand) {
    Params p;
    p.format = InputFormat::YUV420SP_U8;
    p.swap_uv = true, p.padding_mode = 3, p.c_padding_mode = 1, p.c_padding_value = 0x12;
    p.csc_enable = true;
    p.csc_matrix = {256, 0, 359, 256, -88, -183, 256, 454, 0};
    p.csc_bias_in = {0, 128, 128};
    const auto s = regs::pack_sprs(p, 0x1000, 0x2000);
    // cPaddingValue 0x12 | swapUV << 17 | paddingMode 3 << 27 | cPaddingMode << 40
    EXPECT_EQ(s[9], 0x12u | (1u << 17) | (3u << 27) | (uint64_t{1} << 40));
    EXPECT_EQ(s[9], 0x10018020012u);
    EXPECT_EQ(s[0], 0x1000u);
    EXPECT_EQ(s[1], 0x2000u | (uint64_t{1} << 63));
    // R0C0 256, R0C1 0, R0C2 359 = 0x167, R1C0 256
    EXPECT_EQ(s[2], 0x0100'0167'0000'0100u);
    // R1C1 −88 = 0xffa8, R1C2 −183 = 0xff49, R2C0 256, R2C1 454 = 0x1c6
    EXPECT_EQ(s[3], 0x01c6'0100'ff49'ffa8u);
    // R2C2 0, biasOut 0, 0, 0 at 16/24/32, biasIn 0, 128, 128 at 40/48/56
    EXPECT_EQ(s[4], 0x8080'0000'0000'0000u);
    EXPECT_EQ(s[7], 0x3c00'3c00'3c00u);  // var 1.0 in three fp16 lanes
}

TEST(AippRegs, LoadArgumentsStoreSizesMinusOne) {
    LoadParams l;
    l.horiz_size = 224, l.vert_size = 2, l.src_horiz_size = 4095, l.horiz_start = 48;
    l.vert_start = 8, l.top_pad = 32, l.right_pad = 1, l.sid = 3;
    const auto w = regs::pack_load(l);
    EXPECT_EQ(w[0], 223u | (1u << 16) | (uint64_t{4094} << 32));
    EXPECT_EQ(w[1], 48u | (8u << 16));
    EXPECT_EQ(w[2], 32u | (1u << 24) | (uint64_t{3} << 32));
}

TEST(AippRegs, PackUnpackRoundTrip) {
    std::mt19937_64 rng(12);
    const InputFormat formats[] = {InputFormat::YUV420SP_U8, InputFormat::XRGB8888_U8,
                                   InputFormat::RGB888_U8, InputFormat::YUV400_U8};
    for (int t = 0; t < 500; ++t) {
        Params p;
        p.format = formats[rng() % 4];
        p.output = static_cast<OutputType>(rng() % 3);
        p.padding_mode = static_cast<uint32_t>(rng() % 4);
        for (uint16_t& v : p.padding_value) {
            v = static_cast<uint16_t>(rng());
        }
        p.swap_rb = rng() & 1, p.swap_uv = rng() & 1, p.swap_ax = rng() & 1;
        p.single_line = rng() & 1;
        for (size_t k = 0; k < 3; ++k) {
            p.dtc_mean[k] = static_cast<uint8_t>(rng());
            p.dtc_min[k] = static_cast<uint16_t>(rng());
            p.dtc_var[k] = static_cast<uint16_t>(rng());
            p.csc_bias_in[k] = static_cast<uint8_t>(rng());
            p.csc_bias_out[k] = static_cast<uint8_t>(rng());
        }
        p.dtc_round_mode = static_cast<uint32_t>(rng() & 1);
        p.c_padding_mode = static_cast<uint32_t>(rng() & 1);
        p.c_padding_value = static_cast<uint16_t>(rng());
        p.csc_enable = rng() & 1;
        for (int16_t& m : p.csc_matrix) {
            m = static_cast<int16_t>(rng());
        }
        LoadParams l;
        l.horiz_size = 1 + static_cast<uint32_t>(rng() % 4096);
        l.vert_size = 1 + static_cast<uint32_t>(rng() % 4096);
        l.src_horiz_size = 1 + static_cast<uint32_t>(rng() % 4096);
        l.horiz_start = static_cast<uint32_t>(rng() % 4096);
        l.vert_start = static_cast<uint32_t>(rng() % 4096);
        l.top_pad = static_cast<uint32_t>(rng() % 64),
        l.bot_pad = static_cast<uint32_t>(rng() % 64);
        l.left_pad = static_cast<uint32_t>(rng() % 64);
        l.right_pad = static_cast<uint32_t>(rng() % 64);
        l.sid = static_cast<uint32_t>(rng() % 16);
        const uint64_t a0 = rng() >> 16, a1 = rng() >> 16, dst = rng() >> 16;
        regs::Programmed back;
        ASSERT_EQ(regs::unpack(regs::pack_sprs(p, a0, a1), regs::pack_load(l), dst,
                               regs::pack_dst_type(p.output), back),
                  "");
        const Params& q = back.params;
        ASSERT_EQ(q.format, p.format);
        ASSERT_EQ(q.output, p.output);
        ASSERT_EQ(q.padding_mode, p.padding_mode);
        ASSERT_EQ(q.padding_value, p.padding_value);
        ASSERT_EQ(q.swap_rb, p.swap_rb);
        ASSERT_EQ(q.swap_uv, p.swap_uv);
        ASSERT_EQ(q.swap_ax, p.swap_ax);
        ASSERT_EQ(q.single_line, p.single_line);
        ASSERT_EQ(q.dtc_mean, p.dtc_mean);
        ASSERT_EQ(q.dtc_min, p.dtc_min);
        ASSERT_EQ(q.dtc_var, p.dtc_var);
        ASSERT_EQ(q.dtc_round_mode, p.dtc_round_mode);
        ASSERT_EQ(q.c_padding_mode, p.c_padding_mode);
        ASSERT_EQ(q.c_padding_value, p.c_padding_value);
        ASSERT_EQ(q.csc_enable, p.csc_enable);
        ASSERT_EQ(q.csc_matrix, p.csc_matrix);
        ASSERT_EQ(q.csc_bias_in, p.csc_bias_in);
        ASSERT_EQ(q.csc_bias_out, p.csc_bias_out);
        const LoadParams& m = back.load;
        ASSERT_EQ(m.horiz_size, l.horiz_size);
        ASSERT_EQ(m.vert_size, l.vert_size);
        ASSERT_EQ(m.src_horiz_size, l.src_horiz_size);
        ASSERT_EQ(m.horiz_start, l.horiz_start);
        ASSERT_EQ(m.vert_start, l.vert_start);
        ASSERT_EQ(m.top_pad, l.top_pad);
        ASSERT_EQ(m.bot_pad, l.bot_pad);
        ASSERT_EQ(m.left_pad, l.left_pad);
        ASSERT_EQ(m.right_pad, l.right_pad);
        ASSERT_EQ(m.sid, l.sid);
        ASSERT_EQ(back.src0_addr, a0);
        ASSERT_EQ(back.src1_addr, a1);
        ASSERT_EQ(back.dst_addr, dst);
    }
}

TEST(AippRegs, UndecodableWordsSayWhy) {
    auto s = regs::pack_sprs(Params{}, 0, 0);
    s[9] = regs::input_format::set(s[9], 5);
    regs::Programmed out;
    EXPECT_EQ(regs::unpack(s, regs::pack_load({}), 0, 0, out),
              "SPR9 format is 5, expected 0 (YUV420SP_U8), 1 (XRGB8888_U8), 4 (RGB888_U8) or 9 "
              "(YUV400_U8)");
    EXPECT_EQ(regs::unpack(regs::pack_sprs(Params{}, 0, 0), regs::pack_load({}), 0, 3, out),
              "DST_TYPE is 3, expected 0 (uint8), 1 (int8) or 2 (half)");
}

}  // namespace
}  // namespace npu::test
