// What the firmware tests share: the fixture (skips without the built firmware), the SDK demos of
// ../shared/vendor built by scripts/k210-sdk-app, reports and .npy data.
#pragma once

#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <unistd.h>

#include "sim/core/npy.h"
#include "sim/core/tensor.h"
#include "tests/app/cli_fixture.h"

namespace npu::test {

using json = nlohmann::json;

inline const std::string kKit = NPUSIM_FIRMWARE_DIR "/kmodel_run.elf";
inline const std::string kFaults = NPUSIM_TEST_FIRMWARE "/faults.elf";

// A free TCP port on 127.0.0.1 (the kernel's pick; closed again for npusim to take).
inline int free_port() {
    const int s = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t len = sizeof a;
    ::bind(s, reinterpret_cast<sockaddr*>(&a), sizeof a);
    ::getsockname(s, reinterpret_cast<sockaddr*>(&a), &len);
    ::close(s);
    return ntohs(a.sin_port);
}

// Every hex constant of `digits` digits in a demo's header, in order (its font or image table).
inline std::vector<uint32_t> demo_table(const fs::path& header, int digits) {
    std::ifstream in(header);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    std::vector<uint32_t> v;
    const std::regex hex("0x([0-9A-Fa-f]{" + std::to_string(digits) + "})\\b");
    for (auto it = std::sregex_iterator(text.begin(), text.end(), hex);
         it != std::sregex_iterator(); ++it) {
        v.push_back(static_cast<uint32_t>(std::stoul((*it)[1].str(), nullptr, 16)));
    }
    return v;
}

class Firmware : public Cli {
protected:
    void SetUp() override {
        Cli::SetUp();
        if (!fs::exists(kKit) || !fs::exists(kFaults)) {
            GTEST_SKIP() << "the firmware was not built (no riscv64-unknown-elf-gcc / picolibc)";
        }
    }
    // A deterministic u8 input (1, c, h, w) as raw bytes (the firmware's) and as .npy (npusim's).
    void make_input(int c, int h, int w) {
        sim::Tensor t(sim::DType::u8, {1, c, h, w});
        uint32_t s = 12345;
        for (size_t i = 0; i < t.numel(); ++i) {
            s = s * 1664525u + 1013904223u;  // Numerical Recipes' LCG
            t.data<uint8_t>()[i] = static_cast<uint8_t>(s >> 24);
        }
        std::ofstream(dir / "in.bin", std::ios::binary)
            .write(reinterpret_cast<const char*>(t.bytes()),
                   static_cast<std::streamsize>(t.size_bytes()));
        sim::write_npy((dir / "in.npy").string(), t);
    }
    json report(const std::string& out) { return json::parse(slurp(dir / out / "report.json")); }
    // The Kendryte SDK demo `demo` of ../shared/vendor, built unmodified by scripts/k210-sdk-app
    // into the test's folder; empty when ../shared/vendor is absent (the caller skips).
    fs::path sdk_demo(const std::string& demo) {
        const std::string sdk = NPUSIM_SHARED_DIR "/vendor/kendryte-standalone-sdk";
        const std::string app = NPUSIM_SHARED_DIR "/vendor/kendryte-standalone-demo/" + demo;
        if (!fs::exists(sdk) || !fs::exists(app)) {
            return {};
        }
        const fs::path elf = dir / (demo + ".elf");
        const Result b = shell(std::string(NPUSIM_SOURCE_DIR "/scripts/k210-sdk-app --sdk ") + sdk +
                               " " + app + " -o " + elf.string());
        EXPECT_EQ(b.rc, 0) << b.out << b.err;
        return elf;
    }
    // An SDK application of ours (tests/platforms/k210/firmware/NAME/main.c) built against the
    // vendor SDK; empty when ../shared/vendor is absent.
    fs::path our_sdk_app(const std::string& name) {
        const std::string sdk = NPUSIM_SHARED_DIR "/vendor/kendryte-standalone-sdk";
        if (!fs::exists(sdk)) {
            return {};
        }
        const fs::path app = dir / name;
        fs::create_directories(app);
        fs::copy_file(NPUSIM_SOURCE_DIR "/tests/platforms/k210/firmware/" + name + "/main.c",
                      app / "main.c", fs::copy_options::overwrite_existing);
        const fs::path elf = dir / (name + ".elf");
        const Result b = shell(std::string(NPUSIM_SOURCE_DIR "/scripts/k210-sdk-app --sdk ") + sdk +
                               " " + app.string() + " -o " + elf.string());
        EXPECT_EQ(b.rc, 0) << b.out << b.err;
        return elf;
    }
    // Runs `npusim run --firmware elf --gdb PORT args` in the background and gdb-multiarch against
    // it with `commands` (-ex ...); returns GDB's output once npusim has ended (its exit code in
    // npusim.rc, its output in npusim.out).
    // Runs `command` (at most 120 s) in the background: its output to dir/npusim.out, its exit
    // code to dir/npusim.rc by a rename, so the file is never seen before it holds the code (a
    // redirection creates it first: a test once read it empty under load).
    void start_in_background(const std::string& command) {
        const std::string rc = (dir / "npusim.rc").string();
        EXPECT_EQ(
            std::system(("(timeout 120 " + command + " >" + (dir / "npusim.out").string() +
                         " 2>&1; echo $? >" + rc + ".part && mv " + rc + ".part " + rc + ") &")
                            .c_str()),
            0);
    }

    std::string under_gdb(const std::string& elf, const std::string& args,
                          const std::string& commands) {
        const int port = free_port();
        const std::string npusim = std::string(NPUSIM_BIN) + " run --firmware " + elf + " --gdb " +
                                   std::to_string(port) + " --out " + (dir / "gdb_o").string() +
                                   args;
        start_in_background(npusim);
        std::string gdb_out;
        for (int attempt = 0; attempt < 50; ++attempt) {  // until npusim listens
            const Result g = shell(
                "timeout 120 gdb-multiarch --batch -nx -ex 'set architecture riscv:rv64' -ex "
                "'file " +
                elf + "' -ex 'target remote 127.0.0.1:" + std::to_string(port) + "' " + commands);
            gdb_out = g.out + g.err;
            if (gdb_out.find("Connection refused") == std::string::npos) {
                break;
            }
            ::usleep(100000);
        }
        for (int i = 0; i < 1200 && !fs::exists(dir / "npusim.rc"); ++i) {
            ::usleep(100000);
        }
        return gdb_out;
    }
};

// The KPU cycles (the measure kpu_cycles) of a run record's layers in order: every layer of a
// firmware run's report (each is a KPU layer), or those of op `type` in the driver's.
inline std::vector<uint64_t> kpu_cycles(const json& report, const std::string& type) {
    std::vector<uint64_t> cycles;
    for (const json& l : report["layers"]) {
        if (type.empty() || l["op"] == type) {
            cycles.push_back(l["measures"]["kpu_cycles"]["value"]);
        }
    }
    return cycles;
}

// The data of an .npy file, as bytes.
inline std::string npy_data(const fs::path& path) {
    const sim::Tensor t = sim::read_npy(path.string());
    return std::string(reinterpret_cast<const char*>(t.bytes()), t.size_bytes());
}

}  // namespace npu::test
