// Typed configuration: the value syntax, key tracking, and problems reported all at once with
// file:line:column and key path.
#include <cstdio>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include "sim/core/config.h"
#include "sim/core/error.h"

namespace npu::sim {
namespace {

TEST(ValueSyntax, Integers) {
    std::string why;
    EXPECT_EQ(parse_u64("0x40800000", why), 0x40800000u);
    EXPECT_EQ(parse_u64("0X4080_0000", why), 0x40800000u);
    EXPECT_EQ(parse_u64("0b1010", why), 10u);
    EXPECT_EQ(parse_u64(" 1_000_000 ", why), 1000000u);
    EXPECT_EQ(parse_u64("18446744073709551615", why), 18446744073709551615ull);
    EXPECT_FALSE(parse_u64("18446744073709551616", why));  // 2^64
    EXPECT_FALSE(parse_u64("0x", why));
    EXPECT_FALSE(parse_u64("12abc", why));
    EXPECT_FALSE(parse_u64("-1", why));
    EXPECT_FALSE(parse_u64("_1", why));
    EXPECT_EQ(why, "expected an unsigned integer (decimal, 0x hex or 0b binary) up to 2^64-1");
    EXPECT_EQ(parse_i64("-0x10", why), -16);
    EXPECT_EQ(parse_i64("-9223372036854775808", why), INT64_MIN);
    EXPECT_FALSE(parse_i64("9223372036854775808", why));
}

// A map's keys are names: a map, a list or null as a key is one problem with its place, not an
// exception out of the YAML library (found by fuzz_dlp_sweep: `? conv_t: [...]`).
TEST(ConfigKeys, AComplexOrNullKeyIsAProblemWithItsPlace) {
    ConfigDocument doc = ConfigDocument::parse("m:\n  ? {a: 1}\n  : 2\n  ok: 3\n  : 4\n", "k.yaml");
    const std::vector<std::string> keys = doc.root().child("m").keys();
    EXPECT_EQ(keys, (std::vector<std::string>{"ok"}));
    ASSERT_EQ(doc.problems().size(), 2u);
    EXPECT_NE(doc.problems()[0].find("k.yaml:2"), std::string::npos) << doc.problems()[0];
    EXPECT_NE(doc.problems()[0].find("found a map as a key"), std::string::npos);
    EXPECT_NE(doc.problems()[1].find("found a null as a key"), std::string::npos)
        << doc.problems()[1];
}

TEST(ValueSyntax, Sizes) {
    std::string why;
    EXPECT_EQ(parse_size("2MiB", why), 2u * 1024 * 1024);
    EXPECT_EQ(parse_size("6 MiB", why), 6u * 1024 * 1024);
    EXPECT_EQ(parse_size("4KiB", why), 4096u);
    EXPECT_EQ(parse_size("1GiB", why), 1u << 30);
    EXPECT_EQ(parse_size("64B", why), 64u);
    EXPECT_EQ(parse_size("0x200000", why), 0x200000u);
    EXPECT_FALSE(parse_size("2MB", why));
    EXPECT_EQ(why,
              "expected a size in bytes: an integer with optional suffix B, KiB, MiB, GiB or TiB "
              "('MB' is ambiguous between powers of 10 and 2; write KiB/MiB/GiB)");
    EXPECT_FALSE(parse_size("3 parsecs", why));
    EXPECT_FALSE(parse_size("16777216TiB", why));  // 2^24 · 2^40 overflows 64 bits
}

TEST(ValueSyntax, Frequencies) {
    std::string why;
    EXPECT_EQ(parse_frequency("400MHz", why), 400000000u);
    EXPECT_EQ(parse_frequency("1.5 GHz", why), 1500000000u);
    EXPECT_EQ(parse_frequency("32768", why), 32768u);
    EXPECT_EQ(parse_frequency("32.768kHz", why), 32768u);
    EXPECT_FALSE(parse_frequency("12.5Hz", why));
    EXPECT_EQ(why, "expected a whole number of Hz");
    EXPECT_FALSE(parse_frequency("-5MHz", why));
    EXPECT_FALSE(parse_frequency("5 mhz", why));
}

// Durations carry their unit (--max-time): picoseconds out.
TEST(ValueSyntax, Durations) {
    std::string why;
    EXPECT_EQ(parse_duration("2s", why), 2'000'000'000'000u);
    EXPECT_EQ(parse_duration("500 ms", why), 500'000'000'000u);
    EXPECT_EQ(parse_duration("1.5us", why), 1'500'000u);
    EXPECT_EQ(parse_duration("10ns", why), 10'000u);
    EXPECT_EQ(parse_duration("7ps", why), 7u);
    for (const char* bad : {"2", "2 sec", "-1s", "0s", "1e7s", "s", "2S"}) {
        EXPECT_FALSE(parse_duration(bad, why)) << bad;
    }
    EXPECT_EQ(why,
              "expected a duration: a positive number with its unit ps, ns, us, ms or s (e.g. 2s)");
}

// Reads a small platform the way platform code does, so the tests see every kind of problem.
struct Reader {
    std::string name;
    uint64_t base = 0, size = 0, clock = 0;
    unsigned width = 0;
    bool dmi = false;
    std::string kind;

    void read(ConfigNode root) {
        ConfigNode p = root.child("platform");
        kind = p.get_enum<std::string>("kind", "none", {{"k210", "k210"}, {"dlp", "dlp"}});
        clock = p.get_hz("clock_hz", 1);
        width = p.get<unsigned>("width", 8u, 1u, 128u);
        for (const ConfigNode& m : p.items("memories")) {
            name = m.get<std::string>("name");
            base = m.get<uint64_t>("base_addr");
            size = m.get_bytes("size_bytes");
            dmi = m.get<bool>("dmi", true);
        }
    }
};

TEST(ConfigNode, ReadsTypedValues) {
    auto doc = ConfigDocument::parse(R"(platform:
  kind: k210
  clock_hz: 400MHz
  width: 16
  memories:
    - name: sram
      base_addr: 0x80000000
      size_bytes: 6MiB
      dmi: false
)",
                                     "t.yaml");
    Reader r;
    r.read(doc.root());
    EXPECT_NO_THROW(doc.finish());
    EXPECT_EQ(r.kind, "k210");
    EXPECT_EQ(r.clock, 400000000u);
    EXPECT_EQ(r.width, 16u);
    EXPECT_EQ(r.name, "sram");
    EXPECT_EQ(r.base, 0x80000000u);
    EXPECT_EQ(r.size, 6u << 20);
    EXPECT_FALSE(r.dmi);
}

TEST(ConfigNode, ReportsAllProblemsAtOnceWithLineAndPath) {
    auto doc = ConfigDocument::parse(R"(platform:
  kind: k211
  width: 300
  clock_hz: fast
  memories:
    - name: sram
      base_addr: 0x8000_000g
      size_bytes: 2MB
      dmi: yes
      lattency_ns: 5
    - base_addr: 0
      size_bytes: 1KiB
  extra: 1
)",
                                     "configs/bad.yaml");
    Reader r;
    r.read(doc.root());
    try {
        doc.finish();
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_STREQ(
            e.what(),
            "configs/bad.yaml: 9 configuration problems:\n"
            "  configs/bad.yaml:2:9: platform.kind: expected one of k210, dlp, got 'k211'\n"
            "  configs/bad.yaml:4:13: platform.clock_hz: expected a frequency: a positive number "
            "with optional suffix Hz, kHz, MHz or GHz, got 'fast'\n"
            "  configs/bad.yaml:3:10: platform.width: expected a value in [1, 128], got 300\n"
            "  configs/bad.yaml:7:18: platform.memories[0].base_addr: expected an unsigned integer "
            "(decimal, 0x hex or 0b binary) up to 2^64-1, got '0x8000_000g'\n"
            "  configs/bad.yaml:8:19: platform.memories[0].size_bytes: expected a size in bytes: "
            "an "
            "integer with optional suffix B, KiB, MiB, GiB or TiB ('MB' is ambiguous between "
            "powers "
            "of 10 and 2; write KiB/MiB/GiB), got '2MB'\n"
            "  configs/bad.yaml:9:12: platform.memories[0].dmi: expected true or false, got 'yes'\n"
            "  configs/bad.yaml:11:7: platform.memories[1]: missing required key 'name'\n"
            "  configs/bad.yaml:10:7: platform.memories[0].lattency_ns: unknown key\n"
            "  configs/bad.yaml:13:3: platform.extra: unknown key");
    }
}

TEST(ConfigNode, SuggestsTheKeyThatWasMeant) {
    auto doc =
        ConfigDocument::parse("platform:\n  kind: k210\n  widht: 4\n  memories: []\n", "t.yaml");
    Reader r;
    r.read(doc.root());
    ASSERT_EQ(doc.problems().size(), 0u);
    try {
        doc.finish();
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(),
                     "t.yaml: 1 configuration problem:\n"
                     "  t.yaml:3:3: platform.widht: unknown key (did you mean 'width'?)");
    }
}

TEST(ConfigNode, DuplicateKeysAreProblems) {
    auto doc = ConfigDocument::parse("a: 1\na: 2\n", "d.yaml");
    doc.root().get<int>("a");
    try {
        doc.finish();
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "d.yaml: 1 configuration problem:\n  d.yaml:2:1: a: duplicate key");
    }
}

TEST(ConfigNode, WrongShapesAndIntegerRanges) {
    auto doc =
        ConfigDocument::parse("m: [1, 2]\nl: {x: 1}\nu8: 256\ni8: -129\nneg: -1\n", "s.yaml");
    ConfigNode root = doc.root();
    EXPECT_EQ(root.get<int>("m"), 0);
    EXPECT_TRUE(root.items("l").empty());
    EXPECT_EQ(root.get<uint8_t>("u8"), 0);
    EXPECT_EQ(root.get<int8_t>("i8"), 0);
    EXPECT_EQ(root.get<uint32_t>("neg"), 0u);
    const auto& p = doc.problems();
    ASSERT_EQ(p.size(), 5u);
    EXPECT_EQ(p[0], "s.yaml:1:4: m: expected a value, got a list");
    EXPECT_EQ(p[1], "s.yaml:2:4: l: expected a list");
    EXPECT_EQ(p[2], "s.yaml:3:5: u8: expected an integer in [0, 255], got 256");
    EXPECT_EQ(p[3], "s.yaml:4:5: i8: expected an integer in [-128, 127], got -129");
    EXPECT_EQ(p[4],
              "s.yaml:5:6: neg: expected an unsigned integer (decimal, 0x hex or 0b binary) up to "
              "2^64-1, got '-1'");
}

TEST(ConfigNode, OptionalKeysFallBack) {
    auto doc = ConfigDocument::parse("a: 1\n", "o.yaml");
    ConfigNode root = doc.root();
    EXPECT_EQ(root.get<int>("a", 5), 1);
    EXPECT_EQ(root.get<int>("b", 5), 5);
    EXPECT_EQ(root.get_bytes("c", 64), 64u);
    EXPECT_FALSE(root.optional_child("d").has_value());
    EXPECT_NO_THROW(doc.finish());
}

TEST(ConfigDocument, SyntaxErrorNamesLine) {
    try {
        ConfigDocument::parse("a: [1, 2\nb: 3\n", "broken.yaml");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()).rfind("broken.yaml:", 0), 0u) << e.what();
        EXPECT_NE(std::string(e.what()).find("YAML syntax error"), std::string::npos);
    }
}

TEST(ConfigDocument, MissingFile) {
    try {
        ConfigDocument::load_file("/nonexistent/x.yaml");
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "/nonexistent/x.yaml: cannot open configuration file");
    }
}

// The "billion laughs" (issue #33): nine levels of nine aliases each, 9^9 nodes expanded from 11
// lines. Refused at once, naming the file (it used to take over a minute in the unread-key check).
TEST(ConfigDocument, AliasBombIsRefused) {
    std::string y = "a: &a [x, x, x, x, x, x, x, x, x]\n";
    for (char c = 'b'; c <= 'i'; ++c) {
        const char p = static_cast<char>(c - 1);
        y +=
            fmt::format("{0}: &{0} [*{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}, *{1}]\n", c, p);
    }
    y += "platform: {name: *i}\n";
    try {
        ConfigDocument::parse(y, "bomb.yaml");
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(),
                     "bomb.yaml: over 1000000 nodes with its aliases expanded (aliases of "
                     "aliases, or an alias inside its own anchor): refused");
    }
    // An alias inside the collection it names is a cycle (found by the fuzzer: a stack overflow).
    EXPECT_THROW(ConfigDocument::parse("c: &c [1, *c, *c]\n", "cycle.yaml"), Error);
    EXPECT_THROW(ConfigDocument::parse("m: &m {a: *m}\n", "cycle.yaml"), Error);
}

// Aliases within the bound are fine; a collection reached through several aliases is checked for
// unknown keys once (the check follows aliases; without memory it was exponential).
TEST(ConfigDocument, AnAliasedCollectionIsCheckedOnce) {
    auto doc =
        ConfigDocument::parse("base: &b {known: 1, typo: 2}\nitems: [*b, *b, *b]\n", "alias.yaml");
    ConfigNode root = doc.root();
    root.get<int>("base.known", 0);
    for (const ConfigNode& item : root.items("items")) {
        item.get<int>("known");
    }
    root.child("base").get<int>("known");
    try {
        doc.finish();
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(),
                     "alias.yaml: 1 configuration problem:\n  alias.yaml:1:21: base.typo: "
                     "unknown key");
    }
}

// Size: a 100 MB file is refused before it is read; so is a text over 16 MiB.
TEST(ConfigDocument, HugeFilesAreRefusedUnread) {
    const std::string path = ::testing::TempDir() + "npusim-huge.yaml";
    {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        ASSERT_NE(f, nullptr);
        ASSERT_EQ(::ftruncate(::fileno(f), 100'000'000), 0);  // sparse: nothing written
        std::fclose(f);
    }
    try {
        ConfigDocument::load_file(path);
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()),
                  path + ": 100000000 bytes: a configuration file holds at most 16 MiB");
    }
    std::remove(path.c_str());
    EXPECT_THROW(ConfigDocument::parse(std::string(kMaxConfigBytes + 1, ' '), "big.yaml"), Error);
}

}  // namespace
}  // namespace npu::sim
