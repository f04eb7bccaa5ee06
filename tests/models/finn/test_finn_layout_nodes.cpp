// The sliding window, VVAU, max-pool, width converter and label select as streaming processes:
// their outputs equal the pure functions', and each frame's simulated cycles equal the formula —
// over FINN's SWG test grid (kernels 2x2, 3x3, 1x5; images 8x8 and 1x21; strides and dilations
// [1,1], [2,2], [2,1]; SIMD 1, 2, 4; plain and depthwise) within FINN's 10 cycles, and exactly
// FINN's own expression where FINN's HLS generator has one.
#include <random>

#include "models/finn/finn_cost.h"
#include "models/finn/finn_design.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

std::vector<int64_t> random_values(size_t n, std::mt19937& rng, int lo = -8, int hi = 7) {
    std::vector<int64_t> x(n);
    for (int64_t& v : x) {
        v = lo + static_cast<int64_t>(rng() % static_cast<unsigned>(hi - lo + 1));
    }
    return x;
}

finn::DesignRun run_alone(finn::LayerOp op, const std::vector<int64_t>& x, uint64_t frames) {
    finn::Design d;
    d.layers.push_back({"node", std::move(op)});
    d.fifo_depths = {4096, 4096};
    return finn::simulate(d, x, frames);
}

// FINN's get_exp_cycles for the HLS generator, written out here from its source
// (convolutioninputgenerator_hls.py): 2D with stride_w in the read term; 1D plain and dws. And
// for the RTL generator's 2D "default" style (convolutioninputgenerator_rtl.py).
uint64_t finn_swg_formula(const finn::SwgShape& s) {
    const uint64_t q = s.channels / s.simd;
    if (!s.is_1d() && s.rtl) {
        const uint64_t buffer = ((s.kh - 1) * s.dil_h * s.ifm_w + (s.kw - 1) * s.dil_w + 1) * q;
        uint64_t row = std::max(s.ofm_w() * s.kw * s.kh * q, s.stride_w * s.ifm_w * q);
        row += s.depthwise ? s.ofm_w() * (s.stride_w - 1) * (q - 1) : 0;
        return buffer + s.ofm_h() * row + (s.depthwise ? (s.stride_h - 1) * s.ifm_w * q : 0);
    }
    if (!s.is_1d()) {
        return s.ifm_w * s.kh * s.dil_h * q +
               s.ofm_h() * std::max(s.ofm_w() * s.kw * s.kh * q, s.stride_w * s.ifm_w * q);
    }
    const uint64_t base = 1 + s.ofm_w() * s.kw * q;
    return s.depthwise ? base + q * (s.kw - 1) - (s.kw - 1) : base;
}

TEST_F(ScTest, SlidingWindowFollowsTheFormulaOverFinnsGrid) {
    std::mt19937 rng(11);
    constexpr uint64_t kFrames = 2, kChannels = 4;
    const std::pair<uint64_t, uint64_t> kernels[] = {{2, 2}, {3, 3}, {1, 5}};
    const std::pair<uint64_t, uint64_t> images[] = {{8, 8}, {1, 21}};
    const std::pair<uint64_t, uint64_t> steps[] = {{1, 1}, {2, 2}, {2, 1}};
    int cases = 0;
    for (auto [kh, kw] : kernels) {
        for (auto [ih, iw] : images) {
            for (auto [sh, sw] : steps) {
                for (auto [dh, dw] : steps) {
                    for (uint64_t simd : {1u, 2u, 4u}) {
                        for (int style = 0; style < 4; ++style) {
                            const bool depthwise = style % 2 != 0, rtl = style >= 2;
                            finn::SwgShape s;
                            s.ifm_h = ih, s.ifm_w = iw, s.channels = kChannels, s.kh = kh;
                            s.kw = kw, s.stride_h = sh, s.stride_w = sw, s.dil_h = dh;
                            s.dil_w = dw, s.simd = simd, s.depthwise = depthwise;
                            s.rtl = rtl;
                            if (!finn::check(s).empty()) {
                                continue;  // the kernel does not fit the image: FINN skips too
                            }
                            SCOPED_TRACE(testing::Message()
                                         << "k " << kh << "x" << kw << " ifm " << ih << "x" << iw
                                         << " stride " << sh << "," << sw << " dil " << dh << ","
                                         << dw << " simd " << simd << " dw " << depthwise << " rtl "
                                         << rtl);
                            const auto x = random_values(kFrames * ih * iw * kChannels, rng);
                            const finn::DesignRun r = run_alone(s, x, kFrames);
                            EXPECT_EQ(r.output, finn::sliding_window(s, x));
                            const uint64_t formula = finn::swg_cycles(s);
                            EXPECT_EQ(r.nodes[0].formula_cycles, formula);
                            EXPECT_EQ(r.nodes[0].frame_cycles, formula);
                            // FINN's expression where its generator applies: square strides in
                            // 2D, HLS 1D without dilation (the RTL 1D formula, N + 2, is ours
                            // ± 1 without dilation: checked below).
                            const bool finn_has_it = s.is_1d() ? dw == 1 && !rtl : sh == sw;
                            if (finn_has_it) {
                                EXPECT_EQ(formula, finn_swg_formula(s));
                            }
                            if (s.is_1d() && rtl && dw == 1 && !depthwise) {  // FINN: N + 2
                                EXPECT_EQ(formula + 1, s.out_words() + 2);    // ours: N + 1
                            }
                            ++cases;
                        }
                    }
                }
            }
        }
    }
    // 8x8: 2x2 and 3x3 with each dilation, 1x5 without a column dilation of 2 (it spans 9);
    // 1x21: only 1x5, with each dilation. Each with 3 strides, 3 SIMD, plain and depthwise, HLS
    // and RTL.
    EXPECT_EQ(cases, (3 + 3 + 2 + 3) * 3 * 3 * 2 * 2);
}

TEST_F(ScTest, VvauFollowsTheFormulaAfterADepthwiseWindow) {
    // 8 channels, 3x3 kernel over a 6x6 image: a depthwise window (SIMD = the VVAU's PE) feeds
    // the VVAU, which must give the depthwise convolution computed here by hand-written loops.
    std::mt19937 rng(12);
    for (unsigned pe : {1u, 2u, 8u}) {
        for (unsigned simd : {1u, 3u, 9u}) {
            SCOPED_TRACE(testing::Message() << "PE " << pe << " SIMD " << simd);
            finn::SwgShape s;
            s.ifm_h = s.ifm_w = 6, s.channels = 8, s.kh = s.kw = 3, s.simd = pe;
            s.depthwise = true;
            finn::Vvau v;
            v.channels = 8, v.kh = v.kw = 3, v.pe = pe, v.simd = simd, v.pixels = 16;
            v.weights = random_values(8 * 9, rng);
            const auto x = random_values(6 * 6 * 8, rng);
            finn::Design d;
            d.layers = {{"swg", s},
                        {"dwc", finn::DwcLayer{pe, uint64_t{pe} * simd, 16 * 9 * 8}},
                        {"vvau", v}};
            const finn::DesignRun r = finn::simulate(d, x, 1);
            std::vector<int64_t> want;
            for (int oy = 0; oy < 4; ++oy) {
                for (int ox = 0; ox < 4; ++ox) {
                    for (int c = 0; c < 8; ++c) {
                        int64_t acc = 0;
                        for (int k = 0; k < 9; ++k) {
                            const int y = oy + k / 3, xx = ox + k % 3;
                            acc += x[static_cast<size_t>((y * 6 + xx) * 8 + c)] *
                                   v.weights[static_cast<size_t>(c * 9 + k)];
                        }
                        want.push_back(acc);
                    }
                }
            }
            EXPECT_EQ(r.output, want);
            EXPECT_EQ(r.nodes[2].formula_cycles, finn::vvau_cycles(8, 3, 3, pe, simd, 4, 4));
            // Fed by the window, the VVAU waits for it; its own iterations are the formula's.
            const finn::NodeReport& n = r.nodes[2];
            EXPECT_EQ(n.end - n.input_stall - n.output_stall, n.formula_cycles);
        }
    }
}

TEST_F(ScTest, MaxPoolWidthConverterAndLabelSelectFollowTheirFormulas) {
    std::mt19937 rng(13);
    finn::PoolShape p2;
    p2.ifm_h = p2.ifm_w = 8, p2.channels = 3, p2.k = 2;
    finn::PoolShape p1;
    p1.ifm_h = 1, p1.ifm_w = 9, p1.channels = 4, p1.k = 2, p1.pe = 2;
    for (const finn::PoolShape& p : {p2, p1}) {
        const auto x = random_values(3 * p.ifm_h * p.ifm_w * p.channels, rng);
        const finn::DesignRun r = run_alone(p, x, 3);
        EXPECT_EQ(r.output, finn::maxpool(p, x));
        EXPECT_EQ(r.nodes[0].frame_cycles, finn::maxpool_cycles(p));
    }
    EXPECT_EQ(finn::maxpool_cycles(p2), 64u + 16);  // FINN: 8·8·(1 + 1/4)
    for (auto [in, out] : {std::pair<uint64_t, uint64_t>{4, 6}, {6, 4}, {2, 8}, {8, 2}}) {
        SCOPED_TRACE(testing::Message() << in << " -> " << out);
        const auto x = random_values(4 * 24, rng);
        const finn::DesignRun r = run_alone(finn::DwcLayer{in, out, 24}, x, 4);
        EXPECT_EQ(r.output, x);
        EXPECT_EQ(r.nodes[0].frame_cycles, std::max(24 / in, 24 / out));
    }
    const auto x = random_values(3 * 10, rng, 0, 5);
    const finn::DesignRun r = run_alone(finn::LabelSelectLayer{10, 2, 3}, x, 3);
    EXPECT_EQ(r.output, finn::label_select(x, 10, 3));
    EXPECT_EQ(r.nodes[0].frame_cycles, 5u + 3);
}

}  // namespace
}  // namespace npu::test
