// The compiler's KPU RAM plan alone: never-used lines first, then the smallest freed block that
// holds a tensor, freed neighbours merged, the peak of lines held at once; worked by hand.
#include <gtest/gtest.h>

#include "platforms/k210/compiler/kpu_ram.h"

namespace npu::k210::lowering {
namespace {

TEST(KpuRamPlan, FreshLinesFirstThenTheSmallestFreedBlockThatHolds) {
    KpuRamPlan p(100);
    p.reserve("in", 80, 20);              // [80, 100): the v3 input at the top
    EXPECT_EQ(p.alloc("a", 30, 0), 0u);   // [0, 30)
    EXPECT_EQ(p.alloc("b", 10, 1), 30u);  // [30, 40)
    EXPECT_EQ(p.alloc("c", 20, 2), 40u);  // [40, 60)
    EXPECT_EQ(p.in_use(), 80u);
    p.release("a", 2);   // free: [0, 30), [60, 80)
    p.release("in", 2);  // free: [0, 30), [60, 100) (merged)
    EXPECT_EQ(p.largest_free(), 40u);
    // Fresh lines first: [60, 70) is never used, although [0, 30) would hold it too.
    EXPECT_EQ(p.alloc("d", 10, 3), 60u);  // free: [0, 30), [70, 100)
    // 25 lines: [70, 95) is fresh and holds them.
    EXPECT_EQ(p.alloc("e", 25, 4), 70u);  // free: [0, 30), [95, 100)
    // 20 lines: nothing fresh holds them (5 left); best fit: [0, 30) is the only block.
    EXPECT_EQ(p.alloc("f", 20, 5), 0u);  // free: [20, 30), [95, 100)
    // 4 lines: fresh [95, 100) first.
    EXPECT_EQ(p.alloc("g", 4, 6), 95u);             // free: [20, 30), [99, 100)
    EXPECT_FALSE(p.alloc("h", 11, 7).has_value());  // no block of 11
    p.release("b", 7);                              // [30, 40) merges with [20, 30): [20, 40)
    EXPECT_EQ(p.largest_free(), 20u);
    EXPECT_EQ(p.alloc("h", 11, 8), 20u);
    EXPECT_EQ(p.in_use(), 20u + 10 + 25 + 20 + 4 + 11);  // c d e f g h
    EXPECT_EQ(p.peak(), 90u);  // now: more than in + a + b + c (80) before the first release
    ASSERT_EQ(p.placements().size(), 9u);
    EXPECT_EQ(p.placements()[0].tensor, "in");
    EXPECT_EQ(p.placements()[0].written, -1);
    EXPECT_EQ(p.placements()[0].last, 2);
    EXPECT_EQ(p.placements()[1].last, 2);   // a
    EXPECT_EQ(p.placements()[4].last, -1);  // d: still held
    EXPECT_FALSE(p.holds("a"));
    EXPECT_TRUE(p.holds("h"));
}

// Best fit: of two freed blocks that hold a tensor, the smaller, whatever its place.
TEST(KpuRamPlan, BestFitTakesTheSmallerBlock) {
    KpuRamPlan p(60);
    p.alloc("a", 20, 0), p.alloc("b", 10, 0), p.alloc("c", 12, 0), p.alloc("d", 18, 0);
    p.release("a", 1), p.release("c", 1);  // free [0, 20) and [30, 42); nothing fresh
    EXPECT_EQ(p.alloc("e", 11, 2), 30u);   // 12 lines beat 20
    EXPECT_EQ(p.alloc("f", 15, 3), 0u);
}

}  // namespace
}  // namespace npu::k210::lowering
