#include <gtest/gtest.h>

#include "sim/core/error.h"
#include "sim/core/text.h"

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

// A message quoting a user's file is printed without its control characters: an escape sequence
// in a --pin-input line cleared the terminal.
TEST(Printable, ControlCharactersAreShownNotSent) {
    EXPECT_EQ(printable("pad '\x1b[2Jio1':\n  line\t2\x7f"),
              "pad '\\x1b[2Jio1':\n  line\\x092\\x7f");
    EXPECT_EQ(printable("caf\xc3\xa9 \xff"), "caf\xc3\xa9 \xef\xbf\xbd");
}

}  // namespace
}  // namespace npu::sim
