// KPU RAM row layout, upload and download.
#include <algorithm>
#include <numeric>
#include <random>

#include <gtest/gtest.h>

#include "models/k210_kpu/kpu_layout.h"

namespace npu::kpu {
namespace {

TEST(RowLayout, TableOfSection31) {
    for (int w : {1, 16}) {
        EXPECT_EQ(row_layout(w).groups, 4u);
        EXPECT_EQ(row_layout(w).pitch, 16u);
    }
    for (int w : {17, 32}) {
        EXPECT_EQ(row_layout(w).groups, 2u);
        EXPECT_EQ(row_layout(w).row_lines, 1u);
    }
    EXPECT_EQ(row_layout(33).groups, 1u);
    EXPECT_EQ(row_layout(64).row_lines, 1u);
    EXPECT_EQ(row_layout(65).row_lines, 2u);
    EXPECT_EQ(row_layout(320).row_lines, 5u);
    // Real models: 320x240x3 input needs 5 · 240 · 3 = 3600 lines (the top 230400 bytes).
    EXPECT_EQ(fmap_lines(3, 320, 240), 3600u);
    // 20 wide, 15 high, 20 channels: 2 channels per line, 10 blocks of 15 lines.
    EXPECT_EQ(fmap_lines(20, 20, 15), 150u);
}

TEST(RowLayout, OffsetsByHand) {
    // W = 20: G = 2, P = 32, R = 1. (c=3, y=1, x=5) -> block 1 · 15 lines · 64 + 1 · 64 + 1 · 32
    // + 5.
    const FmapGeometry g = FmapGeometry::natural(4, 20, 15);
    EXPECT_EQ(g.offset(3, 1, 5), 15u * 64 + 64 + 32 + 5);
    // W = 100: G = 1, R = 2: (c=1, y=2, x=70) -> 1 · (2 · 7) · 64 + 2 · 2 · 64 + 70.
    const FmapGeometry h = FmapGeometry::natural(2, 100, 7);
    EXPECT_EQ(h.offset(1, 2, 70), 14u * 64 + 256 + 70);
    EXPECT_EQ(h.extent(), h.offset(1, 6, 99) + 1);
}

TEST(Upload, RoundTripsEveryWidthAndOddHeights) {
    std::mt19937 rng(11);
    for (int w = 1; w <= 70; ++w) {
        for (int h : {1, 3, 5}) {
            for (int c : {1, 3, 5}) {
                const FmapGeometry g = FmapGeometry::natural(c, w, h);
                std::vector<uint8_t> in(static_cast<size_t>(c * h * w)), out(in.size());
                for (uint8_t& b : in) {
                    b = static_cast<uint8_t>(rng());
                }
                // The map's lines plus a margin on each side, all 0xcd before the upload.
                std::vector<uint8_t> ram(640 + fmap_lines(c, w, h) * kLineBytes + 640, 0xcd);
                upload(in.data(), g, ram.data() + 640);
                download(ram.data() + 640, g, out.data());
                ASSERT_EQ(in, out) << "w=" << w << " h=" << h << " c=" << c;
                // Exactly c·h·w bytes changed: the padding of each line is left untouched.
                const auto touched =
                    std::count_if(ram.begin(), ram.end(), [](uint8_t b) { return b != 0xcd; });
                const auto differ = std::count(in.begin(), in.end(), uint8_t{0xcd});
                ASSERT_EQ(static_cast<size_t>(touched + differ), in.size());
                ASSERT_LE(g.extent(), fmap_lines(c, w, h) * kLineBytes);
            }
        }
    }
}

TEST(Upload, Width64IsDenseNchw) {
    const FmapGeometry g = FmapGeometry::natural(2, 64, 3);
    std::vector<uint8_t> in(2 * 64 * 3);
    std::iota(in.begin(), in.end(), uint8_t{0});
    std::vector<uint8_t> ram(g.extent());
    upload(in.data(), g, ram.data());
    EXPECT_EQ(ram, in);
}

TEST(PoolOutputSize, EveryType) {
    const int want7[] = {7, 3, 3, 1, 1, 3, 3, 1, 7, 7};
    for (uint32_t t = 0; t < 10; ++t) {
        EXPECT_EQ(pool_output_size(7, t), want7[t]) << t;
    }
}

}  // namespace
}  // namespace npu::kpu
