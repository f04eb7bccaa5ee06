// Pin scripts (--pin-input): "<time> io<N> <0|1|z>" lines, times with units, comments; each
// malformed line is one error naming the file, the line and what was expected; seeded mutations
// give events or an error, never more.
#include <random>
#include <string>

#include <gtest/gtest.h>

#include "models/k210_soc/pin_script.h"
#include "sim/core/error.h"
#include "tests/fuzz/fuzz_pin_script.h"
#include "tests/fuzz/mutate.h"

namespace npu::test {
namespace {

std::string error_of(const std::string& text) {
    try {
        soc::parse_pin_script(text, "keys.txt");
    } catch (const sim::Error& e) {
        return e.what();
    }
    return "";
}

TEST(PinScript, ReadsTimesPadsAndLevels) {
    const auto e = soc::parse_pin_script(
        "# a key\n0 io26 1\n\n 5ms\tio26 0  # pressed\r\n5ms io0 z\n1.5s io47 1", "keys.txt");
    ASSERT_EQ(e.size(), 4u);
    EXPECT_EQ(e[0].at_ps, 0u);
    EXPECT_EQ(e[0].pad, 26u);
    EXPECT_EQ(e[0].level, true);
    EXPECT_EQ(e[1].at_ps, 5'000'000'000u);
    EXPECT_EQ(e[1].level, false);
    EXPECT_EQ(e[1].line, 4u);
    EXPECT_EQ(e[2].pad, 0u);
    EXPECT_FALSE(e[2].level.has_value());  // released
    EXPECT_EQ(e[3].at_ps, 1'500'000'000'000u);
    EXPECT_EQ(e[3].pad, 47u);
}

TEST(PinScript, EachMistakeIsOneErrorNamingItsLine) {
    EXPECT_EQ(error_of("5ms io26"),
              "keys.txt:1: expected '<time> io<N> <0|1|z>' (e.g. '5ms io26 0')");
    EXPECT_EQ(error_of("\n5 io26 0"),
              "keys.txt:2: time '5': expected a duration: a positive number with its unit ps, "
              "ns, us, ms or s (e.g. 2s)");
    EXPECT_EQ(error_of("1ms io48 0"),
              "keys.txt:1: pad 'io48': expected io0 .. io47 (the FPIOA's pads)");
    EXPECT_EQ(error_of("1ms gpio3 0"),
              "keys.txt:1: pad 'gpio3': expected io0 .. io47 (the FPIOA's pads)");
    EXPECT_EQ(error_of("1ms io3 high"),
              "keys.txt:1: level 'high': expected 0, 1 or z (released to the pad's pull)");
    EXPECT_EQ(error_of("2ms io3 0\n1ms io3 1"),
              "keys.txt:2: time 1000000000 ps is before line 1's 2000000000 ps (times may not go "
              "back)");
    EXPECT_EQ(error_of("-1ms io3 0").substr(0, 20), "keys.txt:1: time '-1");
    EXPECT_EQ(error_of("1ms io3 0 extra"),
              "keys.txt:1: expected '<time> io<N> <0|1|z>' (e.g. '5ms io26 0')");
}

TEST(PinScript, SurvivesMutations) {
    const std::string seed = "# keys\n0 io26 1\n5ms io26 0\n10ms io26 z\n12.5us io3 1\n";
    const std::vector<uint8_t> bytes(seed.begin(), seed.end());
    std::mt19937 rng(7);
    for (int i = 0; i < 20000; ++i) {
        const auto input = fuzz::mutate(bytes, rng);
        fuzz::pin_script(input.data(), input.size());
    }
}

}  // namespace
}  // namespace npu::test
