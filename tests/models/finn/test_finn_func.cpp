// FINN's data types, stream packing, thresholds, the MVAU (integer and XNOR-popcount) and the
// cycle formulas, each against values worked by hand from the QONNX/FINN definitions
// (../shared/reference/seed_systems.md §4, finn_dataflow.md).
#include <random>

#include <gtest/gtest.h>

#include "models/finn/finn_cost.h"
#include "models/finn/finn_func.h"
#include "models/finn/finn_types.h"
#include "sim/core/error.h"

namespace npu::finn {
namespace {

TEST(FinnTypes, NamesRangesAndRefusals) {
    const DataType i4 = DataType::parse("INT4"), u2 = DataType::parse("UINT2");
    EXPECT_EQ(i4.min(), -8);
    EXPECT_EQ(i4.max(), 7);
    EXPECT_EQ(u2.max(), 3);
    EXPECT_EQ(DataType::parse("BIPOLAR").min(), -1);
    EXPECT_EQ(DataType::parse("BINARY").max(), 1);
    EXPECT_EQ(DataType::parse("INT64").min(), INT64_MIN);
    EXPECT_EQ(i4.name(), "INT4");
    for (const char* bad : {"INT0", "INT65", "INT08", "FLOAT32", "UINT", "int4", "INT4x", ""}) {
        try {
            DataType::parse(bad);
            ADD_FAILURE() << bad;
        } catch (const sim::Error& e) {
            EXPECT_NE(std::string(e.what()).find(std::string("'") + bad + "'"), std::string::npos)
                << e.what();
        }
    }
}

TEST(FinnTypes, RandomNamesAreAnErrorOrAType) {
    std::mt19937 rng(5);
    const char pick[] = "UINTBIPOLARY0123456789x- ";
    for (int i = 0; i < 20000; ++i) {
        std::string s(rng() % 9, ' ');
        for (char& c : s) {
            c = pick[rng() % (sizeof pick - 1)];
        }
        try {
            const DataType t = DataType::parse(s);
            EXPECT_EQ(t.name(), s);  // a type parses to its own name
        } catch (const sim::Error&) {
        }
    }
}

TEST(FinnTypes, PackingPutsElementZeroInTheLowBits) {
    // INT4 {-1, 2, 7, -8}: nibbles F, 2, 7, 8 -> bytes 0x2F, 0x87.
    const DataType i4 = DataType::sint(4);
    EXPECT_EQ(pack({-1, 2, 7, -8}, i4), (std::vector<uint8_t>{0x2f, 0x87}));
    EXPECT_EQ(unpack({0x2f, 0x87}, 4, i4), (std::vector<int64_t>{-1, 2, 7, -8}));
    // BIPOLAR {+1, -1, -1, +1, +1}: bits 1 0 0 1 1 -> 0b11001.
    const DataType bp = DataType::bipolar();
    EXPECT_EQ(pack({1, -1, -1, 1, 1}, bp), (std::vector<uint8_t>{0x19}));
    EXPECT_EQ(unpack({0x19}, 5, bp), (std::vector<int64_t>{1, -1, -1, 1, 1}));
    // UINT3 across a byte boundary: {5, 6, 7} -> 101 110 111 -> 0b1_1111_0101 -> 0xF5, 0x01.
    EXPECT_EQ(pack({5, 6, 7}, DataType::uint(3)), (std::vector<uint8_t>{0xf5, 0x01}));
    EXPECT_THROW(pack({0}, bp), sim::Error);  // 0 is not bipolar
    EXPECT_THROW(pack({8}, i4), sim::Error);
}

TEST(FinnFunc, ThresholdingCountsTheThresholdsReached) {
    // Channels 0..2 with thresholds {1, 4}, {3}, {5, 6, 7}; ActVal -1.
    const Thresholds t{{1, 4}, {3}, {5, 6, 7}};
    EXPECT_EQ(thresholding({0, 3, 5, -2, 4, 9}, 3, t, -1, false),
              (std::vector<int64_t>{-1, 0, 0, -1, 0, 2}));
    // One row for every channel, BIPOLAR output: 2·count - 1.
    EXPECT_EQ(thresholding({-1, 0, 2}, 3, {{0}}, 0, true), (std::vector<int64_t>{-1, 1, 1}));
    EXPECT_THROW(thresholding({1, 2}, 3, t, 0, false), sim::Error);
}

TEST(FinnFunc, MvauIntegerAndThresholded) {
    Mvau m;
    m.mw = 4, m.mh = 2, m.pe = 2, m.simd = 2;
    m.in = DataType::sint(4), m.weight = DataType::sint(4);
    m.weights = {1, -2, 3, 0, 2, 2, -1, 1};
    // o0 = 1·1 - 2·2 + 3·3 + 0 = 6; o1 = 2 + 4 - 3 + 4 = 7; second vector x = -x: -6, -7.
    EXPECT_EQ(mvau(m, {1, 2, 3, 4, -1, -2, -3, -4}), (std::vector<int64_t>{6, 7, -6, -7}));
    m.thresholds = {{0, 5, 7}, {8}};  // o0: 0 and 5 reached; o1: none
    m.act_val = 0;
    EXPECT_EQ(mvau(m, {1, 2, 3, 4}), (std::vector<int64_t>{2, 0}));
}

TEST(FinnFunc, MvauBipolarIsXnorPopcount) {
    Mvau m;
    m.mw = 4, m.mh = 1;
    m.in = m.weight = DataType::bipolar();
    m.weights = {1, 1, -1, -1};
    // x = {+1, -1, -1, +1}: positions 0 and 2 agree -> 2 = (dot 0 + MW 4) / 2.
    EXPECT_EQ(mvau(m, {1, -1, -1, 1}), (std::vector<int64_t>{2}));
    m.in = m.weight = DataType::binary();  // binaryXnorMode: 0/1 bits agree or not
    m.binary_xnor = true;
    m.weights = {1, 1, 0, 0};
    EXPECT_EQ(mvau(m, {1, 0, 0, 1}), (std::vector<int64_t>{2}));
}

TEST(FinnFunc, FoldingRulesAreOneMessageEach) {
    Mvau m;
    m.mw = 6, m.mh = 10, m.pe = 4, m.simd = 4;
    m.weights.assign(60, 0);
    const std::vector<std::string> e = check(m);
    ASSERT_EQ(e.size(), 2u);
    EXPECT_EQ(e[0], "MH % PE == 0: MH 10 is not a multiple of PE 4");
    EXPECT_EQ(e[1], "MW % SIMD == 0: MW 6 is not a multiple of SIMD 4");
    m.pe = 5, m.simd = 3;
    m.weights[7] = 300;  // not an INT8 value
    ASSERT_EQ(check(m).size(), 1u);
    EXPECT_EQ(check(m)[0], "weight 7 is 300: not a INT8 value");
    EXPECT_THROW(mvau(m, std::vector<int64_t>(6)), sim::Error);
}

TEST(FinnCost, FinnsFormulasWorkedByHand) {
    // MVAU mw = mh = 16 (FINN's test grid): fully folded, PE 2 / SIMD 4, fully parallel.
    EXPECT_EQ(mvau_cycles(16, 16, 1, 1, 1), 256u);
    EXPECT_EQ(mvau_cycles(16, 16, 2, 4, 1), 32u);
    EXPECT_EQ(mvau_cycles(16, 16, 16, 16, 1), 1u);
    EXPECT_EQ(mvau_cycles(64, 64, 4, 8, 36), 16u * 8 * 36);
    EXPECT_EQ(thresholding_cycles(64, 4, 36), 16u * 36);
    EXPECT_EQ(vvau_cycles(32, 3, 3, 4, 3, 8, 8), 32u * 9 / 4 / 3 * 64);
    // SWG 8x8x2, 3x3, stride 1: OFM 6; 8·3·1·2 + 6·max(6·3·3·2, 1·8·2) = 48 + 648.
    SwgShape s;
    s.ifm_w = s.ifm_h = 8, s.channels = 2, s.kh = s.kw = 3;
    EXPECT_EQ(s.ofm_w(), 6u);
    EXPECT_EQ(swg_cycles(s), 696u);
    s.stride_h = s.stride_w = 2;  // OFM 3: 48 + 3·max(3·18 = 54, 2·8·2 = 32)
    EXPECT_EQ(swg_cycles(s), 48u + 3 * 54);
    const NetworkEstimate e = estimate_chain({32, 100, 7}, 100e6);
    EXPECT_EQ(e.max_cycles, 100u);
    EXPECT_EQ(e.bottleneck, 1u);
    EXPECT_EQ(e.sum_cycles, 139u);
    EXPECT_DOUBLE_EQ(e.frames_per_second, 1e6);
}

TEST(FinnCost, FinnsOwnNumbersWhereOursDiffer) {
    // streamingmaxpool.py, 2D: int(IFM_w · IFM_w · (1 + 1/K²)) in floating point. 4x4, K 2:
    // 16 · 1.25 = 20, ours 16 + 4 = 20; 5x5, K 2: int(25 · 1.25) = 31, ours 25 + 2·2 = 29;
    // 7x7, K 3: int(49 · 1.111...) = 54, ours 49 + 4 = 53.
    PoolShape p;
    p.ifm_h = p.ifm_w = 4, p.channels = 8, p.k = 2;
    EXPECT_EQ(finn_maxpool_cycles(p), 20u);
    EXPECT_EQ(maxpool_cycles(p), 20u);
    p.ifm_h = p.ifm_w = 5;
    EXPECT_EQ(finn_maxpool_cycles(p), 31u);
    EXPECT_EQ(maxpool_cycles(p), 29u);
    p.ifm_h = p.ifm_w = 7, p.k = 3;
    EXPECT_EQ(finn_maxpool_cycles(p), 54u);
    // 1D, 1x9, K 2, 8 channels at PE 2: OFM 4 · NF 4 · 3 = 48; ours adds NF for the dropped pixel.
    p.ifm_h = 1, p.ifm_w = 9, p.k = 2, p.pe = 2;
    EXPECT_EQ(finn_maxpool_cycles(p), 48u);
    EXPECT_EQ(maxpool_cycles(p), 52u);
    // labelselect.py: int(Labels / PE); ours adds the K output words.
    EXPECT_EQ(finn_labelselect_cycles(10, 1), 10u);
    EXPECT_EQ(labelselect_cycles(10, 1, 1), 11u);
    EXPECT_EQ(finn_labelselect_cycles(10, 5), 2u);
    // streamingdatawidthconverter.py: np.prod(folded input) + np.prod(folded output), both the
    // frame's elements: 64 elements 16 -> 4 a word: 128; ours max(4, 16) words = 16.
    EXPECT_EQ(finn_dwc_cycles(64), 128u);
    EXPECT_EQ(dwc_cycles(64 / 16, 64 / 4), 16u);
    // dataflow_performance: the first of equal slowest nodes is the bottleneck.
    const NetworkEstimate e = estimate_chain({16, 16, 10}, 100e6);
    EXPECT_EQ(e.bottleneck, 0u);
    EXPECT_EQ(e.sum_cycles, 42u);
}

TEST(FinnTypes, FixedPointIsARawSignedIntegerWithFractionBits) {
    const DataType t = DataType::parse("FIXED<8,4>");
    EXPECT_EQ(t.kind(), DataType::Kind::Fixed);
    EXPECT_EQ(t.name(), "FIXED<8,4>");
    EXPECT_EQ(t.bits(), 8u);
    EXPECT_EQ(t.frac_bits(), 4u);  // raw 24 means 1.5
    EXPECT_EQ(t.min(), -128);
    EXPECT_EQ(t.max(), 127);
    EXPECT_TRUE(t.is_signed());
    EXPECT_NE(t, DataType::sint(8));
    // FIXED<4,2> raw {-1, 3}: 0xF and 0x3, element 0 low.
    EXPECT_EQ(pack({-1, 3}, DataType::fixed(4, 2)), (std::vector<uint8_t>{0x3F}));
    EXPECT_EQ(unpack({0x3F}, 2, DataType::fixed(4, 2)), (std::vector<int64_t>{-1, 3}));
    for (const char* bad : {"FIXED<4,5>", "FIXED<0,0>", "FIXED<8,04>", "FIXED<8>", "FIXED<65,1>",
                            "FIXED<8,4", "FIXED<,>"}) {
        EXPECT_THROW(DataType::parse(bad), sim::Error) << bad;
    }
}

TEST(FinnFunc, TheAccumulatorWrapsToAccDataType) {
    // MW 2, weights {7, 7}, x {1, 1}: 14, which an INT4 accumulator holds as 14 − 16 = −2 and a
    // UINT3 one as 14 mod 8 = 6; none: 14.
    Mvau m;
    m.mw = 2, m.mh = 1, m.weights = {7, 7};
    m.weight = DataType::sint(4);
    EXPECT_EQ(mvau(m, {1, 1}), (std::vector<int64_t>{14}));
    m.acc = DataType::sint(4);
    EXPECT_EQ(mvau(m, {1, 1}), (std::vector<int64_t>{-2}));
    m.acc = DataType::uint(3);
    EXPECT_EQ(mvau(m, {1, 1}), (std::vector<int64_t>{6}));
}

}  // namespace
}  // namespace npu::finn
