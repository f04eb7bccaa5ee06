// Peripheral: a block's registers, their bank and the target serving it in one member; the
// registers it adds stay where they are (the bank keeps pointers), reset() restores every
// register's reset value.
#include <memory>
#include <vector>

#include "sim/tlm/peripheral.h"
#include "tests/sim/tlm/sc_harness.h"
#include "tests/sim/tlm/tlm_helpers.h"

namespace npu::test {
namespace {

using sim::Access;

TEST_F(ScTest, PeripheralServesTheRegistersItAddsAndResetsThem) {
    sim::Peripheral regs("regs", "blk", 0x400, sc_core::sc_time(5, sc_core::SC_NS));
    std::vector<sim::Register*> added;
    for (uint64_t i = 0; i < 200; ++i) {  // many: the first ones' addresses must not move
        added.push_back(&regs.add({"r", 4 * i, 4, 0x100 + i, Access::RW, 0xffffffff, true}));
    }
    TestInitiator cpu("cpu");
    cpu.socket.bind(regs.socket);
    elaborate();
    uint32_t v = 0xabcd;
    EXPECT_EQ(cpu.write(0x0, &v, 4), tlm::TLM_OK_RESPONSE);
    v = 0x1234;
    EXPECT_EQ(cpu.write(4 * 199, &v, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(added[0]->value(), 0xabcdu);
    EXPECT_EQ(added[199]->value(), 0x1234u);
    EXPECT_EQ(regs.registers_bank().find(4 * 199), added[199]);
    regs.reset();
    EXPECT_EQ(added[0]->value(), 0x100u);
    EXPECT_EQ(cpu.read(4 * 199, &v, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, 0x100u + 199);
    EXPECT_EQ(regs.stats().to_json()["writes"]["value"], 2);
}

}  // namespace
}  // namespace npu::test
