// Semihosting: each operation against a guest memory of our own (parameter blocks of 8-byte
// fields laid out by hand), and picolibc's own semihosting library end to end: a C program built
// with riscv64-unknown-elf-gcc prints, reads a host file named on its command line, writes one,
// and exits with its code, on the hart.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include <gtest/gtest.h>

#include "models/rv64/cpu.h"
#include "models/rv64/elf.h"
#include "models/rv64/semihost.h"

namespace npu::rv64 {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kBase = 0x80000000;

// Guest memory over a host buffer at kBase; anything outside it fails.
struct Ram {
    std::vector<uint8_t> bytes;
    explicit Ram(size_t n)
        : bytes(n) {}
    GuestMemory memory() {
        return {[this](uint64_t a, void* d, size_t n) {
                    if (a < kBase || a - kBase > bytes.size() || n > bytes.size() - (a - kBase)) {
                        return false;
                    }
                    std::memcpy(d, bytes.data() + (a - kBase), n);
                    return true;
                },
                [this](uint64_t a, const void* s, size_t n) {
                    if (a < kBase || a - kBase > bytes.size() || n > bytes.size() - (a - kBase)) {
                        return false;
                    }
                    std::memcpy(bytes.data() + (a - kBase), s, n);
                    return true;
                }};
    }
    void put(uint64_t a, const void* s, size_t n) { std::memcpy(bytes.data() + (a - kBase), s, n); }
    void fields(uint64_t a, std::vector<uint64_t> f) { put(a, f.data(), f.size() * 8); }
};

TEST(Semihost, OperationsOnHandLaidParameterBlocks) {
    std::string printed;
    Semihost::Options so;
    so.args = {"fw", "in.bin", "out.txt"};
    so.console = [&](const std::string& s) {
        printed += s;
    };
    so.centiseconds = [] {
        return uint64_t{1234};
    };
    so.read_root = so.write_root = fs::temp_directory_path().string();
    Semihost sh(so);
    Ram ram(4096);
    const GuestMemory mem = ram.memory();
    ram.put(kBase + 0x100, "hi\n", 4);
    EXPECT_EQ(sh.call(0x04, kBase + 0x100, mem), 0u);  // SYS_WRITE0
    ram.put(kBase + 0x108, "!", 1);
    EXPECT_EQ(sh.call(0x03, kBase + 0x108, mem), 0u);  // SYS_WRITEC
    ram.put(kBase + 0x110, ":tt", 3);
    ram.fields(kBase + 0x200, {kBase + 0x110, 4, 3});  // open(":tt", "w")
    const uint64_t out = sh.call(0x01, kBase + 0x200, mem);
    EXPECT_EQ(out, 1u);
    ram.fields(kBase + 0x200, {out, kBase + 0x100, 2});  // write(out, "hi", 2)
    EXPECT_EQ(sh.call(0x05, kBase + 0x200, mem), 0u);    // 0 bytes left unwritten
    EXPECT_EQ(printed, "hi\n!hi");
    // A host file: written, measured, read back, closed.
    const fs::path file = fs::temp_directory_path() / ("npusim-sh-" + std::to_string(::getpid()));
    const std::string name = file.string();
    ram.put(kBase + 0x300, name.c_str(), name.size());
    ram.fields(kBase + 0x200, {kBase + 0x300, 5, name.size()});  // "wb"
    const uint64_t h = sh.call(0x01, kBase + 0x200, mem);
    ASSERT_GE(h, 3u);
    ram.put(kBase + 0x500, "0123456789", 10);
    ram.fields(kBase + 0x200, {h, kBase + 0x500, 10});
    EXPECT_EQ(sh.call(0x05, kBase + 0x200, mem), 0u);
    ram.fields(kBase + 0x200, {h});
    EXPECT_EQ(sh.call(0x02, kBase + 0x200, mem), 0u);
    ram.fields(kBase + 0x200, {kBase + 0x300, 1, name.size()});  // "rb"
    const uint64_t r = sh.call(0x01, kBase + 0x200, mem);
    ram.fields(kBase + 0x200, {r});
    EXPECT_EQ(sh.call(0x0c, kBase + 0x200, mem), 10u);  // SYS_FLEN
    ram.fields(kBase + 0x200, {r, 4});
    EXPECT_EQ(sh.call(0x0a, kBase + 0x200, mem), 0u);  // seek to 4
    ram.fields(kBase + 0x200, {r, kBase + 0x600, 8});
    EXPECT_EQ(sh.call(0x06, kBase + 0x200, mem), 2u);  // 6 read, 2 not
    EXPECT_EQ(std::memcmp(ram.bytes.data() + 0x600, "456789", 6), 0);
    fs::remove(file);
    // The command line, the clock, errors.
    ram.fields(kBase + 0x200, {kBase + 0x700, 64});
    EXPECT_EQ(sh.call(0x15, kBase + 0x200, mem), 0u);
    EXPECT_STREQ(reinterpret_cast<const char*>(ram.bytes.data() + 0x700), "fw in.bin out.txt");
    ram.fields(kBase + 0x200, {kBase + 0x700, 5});
    EXPECT_EQ(sh.call(0x15, kBase + 0x200, mem), ~uint64_t{0});  // too small a buffer
    EXPECT_EQ(sh.call(0x10, 0, mem), 1234u);
    EXPECT_EQ(sh.call(0x05, 0x10, mem), ~uint64_t{0});  // a block outside memory: EFAULT
    EXPECT_EQ(sh.call(0x13, 0, mem), static_cast<uint64_t>(EFAULT));
    EXPECT_EQ(sh.call(0x30, 0, mem), ~uint64_t{0});
    EXPECT_EQ(sh.unsupported().size(), 1u);
    EXPECT_FALSE(sh.exited());
    ram.fields(kBase + 0x200, {0x20026, 0});
    EXPECT_EQ(sh.call(0x18, kBase + 0x200, mem), 0u);
    EXPECT_TRUE(sh.exited());
    EXPECT_EQ(sh.exit_code(), 0);
}

// open(name, mode) by a parameter block at 0x200 and the name at 0x300; the handle or -1.
uint64_t open_file(Semihost& sh, Ram& ram, const std::string& name, uint64_t mode) {
    ram.put(kBase + 0x300, name.data(), name.size());
    ram.fields(kBase + 0x200, {kBase + 0x300, mode, name.size()});
    return sh.call(0x01, kBase + 0x200, ram.memory());
}

// Files resolve inside their root or are refused: absolute paths elsewhere, `..`, a symlink out,
// a write with no write root; each refusal fails with EACCES and is one line naming the file.
TEST(Semihost, FilesAreConfinedToTheirRoots) {
    const fs::path dir = fs::temp_directory_path() / ("npusim-jail-" + std::to_string(::getpid()));
    fs::create_directories(dir / "in");
    std::ofstream(dir / "in" / "a.bin") << "abc";
    std::ofstream(dir / "secret") << "x";
    fs::create_symlink(dir / "secret", dir / "in" / "link");
    std::vector<std::string> said;
    Semihost::Options so;
    so.read_root = (dir / "in").string();
    so.no_root_hint = "give --semihosting";
    so.refused = [&](const std::string& line) {
        said.push_back(line);
    };
    Semihost sh(so);
    Ram ram(4096);
    constexpr uint64_t kRb = 1, kWb = 5, kRPlus = 2;
    const uint64_t fail = ~uint64_t{0};
    EXPECT_LT(open_file(sh, ram, "a.bin", kRb), fail);
    EXPECT_LT(open_file(sh, ram, (dir / "in" / "a.bin").string(), kRb), fail);  // inside
    EXPECT_LT(open_file(sh, ram, "sub/../a.bin", kRb), fail);
    EXPECT_TRUE(said.empty());
    const std::vector<std::string> bad_names = {
        "/etc/passwd", "../secret", "link", (dir / "secret").string(), "", "a\nb"};
    for (const std::string& bad : bad_names) {
        EXPECT_EQ(open_file(sh, ram, bad, kRb), fail) << bad;
    }
    EXPECT_EQ(sh.call(0x13, 0, ram.memory()), static_cast<uint64_t>(EACCES));
    EXPECT_EQ(open_file(sh, ram, "a.bin", kWb), fail);     // no write root
    EXPECT_EQ(open_file(sh, ram, "a.bin", kRPlus), fail);  // r+ writes too
    ASSERT_EQ(said.size(), 8u);
    EXPECT_EQ(said[0], "semihosting: open(\"/etc/passwd\", \"rb\") refused: outside " +
                           fs::canonical(dir / "in").string() + ", the folder it may read from");
    EXPECT_NE(said[5].find("a\\x0ab"), std::string::npos) << said[5];  // no raw newline
    EXPECT_EQ(said[6],
              "semihosting: open(\"a.bin\", \"wb\") refused: the firmware may not "
              "write files (give --semihosting)");
    EXPECT_EQ(sh.refused(), said);
    fs::remove_all(dir);
}

// The run loop the firmware path uses, without the SoC: run, answer semihosting calls, resume
// past the ebreak and its marker, until the firmware exits.
struct Outcome {
    std::string console;
    int exit_code = -1;
    uint64_t instructions = 0;
};
Outcome run_firmware(const std::string& elf, std::vector<std::string> args, uint64_t breakpoint = 0,
                     const std::string& root = "") {
    const ElfImage img = load_elf(elf);
    Ram ram(6 << 20);
    for (const ElfSegment& s : img.segments) {
        ram.put(s.addr, s.bytes.data(), s.bytes.size());
    }
    auto cpu = make_unicorn_cpu();
    cpu->map_ram(kBase, ram.bytes.size(), ram.bytes.data());
    cpu->set_pc(img.entry);
    if (breakpoint != 0) {
        cpu->add_breakpoint(breakpoint);  // where the firmware never goes: nothing may change
    }
    Outcome o;
    Semihost::Options so;
    so.args = std::move(args);
    so.console = [&](const std::string& s) {
        o.console += s;
    };
    so.read_root = so.write_root = root;
    Semihost sh(so);
    const GuestMemory mem = ram.memory();
    for (int guard = 0; guard < 100000 && !sh.exited(); ++guard) {
        const RunResult r = cpu->run(breakpoint != 0 ? 400 : 10'000'000);
        o.instructions += r.instructions;
        if (r.stop != Stop::Semihost && r.stop != Stop::Budget) {
            ADD_FAILURE() << "stopped at " << img.describe(cpu->pc());
            break;
        }
        if (r.stop == Stop::Semihost) {
            cpu->set_x(10, sh.call(cpu->x(10), cpu->x(11), mem));
            cpu->set_pc(cpu->pc() + 8);
        }
    }
    o.exit_code = sh.exited() ? sh.exit_code() : -1;
    return o;
}

TEST(Semihost, PicolibcFirmwarePrintsReadsWritesAndExits) {
    const std::string elf = std::string(NPUSIM_TEST_FIRMWARE) + "/hello.elf";
    if (!fs::exists(elf)) {
        GTEST_SKIP() << "riscv64-unknown-elf-gcc was not found when configuring: no test firmware";
    }
    Outcome o = run_firmware(elf, {"hello"});
    EXPECT_EQ(o.console, "hello from the firmware: 2 arguments\n");  // program-name, hello
    EXPECT_EQ(o.exit_code, 3);
    const fs::path dir = fs::temp_directory_path() / ("npusim-fw-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::ofstream(dir / "in.bin", std::ios::binary) << std::string("\x01\x02\x03\xff", 4);
    o = run_firmware(elf, {"hello", "in.bin", (dir / "out.txt").string()}, 0, dir.string());
    EXPECT_EQ(o.exit_code, 0) << o.console;
    EXPECT_EQ(o.console, "hello from the firmware: 4 arguments\nread 4 bytes; 65.250 per byte\n");
    std::ifstream out(dir / "out.txt");
    std::stringstream text;
    text << out.rdbuf();
    EXPECT_EQ(text.str(), "4 bytes, sum 261\n");  // 1 + 2 + 3 + 255
    EXPECT_GT(o.instructions, 1000u);
    // A debugger's breakpoint where the firmware never goes changes nothing.
    const Outcome b = run_firmware(elf, {"hello", "in.bin", (dir / "out.txt").string()},
                                   0x80100000 - 4, dir.string());
    EXPECT_EQ(b.console, o.console);
    EXPECT_EQ(b.instructions, o.instructions);
    fs::remove_all(dir);
}

}  // namespace
}  // namespace npu::rv64
