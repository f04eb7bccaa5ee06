// ConfigDocument::set: values replaced from outside the file (--set KEY=VALUE), read as if the
// file had them, and problems in them reported at the override instead of a line of the file.
#include <gtest/gtest.h>

#include "sim/core/config.h"
#include "sim/core/error.h"

namespace npu::sim {
namespace {

constexpr const char* kYaml =
    "platform:\n"
    "  kpu:\n"
    "    clock_hz: 400MHz\n"
    "  memories:\n"
    "    - {name: sram, size_bytes: 6MiB}\n"
    "    - {name: ai, size_bytes: 2MiB}\n";

std::string message_of(ConfigDocument& doc) {
    try {
        doc.finish();
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(ConfigSet, ReplacesAddsAndReachesListItems) {
    ConfigDocument doc = ConfigDocument::parse(kYaml, "p.yaml");
    doc.set("platform.kpu.clock_hz", "200MHz", "--set kpu.clock_hz=200MHz");
    doc.set("platform.kpu.strict", "true", "--set kpu.strict=true");  // absent in the file
    doc.set("platform.memories[1].size_bytes", "1MiB", "--set memories[1].size_bytes=1MiB");
    doc.set("platform.bus.clock_hz", "100MHz", "--set bus.clock_hz=100MHz");  // a new map
    const ConfigNode p = doc.root().child("platform");
    const ConfigNode kpu = p.child("kpu");
    EXPECT_EQ(kpu.get_hz("clock_hz", 0), 200'000'000u);
    EXPECT_TRUE(kpu.get<bool>("strict", false));
    const std::vector<ConfigNode> mem = p.items("memories");
    ASSERT_EQ(mem.size(), 2u);
    EXPECT_EQ(mem[0].get_bytes("size_bytes"), 6u << 20);
    EXPECT_EQ(mem[1].get_bytes("size_bytes"), 1u << 20);
    for (const ConfigNode& m : mem) {
        m.get<std::string>("name");
    }
    EXPECT_EQ(p.child("bus").get_hz("clock_hz", 0), 100'000'000u);
    EXPECT_EQ(message_of(doc), "");
}

// A --set value is YAML too, and a campaign's `set:` is someone's file: a cycle of aliases in
// it is refused like one in a file.
TEST(ConfigSet, AnAliasCycleInAValueIsRefused) {
    auto doc = ConfigDocument::parse("platform: {name: x}\n", "p.yaml");
    try {
        doc.set("platform.name", "&a [*a, *a]", "--set platform.name=...");
        FAIL();
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("--set platform.name=...: the value expands to over"),
                  std::string::npos)
            << e.what();
    }
}

TEST(ConfigSet, TheLastOfTwoOverridesWinsAndAMapReplacesAWholeSection) {
    ConfigDocument doc = ConfigDocument::parse(kYaml, "p.yaml");
    doc.set("platform.kpu.clock_hz", "200MHz", "a");
    doc.set("platform.kpu.clock_hz", "300MHz", "b");
    EXPECT_EQ(doc.root().child("platform").child("kpu").get_hz("clock_hz", 0), 300'000'000u);
    ConfigDocument doc2 = ConfigDocument::parse(kYaml, "p.yaml");
    doc2.set("platform.kpu", "{clock_hz: 100MHz}", "c");
    EXPECT_EQ(doc2.root().child("platform").child("kpu").get_hz("clock_hz", 0), 100'000'000u);
}

TEST(ConfigSet, AProblemInAnOverrideNamesTheOverrideNotTheFile) {
    ConfigDocument doc = ConfigDocument::parse(kYaml, "p.yaml");
    doc.set("platform.kpu.clock_hz", "fast", "--set kpu.clock_hz=fast");
    doc.set("platform.kpu.clok_hz", "1MHz", "--set kpu.clok_hz=1MHz");
    const ConfigNode p = doc.root().child("platform");
    p.child("kpu").get_hz("clock_hz", 0);
    for (const ConfigNode& m : p.items("memories")) {
        m.get<std::string>("name");
        m.get_bytes("size_bytes");
    }
    const std::string msg = message_of(doc);
    EXPECT_NE(msg.find("--set kpu.clock_hz=fast: platform.kpu.clock_hz: expected a frequency"),
              std::string::npos)
        << msg;
    EXPECT_NE(msg.find("--set kpu.clok_hz=1MHz: platform.kpu.clok_hz: unknown key"),
              std::string::npos)
        << msg;
    EXPECT_EQ(msg.find("p.yaml:3"), std::string::npos) << msg;  // not the file's line
}

TEST(ConfigSet, PathsThatCannotBeFollowedAreOneErrorNamingTheOrigin) {
    const auto error_of = [](const char* path, const char* value) {
        ConfigDocument doc = ConfigDocument::parse(kYaml, "p.yaml");
        try {
            doc.set(path, value, "--set X");
        } catch (const Error& e) {
            return std::string(e.what());
        }
        return std::string();
    };
    EXPECT_EQ(error_of("platform.memories[5].size_bytes", "1"),
              "--set X: platform.memories has no item [5] (it has 2 items)");
    EXPECT_EQ(error_of("platform.kpu.clock_hz.x", "1"),
              "--set X: platform.kpu.clock_hz is not a map, so it has no key 'x'");
    EXPECT_EQ(error_of("platform.kpu[0]", "1"),
              "--set X: platform.kpu has no item [0] (not a list)");
    EXPECT_EQ(error_of("platform..kpu", "1"),
              "--set X: 'platform..kpu' is not a configuration path (an empty key; expected keys "
              "joined by '.' and list items as [i], e.g. kpu.clock_hz)");
    EXPECT_NE(error_of("platform.memories[x]", "1").find("a list index that is not a number"),
              std::string::npos);
    EXPECT_NE(error_of("platform.kpu.", "1").find("an empty key"), std::string::npos);
    EXPECT_NE(error_of("", "1").find("an empty path"), std::string::npos);
    EXPECT_NE(error_of("platform.kpu.clock_hz", "[1, 2").find("is not YAML"), std::string::npos);
}

}  // namespace
}  // namespace npu::sim

namespace npu::sim {
namespace {

// Seeded random paths and values (the characters that matter: keys, dots, brackets, digits,
// YAML punctuation): each one is set or is one sim::Error, and the document still reads and
// finishes without a crash (ASan and UBSan watch in CI).
TEST(ConfigSet, RandomPathsAndValuesSetOrFailCleanly) {
    uint32_t seed = 20;
    const auto next = [&seed] {
        return seed = seed * 1664525u + 1013904223u;
    };
    const std::string chars = "platform.kpu.clock_hz[0]memories.9]{}:, '\"";
    int errors = 0;
    for (int i = 0; i < 3000; ++i) {
        std::string path = (next() % 2) ? "platform." : "";
        std::string value;
        for (uint32_t k = next() % 24; k > 0; --k) {
            path += chars[next() % chars.size()];
        }
        for (uint32_t k = next() % 8; k > 0; --k) {
            value += chars[next() % chars.size()];
        }
        ConfigDocument doc = ConfigDocument::parse(kYaml, "p.yaml");
        try {
            doc.set(path, value, "--set X");
            doc.root().child("platform").child("kpu").get_hz("clock_hz", 1);
            doc.finish();
        } catch (const Error&) {
            ++errors;
        }
    }
    EXPECT_GT(errors, 100);  // the mutations do reach the error paths
}

}  // namespace
}  // namespace npu::sim
