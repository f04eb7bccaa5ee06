// The KPU datapath: rounding, activation segments, BN and activation tables, every pool type, and
// convolutions worked by hand.
#include <gtest/gtest.h>

#include "models/k210_kpu/kpu_func.h"

namespace npu::kpu {
namespace {

TEST(ActShift, BankerAsNncaseV02) {
    EXPECT_EQ(act_shift(5, 1, ActRounding::Banker), 2);    // 2.5 -> 2 (even)
    EXPECT_EQ(act_shift(7, 1, ActRounding::Banker), 4);    // 3.5 -> 4 (even)
    EXPECT_EQ(act_shift(6, 2, ActRounding::Banker), 2);    // 1.5 -> 2
    EXPECT_EQ(act_shift(9, 2, ActRounding::Banker), 2);    // 2.25 -> 2
    EXPECT_EQ(act_shift(11, 2, ActRounding::Banker), 3);   // 2.75 -> 3
    EXPECT_EQ(act_shift(-3, 1, ActRounding::Banker), -2);  // -1.5: floor -2, tie, even -> -2
    // nncase's step for negative values: -1.25 -> floor -2, fraction 3/4 > 1/2 -> -2 + (-1) = -3.
    EXPECT_EQ(act_shift(-5, 2, ActRounding::Banker), -3);
    EXPECT_EQ(act_shift(123, 0, ActRounding::Banker), 123);
    EXPECT_EQ(act_shift(int64_t{1} << 50, 62, ActRounding::Banker), 0);
}

TEST(ActShift, CarryAsNncaseV01) {
    EXPECT_EQ(act_shift(5, 1, ActRounding::Carry), 3);  // 2.5 -> 3: half up
    EXPECT_EQ(act_shift(4, 1, ActRounding::Carry), 2);
    EXPECT_EQ(act_shift(6, 2, ActRounding::Carry), 2);    // 6 >> 1 = 3, odd -> 1 + 1
    EXPECT_EQ(act_shift(-5, 1, ActRounding::Carry), -4);  // -5 odd -> (-5 >> 1) - 1 = -4
}

ActTable relu_like() {
    // Segment 0 from -2^35: slope 0, bias 0. Segment 1 from 100: y = (v - 100) · 3 >> 1, bias 10.
    ActTable t{};
    for (auto& s : t) {
        s.x_start = (int64_t{1} << 35) - 1;  // unreachable segments
        s.bias = 255;
    }
    t[0] = {-(int64_t{1} << 35), 0, 0, 0};
    t[1] = {100, 3, 1, 10};
    return t;
}

TEST(Activate, SegmentEdges) {
    const ActTable t = relu_like();
    const Fidelity v02{};
    Fidelity v01;
    v01.segment = SegmentRule::GreaterEqual;
    EXPECT_EQ(activate(99, t, v02), 0);
    EXPECT_EQ(activate(100, t, v02), 0);    // v == x_start: '>' keeps segment 0
    EXPECT_EQ(activate(100, t, v01), 10);   // '>=' takes segment 1: (0 · 3 >> 1) + 10
    EXPECT_EQ(activate(101, t, v02), 12);   // 3 >> 1 = 1.5 -> 2 (even), + 10
    EXPECT_EQ(activate(103, t, v02), 14);   // 9 >> 1 = 4.5 -> 4, + 10
    EXPECT_EQ(activate(300, t, v02), 255);  // 600 / 2 + 10 = 310, clamped
    EXPECT_EQ(activate(-(int64_t{1} << 40), t, v02), 0);  // below every segment: segment 0
}

TEST(Tables, BnAndActivationRoundTrip) {
    const BnParam bn{-123456, 13, -2000000000};
    EXPECT_EQ(encode_bn(bn), 0x0d88ca6c00fe1dc0ull);
    const BnParam back = decode_bn(encode_bn(bn));
    EXPECT_EQ(back.mul, bn.mul);
    EXPECT_EQ(back.shift, bn.shift);
    EXPECT_EQ(back.add, bn.add);

    ActTable t = relu_like();
    t[5] = {-1966080, -6, 20, 7};
    uint8_t bytes[kActTableBytes];
    encode_act(t, bytes);
    // Segment 0 word: x_start -2^35 -> 0x800000000 << 24.
    EXPECT_EQ(bytes[7], 0x08);
    EXPECT_EQ(bytes[128 + 5], 7);
    const ActTable u = decode_act(bytes);
    for (size_t i = 0; i < 16; ++i) {
        EXPECT_EQ(u[i].x_start, t[i].x_start);
        EXPECT_EQ(u[i].y_mul, t[i].y_mul);
        EXPECT_EQ(u[i].shift, t[i].shift);
        EXPECT_EQ(u[i].bias, t[i].bias);
    }
}

TEST(Limit36, Policies) {
    int64_t v = (int64_t{1} << 35) + 5;
    EXPECT_TRUE(limit36(v, Overflow::Keep64));
    EXPECT_EQ(v, (int64_t{1} << 35) + 5);
    EXPECT_TRUE(limit36(v, Overflow::Wrap36));
    EXPECT_EQ(v, -(int64_t{1} << 35) + 5);
    v = -(int64_t{1} << 36);
    EXPECT_TRUE(limit36(v, Overflow::Saturate36));
    EXPECT_EQ(v, -(int64_t{1} << 35));
    v = 12345;
    EXPECT_FALSE(limit36(v, Overflow::Saturate36));
}

// A 5x5 image whose pixel is 10·y + x, one channel, for pool checks by hand.
std::vector<uint8_t> ramp(int h, int w) {
    std::vector<uint8_t> p(static_cast<size_t>(h * w));
    for (int y = 0; y < h; ++y) {
        for (int x = 0; x < w; ++x) {
            p[static_cast<size_t>(y * w + x)] = static_cast<uint8_t>(10 * y + x);
        }
    }
    return p;
}

std::vector<uint8_t> pooled(uint32_t type, int h, int w) {
    const auto in = ramp(h, w);
    std::vector<uint8_t> out(
        static_cast<size_t>(pool_output_size(h, type) * pool_output_size(w, type)));
    pool(in.data(), 1, h, w, type, out.data());
    return out;
}

using V = std::vector<uint8_t>;

TEST(Pool, EveryTypeOnOddAndEvenSizes) {
    // 4x4 ramp: rows 0..3, columns 0..3.
    EXPECT_EQ(pooled(0, 2, 2), (V{0, 1, 10, 11}));
    EXPECT_EQ(pooled(1, 4, 4), (V{11, 13, 31, 33}));
    EXPECT_EQ(pooled(2, 4, 4), (V{5, 7, 25, 27}));  // (0+1+10+11)/4 = 5.5 -> 5
    EXPECT_EQ(pooled(3, 4, 4), (V{33}));
    EXPECT_EQ(pooled(4, 4, 4), (V{16}));  // 264 / 16 = 16.5 -> 16
    EXPECT_EQ(pooled(5, 4, 4), (V{0, 2, 20, 22}));
    EXPECT_EQ(pooled(6, 4, 4), (V{1, 3, 21, 23}));
    EXPECT_EQ(pooled(7, 4, 4), (V{0}));
    // Odd 5x5: stride-2 types drop the last row and column.
    EXPECT_EQ(pooled(1, 5, 5), (V{11, 13, 31, 33}));
    EXPECT_EQ(pooled(6, 5, 5), (V{1, 3, 21, 23}));
    EXPECT_EQ(pooled(4, 5, 5), (V{16}));
    // Stride 1 on 3x3: mean clamps at the edge, max treats outside taps as 0.
    EXPECT_EQ(pooled(8, 3, 3), (V{5, 6, 7, 15, 16, 17, 20, 21, 22}));
    EXPECT_EQ(pooled(9, 3, 3), (V{11, 12, 12, 21, 22, 22, 21, 22, 22}));
    // Right-top pick on a 2x3 image: one output, taken from (0, 1).
    EXPECT_EQ(pooled(6, 2, 3), (V{1}));
}

// One-layer setup helper: input at line 0, output at line 100, natural layouts.
struct Layer {
    LayerArgs a;
    std::vector<uint8_t> ram = std::vector<uint8_t>(kRamBytes, 0);
    std::vector<uint8_t> weights;
    LayerParams p;

    Layer(int ic, int oc, int h, int w, int k, bool dw = false) {
        a.i_ch_num = static_cast<uint32_t>(ic - 1);
        a.o_ch_num = static_cast<uint32_t>(oc - 1);
        a.i_row_wid = a.o_row_wid = static_cast<uint32_t>(w - 1);
        a.i_col_high = a.o_col_high = static_cast<uint32_t>(h - 1);
        a.kernel_type = k == 3 ? 1 : 0;
        a.depth_wise_layer = dw;
        const RowLayout l = row_layout(w);
        a.coef_group = a.wb_group = l.groups;
        a.row_switch_addr = a.wb_row_switch_addr = l.row_lines;
        a.channel_switch_addr = a.wb_channel_switch_addr = l.row_lines * static_cast<uint32_t>(h);
        a.image_dst_addr = 100;
        p.bn.assign(static_cast<size_t>(oc), BnParam{1, 0, 0});  // identity BN
        for (auto& s : p.act) {                                  // segments 2..15 unreachable
            s = {(int64_t{1} << 35) - 1, 0, 0, 255};
        }
        p.act[0] = {-(int64_t{1} << 35), 0, 0, 0};  // v <= -1: 0
        p.act[1] = {-1, 1, 0, 0};                   // v > -1: y = (v + 1) · 1 + 0 = v + 1
    }
    void input(const std::vector<uint8_t>& nchw) {
        upload(nchw.data(), input_geometry(a), ram.data());
    }
    LayerResult run(bool eight_bit = true) {
        p.weights = weights.data();
        return run_layer(a, p, eight_bit, Fidelity{}, ram.data());
    }
};

TEST(Conv, OneByOneWithZeroPointTermsByHand) {
    // 2 input channels, 1 output, 1x2 image. x = {c0: [1, 2], c1: [3, 4]}, w = {5, 6}.
    Layer l(2, 1, 1, 2, 1);
    l.weights = {5, 6};
    l.input({1, 2, 3, 4});
    l.a.arg_x = -2;              // -2 · Σx
    l.a.shr_x = 1;               // >> 1
    l.a.arg_w = 3;               // +3 · Σw = 33
    l.a.arg_add = 7;             // · 2 channels = 14
    l.p.bn[0] = {1, 3, -5};      // (alu >> 3) - 5
    l.p.act[1] = {-1, 1, 0, 1};  // y = (v + 1) + 1
    const LayerResult r = l.run();
    // pixel 0: acc = 1·5 + 3·6 = 23; Σx = 4 -> (-2·4) >> 1 = -4; Σw = 11 -> 3·11 = 33; + 14
    //          alu = 66 -> (66 >> 3) - 5 = 3 -> y = 5.
    // pixel 1: acc = 2·5 + 4·6 = 34; Σx = 6 -> -6; alu = 34 - 6 + 33 + 14 = 75 -> 4 -> y = 6.
    EXPECT_EQ(r.dense_output, (std::vector<uint8_t>{5, 6}));
    EXPECT_EQ(r.macs, 4u);
    EXPECT_EQ(l.ram[100 * 64], 5);  // written back at the output line, W = 2 -> G = 4 layout
    EXPECT_EQ(l.ram[100 * 64 + 1], 6);
}

TEST(Conv, ThreeByThreeUsesPadValueForOutsideTaps) {
    // One channel, 1x1 image of value 10, all nine weights 1, pad_value 2:
    // acc = 10 + 8 · 2 = 26 (padded taps count in the product and in Σx).
    Layer l(1, 1, 1, 1, 3);
    l.weights.assign(9, 1);
    l.input({10});
    l.a.pad_value = 2;
    l.a.arg_x = 1;               // + Σx = 26
    l.p.act[1] = {-1, 1, 0, 0};  // y = v + 1
    const LayerResult r = l.run();
    EXPECT_EQ(r.dense_output[0], 26 + 26 + 1);
}

TEST(Conv, DepthwiseUsesOwnChannelOnly) {
    // 2 channels, 1x1 image {3, 4}, 1x1 depthwise weights {2, 5}: outputs 6 and 20; arg_add once.
    Layer l(2, 2, 1, 1, 1, true);
    l.weights = {2, 5};
    l.input({3, 4});
    l.a.arg_add = 1;
    l.p.act[1] = {-1, 1, 0, 0};
    const LayerResult r = l.run();
    EXPECT_EQ(r.dense_output, (std::vector<uint8_t>{6 + 1 + 1, 20 + 1 + 1}));
    EXPECT_EQ(r.macs, 2u);
}

TEST(Conv, SixteenBitWeights) {
    // 1x1, one channel, weight 0x0102 = 258 little-endian, x = 3 -> 774; BN >> 2 -> 193.
    Layer l(1, 1, 1, 1, 1);
    l.weights = {0x02, 0x01};
    l.input({3});
    l.p.bn[0] = {1, 2, 0};
    l.p.act[1] = {-1, 1, 0, 0};
    const LayerResult r = l.run(false);
    EXPECT_EQ(r.dense_output[0], 193 + 1);
}

TEST(Conv, OverflowIsCounted) {
    Layer l(1, 1, 1, 1, 1);
    l.weights = {1};
    l.input({1});
    l.a.arg_add = int64_t{1} << 38;  // alu beyond 36 bits
    l.p.bn[0] = {1, 15, 0};
    const LayerResult r = l.run();
    EXPECT_EQ(r.overflows, 1u);  // the accumulator; BN brings it back into range
}

}  // namespace
}  // namespace npu::kpu
