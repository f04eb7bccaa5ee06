// Registers: fields, access rights, hooks, the bank's layout checks and its partial-access policy
// (docs/registers.md).
#include <gtest/gtest.h>

#include "sim/core/error.h"
#include "sim/core/regs.h"

namespace npu::sim {
namespace {

using F4_2 = Field<4, 2>;
using Top = Field<60, 4>;
using Whole = Field<0, 64>;

TEST(Field, MaskGetSetByHand) {
    static_assert(F4_2::MASK == 0x30);
    static_assert(F4_2::max == 3);
    static_assert(Top::MASK == 0xf000000000000000ull);
    static_assert(Whole::MASK == ~0ull);
    EXPECT_EQ(F4_2::get(0xff), 3u);
    EXPECT_EQ(F4_2::get(0x20), 2u);
    EXPECT_EQ(F4_2::set(0xff, 1), 0xdfu);  // 0b1101_1111
    EXPECT_EQ(F4_2::set(0, 7), 0x30u);     // excess bits of x dropped
    EXPECT_TRUE(F4_2::fits(3));
    EXPECT_FALSE(F4_2::fits(4));
    EXPECT_EQ(Top::get(0xa000000000000001ull), 0xau);
    EXPECT_EQ(Whole::set(5, 9), 9u);
}

Register make(const std::string& name, uint64_t off, Access a, uint64_t reset = 0,
              unsigned size = 8, uint64_t mask = ~0ull) {
    return Register({name, off, size, reset, a, mask, true});
}

TEST(Register, RwHonoursWriteMaskAndReset) {
    Register r = make("CTRL", 0, Access::RW, 0x11, 4, 0x0000ff00);
    EXPECT_EQ(r.value(), 0x11u);
    EXPECT_EQ(r.bus_write(0xffffffff, ~0ull), BankResult::OK);
    EXPECT_EQ(r.value(), 0xff11u);  // only bits 8..15 writable
    r.reset();
    EXPECT_EQ(r.value(), 0x11u);
}

TEST(Register, RoWriteAndWoReadAreAccessErrors) {
    Register ro = make("STATUS", 0, Access::RO, 5);
    Register wo = make("FIFO", 8, Access::WO);
    uint64_t v = 0;
    EXPECT_EQ(ro.bus_write(1, ~0ull), BankResult::ACCESS_ERROR);
    EXPECT_EQ(ro.value(), 5u);
    EXPECT_EQ(ro.bus_read(v), BankResult::OK);
    EXPECT_EQ(v, 5u);
    EXPECT_EQ(wo.bus_read(v), BankResult::ACCESS_ERROR);
    EXPECT_EQ(wo.bus_write(42, ~0ull), BankResult::OK);
}

// A write-only register that reads as zero (a driver read-modify-writes it) and a read-only one
// whose writes are ignored (a hard-wired field a driver writes anyway): neither is an error.
TEST(Register, WoRazReadsZeroAndRoWiIgnoresWrites) {
    Register clear = make("COM_INTCLEAR", 0, Access::WO_RAZ);
    Register wired = make("priority0", 8, Access::RO_WI, 0);
    int writes = 0;
    clear.on_write([&](uint64_t v) { writes += v == 0x1f ? 1 : 100; });
    uint64_t v = 7;
    EXPECT_EQ(clear.bus_write(0x1f, ~0ull), BankResult::OK);
    EXPECT_EQ(writes, 1);  // the write still acts
    EXPECT_EQ(clear.bus_read(v), BankResult::OK);
    EXPECT_EQ(v, 0u);
    EXPECT_EQ(wired.bus_write(5, ~0ull), BankResult::OK);
    EXPECT_EQ(wired.value(), 0u);
    EXPECT_EQ(wired.bus_read(v), BankResult::OK);
    EXPECT_EQ(v, 0u);
}

TEST(Register, W1cClearsOnlyWrittenOnes) {
    Register r = make("IRQ", 0, Access::W1C, 0b1011);
    r.bus_write(0b0010, ~0ull);
    EXPECT_EQ(r.value(), 0b1001u);
    r.bus_write(0, ~0ull);
    EXPECT_EQ(r.value(), 0b1001u);
}

TEST(Register, HooksSeeTheBusValues) {
    Register fifo = make("FIFO", 0, Access::WO);
    std::vector<uint64_t> pushed;
    fifo.on_write([&](uint64_t v) { pushed.push_back(v); });
    fifo.bus_write(7, ~0ull);
    fifo.bus_write(9, ~0ull);
    EXPECT_EQ(pushed, (std::vector<uint64_t>{7, 9}));

    Register out = make("OUT", 8, Access::RO, 0);
    uint64_t n = 100;
    out.on_read([&](uint64_t) { return n++; });
    uint64_t v = 0;
    out.bus_read(v);
    EXPECT_EQ(v, 100u);
    out.bus_read(v);
    EXPECT_EQ(v, 101u);
}

TEST(Register, RejectsOddSizes) {
    try {
        Register r({"X", 0, 3});
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "register X: size 3 bytes, expected 1, 2, 4 or 8");
    }
}

struct Kpu {
    Register fifo = Register({"LAYER_ARGUMENT_FIFO", 0x00, 8, 0, Access::WO, ~0ull, false});
    Register status = make("INTERRUPT_STATUS", 0x08, Access::RO, 0x5);
    Register raw = make("INTERRUPT_RAW", 0x10, Access::RW, 0x0102030405060708ull);
    Register clear = make("INTERRUPT_CLEAR", 0x18, Access::W1C, 0xffff);
};

TEST(RegisterBank, RefusesOverlapWithBothNames) {
    Kpu k;
    RegisterBank bank("kpu", 0x100);
    bank.add(k.fifo);
    Register bad = make("EVIL", 0x04, Access::RW, 0, 4);
    try {
        bank.add(bad);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(),
                     "register bank kpu: register EVIL [0x4, 0x8) overlaps register "
                     "LAYER_ARGUMENT_FIFO [0x0, 0x8)");
    }
}

TEST(RegisterBank, RefusesMisalignedAndOutside) {
    RegisterBank bank("b", 0x10);
    Register mis = make("MIS", 0x4, Access::RW);
    Register out = make("OUT", 0x10, Access::RW);
    EXPECT_THROW(bank.add(mis), Error);
    try {
        bank.add(out);
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(
            e.what(),
            "register bank b: register OUT at offset 0x10 lies outside the bank (size 0x10)");
    }
}

TEST(RegisterBank, RefusesRegisterAtAnOffsetOtherThanDeclared) {
    Kpu k;
    RegisterBank bank("kpu", 0x100);
    // INTERRUPT_RAW is declared at 0x10, but the sequence forgot INTERRUPT_STATUS: it lands at
    // 0x08.
    try {
        bank.add_consecutive({k.fifo, k.raw});
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(),
                     "register bank kpu: register INTERRUPT_RAW is declared at offset 0x10 but its "
                     "place in the sequence is 0x8");
    }
}

TEST(RegisterBank, ConsecutiveWithReservedHole) {
    Kpu k;
    RegisterBank bank("kpu", 0x100);
    bank.add_consecutive({k.fifo, RegisterBank::Reserved{8}, k.raw, k.clear});
    EXPECT_EQ(bank.find(0x10), &k.raw);
    EXPECT_EQ(bank.find(0x08), nullptr);
    EXPECT_EQ(bank.find(0x1f), &k.clear);
}

class BankAccess : public ::testing::Test {
protected:
    void SetUp() override { bank.add_consecutive({k.fifo, k.status, k.raw, k.clear}); }
    Kpu k;
    RegisterBank bank{"kpu", 0x40};
    uint8_t buf[8] = {};
};

TEST_F(BankAccess, FullWidthLittleEndian) {
    ASSERT_EQ(bank.read(0x10, buf, 8), BankResult::OK);
    EXPECT_EQ(buf[0], 0x08);
    EXPECT_EQ(buf[7], 0x01);
}

TEST_F(BankAccess, PartialReadReturnsTheAddressedBytes) {
    ASSERT_EQ(bank.read(0x14, buf, 4), BankResult::OK);  // upper word of 0x0102030405060708
    EXPECT_EQ(buf[0], 0x04);
    EXPECT_EQ(buf[3], 0x01);
    ASSERT_EQ(bank.read(0x16, buf, 2), BankResult::OK);
    EXPECT_EQ(buf[0], 0x02);
    EXPECT_EQ(buf[1], 0x01);
}

TEST_F(BankAccess, PartialWriteKeepsOtherBytes) {
    const uint8_t b = 0xaa;
    ASSERT_EQ(bank.write(0x12, &b, 1), BankResult::OK);
    EXPECT_EQ(k.raw.value(), 0x0102030405aa0708ull);
}

TEST_F(BankAccess, PartialW1cClearsOnlyInWrittenLanes) {
    const uint8_t ones[2] = {0xff, 0xff};
    ASSERT_EQ(bank.write(0x19, ones, 1), BankResult::OK);  // byte 1 of INTERRUPT_CLEAR
    EXPECT_EQ(k.clear.value(), 0x00ffu);
    (void)ones;
}

TEST_F(BankAccess, SizePolicyErrors) {
    EXPECT_EQ(bank.read(0x13, buf, 2), BankResult::SIZE_ERROR);   // misaligned half-word
    EXPECT_EQ(bank.read(0x12, buf, 3), BankResult::SIZE_ERROR);   // not a power of two
    EXPECT_EQ(bank.read(0x14, buf, 8), BankResult::SIZE_ERROR);   // runs into the next register
    EXPECT_EQ(bank.write(0x00, buf, 4), BankResult::SIZE_ERROR);  // FIFO forbids partial pushes
    EXPECT_EQ(bank.read(0x20, buf, 8), BankResult::ADDRESS_ERROR);
    EXPECT_EQ(bank.read(0x00, buf, 8), BankResult::ACCESS_ERROR);   // WO
    EXPECT_EQ(bank.write(0x08, buf, 8), BankResult::ACCESS_ERROR);  // RO
}

TEST_F(BankAccess, DebugAccessBypassesRightsAndHooks) {
    int pushes = 0;
    k.fifo.on_write([&](uint64_t) { ++pushes; });
    const uint8_t v[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    EXPECT_EQ(bank.debug_write(0x00, v, 8), 8u);
    EXPECT_EQ(pushes, 0);
    EXPECT_EQ(bank.debug_read(0x00, buf, 8), 8u);  // a WO register, read for debugging
    EXPECT_EQ(buf[7], 8);
    EXPECT_EQ(bank.debug_read(0x1c, buf, 8), 4u);  // stops where the registers end
}

TEST_F(BankAccess, DumpListsRegistersInOffsetOrder) {
    const std::string d = bank.dump();
    EXPECT_NE(d.find("0x0000  LAYER_ARGUMENT_FIFO      WO  8 B  reset 0x0"), std::string::npos)
        << d;
    EXPECT_LT(d.find("INTERRUPT_STATUS"), d.find("INTERRUPT_RAW"));
}

}  // namespace
}  // namespace npu::sim
