// FINN's resource estimates (matrixvectoractivation.py, vectorvectoractivation.py and their
// _hls/_rtl backends), worked by hand from FINN's formulas for layers of the sizes CNV and TFC
// use: BRAM_18K by the memory's width and depth, LUTs by the FINN-R model, DSPs of RTL layers.
#include <gtest/gtest.h>

#include "models/finn/finn_resources.h"

namespace npu::finn {
namespace {

Mvau mvau(unsigned mw, unsigned mh, unsigned pe, unsigned simd, const char* w, const char* a) {
    Mvau m;
    m.mw = mw, m.mh = mh, m.pe = pe, m.simd = simd;
    m.weight = DataType::parse(w), m.in = DataType::parse(a), m.out = DataType::parse("UINT2");
    m.thresholds = Thresholds(mh, std::vector<int64_t>{0, 1, 2});
    return m;
}

TEST(FinnResources, MvauWorkedByHand) {
    // MW = MH = 64, PE 4, SIMD 8, INT2 weights, UINT4 inputs, no accDataType (INT32).
    // WMEM = 64·64/32 = 128 words of 8·2·4 = 64 bits: wider than 18, at most 512 deep:
    // ceil(128/512)·ceil(64/36) = 2 BRAMs. LUTs: alpha = log2(64) + 2 + 4 − 1 − 0 = 11,
    // acc = min(32, ceil(11 + log2(1 + 2^-11) + 1)) = 13; per PE 8·(2·ceil(6/6) − 1)·6 = 48
    // multiplier, 6·(2·8 − 1) = 90 adder tree, 13 accumulator: int(300 + 1.1·4·151) = 964.
    const Mvau m = mvau(64, 64, 4, 8, "INT2", "UINT4");
    LayerStyle s;
    Resources r = mvau_resources(m, s);
    EXPECT_EQ(r.bram_18k, 2u);
    EXPECT_EQ(r.lut, 964u);
    EXPECT_EQ(r.dsp, 0u);
    EXPECT_EQ(r.uram, 0u);
    // Thresholds in LUTs: (2^2 − 1)·13·ceil(16/64) + (2^2 − 1)·13 = 78 more a PE:
    // int(300 + 1.1·4·229) = 1307.
    s.ram_style_thresholds = "distributed";
    EXPECT_EQ(mvau_resources(m, s).lut, 1307u);
    // Embedded weights of at most 128 words go to LUTs: no BRAM, c2 = 4·8·2·ceil(128/64) = 128.
    s = LayerStyle{};
    s.mem_mode = "internal_embedded";
    r = mvau_resources(m, s);
    EXPECT_EQ(r.bram_18k, 0u);
    EXPECT_EQ(r.lut, 1092u);
    // Multiplications in DSPs: no multiplier LUTs (int(300 + 1.1·4·103) = 753), PE·SIMD·
    // ceil(6/48) = 32 DSPs.
    s = LayerStyle{};
    s.res_type = "dsp";
    r = mvau_resources(m, s);
    EXPECT_EQ(r.lut, 753u);
    EXPECT_EQ(r.dsp, 32u);
    // MVAU_rtl: no LUTs counted; DSP48: ceil(PE/4)·SIMD = 8, DSP58: PE·ceil(SIMD/3) = 12.
    s = LayerStyle{};
    s.rtl = true;
    EXPECT_EQ(mvau_resources(m, s).lut, 0u);
    EXPECT_EQ(mvau_resources(m, s).dsp, 8u);
    EXPECT_EQ(mvau_resources(m, s, true).dsp, 12u);
    EXPECT_EQ(mvau_resources(m, s).bram_18k, 2u);
}

TEST(FinnResources, MvauBramsByWidthAndDepth) {
    LayerStyle s;
    // CNV's third conv at PE 8, SIMD 32, binary: 256 bits × 144 words: ceil(256/36) = 8.
    EXPECT_EQ(mvau_resources(mvau(576, 64, 8, 32, "BIPOLAR", "BIPOLAR"), s).bram_18k, 8u);
    // Unfolded 4096 × 1024 binary: one bit wide, 4 Mi words: ceil(4194304/16384) = 256.
    EXPECT_EQ(mvau_resources(mvau(4096, 1024, 1, 1, "BIPOLAR", "BIPOLAR"), s).bram_18k, 256u);
    // 4 bits wide (PE 2, SIMD 2, 1 bit), 2^20 / 4 words: ceil(262144/4096)·1 = 64.
    EXPECT_EQ(mvau_resources(mvau(1024, 1024, 2, 2, "BIPOLAR", "BIPOLAR"), s).bram_18k, 64u);
    // 9 bits (PE 1, SIMD 3, INT3), 1024·1024/3 words: ceil(349525.3/2048)·1 = 171.
    EXPECT_EQ(mvau_resources(mvau(1026, 1024, 1, 3, "INT3", "INT3"), s).bram_18k,
              (1026u * 1024 / 3 + 2047) / 2048);
    // Distributed or ultra weights: no BRAM; ultra: ceil(width/72)·ceil(omega/4096) URAMs.
    s.ram_style = "ultra";
    const Resources r = mvau_resources(mvau(576, 64, 8, 32, "BIPOLAR", "BIPOLAR"), s);
    EXPECT_EQ(r.bram_18k, 0u);
    EXPECT_EQ(r.uram, 4u);  // ceil(256/72) = 4, ceil(144/4096) = 1
}

TEST(FinnResources, VvauWorkedByHand) {
    // 32 channels, 3×3, PE 4, SIMD 3, INT4 weights, UINT4 inputs, accDataType INT16,
    // thresholds to UINT4. WMEM = 9·32/4/3 = 24 ≤ 128 with ram_style auto: no BRAM.
    // acc: alpha = log2(9) + 4 + 4 − 1 = 10.17, ceil(10.17 + 0.001 + 1) = 12 < 16.
    // Per PE: 3·(2·ceil(8/6) − 1)·8 = 72, 8·(2·3 − 1) = 40, 12, thresholds 15·12·8/64 = 22.5
    // and comparators 15·12 = 180: int(300 + 1.1·4·326.5) = 1736.
    Vvau v;
    v.channels = 32, v.kh = v.kw = 3, v.pe = 4, v.simd = 3;
    v.weight = DataType::parse("INT4"), v.in = DataType::parse("UINT4");
    v.out = DataType::parse("UINT4"), v.acc = DataType::parse("INT16");
    v.thresholds = Thresholds(32, std::vector<int64_t>(15, 0));
    LayerStyle s;
    Resources r = vvau_resources(v, s);
    EXPECT_EQ(r.bram_18k, 0u);
    EXPECT_EQ(r.lut, 1736u);
    // Block RAM asked for: 24 words of 3·4·4 = 48 bits, VVAU's steps: ceil(24/512)·ceil(48/32).
    s.ram_style = "block";
    EXPECT_EQ(vvau_resources(v, s).bram_18k, 2u);
}

TEST(FinnResources, StylesFinnDoesNotTakeAreNamed) {
    LayerStyle s;
    EXPECT_EQ(check(s), "");
    s.mem_mode = "decoupled_x";
    EXPECT_NE(check(s).find("mem_mode 'decoupled_x'"), std::string::npos);
    s = LayerStyle{};
    s.res_type = "fabric";
    EXPECT_NE(check(s).find("resType 'fabric'"), std::string::npos);
}

}  // namespace
}  // namespace npu::finn
