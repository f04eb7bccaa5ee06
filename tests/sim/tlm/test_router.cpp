// Router: decode and translation, aliases, DMI ranges, invalidation, unmapped accesses, overlaps.
#include "sim/core/error.h"
#include "sim/tlm/memory.h"
#include "sim/tlm/router.h"
#include "tests/sim/tlm/sc_harness.h"
#include "tests/sim/tlm/tlm_helpers.h"

namespace npu::test {
namespace {

class RouterTest : public ScTest {
protected:
    void SetUp() override {
        ScTest::SetUp();
        router = std::make_unique<sim::Router>("router");
        sram = std::make_unique<sim::Memory>("sram", sim::MemoryConfig{0x4000, 0, 0, true});
        probe = std::make_unique<ProbeTarget>("probe");
        cpu = std::make_unique<TestInitiator>("cpu");
        cpu->socket.bind(router->target_socket);
        const unsigned p_sram = router->bind_target(sram->socket);
        const unsigned p_probe = router->bind_target(probe->socket);
        router->map("sram", 0x80000000, 0x4000, p_sram);
        router->map("sram.alias0", 0x40000000, 0x4000, p_sram);
        // A window onto the upper half of sram only: base lands on target address 0x2000.
        router->map("sram.hi", 0x90000000, 0x1000, p_sram, 0x2000);
        router->map("regs", 0x40800000, 0x100, p_probe, 0);
        elaborate();
    }
    std::unique_ptr<sim::Router> router;
    std::unique_ptr<sim::Memory> sram;
    std::unique_ptr<ProbeTarget> probe;
    std::unique_ptr<TestInitiator> cpu;
};

TEST_F(RouterTest, TranslatesAndAliases) {
    const uint32_t v = 0xdeadbeef;
    uint32_t r = 0;
    EXPECT_EQ(cpu->write(0x80002010, &v, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(cpu->read(0x40002010, &r, 4), tlm::TLM_OK_RESPONSE);  // same bytes via the alias
    EXPECT_EQ(r, v);
    r = 0;
    EXPECT_EQ(cpu->read(0x90000010, &r, 4), tlm::TLM_OK_RESPONSE);  // and via the offset window
    EXPECT_EQ(r, v);
    EXPECT_EQ(cpu->read(0x40800018, &r, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(probe->last_addr, 0x18u);
}

TEST_F(RouterTest, UnmappedAccessIsAnAddressErrorWithOneWarning) {
    uint8_t b[4] = {};
    ExpectWarnings w;
    EXPECT_EQ(cpu->read(0x50000000, b, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    // Running past the end of a window is unmapped too: nothing is forwarded half-way.
    EXPECT_EQ(cpu->write(0x80003ffe, b, 4), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    ASSERT_EQ(w.messages().size(), 2u);
    EXPECT_EQ(w.messages()[0], "router: read of 4 bytes at 0x50000000 hits no mapped window");
    EXPECT_EQ(w.messages()[1], "router: write of 4 bytes at 0x80003ffe hits no mapped window");
    EXPECT_EQ(router->stats().to_json()["unmapped_accesses"]["value"], 2);
}

TEST_F(RouterTest, OverlapFailsElaborationNamingBothWindows) {
    try {
        router->map("evil", 0x80003000, 0x2000, 0);
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "router router: address map: window 'evil' [0x80003000, 0x80004fff] "
                     "overlaps 'sram' [0x80000000, 0x80003fff]");
    }
}

TEST_F(RouterTest, DmiRangesAreTranslatedPerWindow) {
    tlm::tlm_dmi d;
    ASSERT_TRUE(cpu->dmi(0x40000100, d));
    EXPECT_EQ(d.get_start_address(), 0x40000000u);
    EXPECT_EQ(d.get_end_address(), 0x40003fffu);
    EXPECT_EQ(d.get_dmi_ptr(), sram->data());
    // The offset window sees only target addresses 0x2000..0x2fff: clipped, pointer moved along.
    ASSERT_TRUE(cpu->dmi(0x90000100, d));
    EXPECT_EQ(d.get_start_address(), 0x90000000u);
    EXPECT_EQ(d.get_end_address(), 0x90000fffu);
    EXPECT_EQ(d.get_dmi_ptr(), sram->data() + 0x2000);
    EXPECT_FALSE(cpu->dmi(0x40800000, d));  // the probe grants no DMI
    EXPECT_FALSE(cpu->dmi(0x12345678, d));  // unmapped
}

TEST_F(RouterTest, InvalidationReachesInitiatorsInGlobalAddresses) {
    probe->revoke(0x10, 0x1f);
    ASSERT_EQ(cpu->invalidated.size(), 1u);
    EXPECT_EQ(cpu->invalidated[0], std::make_pair(uint64_t{0x40800010}, uint64_t{0x4080001f}));
}

TEST_F(RouterTest, DebugTransportStaysInsideTheWindow) {
    std::memset(sram->data() + 0x3ff0, 0x11, 16);
    uint8_t buf[64] = {};
    tlm::tlm_generic_payload tx;
    tx.set_command(tlm::TLM_READ_COMMAND);
    tx.set_address(0x80003ff0);
    tx.set_data_ptr(buf);
    tx.set_data_length(64);
    EXPECT_EQ(cpu->socket->transport_dbg(tx), 16u);
    EXPECT_EQ(tx.get_data_length(), 64u);
    EXPECT_EQ(buf[15], 0x11);
}

}  // namespace
}  // namespace npu::test
