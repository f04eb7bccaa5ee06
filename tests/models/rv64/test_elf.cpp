// Firmware ELF files: tests/models/rv64/firmware/loop.S built by riscv64-unknown-elf-gcc, loaded
// at its physical addresses and run on the hart (its 16- and 32-bit instructions counted), its
// symbols naming addresses; and files that are not RISC-V firmware, one clear error each.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <vector>

#include <gtest/gtest.h>

#include "models/rv64/cpu.h"
#include "models/rv64/elf.h"
#include "sim/core/error.h"

namespace npu::rv64 {
namespace {

namespace fs = std::filesystem;

const std::string kDir = NPUSIM_TEST_FIRMWARE;

std::string error_of(const std::string& path) {
    try {
        load_elf(path);
    } catch (const sim::Error& e) {
        return e.what();
    }
    return "no error";
}

TEST(Elf, TheLoopFirmwareLoadsRunsAndNamesItsAddresses) {
    if (!fs::exists(kDir + "/loop.elf")) {
        GTEST_SKIP() << "riscv64-unknown-elf-gcc was not found when configuring (scripts/"
                        "install-deps installs it): no test firmware";
    }
    const ElfImage img = load_elf(kDir + "/loop.elf");
    EXPECT_EQ(img.entry, 0x80000000u);
    EXPECT_EQ(img.symbol("_start"), std::optional<uint64_t>(0x80000000));
    ASSERT_TRUE(img.symbol("loop") && img.symbol("done") && img.symbol("counter"));
    EXPECT_EQ(*img.symbol("loop"), 0x80000004u);  // after the 4-byte li
    EXPECT_EQ(img.describe(*img.symbol("loop") + 2), "loop+0x2");
    EXPECT_EQ(img.describe(0x1000), "0x1000");
    std::vector<uint8_t> ram(64 * 1024);
    for (const ElfSegment& s : img.segments) {
        ASSERT_GE(s.addr, 0x80000000u);
        std::memcpy(ram.data() + (s.addr - 0x80000000), s.bytes.data(), s.bytes.size());
    }
    uint64_t counter = 0;
    std::memcpy(&counter, ram.data() + (*img.symbol("counter") - 0x80000000), 8);
    EXPECT_EQ(counter, 42u);
    auto cpu = make_unicorn_cpu();
    cpu->map_ram(0x80000000, ram.size(), ram.data());
    cpu->set_pc(img.entry);
    const RunResult r = cpu->run(1'000'000);
    EXPECT_EQ(r.stop, Stop::Wfi);
    EXPECT_EQ(r.instructions, 2002u);  // li, 1000 x (c.addi, bnez), wfi
    EXPECT_EQ(img.describe(cpu->pc()), "done+0x4");
}

TEST(Elf, FilesThatAreNotRiscvFirmwareAreOneErrorEach) {
    const fs::path dir = fs::temp_directory_path() / ("npusim-elf-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "text.elf") << "not an elf\n";
    EXPECT_EQ(error_of((dir / "text.elf").string()),
              (dir / "text.elf").string() + ": not an ELF file");
    EXPECT_EQ(error_of((dir / "none.elf").string()),
              (dir / "none.elf").string() + ": cannot open the firmware file");
    if (fs::exists("/bin/true")) {  // the host's own ELF: x86-64
        EXPECT_NE(error_of("/bin/true").find(": an ELF for machine 62, 64-bit; expected RISC-V"),
                  std::string::npos)
            << error_of("/bin/true");
    }
    if (fs::exists(kDir + "/loop.o")) {
        EXPECT_NE(error_of(kDir + "/loop.o").find("not an executable (ET_EXEC)"),
                  std::string::npos);
        // Every truncation of the firmware: one error or a loadable image, never a crash.
        std::ifstream in(kDir + "/loop.elf", std::ios::binary);
        const std::string whole((std::istreambuf_iterator<char>(in)), {});
        size_t errors = 0;
        for (size_t n = 0; n < whole.size(); n += 7) {
            std::ofstream(dir / "cut.elf", std::ios::binary) << whole.substr(0, n);
            errors += error_of((dir / "cut.elf").string()) != "no error" ? 1u : 0u;
        }
        EXPECT_GT(errors, whole.size() / 7 / 2);
    }
    fs::remove_all(dir);
}

}  // namespace
}  // namespace npu::rv64
