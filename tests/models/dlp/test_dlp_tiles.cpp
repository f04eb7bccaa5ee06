// The DL processor's tiles ("legs"): a layer larger than the conv module's memories in bands of
// whole rows with the kernel's halo, an fc layer beyond the fc module's memories in chunks, and a
// layer for which no tiling fits; every count worked by hand.
#include <gtest/gtest.h>

#include "models/dlp/dlp_cost.h"
#include "models/dlp/dlp_program.h"
#include "models/dlp/dlp_tiles.h"
#include "sim/core/error.h"

namespace npu::test {
namespace {

using namespace dlp;

// 3x3 conv, padding 1, of a 1x16x16 image into 2 channels, on memories of 8x8x1 = 64 values.
Layer small_memory_conv(DlpConfig& cfg) {
    cfg.conv_input_memory_size = {8, 8, 1};
    cfg.conv_output_memory_size = {8, 8, 1};
    Layer l;
    l.name = "c";
    l.kind = LayerKind::conv;
    l.conv.in_c = 1, l.conv.in_h = 16, l.conv.in_w = 16, l.conv.out_c = 2;
    l.conv.pad_top = l.conv.pad_bottom = l.conv.pad_left = l.conv.pad_right = 1;
    l.out = {2, 16, 16};
    return l;
}

TEST(DlpTiles, AConvLargerThanTheMemoriesRunsInBandsWithItsHalo) {
    DlpConfig cfg;  // C = N = 4, single; x = height, so bands are of columns (the slow axis)
    const Layer l = small_memory_conv(cfg);
    LayerPlacement p;
    p.input_bytes = 16 * 16 * 4 * 4;  // one channel block of 16x16 words of N = 4 floats
    p.output_bytes = 16 * 16 * 4 * 4;
    p.weight_bytes = 2 * 9 * 4, p.bias_bytes = 2 * 4;
    const LayerPlan plan = layer_plan(l, p, cfg);
    // An output column is 16 values x 2 channels = 32: 64 / 32 = 2 columns a tile; they need
    // (2 − 1) + 3 = 4 input columns of 16 values = 64: they fit. 16 / 2 = 8 tiles.
    EXPECT_EQ(plan.rows_per_tile, 2u);
    EXPECT_EQ(plan.tiles, 8u);
    // Reads: columns [0, 3) (the padding cuts the first halo), then [1, 5), [3, 7), ... [13, 16):
    // 3 + 6·4 + 3 = 30 columns of 16 words x 16 bytes = 256 B; weights and bias once; writes:
    // 8 tiles of 2 columns = 512 B each.
    uint64_t in = 0, out = 0, params = 0, pieces = 0;
    for (const Transfer& t : plan.transfers) {
        (t.buffer == Transfer::Buffer::input    ? in
         : t.buffer == Transfer::Buffer::output ? out
                                                : params) += t.bytes;
        ++pieces;
    }
    EXPECT_EQ(in, 30u * 256);
    EXPECT_EQ(out, 16u * 256);
    EXPECT_EQ(params, 2u * 9 * 4 + 2 * 4);
    EXPECT_EQ(pieces, 8u + 2 + 8);
    EXPECT_EQ(plan.transfers[0].offset, 0u);
    EXPECT_EQ(plan.transfers[0].bytes, 3u * 256);
    EXPECT_EQ(plan.transfers[3].offset, 1u * 256);  // tile 1 after weights and bias: column 1
    EXPECT_EQ(plan.transfers[3].bytes, 4u * 256);
    // The cost: 7 tiles past the first at tile_overhead_cycles each.
    const DlpTiming t;
    const LayerCost c = layer_cost(l, p, cfg, t, false);
    EXPECT_EQ(c.tiles, 8u);
    EXPECT_EQ(c.overhead_cycles, t.conv_setup_cycles + 7 * t.tile_overhead_cycles);
    EXPECT_EQ(c.read_bytes, 30u * 256);
}

TEST(DlpTiles, AnFcBeyondItsMemoriesRunsInChunks) {
    DlpConfig cfg;
    cfg.fc_input_memory_size = 40, cfg.fc_output_memory_size = 4;
    Layer l;
    l.kind = LayerKind::fc;
    l.fc.in = 100, l.fc.out = 10;
    LayerPlacement p;
    p.input_bytes = 100 * 4, p.weight_bytes = 1000 * 4, p.bias_bytes = 40, p.output_bytes = 48;
    const LayerPlan plan = layer_plan(l, p, cfg);
    // ⌈100 / 40⌉ = 3 input chunks x ⌈10 / 4⌉ = 3 output chunks; the input read for each output
    // chunk; outputs of 4, 4 and the rest (2 values and the FCThreadNumber padding).
    EXPECT_EQ(plan.tiles, 9u);
    uint64_t in = 0;
    std::vector<uint64_t> outs;
    for (const Transfer& t : plan.transfers) {
        in += t.buffer == Transfer::Buffer::input ? t.bytes : 0;
        if (t.buffer == Transfer::Buffer::output) {
            outs.push_back(t.bytes);
        }
    }
    EXPECT_EQ(in, 3u * 400);
    EXPECT_EQ(outs, (std::vector<uint64_t>{16, 16, 16}));
}

TEST(DlpTiles, ALayerNoTilingFitsIsOneMessage) {
    DlpConfig cfg;
    Layer l = small_memory_conv(cfg);
    cfg.conv_input_memory_size = {2, 2, 1};  // 4 values: not even 3 input columns of 16
    try {
        layer_plan(l, LayerPlacement{}, cfg);
        FAIL() << "no error";
    } catch (const sim::Error& e) {
        EXPECT_STREQ(
            e.what(),
            "one row of its images (48 input values with the kernel's rows, 32 output "
            "values) exceeds the conv module's memories (4 and 64 values): no tiling fits");
    }
}

}  // namespace
}  // namespace npu::test
