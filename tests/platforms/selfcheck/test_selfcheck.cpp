// The self-check platform from its built-in configuration: every round trip bit-exact and on time.
#include "platforms/selfcheck/selfcheck.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

platform::PlatformConfig load(const std::string& text) {
    auto doc = sim::ConfigDocument::parse(text, "selfcheck.yaml");
    auto cfg = platform::read_platform(doc.root().child("platform"));
    doc.finish();
    return cfg;
}

class SelfCheckTest : public ScTest {};

TEST_F(SelfCheckTest, ShippedConfigPassesWithHandDerivedTimes) {
    const auto cfg = load(sim::read_text_file(NPUSIM_SOURCE_DIR "/configs/selfcheck.yaml"));
    sim::TraceWriter trace;
    platform::SelfCheckPlatform top("top", cfg, trace);
    sc_core::sc_start();
    ASSERT_EQ(top.results().size(), 4u);  // two memories, two passes
    for (const auto& t : top.results()) {
        EXPECT_TRUE(t.ok()) << t.memory;
        // 4109 bytes from offset 3: 646 bus cycles at 400 MHz = 1615 ns, + 33 bursts · 5 ns.
        EXPECT_EQ(ps(t.write_time), 1'780'000u);
        EXPECT_EQ(ps(t.read_time), 1'780'000u);
    }
    EXPECT_FALSE(top.results()[0].write_dmi);  // first pass by bursts ...
    EXPECT_TRUE(top.results()[1].write_dmi);   // ... second by DMI, same time
    EXPECT_EQ(top.results()[0].read_window, "sram.alias0");
    EXPECT_EQ(trace.event_count(), 8u);
    EXPECT_EQ(ps(sc_core::sc_time_stamp()), 8u * 1'780'000u);
}

TEST_F(SelfCheckTest, OverlappingMemoriesFailAtElaboration) {
    const auto cfg = load(R"(platform:
  kind: selfcheck
  name: bad
  memories:
    - {name: a, base_addr: 0x1000, size_bytes: 4KiB}
    - {name: b, base_addr: 0x1800, size_bytes: 4KiB}
)");
    sim::TraceWriter trace;
    try {
        platform::SelfCheckPlatform top("top", cfg, trace);
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "router top.router: address map: window 'b' [0x1800, 0x27ff] overlaps "
                     "'a' [0x1000, 0x1fff]");
    }
}

}  // namespace
}  // namespace npu::test
