#include <gtest/gtest.h>

#include "sim/core/address_map.h"
#include "sim/core/error.h"

namespace npu::sim {
namespace {

AddressMap k210() {
    AddressMap m;
    m.add({"sram", 0x80000000, 6u << 20, 0, 0});
    m.add({"sram.alias0", 0x40000000, 6u << 20, 0, 0});
    m.add({"ai_sram", 0x80600000, 2u << 20, 1, 0});
    m.add({"kpu", 0x40800000, 0x48, 2, 0});
    return m;
}

TEST(AddressMap, DecodesWindowsAndEdges) {
    const AddressMap m = k210();
    EXPECT_EQ(m.decode(0x80000000)->name, "sram");
    EXPECT_EQ(m.decode(0x805fffff)->name, "sram");
    EXPECT_EQ(m.decode(0x80600000)->name, "ai_sram");
    EXPECT_EQ(m.decode(0x40000010)->name, "sram.alias0");
    EXPECT_EQ(m.decode(0x40800047)->name, "kpu");
    EXPECT_EQ(m.decode(0x40800048), nullptr);
    EXPECT_EQ(m.decode(0x0), nullptr);
    EXPECT_EQ(m.decode(0x80800000), nullptr);
    // Ranged decode: the whole access must lie in one window.
    EXPECT_NE(m.decode(0x805ffff8, 8), nullptr);
    EXPECT_EQ(m.decode(0x805ffff8, 9), nullptr);  // would run into ai_sram
    EXPECT_EQ(m.decode(0x40800040, 16), nullptr);
}

TEST(AddressMap, RefusesOverlapNamingBoth) {
    AddressMap m = k210();
    try {
        m.add({"oops", 0x807ff000, 0x2000, 3, 0});
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(),
                     "address map: window 'oops' [0x807ff000, 0x80800fff] overlaps "
                     "'ai_sram' [0x80600000, 0x807fffff]");
    }
}

TEST(AddressMap, RefusesEmptyAndWrappingWindows) {
    AddressMap m;
    EXPECT_THROW(m.add({"zero", 0x1000, 0, 0, 0}), Error);
    try {
        m.add({"wrap", 0xfffffffffffff000ull, 0x2000, 0, 0});
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(),
                     "address map: window 'wrap' at 0xfffffffffffff000 with size 0x2000 "
                     "wraps past the end of the 64-bit address space");
    }
    m.add({"top", 0xfffffffffffff000ull, 0x1000, 0, 0});  // ends exactly at 2^64-1
    EXPECT_EQ(m.decode(~0ull)->name, "top");
}

TEST(AddressMap, TableAndSizes) {
    EXPECT_EQ(format_size(6u << 20), "6 MiB");
    EXPECT_EQ(format_size(0x48), "72 B");
    EXPECT_EQ(format_size(1536), "1536 B");  // 1.5 KiB: no binary unit divides it
    EXPECT_EQ(format_frequency(400000000), "400 MHz");
    EXPECT_EQ(format_frequency(1500000000), "1.5 GHz");
    EXPECT_EQ(format_frequency(12345), "12345 Hz");
    const std::string t = k210().table();
    EXPECT_EQ(t.substr(0, t.find('\n')),
              "  0x40000000-0x405fffff     6 MiB  sram.alias0        port 0 at 0x0");
}

}  // namespace
}  // namespace npu::sim
