#include <gtest/gtest.h>

#include "sim/core/error.h"

namespace npu::sim {
namespace {

TEST(Error, ContextIsPrefixed) {
    const Error e = Error("size_bytes must be positive").in("configs/k210.yaml").in("npusim run");
    EXPECT_STREQ(e.what(), "npusim run: configs/k210.yaml: size_bytes must be positive");
}

TEST(ErrorDeathTest, AssertionNamesFileLineAndMessage) {
    const int lanes = 65;
    EXPECT_DEATH(NPU_ASSERT(lanes <= 64, "lanes {} > 64", lanes),
                 "npusim internal error at .*test_error.cpp:[0-9]+: lanes <= 64: lanes 65 > 64");
}

}  // namespace
}  // namespace npu::sim
