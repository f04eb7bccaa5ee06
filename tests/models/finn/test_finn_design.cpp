// A chain of layers with FIFOs: the interval between frames comes out of the simulation (the
// slowest layer's formula once FIFOs are deep enough), 2-deep FIFOs cost throughput where a
// producer's output and its consumer's input are out of phase, size_fifos() restores the rate
// with the smallest depths, and a bad chain is refused naming the layer.
#include <random>

#include "models/finn/finn_cost.h"
#include "models/finn/finn_design.h"
#include "sim/core/error.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

finn::Mvau dense(unsigned mw, unsigned mh, std::mt19937& rng) {
    finn::Mvau m;
    m.mw = mw, m.mh = mh;
    m.in = m.weight = finn::DataType::sint(4);
    for (unsigned i = 0; i < mw * mh; ++i) {
        m.weights.push_back(static_cast<int64_t>(rng() % 16) - 8);
    }
    return m;
}

std::vector<int64_t> inputs(size_t n, std::mt19937& rng) {
    std::vector<int64_t> x(n);
    for (int64_t& v : x) {
        v = static_cast<int64_t>(rng() % 16) - 8;
    }
    return x;
}

// A: 16 -> 4, NF 4, SF 16: its 4 output words leave at cycles 15, 31, 47, 63 of each frame.
// B: 4 -> 16, NF 16, SF 4: it wants its 4 input words in the first 4 cycles of its frame.
// Both take 64 cycles a frame, out of phase: behind 2 slots A is held while B computes.
finn::Design out_of_phase(std::mt19937& rng) {
    finn::Design d;
    d.layers = {{"MVAU_A", dense(16, 4, rng)}, {"MVAU_B", dense(4, 16, rng)}};
    return d;
}

TEST_F(ScTest, ShallowFifosCostThroughputAndSizingRestoresIt) {
    std::mt19937 rng(21);
    const finn::Design d = out_of_phase(rng);
    constexpr uint64_t kFrames = 8;
    const auto x = inputs(kFrames * 16, rng);
    const auto& a = std::get<finn::Mvau>(d.layers[0].op);
    const auto& b = std::get<finn::Mvau>(d.layers[1].op);
    const std::vector<int64_t> want = finn::mvau(b, finn::mvau(a, x));

    const finn::DesignRun shallow = finn::simulate(d, x, kFrames);  // FIFOs of 2
    EXPECT_EQ(shallow.output, want);
    EXPECT_GT(shallow.interval(), 64u);
    EXPECT_GT(shallow.nodes[0].output_stall, 0u);

    const finn::FifoSizing s = finn::size_fifos(d, x, kFrames);
    EXPECT_EQ(s.target_interval, 64u);  // the slowest layer's formula
    EXPECT_EQ(s.interval, 64u);
    ASSERT_EQ(s.depths.size(), 3u);
    EXPECT_EQ(s.depths[0], 2u);  // the source never limits A
    EXPECT_EQ(s.depths[2], 2u);  // the sink takes B's word every 4 cycles
    EXPECT_GT(s.depths[1], 2u);
    EXPECT_LE(s.depths[1], 4u);  // never more than a frame of A's output
    finn::Design sized = d;
    sized.fifo_depths = s.depths;
    const finn::DesignRun good = finn::simulate(sized, x, kFrames);
    EXPECT_EQ(good.output, want);
    EXPECT_EQ(good.interval(), 64u);
    // The smallest: one slot less between A and B is slower again.
    sized.fifo_depths[1] -= 1;
    EXPECT_GT(finn::simulate(sized, x, kFrames).interval(), 64u);
}

TEST_F(ScTest, AConvolutionChainRunsAtItsSlowestLayerAndOverlapsItsLayers) {
    // 8x8x2 image, 3x3 window (SIMD 2) -> MVAU 18 -> 4 over 36 pixels (SIMD 2, PE 2) ->
    // thresholds on 4 channels. Formulas: window 24 + 6·max(54, 8) = 348, MVAU 2·9·36 = 648,
    // thresholds (PE 2) 2·36 = 72.
    std::mt19937 rng(22);
    finn::SwgShape s;
    s.ifm_h = s.ifm_w = 8, s.channels = 2, s.kh = s.kw = 3, s.simd = 2;
    finn::Mvau m = dense(18, 4, rng);
    m.simd = 2, m.pe = 2, m.vectors = 36, m.out = finn::DataType::sint(16);
    finn::ThresholdingLayer t;
    t.channels = 4, t.pe = 2, t.vectors = 36, t.thresholds = {{-10, 0, 10}};
    finn::Design d;
    d.layers = {{"SWG", s}, {"MVAU", m}, {"Thresholding", t}};
    constexpr uint64_t kFrames = 4;
    const auto x = inputs(kFrames * 128, rng);
    const finn::FifoSizing sizing = finn::size_fifos(d, x, kFrames);
    d.fifo_depths = sizing.depths;
    const finn::DesignRun r = finn::simulate(d, x, kFrames);
    EXPECT_EQ(r.output, finn::thresholding(finn::mvau(m, finn::sliding_window(s, x)), 4,
                                           t.thresholds, 0, false));
    EXPECT_EQ(r.nodes[0].formula_cycles, 348u);
    EXPECT_EQ(r.nodes[1].formula_cycles, 648u);
    EXPECT_EQ(r.nodes[2].formula_cycles, 72u);
    EXPECT_EQ(r.interval(), 648u);
    EXPECT_EQ(r.nodes[1].frame_cycles, 648u);
    // FINN's latency estimate is the sum, 1068; the layers overlap.
    EXPECT_LT(r.latency(), 348u + 648 + 72);
    EXPECT_GT(r.latency(), 648u);
    EXPECT_GT(r.nodes[1].busy, 0.9);  // the bottleneck hardly waits
}

TEST_F(ScTest, ABadChainIsRefusedNamingTheLayer) {
    std::mt19937 rng(23);
    finn::Design d = out_of_phase(rng);
    std::get<finn::Mvau>(d.layers[1].op).mw = 5;  // reads 5, A writes 4; 5 % SIMD fine
    std::get<finn::Mvau>(d.layers[1].op).pe = 3;
    const auto problems = finn::check(d);
    ASSERT_EQ(problems.size(), 3u);
    EXPECT_EQ(problems[0], "MVAU_B: MH % PE == 0: MH 16 is not a multiple of PE 3");
    EXPECT_EQ(problems[1], "MVAU_B: weights: 64 values, expected MH x MW = 80");
    EXPECT_EQ(problems[2], "MVAU_B: reads frames of 5 elements, but MVAU_A writes 4");
    d = out_of_phase(rng);
    d.fifo_depths = {2, 2};
    EXPECT_EQ(finn::check(d).front(),
              "2 FIFO depths for 2 layers: expected one per layer and one after the last (3)");
    d.fifo_depths = {2, 0, 2};
    EXPECT_EQ(finn::check(d).front(), "FIFO 1 (MVAU_A -> MVAU_B): depth 0, expected at least 1");
    d.fifo_depths.clear();
    try {
        finn::simulate(d, std::vector<int64_t>(20), 1);
        ADD_FAILURE();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(), "the input holds 20 values, expected 1 frames of 16");
    }
}

}  // namespace
}  // namespace npu::test
