// The Pareto front against fronts worked by hand.
#include <gtest/gtest.h>

#include "sim/core/pareto.h"

namespace npu::test {
namespace {

TEST(Pareto, KeepsThePointsNoOtherBeats) {
    // (cycles, DSP): (10, 5) beats (12, 6); (8, 9) and (20, 1) trade; (10, 5) vs (8, 9): trade.
    const std::vector<std::vector<double>> c = {{12, 6}, {10, 5}, {8, 9}, {20, 1}, {21, 1}};
    const std::vector<bool> f = sim::pareto_front(c);
    EXPECT_EQ(f, (std::vector<bool>{false, true, true, true, false}));
}

TEST(Pareto, TheFirstOfIdenticalPointsStaysAndNonConfigurationsNeverCount) {
    const std::vector<std::vector<double>> c = {{}, {3, 3, 3}, {3, 3, 3}, {4, 2, 3}, {}};
    EXPECT_EQ(sim::pareto_front(c), (std::vector<bool>{false, true, false, true, false}));
}

TEST(Pareto, EqualInAllButOneMeasureIsDominated) {
    const std::vector<std::vector<double>> c = {{5, 5, 6}, {5, 5, 5}};
    EXPECT_EQ(sim::pareto_front(c), (std::vector<bool>{false, true}));
}

}  // namespace
}  // namespace npu::test
