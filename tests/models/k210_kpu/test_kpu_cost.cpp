// The KPU timing model: hand-worked terms, and the calibration against the published Sipeed
// measurements (../shared/reference/k210_kpu.md §5.2).
#include <cmath>

#include <gtest/gtest.h>

#include "models/k210_kpu/kpu_cost.h"
#include "models/k210_kpu/kpu_layer_builder.h"
#include "models/k210_kpu/kpu_layout.h"

namespace npu::kpu {
namespace {

// The measured layer: 3x3, 128 -> 128, 16-bit weights, no pooling. The model compiler Sipeed used
// loads 4096 kernels per chunk: 32 output channels x 128 inputs, so 4 chunks of 73,728 bytes.
LayerArgs sipeed_layer(int w, int h) {
    LayerArgs a = build_layer({128, h, w, 128, 3, false, 0, false});
    a.o_ch_num_coef = 31;
    a.para_size = 32 * 128 * 9 * 2;
    a.load_time = 3;
    return a;
}

struct Measured {
    int w, h;
    uint64_t cycles;  // latency × 300 MHz, from the Sipeed table
};

TEST(KpuCost, CalibrationAgainstSipeedTable) {
    const Measured table[] = {{4, 4, 101'700},       {16, 4, 101'700},     {16, 16, 125'100},
                              {32, 16, 207'600},     {32, 32, 341'400},    {64, 32, 637'500},
                              {64, 64, 1'167'300},   {128, 64, 2'312'700}, {128, 128, 4'433'400},
                              {256, 256, 17'326'800}};
    KpuTiming t;
    t.clock_hz = t.bus.clock_hz = 300'000'000;
    double worst = 0;
    for (const Measured& m : table) {
        const LayerCost c = layer_cost(sipeed_layer(m.w, m.h), false, t);
        const double err = (static_cast<double>(c.total_cycles) - static_cast<double>(m.cycles)) /
                           static_cast<double>(m.cycles);
        worst = std::max(worst, std::abs(err));
        EXPECT_LE(std::abs(err), 0.055)
            << m.w << "x" << m.h << ": model " << c.total_cycles << " measured " << m.cycles;
    }
    EXPECT_LT(worst, 0.055);  // docs/k210_kpu.md quotes the per-row errors; the worst is 5.4 %
}

TEST(KpuCost, TermsByHand) {
    // 64x64, 128 -> 128, 16-bit: G = 1, R = 1: lane lines = 128 · 128 · 64 = 1,048,576;
    // compute = ceil(1.084 · 1,048,576) = ceil(1,136,656.38) = 1,136,657.
    KpuTiming t;
    const LayerArgs a = sipeed_layer(64, 64);
    const LayerCost c = layer_cost(a, false, t);
    EXPECT_EQ(c.lane_lines, 1'048'576u);
    EXPECT_EQ(c.compute_cycles, 1'136'657u);
    EXPECT_EQ(c.macs, 128ull * 128 * 64 * 64 * 9);
    // A chunk of 73,728 bytes at address 0: 9216 beats in 576 bursts of 12 cycles' latency ->
    // 9216 + 576 · 12 = 16,128 cycles.
    EXPECT_EQ(c.weight_fetch_cycles, 4u * 16'128);
    // Only chunk 0 is exposed: each later chunk hides behind 284,164+ compute cycles.
    EXPECT_EQ(c.exposed_fetch_cycles, 16'128u);
    // BN: 1024 bytes = 128 beats, 8 bursts -> 128 + 96 = 224; activation: 144 bytes = 18 beats,
    // 2 bursts -> 18 + 24 = 42.
    EXPECT_EQ(c.param_fetch_cycles, 266u);
    EXPECT_EQ(c.total_cycles, 38'000u + 266 + 1'136'657 + 16'128);
    // 603,979,776 MACs (the table's 603979 k) over 1,191,051 cycles × 576 multipliers = 88 %.
    EXPECT_NEAR(c.utilization(), 603'979'776.0 / (1'191'051.0 * 576), 1e-12);
}

TEST(KpuCost, EightBitWeightsComputeAtTheirOwnRate) {
    // nncase#95's first layer: 3 -> 16, 3x3, 320x240, 8-bit weights: G = 1, R = 5: lane lines =
    // 16 · 3 · 240 · 5 = 57,600; compute = 0.78 · 57,600 = 44,928 (with 16-bit weights:
    // ceil(1.084 · 57,600) = ceil(62,438.4) = 62,439).
    KpuTiming t;
    const LayerArgs a = build_layer({3, 240, 320, 16, 3, false, 0, true});
    EXPECT_EQ(layer_cost(a, true, t).lane_lines, 57'600u);
    EXPECT_EQ(layer_cost(a, true, t).compute_cycles, 44'928u);
    EXPECT_EQ(layer_cost(a, false, t).compute_cycles, 62'439u);
}

TEST(KpuCost, SmallLayersAreFetchBound) {
    // 4x4: compute 128 · 32 · 4 lines = 16,384 -> ceil(1.084 · 16,384) = 17,761 cycles; each
    // chunk computes 4440-4441 cycles, less than a 16,128-cycle fetch, so the fetches show:
    // 16,128 + 3 · (16,128 - ~4440).
    KpuTiming t;
    const LayerCost c = layer_cost(sipeed_layer(4, 4), false, t);
    EXPECT_EQ(c.compute_cycles, 17'761u);
    const std::vector<uint64_t> parts = chunk_compute(sipeed_layer(4, 4), c.compute_cycles);
    ASSERT_EQ(parts.size(), 4u);
    EXPECT_EQ(parts[0] + parts[1] + parts[2] + parts[3], 17'761u);
    EXPECT_EQ(c.exposed_fetch_cycles,
              16'128u + (16'128 - parts[0]) + (16'128 - parts[1]) + (16'128 - parts[2]));
}

TEST(KpuCost, DepthwiseAndOneByOneTerms) {
    KpuTiming t;
    LayerArgs a = sipeed_layer(64, 64);
    a.depth_wise_layer = true;
    EXPECT_EQ(lane_lines(a, t), 128u * 64);  // each input line swept once
    a = sipeed_layer(64, 64);
    a.kernel_type = 0;
    EXPECT_EQ(lane_lines(a, t), 128u * 16 * 64);  // 8 input lines per pass
}

TEST(KpuCost, ChunksFollowTheFields) {
    LayerArgs a = sipeed_layer(8, 8);
    EXPECT_EQ(weight_chunks(a, false), (std::vector<uint64_t>{73728, 73728, 73728, 73728}));
    // The yolo 512 -> 1024 1x1 layer: 18 chunks of 30720 bytes, the last one 4 kernels (2048 B).
    LayerArgs y;
    y.i_ch_num = 511;
    y.o_ch_num = 1023;
    y.i_row_wid = y.o_row_wid = 9;
    y.i_col_high = y.o_col_high = 6;
    y.para_size = 30720;
    y.load_time = 17;
    y.o_ch_num_coef = 59;
    const auto ch = weight_chunks(y, true);
    ASSERT_EQ(ch.size(), 18u);
    EXPECT_EQ(ch.back(), 1024u * 512 - 17u * 30720);
}

}  // namespace
}  // namespace npu::kpu
