// The 12-word layer argument: hand-built words decode to the right fields, every field round-trips,
// and validate() names the field a hardware engineer would look at.
#include <random>

#include <gtest/gtest.h>

#include "models/k210_kpu/kpu_layer_args.h"
#include "tests/models/k210_kpu/random_layer.h"

namespace npu::kpu {
namespace {

// The first layer of a 320x240 RGB face detector: 3 -> 16 channels, 3x3, max pool 2x2 stride 2,
// input at line 29168 (the top 230400 bytes of the RAM), words assembled by hand from §2.
Words face_layer0() {
    Words w{};
    w[0] = 1;                                                          // int_en
    w[1] = 29168ull | (0ull << 32);                                    // src, dst lines
    w[2] = 2ull | (15ull << 32) | (15ull << 48);                       // IC-1, OC-1, coef
    w[3] = 319ull | (239ull << 10) | (159ull << 32) | (119ull << 42);  // 320x240 -> 160x120
    w[4] =
        1ull | (1ull << 4) | (1ull << 10) | (15ull << 16) | (0x80ull << 24) | (0x80012340ull << 32);
    w[5] = 1ull | (0ull << 1) | (432ull << 15) | (0x80001000ull << 32);  // 16·3·9 = 432 bytes
    w[7] = 1200ull | (5ull << 16) | (1ull << 28) | (1ull << 31) | (0x80002000ull << 32);
    w[8] = 360ull | (3ull << 16) | (1ull << 20);  // 160 wide: 3 lines/row
    w[9] = 15ull | (0ull << 4) | (0xfffff0ull << 8) | (0xa78000ull << 32);
    w[10] = 0xff00000000ull;  // arg_add = -2^32
    w[11] = 0;
    return w;
}

TEST(LayerArgs, DecodesHandBuiltWords) {
    const LayerArgs a = decode(face_layer0());
    EXPECT_TRUE(a.int_en);
    EXPECT_EQ(a.image_src_addr, 29168u);
    EXPECT_EQ(a.in_channels(), 3);
    EXPECT_EQ(a.out_channels(), 16);
    EXPECT_EQ(a.o_ch_num_coef, 15u);
    EXPECT_EQ(a.in_width(), 320);
    EXPECT_EQ(a.in_height(), 240);
    EXPECT_EQ(a.out_width(), 160);
    EXPECT_EQ(a.out_height(), 120);
    EXPECT_EQ(a.kernel_size(), 3);
    EXPECT_EQ(a.pool_type, 1u);
    EXPECT_EQ(a.dma_burst_size, 15u);
    EXPECT_EQ(a.pad_value, 0x80u);
    EXPECT_EQ(a.bwsx_base_addr, 0x80012340u);
    EXPECT_EQ(a.para_size, 432u);
    EXPECT_EQ(a.para_start_addr, 0x80001000u);
    EXPECT_EQ(a.channel_switch_addr, 1200u);  // 5 lines per row x 240 rows
    EXPECT_EQ(a.row_switch_addr, 5u);
    EXPECT_EQ(a.coef_group, 1u);
    EXPECT_TRUE(a.load_act);
    EXPECT_EQ(a.active_addr, 0x80002000u);
    EXPECT_EQ(a.wb_channel_switch_addr, 360u);
    EXPECT_EQ(a.shr_w, 15u);
    EXPECT_EQ(a.arg_w, -16);       // 0xfffff0 sign-extended from 24 bits
    EXPECT_EQ(a.arg_x, -5799936);  // 0xa78000: a real v3 model's value
    EXPECT_EQ(a.arg_add, -(int64_t{1} << 32));
    EXPECT_EQ(encode(a), face_layer0());
    EXPECT_TRUE(validate(a, true).empty());
}

TEST(LayerArgs, EveryFieldRoundTrips) {
    std::mt19937_64 rng(7);
    for (int i = 0; i < 2000; ++i) {
        Words w;
        for (uint64_t& x : w) {
            x = rng();
        }
        const LayerArgs a = decode(w);
        const Words back = encode(a);
        EXPECT_EQ(decode(back), a);
        // Every defined bit survives; reserved bits come back as zero.
        const Words again = encode(decode(back));
        EXPECT_EQ(again, back);
    }
}

TEST(LayerArgs, FieldListCoversAllDefinedBits) {
    // Setting every field to all ones must set exactly the documented bits of each word.
    LayerArgs ones;
    visit_fields(ones, [](int, auto tag, auto& member, const char*) {
        using F = typename decltype(tag)::type;
        using T = std::decay_t<decltype(member)>;
        member = static_cast<T>(F::max);
    });
    const Words w = encode(ones);
    EXPECT_EQ(w[0], 0xfull);
    EXPECT_EQ(w[1], 0x00007fff00007fffull);
    EXPECT_EQ(w[2], 0x03ff03ff000003ffull);
    EXPECT_EQ(w[3], 0x0007ffff0007ffffull);
    EXPECT_EQ(w[4], 0xffffffffffff07ffull);
    EXPECT_EQ(w[5], 0xffffffffffff807full);
    EXPECT_EQ(w[6], 0x000000000000ffffull);
    EXPECT_EQ(w[7], 0xffffffffffff7fffull);
    EXPECT_EQ(w[8], 0x00000000007f7fffull);
    EXPECT_EQ(w[9], 0x00ffffffffffffffull);
    EXPECT_EQ(w[10], 0x000000ffffffffffull);
    EXPECT_EQ(w[11], 0xffffffffffff0001ull);
}

TEST(LayerArgs, ValidateNamesTheField) {
    LayerArgs a = decode(face_layer0());
    a.kernel_type = 2;
    a.pool_type = 12;
    a.coef_group = 3;
    a.active_addr = 0x80002010;
    a.image_dst_addr = 32760;  // 16 x 120 x 3 lines do not fit above line 32760
    const auto p = validate(a, true);
    std::vector<std::string> fields;
    for (const Problem& x : p) {
        fields.push_back(x.field + ": " + x.message);
    }
    EXPECT_EQ(fields,
              (std::vector<std::string>{
                  "kernel_type: is 2, expected 0 (1x1) or 1 (3x3)",
                  "pool_type: is 12, expected 0..9",
                  "coef_group: is 3, expected 1, 2 or 4",
                  "image_dst_addr: output feature map at line 32760 ends at byte 0x259e00, "
                  "past the 2 MiB RAM",
                  "active_addr: is 0x80002010, must be 256-byte aligned",
                  "para_size: is 432, expected (o_ch_num_coef + 1) × bytes per output channel "
                  "= 16 × 3 = 48",
              }));
}

TEST(LayerArgs, FatalProblemsAreThoseThatCannotRun) {
    LayerArgs a = decode(face_layer0());
    a.active_addr = 0x80002010;  // misaligned table: the layer still runs (with a warning)
    a.para_size = 1;             // inconsistent chunking: runs too
    auto p = validate(a, true);
    ASSERT_EQ(p.size(), 2u);
    EXPECT_FALSE(any_fatal(p));
    a.full_add = true;  // unmodelled output format: cannot run
    p = validate(a, true);
    EXPECT_TRUE(any_fatal(p));
    EXPECT_EQ(p[0].field, "full_add");
    EXPECT_TRUE(p[0].fatal);
    // Fields that would read past the RAM through the layer's own geometry are fatal as well.
    a = decode(face_layer0());
    a.channel_switch_addr = 4000;  // 3 channel blocks of 4000 lines from line 29168
    p = validate(a, true);
    EXPECT_TRUE(any_fatal(p));
    EXPECT_EQ(p.back().field, "image_src_addr");
}

TEST(LayerArgs, ValidateChecksLayoutAgainstWidth) {
    LayerArgs a = decode(face_layer0());
    a.row_switch_addr = 4;
    a.wb_group = 2;
    const auto p = validate(a, true);
    ASSERT_EQ(p.size(), 2u);
    EXPECT_EQ(p[0].field, "row_switch_addr");
    EXPECT_EQ(p[0].message, "is 4 but a row of width 320 takes 5 line(s)");
    EXPECT_EQ(p[1].field, "wb_group");
    EXPECT_EQ(p[1].message, "is 2 but a row of width 160 needs 1 channel(s) per 64-byte line");
}

TEST(LayerArgs, RandomCompilerStyleLayersAreValid) {
    std::mt19937_64 rng(3);
    for (int i = 0; i < 300; ++i) {
        const bool eight = i % 3 != 0;
        const test::RandomLayer r = test::random_layer(rng, eight);
        const auto p = validate(r.args, eight);
        EXPECT_TRUE(p.empty()) << p.front().field << ": " << p.front().message;
    }
}

}  // namespace
}  // namespace npu::kpu
