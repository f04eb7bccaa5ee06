// RegisterTarget: bank results become TLM responses with a warning; access latency is added.
#include "sim/tlm/register_target.h"
#include "tests/sim/tlm/sc_harness.h"
#include "tests/sim/tlm/tlm_helpers.h"

namespace npu::test {
namespace {

using sim::Access;
using sim::Register;

class RegisterTargetTest : public ScTest {
protected:
    void SetUp() override {
        ScTest::SetUp();
        bank.add_consecutive({fifo, status, mask});
        target = std::make_unique<sim::RegisterTarget>("kpu", bank,
                                                       sc_core::sc_time(10, sc_core::SC_NS));
        cpu = std::make_unique<TestInitiator>("cpu");
        cpu->socket.bind(target->socket);
    }
    Register fifo{{"LAYER_ARGUMENT_FIFO", 0x00, 8, 0, Access::WO, ~0ull, false}};
    Register status{{"INTERRUPT_STATUS", 0x08, 8, 0x3, Access::RO}};
    Register mask{{"INTERRUPT_MASK", 0x10, 8, 0x7, Access::RW}};
    sim::RegisterBank bank{"kpu", 0x48};
    std::unique_ptr<sim::RegisterTarget> target;
    std::unique_ptr<TestInitiator> cpu;
};

TEST_F(RegisterTargetTest, ReadWriteWithLatency) {
    uint64_t v = 0;
    sc_core::sc_time delay = sc_core::SC_ZERO_TIME;
    EXPECT_EQ(cpu->rw(tlm::TLM_READ_COMMAND, 0x08, &v, 8, delay), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 3u);
    EXPECT_EQ(ps(delay), 10'000u);
    v = 0x5;
    EXPECT_EQ(cpu->rw(tlm::TLM_WRITE_COMMAND, 0x10, &v, 8, delay), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(mask.value(), 5u);
    EXPECT_EQ(ps(delay), 20'000u);
}

TEST_F(RegisterTargetTest, WrongAccessesAreErrorResponsesWithOneWarningEach) {
    uint64_t v = 1;
    ExpectWarnings w;
    EXPECT_EQ(cpu->write(0x08, &v, 8), tlm::TLM_COMMAND_ERROR_RESPONSE);  // RO
    EXPECT_EQ(cpu->read(0x00, &v, 8), tlm::TLM_COMMAND_ERROR_RESPONSE);   // WO
    EXPECT_EQ(cpu->write(0x00, &v, 4), tlm::TLM_BURST_ERROR_RESPONSE);    // partial FIFO push
    EXPECT_EQ(cpu->read(0x18, &v, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);   // no register
    ASSERT_EQ(w.messages().size(), 4u);
    EXPECT_EQ(w.messages()[0],
              "kpu: 8-byte write at offset 0x8 (INTERRUPT_STATUS): access not allowed by the "
              "register's access rights");
    EXPECT_EQ(w.messages()[2],
              "kpu: 4-byte write at offset 0x0 (LAYER_ARGUMENT_FIFO): access size or alignment not "
              "supported");
    EXPECT_EQ(w.messages()[3], "kpu: 8-byte read at offset 0x18: no register at this offset");
    EXPECT_EQ(status.value(), 3u);
    EXPECT_EQ(target->stats().to_json()["errors"]["value"], 4);
}

TEST_F(RegisterTargetTest, DebugReadHasNoSideEffects) {
    int reads = 0;
    mask.on_read([&](uint64_t s) {
        ++reads;
        return s;
    });
    uint64_t v = 0;
    tlm::tlm_generic_payload tx;
    tx.set_command(tlm::TLM_READ_COMMAND);
    tx.set_address(0x10);
    tx.set_data_ptr(reinterpret_cast<uint8_t*>(&v));
    tx.set_data_length(8);
    EXPECT_EQ(cpu->socket->transport_dbg(tx), 8u);
    EXPECT_EQ(v, 7u);
    EXPECT_EQ(reads, 0);
}

// A pure read hook (a computed status) is what a debugger sees; a debug write is the bus write
// it asks for: rights checked, hooks run, no time and no counters.
TEST_F(RegisterTargetTest, DebugAccessesSeePureHooksAndWriteLikeTheBus) {
    status.on_read_pure([](uint64_t) { return uint64_t{0x2}; });
    uint64_t written = 0;
    mask.on_write([&](uint64_t v) { written = v; });
    uint64_t v = 0;
    tlm::tlm_generic_payload tx;
    tx.set_address(0x08);
    tx.set_data_ptr(reinterpret_cast<uint8_t*>(&v));
    tx.set_data_length(8);
    tx.set_command(tlm::TLM_READ_COMMAND);
    EXPECT_EQ(cpu->socket->transport_dbg(tx), 8u);
    EXPECT_EQ(v, 2u);
    v = 0x6;
    tx.set_address(0x10);
    tx.set_command(tlm::TLM_WRITE_COMMAND);
    EXPECT_EQ(cpu->socket->transport_dbg(tx), 8u);
    EXPECT_EQ(mask.value(), 6u);
    EXPECT_EQ(written, 6u);
    tx.set_address(0x08);  // read only: refused, nothing written
    EXPECT_EQ(cpu->socket->transport_dbg(tx), 0u);
    EXPECT_EQ(status.value(), 3u);
    EXPECT_EQ(target->stats().to_json()["writes"]["value"], 0);
}

}  // namespace
}  // namespace npu::test
