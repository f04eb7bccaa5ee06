// The K210's SoC map (platforms/k210/soc/soc_map.h): its defaults against the Kendryte SDK's own
// headers (../shared/vendor, skipped when absent), configs/k210.yaml equal to them, and what
// `platform.devices` may and may not say.
#include <algorithm>
#include <cctype>
#include <filesystem>
#include <map>
#include <regex>

#include <gtest/gtest.h>

#include "platforms/k210/soc/k210_config.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"

namespace npu::test {
namespace {

const std::string kSdk = std::string(NPUSIM_SHARED_DIR) + "/vendor/kendryte-standalone-sdk";

// Every `#define <NAME><suffix> (<number>U)` or `IRQN_<NAME>_INTERRUPT = <number>,` of a header.
std::map<std::string, uint64_t> sdk_numbers(const std::string& path, const std::string& pattern) {
    const std::string text = sim::read_text_file(path);
    std::map<std::string, uint64_t> out;
    const std::regex re(pattern);
    for (auto it = std::sregex_iterator(text.begin(), text.end(), re); it != std::sregex_iterator();
         ++it) {
        out[(*it)[1].str()] = std::stoull((*it)[2].str(), nullptr, 0);
    }
    return out;
}

std::string upper(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::toupper(c)); });
    return s;
}

// What the SDK calls a block where its name is not ours in capitals.
std::string sdk_name(const std::string& ours) {
    return ours == "kpu" ? "AI" : upper(ours);
}
std::string sdk_irq_name(const std::string& ours) {
    static const std::map<std::string, std::string> kIrq = {
        {"kpu", "AI"},         {"dmac", "DMA0"},      {"gpio", "APB_GPIO"}, {"gpiohs", "GPIOHS0"},
        {"timer0", "TIMER0A"}, {"timer1", "TIMER1A"}, {"timer2", "TIMER2A"}};
    const auto it = kIrq.find(ours);
    return it != kIrq.end() ? it->second : upper(ours);
}

// Every block's base is platform.h's <NAME>_BASE_ADDR, every interrupt plic.h's IRQN_*, and every
// block platform.h places (its memories aside) is in the map.
TEST(SocMap, DefaultsAreTheSdksPlatformHAndPlicH) {
    const std::string platform_h = kSdk + "/lib/bsp/include/platform.h";
    const std::string plic_h = kSdk + "/lib/drivers/include/plic.h";
    if (!std::filesystem::exists(platform_h) || !std::filesystem::exists(plic_h)) {
        GTEST_SKIP() << "the Kendryte SDK is not in ../shared/vendor";
    }
    const auto bases =
        sdk_numbers(platform_h, R"(#define\s+(\w+)_BASE_ADDR\s+\((0x[0-9A-Fa-f]+)U\))");
    const auto irqs = sdk_numbers(plic_h, R"(IRQN_(\w+)_INTERRUPT\s*=\s*(\d+))");
    ASSERT_GT(bases.size(), 30u);
    ASSERT_GT(irqs.size(), 60u);
    const k210::SocMap map = k210::SocMap::sdk();
    for (const k210::SocDevice& d : map.devices()) {
        ASSERT_EQ(bases.count(sdk_name(d.name)), 1u) << d.name;
        EXPECT_EQ(d.base_addr, bases.at(sdk_name(d.name))) << d.name;
        if (d.irq_count != 0) {
            ASSERT_EQ(irqs.count(sdk_irq_name(d.name)), 1u) << d.name;
            EXPECT_EQ(d.irq, irqs.at(sdk_irq_name(d.name))) << d.name;
        }
    }
    // The last of a block's sources is the SDK's too (the GPIOHS pins and DMAC channels).
    EXPECT_EQ(map.at("gpiohs").irq + map.at("gpiohs").irq_count - 1, irqs.at("GPIOHS31"));
    EXPECT_EQ(map.at("dmac").irq + map.at("dmac").irq_count - 1, irqs.at("DMA5"));
    EXPECT_EQ(map.at("timer2").irq + 1, irqs.at("TIMER2B"));
    for (const auto& [name, base] : bases) {
        if (name == "RAM" || name == "IO" || name == "AI_RAM" || name == "AI_IO") {
            continue;  // the memories: platform.memories and kpu.ram_*
        }
        const bool found =
            std::any_of(map.devices().begin(), map.devices().end(), [&](const k210::SocDevice& d) {
                return sdk_name(d.name) == name && d.base_addr == base;
            });
        EXPECT_TRUE(found) << name << "_BASE_ADDR is not in the map";
    }
}

// configs/k210.yaml spells the defaults out: reading it changes no block.
TEST(SocMap, TheShippedConfigSaysTheDefaults) {
    sim::ConfigDocument doc =
        sim::ConfigDocument::load_file(std::string(NPUSIM_SOURCE_DIR) + "/configs/k210.yaml");
    const k210::K210Config c = k210::read_k210_config(doc.root().child("platform"));
    doc.finish();
    const k210::SocMap sdk = k210::SocMap::sdk();
    ASSERT_EQ(c.devices.devices().size(), sdk.devices().size());
    for (const k210::SocDevice& d : sdk.devices()) {
        const k210::SocDevice& got = c.devices.at(d.name);
        EXPECT_EQ(got.base_addr, d.base_addr) << d.name;
        EXPECT_EQ(got.size_bytes, d.size_bytes) << d.name;
        EXPECT_EQ(got.irq, d.irq) << d.name;
    }
}

// A k210 platform with `devices` (YAML flow text) under it; the problems finish() reports, or "".
std::string problems(const std::string& devices, k210::K210Config* out = nullptr,
                     const std::string& more = "") {
    sim::ConfigDocument doc = sim::ConfigDocument::parse(
        "platform:\n  kind: k210\n  name: t\n  memories:\n    - {name: sram, base_addr: "
        "0x80000000, size_bytes: 6MiB}\n" +
            more + "  devices: " + devices + "\n",
        "soc.yaml");
    try {
        k210::K210Config c = k210::read_k210_config(doc.root().child("platform"));
        doc.finish();
        if (out != nullptr) {
            *out = c;
        }
        return "";
    } catch (const sim::Error& e) {
        return e.what();
    }
}

TEST(SocMap, ABlockMovesAndTakesAnotherSource) {
    k210::K210Config c;
    ASSERT_EQ(
        problems("{uart1: {base_addr: 0x60000000, irq: 3}, spi1: {base_addr: 0x70000000}}", &c),
        "");
    EXPECT_EQ(c.devices.at("uart1").base_addr, 0x60000000u);
    EXPECT_EQ(c.devices.at("uart1").irq, 3u);
    EXPECT_EQ(c.devices.at("uart2").base_addr, 0x50220000u);  // the others stay
    EXPECT_EQ(c.devices.unmodelled(0x70000010), c.devices.unmodelled(0x70000000));
    EXPECT_NE(c.devices.unmodelled(0x70000000).find("in SPI1 (SPI1_BASE_ADDR 0x70000000)"),
              std::string::npos);
    EXPECT_EQ(c.devices.unmodelled(0x53000000), "");  // where SPI1 was
    EXPECT_EQ(c.devices.unmodelled(0x50210000), "");  // a modelled block is no fault of this kind
    // The table: every block once, in address order, its sources.
    const std::string t = c.devices.table();
    EXPECT_NE(t.find("0x60000000-0x60000fff     4 KiB  uart1      PLIC 3"), std::string::npos) << t;
    EXPECT_NE(t.find("gpiohs     PLIC 34-65"), std::string::npos) << t;
    EXPECT_NE(t.find("spi1       PLIC -       not modelled"), std::string::npos) << t;
    EXPECT_LT(t.find("uart2"), t.find("uart1"));  // 0x50220000 before 0x60000000
}

// Each refusal names the file, the line of the key at fault and what clashes.
TEST(SocMap, WhatTheMapCannotHoldIsOneMessageAtItsLine) {
    const auto expect = [](const std::string& devices, const std::string& want,
                           const std::string& more = "") {
        const std::string got = problems(devices, nullptr, more);
        EXPECT_NE(got.find(want), std::string::npos) << devices << "\n" << got;
        EXPECT_NE(got.find("soc.yaml:"), std::string::npos) << got;
    };
    // uart1 moved onto uart2: said at uart1's base (the key the file moved), though uart2 is later.
    expect("{uart1: {base_addr: 0x50220800}}",
           "platform.devices.uart1.base_addr: uart1 [0x50220800, 0x502217ff] overlaps uart2 "
           "[0x50220000, 0x50220fff]");
    // The KPU moved by its own key onto the PLIC: said at kpu.base_addr.
    expect("{}", "platform.kpu.base_addr: kpu [0xc000100, 0xc000147] overlaps plic",
           "  kpu: {base_addr: 0x0C000100}\n");
    expect("{dvp: {irq: 25}}",
           "platform.devices.dvp.irq: PLIC sources 25-25 of dvp are also kpu's (25-25)");
    expect("{gpiohs: {irq: 40}}", "platform.devices.gpiohs.irq: expected a value in [1, 34]");
    expect("{uarths: {irq: 33}}",
           "platform.devices.uarths.irq: npusim raises no interrupt of uarths");
    expect("{wdt0: {size_bytes: 16}}",
           "platform.devices.wdt0.size_bytes: wdt0 needs at least 0x100 bytes (its registers)");
    expect("{spi1: {size_bytes: 2TiB}}", "spi1 is larger than the 40-bit address space");
    expect("{kpu: {base_addr: 0x40900000}}",
           "platform.devices.kpu.base_addr: kpu's base is kpu.base_addr");
    expect("{uart4: {base_addr: 0x50240000}}", "uart4");  // no such block: an unknown key
}

}  // namespace
}  // namespace npu::test
