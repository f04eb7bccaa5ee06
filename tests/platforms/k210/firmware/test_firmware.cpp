// npusim run --firmware: the firmware kit's kmodel_run.elf (firmware/k210) runs the real kmodels
// of ../shared/k210 on the virtual K210 and its outputs are byte-identical to `npusim run
// --model` (the C++ driver), layer for layer the same KPU cycles, with the interrupts and the
// register writes of the SDK's flow; and firmware that goes wrong (tests/.../faults.c) ends the
// run with one line naming the cause, the pc and its symbol, exit 1. Skips, saying why, without
// the cross compiler or ../shared.
#include <algorithm>
#include <map>

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <nlohmann/json.hpp>
#include <sys/socket.h>
#include <sys/wait.h>

#include "models/rv64/elf.h"
#include "tests/platforms/k210/firmware/firmware_fixture.h"

namespace npu::test {
namespace {

TEST_F(Firmware, KmodelRunMatchesTheDriverOnFaceDetectAndYolo) {
    for (const std::string name : {"face_detect_v3", "yolo20_v3"}) {
        SCOPED_TRACE(name);
        const std::string model = NPUSIM_SHARED_DIR "/k210/" + name + ".kmodel";
        if (!fs::exists(model)) {
            GTEST_SKIP() << "../shared/k210 is not here";
        }
        make_input(3, 240, 320);
        fs::copy_file(model, dir / "m.kmodel", fs::copy_options::overwrite_existing);
        const Result fw = run("run --firmware " + kKit + " --trace --out " + (dir / "fw").string() +
                              " --semihosting=" + dir.string() + " -- m.kmodel in.bin out.bin");
        ASSERT_EQ(fw.rc, 0) << fw.out << fw.err;
        const Result drv = run("run --model " + model + " --input " + (dir / "in.npy").string() +
                               " --out " + (dir / "drv").string());
        ASSERT_EQ(drv.rc, 0) << drv.err;
        // The outputs, byte for byte.
        const std::string out = slurp(dir / "out.bin");
        EXPECT_FALSE(out.empty());
        EXPECT_TRUE(out == npy_data(dir / "drv" / "output_0.npy"));
        // Every KPU layer, in order, with the driver's cycles.
        const json f = report("fw");
        const std::vector<uint64_t> fw_cycles = kpu_cycles(f, "");
        EXPECT_EQ(fw_cycles, kpu_cycles(report("drv"), "K210_CONV"));
        // kpu_init started PLL1 (off after boot): the KPU ran at 26 MHz x 46 / 3, no warning.
        EXPECT_TRUE(f["extra"]["warnings"].empty()) << f["extra"]["warnings"];
        EXPECT_NEAR(f["platform"]["parameters"]["ai_clock_hz"]["value"].get<double>(),
                    26e6 * 46 / 3, 1);
        // One interrupt per KPU layer (the last one's by its output DMA, IRQ 32), claimed from
        // the PLIC; 12 layer words per layer; the KPU writes of the SDK's flow: 4 at init, 2 +
        // 12 + 2 per calc_done layer, 1 + 12 for the DMA layer.
        const uint64_t n = fw_cycles.size();
        EXPECT_EQ(f["totals"]["irq_external"]["value"], n);
        EXPECT_EQ(f["totals"]["plic_claims"]["value"], n);
        EXPECT_NE(fw.out.find(std::to_string(12 * n) + " KPU layer words, " +
                              std::to_string(n - 1) + " KPU and 1 DMA interrupts"),
                  std::string::npos)
            << fw.out;
        uint64_t kpu_writes = 0;
        for (const json& dev : f["extra"]["devices"]) {
            if (dev["device"] == "kpu") {
                kpu_writes = dev["writes"];
            }
        }
        EXPECT_EQ(kpu_writes, 4 + (n - 1) * 16 + 13);
        // The trace: a span per KPU layer (and its parts), a marker per interrupt naming the
        // interrupted code, and the CPU's stretches named by firmware symbols.
        const json trace = json::parse(slurp(dir / "fw" / "trace.json"));
        std::map<int, std::string> tracks;
        std::map<std::string, uint64_t> spans;
        uint64_t parts = 0;  // the KPU layers' fixed, fetch, compute (and output stream) spans
        bool symbol_named = false;
        for (const json& e : trace["traceEvents"]) {
            if (e["ph"] == "M" && e["name"] == "thread_name") {
                tracks[e["tid"].get<int>()] = e["args"]["name"];
            } else if (e["ph"] == "X" && e["cat"] == "kpu parts") {
                ++parts;
            } else if (e["ph"] == "X") {
                const std::string track = tracks[e["tid"].get<int>()];
                ++spans[track];
                symbol_named =
                    symbol_named || (track == "irq" && e["args"]["mepc"].get<std::string>().rfind(
                                                           "k210_wait_flag+", 0) == 0);
            }
        }
        EXPECT_EQ(spans["soc.k210.kpu"], n);
        EXPECT_GE(parts, 3 * n);
        EXPECT_EQ(spans["irq"], n);
        EXPECT_EQ(spans["soc.k210.dmac"], 1u);
        EXPECT_GT(spans["cpu"], n);
        EXPECT_TRUE(symbol_named);
    }
}

TEST_F(Firmware, FaultsEndTheRunWithTheCausePcAndSymbol) {
    struct Case {
        std::string arg, expect;
    };
    for (const Case& c :
         {Case{"illegal", "illegal instruction 0xffffffff (mcause 2) at pc 0x"},
          Case{"fault", "bus fault: an access to 0x60000000, where no memory or device answers"},
          // A block of the chip npusim does not model: named as the SDK's platform.h names it.
          Case{"spi1",
               "bus fault: an access to 0x53000008, in SPI1 (SPI1_BASE_ADDR 0x53000000), "
               "a block of the K210 npusim does not model yet"},
          // A device that answers with an error: named, with the access and the storing pc.
          Case{"refused", "bus error: the plic answered a 4-byte write at 0xc003000 with an error"},
          Case{"loop", "did not finish within its budget of 100000 instructions"},
          Case{"sleep", "waits for an interrupt (wfi) at pc 0x"}, Case{"exit3", "exited with 3"}}) {
        SCOPED_TRACE(c.arg);
        const Result r =
            run("run --firmware " + kFaults + " --max-instructions 100000 -- " + c.arg);
        EXPECT_EQ(r.rc, 1) << r.out << r.err;
        EXPECT_NE(r.out.find(c.expect), std::string::npos) << r.out;
        if (c.arg != "exit3") {  // the symbol
            const char* where = c.arg == "sleep" ? "(k210_wait_flag+0x" : "(main+0x";
            EXPECT_NE(r.out.find(where), std::string::npos) << r.out;
        }
    }
}

TEST_F(Firmware, AMisprogrammedKpuGetsTheKpusErrorBehaviourNotACrash) {
    // All-zero layer words: the KPU skips the layer with a warning naming the fields, sets its
    // error bit (an interrupt: the handler clears it with the three causes) and goes on.
    const Result r =
        run("run --firmware " + kFaults + " --out " + (dir / "o").string() + " -- kpu");
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("kpu: status 0"), std::string::npos) << r.out;
    EXPECT_NE(r.err.find("coef_group is 0, expected 1, 2 or 4 (layer skipped)"), std::string::npos)
        << r.err;
    const json rep = report("o");
    EXPECT_EQ(rep["totals"]["irq_external"]["value"], 1);
    EXPECT_EQ(rep["layers"][0]["measures"]["skipped"]["value"], 1);
    // The firmware run's report is a run record like every run's (docs/report.schema.json).
    if (shell("/usr/bin/python3 -c 'import jsonschema'").rc == 0) {
        const Result v = shell(NPUSIM_SOURCE_DIR "/scripts/validate-report " +
                               (dir / "o" / "report.json").string());
        EXPECT_EQ(v.rc, 0) << v.out << v.err;
    }
}

// mip.MEIP reads 1 while an external interrupt is pending (and 0 before): the SDK's
// handle_irq_m_ext claims from the PLIC only when it does (tests/.../chip.c).
TEST_F(Firmware, MipShowsAPendingExternalInterrupt) {
    const std::string chip = NPUSIM_TEST_FIRMWARE "/chip.elf";
    const Result r = run("run --firmware " + chip + " -- mip");
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("mip.MEIP before: 0\nmip.MEIP while pending: 1\n"), std::string::npos)
        << r.out;
}

// mcycle, minstret and time read simulated values (the SDK's usleep and sysctl_get_time_us spin
// and time on mcycle): mtime = cycles / 50, the loop's instructions and cycles counted, and the
// same numbers on a second run.
TEST_F(Firmware, CounterCsrsReadSimulatedValuesTheSameOnEveryRun) {
    const std::string chip = NPUSIM_TEST_FIRMWARE "/chip.elf";
    const Result a = run("run --firmware " + chip + " -- counters");
    const Result b = run("run --firmware " + chip + " -- counters");
    ASSERT_EQ(a.rc, 0) << a.out << a.err;
    EXPECT_EQ(a.out, b.out);
    unsigned long long c0, c1, i0, i1, t0, t1;
    const size_t at = a.out.find("counters: ");
    ASSERT_NE(at, std::string::npos) << a.out;
    ASSERT_EQ(std::sscanf(a.out.c_str() + at,
                          "counters: mcycle %llu -> %llu, minstret %llu -> %llu, time %llu -> %llu",
                          &c0, &c1, &i0, &i1, &t0, &t1),
              6);
    EXPECT_GT(i1 - i0, 4000u);  // 1000 iterations of a volatile loop: ≥ 4 instructions each
    EXPECT_GE(c1 - c0, i1 - i0);
    EXPECT_EQ(t0, c0 / 50);  // the CLINT counts the CPU clock over 50
    EXPECT_EQ(t1, c1 / 50);
    EXPECT_NE(a.out.find("counters: time = mcycle / 50 in 500 of 500 reads"), std::string::npos)
        << a.out;
}

// Two loops on mcycle to 1,000,000 cycles (chip.c, case delay): usleep's (the registers carry
// nothing but the counter's value from turn to turn) is waited out to the turn that leaves it;
// one that also counts its turns (a register carried) is run turn by turn. Both end at the same
// count, as running them would: n plus the few cycles of the turn that leaves.
TEST_F(Firmware, ALoopOnTheCountersIsWaitedOutOnlyWhenItCarriesNothingElse) {
    const std::string chip = NPUSIM_TEST_FIRMWARE "/chip.elf";
    const Result a = run("run --firmware " + chip + " --out " + (dir / "a").string() + " -- delay");
    ASSERT_EQ(a.rc, 0) << a.out << a.err;
    unsigned long long first = 0, second = 0;
    unsigned long turns = 0;
    const size_t at = a.out.find("delay: ");
    ASSERT_NE(at, std::string::npos) << a.out;
    ASSERT_EQ(std::sscanf(a.out.c_str() + at, "delay: %llu cycles, then %llu cycles in %lu turns",
                          &first, &second, &turns),
              3);
    EXPECT_GE(first, 1'000'000u);
    EXPECT_LT(first, 1'000'020u);
    EXPECT_GE(second, 1'000'000u);
    EXPECT_LT(second, 1'000'020u);
    EXPECT_GT(turns, 100'000u);  // run: every turn counted
    const json t = report("a")["totals"];
    EXPECT_EQ(t["busy_waits"]["value"], 1);  // the first loop only
    // Nearly all of the first loop's 2.56 ms (10^6 cycles at 390 MHz) waited out.
    EXPECT_GT(t["busy_wait_ps"]["value"].get<uint64_t>(), 2'500'000'000u);
}

// A busy-wait (`while (!flag);`, the flag set by a TIMER0 interrupt 1 ms later) is waited out,
// not run (docs/firmware.md, "Busy-wait loops"): the loop ends when the interrupt comes, 1 ms
// (390,000 cycles at the 390 MHz of the CPU after boot) after the timer started, give or take the
// interrupt's entry; the
// report counts the time waited out; two runs are the same to the instruction.
TEST_F(Firmware, ABusyWaitIsWaitedOutUntilTheInterruptThatEndsIt) {
    const std::string chip = NPUSIM_TEST_FIRMWARE "/chip.elf";
    const Result a = run("run --firmware " + chip + " --out " + (dir / "a").string() + " -- spin");
    ASSERT_EQ(a.rc, 0) << a.out << a.err;
    unsigned long long cycles = 0;
    const size_t at = a.out.find("spin: the flag after ");
    ASSERT_NE(at, std::string::npos) << a.out;
    ASSERT_EQ(std::sscanf(a.out.c_str() + at, "spin: the flag after %llu cycles", &cycles), 1);
    EXPECT_GE(cycles, 390'000u);
    EXPECT_LT(cycles, 392'000u);  // the handler's few hundred cycles
    const json t = report("a")["totals"];
    // Most of the 1 ms, in ps (a look follows 10,000 instructions after a failed one).
    EXPECT_GT(t["busy_wait_ps"]["value"].get<uint64_t>(), 900'000'000u);
    EXPECT_EQ(t["irq_external"]["value"], 1);
    const Result b = run("run --firmware " + chip + " --out " + (dir / "b").string() + " -- spin");
    EXPECT_EQ(b.out.substr(0, b.out.find("wrote ")), a.out.substr(0, a.out.find("wrote ")));
    EXPECT_EQ(report("b")["totals"], t);
}

// Ctrl-C (SIGINT) during a run into a new --out: the process ends by the signal and leaves
// nothing, neither the staging folder nor the folders it created; SIGTERM into an existing empty
// folder leaves it as it was.
TEST_F(Firmware, AnInterruptedRunLeavesNothingBehind) {
    const std::string chip = NPUSIM_TEST_FIRMWARE "/chip.elf";
    fs::create_directories(dir / "kept");
    for (const auto& [sig, out] : {std::pair{SIGINT, dir / "new" / "o"}, {SIGTERM, dir / "kept"}}) {
        const pid_t pid = ::fork();
        if (pid == 0) {
            ::execl(NPUSIM_BIN, NPUSIM_BIN, "run", "--firmware", chip.c_str(), "--max-time",
                    "1000s", "--out", out.c_str(), "--", "forever", static_cast<char*>(nullptr));
            ::_exit(127);
        }
        const auto staging = [&out = out] {
            std::error_code ec;
            for (fs::directory_iterator it(out, ec), end; !ec && it != end; it.increment(ec)) {
                if (it->path().filename().string().rfind(".npusim-staging-", 0) == 0) {
                    return true;
                }
            }
            return false;
        };
        int status = 0;
        for (int ms = 0; !staging() && ms < 30000 && ::waitpid(pid, &status, WNOHANG) == 0; ++ms) {
            ::usleep(1000);
        }
        ASSERT_TRUE(staging()) << "the run made no staging folder (or ended)";
        ::usleep(200'000);  // well into the simulation
        ::kill(pid, sig);
        pid_t done = 0;
        for (int ms = 0; (done = ::waitpid(pid, &status, WNOHANG)) == 0 && ms < 30000; ++ms) {
            ::usleep(1000);
        }
        if (done == 0) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            FAIL() << "npusim did not end within 30 s of signal " << sig;
        }
        EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sig) << status;
        EXPECT_FALSE(staging());
    }
    EXPECT_FALSE(fs::exists(dir / "new"));
    EXPECT_TRUE(fs::is_directory(dir / "kept"));
    EXPECT_TRUE(fs::is_empty(dir / "kept"));
}

// A firmware that exits with characters still in UART1's FIFO: they are written, in order, as
// the line carries them on, with a note saying when the last one ends; input given to a UART the
// firmware never set up is a note too (none of it arrived).
TEST_F(Firmware, CharactersStillInATransmitFifoAreWrittenWithANote) {
    const std::string chip = NPUSIM_TEST_FIRMWARE "/chip.elf";
    const fs::path in = write("in.bin", "xyz");
    const Result r = run("run --firmware " + chip + " --uart-input uart2=" + in.string() +
                         " --out " + (dir / "o").string() + " -- unflushed");
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_EQ(slurp(dir / "o" / "uart1.txt"), "abcdef");
    const json w = report("o")["extra"]["warnings"];
    ASSERT_EQ(w.size(), 2u) << w;
    const std::string drained = w[0].get<std::string>();
    EXPECT_EQ(drained.rfind("uart1: 6 characters still in its transmit FIFO when the run ended "
                            "are written as the line carries them on (the last stop bit at ",
                            0),
              0u)
        << drained;
    // Six 10-bit characters at 16 x 14 clocks of APB0 a bit leave ~5.9 character times after
    // the exit (the first had just started): the note's figure, from the run's own clock.
    const double apb0 =
        report("o")["platform"]["parameters"]["apb0_clock_hz"]["value"].get<double>();
    const double char_us = 10.0 * 16 * 14 / apb0 * 1e6;
    const double after = std::stod(drained.substr(drained.rfind(", ") + 2));
    EXPECT_GT(after, 5.5 * char_us) << drained;
    EXPECT_LE(after, 6.0 * char_us) << drained;
    EXPECT_EQ(w[1],
              "uart2 was given input (--uart-input) but the firmware never set its baud rate: "
              "none of its 3 bytes arrived");
}

// A GPIOHS pin driven and UART1 transmitting and receiving with no FPIOA pad carrying them: the
// run says so, once each, in its text and report.json; pins.txt names no pad.
TEST_F(Firmware, ABlockUsedThroughNoPadIsAWarning) {
    const std::string chip = NPUSIM_TEST_FIRMWARE "/chip.elf";
    const fs::path in = write("in.bin", "y");  // received while 'x' leaves
    const Result r = run("run --firmware " + chip + " --uart-input uart1=" + in.string() +
                         " --out " + (dir / "o").string() + " -- nopad");
    EXPECT_EQ(r.rc, 0) << r.out << r.err;
    const json w = report("o")["extra"]["warnings"];
    ASSERT_EQ(w.size(), 3u) << w;
    EXPECT_EQ(w[2],
              "uart1 received its input, but no pad carries UART1_RX (fpioa_set_function): "
              "on a board nothing reaches it");
    EXPECT_EQ(w[0],
              "gpiohs pin 7 drives, but no pad carries GPIOHS7 (fpioa_set_function): on a "
              "board nothing leaves the chip");
    EXPECT_EQ(w[1],
              "uart1 transmits, but no pad carries UART1_TX (fpioa_set_function): on a "
              "board nothing leaves the chip");
    EXPECT_NE(r.out.find("  warning: gpiohs pin 7 drives"), std::string::npos) << r.out;
    const std::string pins = slurp(dir / "o" / "pins.txt");
    EXPECT_NE(pins.find(" gpiohs 7 0 - out\n"), std::string::npos) << pins;
    EXPECT_NE(pins.find(" gpiohs 7 1 - out\n"), std::string::npos) << pins;
}

// nncase v0.2's byte loops over the AI SRAM's uncached window, on the hart: the read-back
// (kpu_download) takes the 34.24 cycles per byte nncase#95's board shows (26.563 ms for 307,200
// bytes, less the KPU layer), the upload node's row copy the 26.52 of nncase#97 (20.367 ms). The
// uncached-access constants were fitted to these two figures (docs/firmware.md "Time"): within 2 %.
TEST_F(Firmware, UncachedByteLoopsTakeTheBoardsCyclesPerByte) {
    const Result r = run("run --firmware " NPUSIM_TEST_FIRMWARE "/chip.elf -- uncached");
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    int bytes = 0;
    unsigned long long read = 0, stored = 0;
    const size_t at = r.out.find("uncached: ");
    ASSERT_NE(at, std::string::npos) << r.out;
    ASSERT_EQ(std::sscanf(r.out.c_str() + at,
                          "uncached: %d bytes read in %llu cycles, stored in %llu cycles", &bytes,
                          &read, &stored),
              3);
    ASSERT_EQ(bytes, 4096);
    EXPECT_NEAR(static_cast<double>(read) / bytes, 34.24, 0.02 * 34.24);
    EXPECT_NEAR(static_cast<double>(stored) / bytes, 26.52, 0.02 * 26.52);
}

// GDB (gdb-multiarch, as a user runs it) debugs kmodel_run on face_detect_v3 through --gdb:
// it connects, breaks in the KPU interrupt handler, reads a variable and a register, steps one
// instruction, continues to the end; the firmware's output is the same as without GDB.
TEST_F(Firmware, GdbBreaksInTheKpuInterruptHandlerStepsAndContinuesToTheEnd) {
    const std::string model = NPUSIM_SHARED_DIR "/k210/face_detect_v3.kmodel";
    if (std::system("gdb-multiarch --version >/dev/null 2>&1") != 0) {
        GTEST_SKIP() << "gdb-multiarch is not installed (scripts/install-deps installs it)";
    }
    if (!fs::exists(model)) {
        GTEST_SKIP() << "../shared/k210 is not here";
    }
    make_input(3, 240, 320);
    fs::copy_file(model, dir / "m.kmodel", fs::copy_options::overwrite_existing);
    const std::string files = " --semihosting=" + dir.string() + " -- m.kmodel in.bin out.bin";
    const std::string gdb_out =
        under_gdb(kKit, files,
                  "-ex 'break on_kpu' -ex continue -ex 'print kpu_fifo_words' -ex 'info registers "
                  "pc' -ex stepi -ex 'info registers pc' -ex delete -ex continue");
    EXPECT_NE(gdb_out.find("Breakpoint 1, on_kpu"), std::string::npos) << gdb_out;
    EXPECT_NE(gdb_out.find("$1 = 12"), std::string::npos) << gdb_out;  // the first layer's words
    EXPECT_NE(gdb_out.find("<on_kpu>"), std::string::npos) << gdb_out;
    EXPECT_NE(gdb_out.find("<on_kpu+4>"), std::string::npos) << gdb_out;  // one step: c.lw
    EXPECT_NE(gdb_out.find("exited normally"), std::string::npos) << gdb_out;
    EXPECT_EQ(slurp(dir / "npusim.rc"), "0\n") << slurp(dir / "npusim.out");
    // The same output bytes as a run without the debugger.
    const std::string with_gdb = slurp(dir / "out.bin");
    ASSERT_EQ(run("run --firmware " + kKit + files).rc, 0);
    EXPECT_FALSE(with_gdb.empty());
    EXPECT_EQ(with_gdb, slurp(dir / "out.bin"));
}

// GDB reads and writes device registers (`m`/`M` by debug transport): writes are the bus writes
// they ask for (io7 made to carry GPIOHS7, the pin driven high: pins.txt has it, at the stop's
// time); reads show computed values without side effects (input_val through the pad, pad_di); a
// read-only register refuses the write, and GDB says so.
TEST_F(Firmware, GdbReadsAndWritesDeviceRegisters) {
    if (std::system("gdb-multiarch --version >/dev/null 2>&1") != 0) {
        GTEST_SKIP() << "gdb-multiarch is not installed (scripts/install-deps installs it)";
    }
    const std::string chip = NPUSIM_TEST_FIRMWARE "/chip.elf";
    // io7: function 31 (GPIOHS7) with oe_en (bit 12) and ie_en (bit 20).
    const std::string gdb_out = under_gdb(
        chip, " -- counters",
        "-ex 'break main' -ex continue -ex 'set {unsigned int}0x502B001C = 0x10101f' "
        "-ex 'set {unsigned int}0x38001008 = 0x80' -ex 'set {unsigned int}0x3800100c = 0x80' "
        "-ex 'set {unsigned int}0x38001004 = 0x80' -ex 'x/wx 0x38001000' -ex 'x/wx 0x502B001C' "
        "-ex 'set {unsigned int}0x0C001000 = 1' -ex continue");
    EXPECT_NE(gdb_out.find("0x38001000:\t0x00000080"), std::string::npos) << gdb_out;
    EXPECT_NE(gdb_out.find("0x502b001c:\t0x8010101f"), std::string::npos) << gdb_out;
    EXPECT_NE(gdb_out.find("Cannot access memory at address 0xc001000"), std::string::npos)
        << gdb_out;
    EXPECT_NE(gdb_out.find("exited normally"), std::string::npos) << gdb_out;
    EXPECT_EQ(slurp(dir / "npusim.rc"), "0\n") << slurp(dir / "npusim.out");
    const std::string pins = slurp(dir / "gdb_o" / "pins.txt");
    EXPECT_NE(pins.find(" gpiohs 7 0 io7 out\n"), std::string::npos) << pins;
    EXPECT_NE(pins.find(" gpiohs 7 1 io7 out\n"), std::string::npos) << pins;
    EXPECT_NE(pins.find(" gpiohs 7 1 io7 in\n"), std::string::npos) << pins;
}

// A run GDB kills never exited: it fails (exit 1, "passed": false) with the cause; a run that
// --max-time ends is reported to GDB as SIGXCPU (time limit), not SIGINT (a ^C the user never
// typed).
TEST_F(Firmware, GdbKillFailsTheRunAndMaxTimeEndsItWithSigxcpu) {
    if (std::system("gdb-multiarch --version >/dev/null 2>&1") != 0) {
        GTEST_SKIP() << "gdb-multiarch is not installed (scripts/install-deps installs it)";
    }
    const std::string chip = NPUSIM_TEST_FIRMWARE "/chip.elf";
    std::string gdb_out = under_gdb(chip, " -- counters", "-ex 'break main' -ex continue -ex kill");
    EXPECT_NE(gdb_out.find("Breakpoint 1, main"), std::string::npos) << gdb_out;
    EXPECT_EQ(slurp(dir / "npusim.rc"), "1\n") << slurp(dir / "npusim.out");
    EXPECT_NE(slurp(dir / "npusim.out").find("killed by the debugger before it exited"),
              std::string::npos)
        << slurp(dir / "npusim.out");
    EXPECT_FALSE(report("gdb_o")["passed"].get<bool>());
    fs::remove(dir / "npusim.rc");
    gdb_out = under_gdb(chip, " --max-time 0.2ms -- spin", "-ex continue");
    EXPECT_NE(gdb_out.find("SIGXCPU"), std::string::npos) << gdb_out;
    EXPECT_EQ(slurp(dir / "npusim.rc"), "1\n") << slurp(dir / "npusim.out");
    EXPECT_NE(slurp(dir / "npusim.out").find("--max-time of 0.2 ms"), std::string::npos)
        << slurp(dir / "npusim.out");
}

// Semihosting files through npusim (docs/firmware.md "Semihosting and trust"): refused without
// --semihosting; with it, reads in the working folder and writes into --out DIR/files/; with
// --semihosting=DIR, both in DIR; a name leaving the folder is refused and reported.
TEST_F(Firmware, SemihostingFilesNeedTheFlagAndStayInTheirFolders) {
    const std::string hello = NPUSIM_TEST_FIRMWARE "/hello.elf";
    fs::create_directories(dir / "work");
    write("work/in.bin", "\x01\x02\x03");
    write("secret.bin", "\x05");
    const std::string cd = "cd " + (dir / "work").string() + " && " + NPUSIM_BIN;
    Result r = shell(cd + " run --firmware " + hello + " -- in.bin out.txt");
    EXPECT_EQ(r.rc, 1);  // the firmware's own exit 4: it could not open in.bin
    EXPECT_NE(r.err.find("npusim: semihosting: open(\"in.bin\", \"r\") refused: the firmware "
                         "may not read files (run with --semihosting to give it a folder)"),
              std::string::npos)
        << r.err;
    r = shell(cd + " run --firmware " + hello + " --semihosting --out o -- in.bin out.txt");
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_EQ(slurp(dir / "work" / "o" / "files" / "out.txt"), "3 bytes, sum 6\n");
    EXPECT_FALSE(fs::exists(dir / "work" / "out.txt"));
    r = shell(cd + " run --firmware " + hello + " --semihosting --out o -- ../secret.bin x.txt");
    EXPECT_EQ(r.rc, 1);
    EXPECT_NE(r.err.find("refused: outside " + fs::canonical(dir / "work").string()),
              std::string::npos)
        << r.err;
    EXPECT_EQ(report("work/o")["extra"]["semihosting_refused"].size(), 1u);
    r = shell(cd + " run --firmware " + hello + " --semihosting --out o -- in.bin ../escape.txt");
    EXPECT_EQ(r.rc, 1);  // the write leaves out/files/
    EXPECT_FALSE(fs::exists(dir / "work" / "o" / "escape.txt"));
    EXPECT_FALSE(fs::exists(dir / "work" / "escape.txt"));
    r = shell(cd + " run --firmware " + hello + " --semihosting=" + dir.string() +
              " -- secret.bin " + (dir / "sum.txt").string());
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_EQ(slurp(dir / "sum.txt"), "1 bytes, sum 5\n");
}

// A hostile debugger client (issue #33), by raw packets: a breakpoint at every halfword from the
// entry (5,000 asked: those inside an instruction and those past 256 refused), continue (the
// first breakpoint stops it), all removed, continue to the exit; then 64 MB of a packet without
// its '#' and a register number past 32 bits. npusim neither crashes nor grows nor misreads.
TEST_F(Firmware, GdbStubSurvivesAHostileClient) {
    const std::string hello = NPUSIM_TEST_FIRMWARE "/hello.elf";
    const int port = free_port();
    start_in_background(std::string(NPUSIM_BIN) + " run --firmware " + hello + " --gdb " +
                        std::to_string(port));
    int sock = -1;
    for (int attempt = 0; attempt < 100 && sock < 0; ++attempt) {
        sock = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_port = htons(static_cast<uint16_t>(port));
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        if (::connect(sock, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) {
            ::close(sock), sock = -1;
            ::usleep(50000);
        }
    }
    ASSERT_GE(sock, 0) << slurp(dir / "npusim.out");
    timeval tv{20, 0};  // a wall-clock bound on every reply
    ::setsockopt(sock, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
    // One packet out (no-ack mode once set), its whole reply back.
    const auto ask = [&](const std::string& payload) {
        unsigned sum = 0;
        for (const char c : payload) {
            sum += static_cast<unsigned char>(c);
        }
        const std::string f = fmt::format("${}#{:02x}", payload, sum & 0xff);
        ::send(sock, f.data(), f.size(), MSG_NOSIGNAL);
        std::string in;
        char buf[4096];
        while (in.find('#') == std::string::npos || in.size() < in.find('#') + 3) {
            const ssize_t n = ::recv(sock, buf, sizeof buf, 0);
            if (n <= 0) {
                return std::string("(no reply)");
            }
            in.append(buf, static_cast<size_t>(n));
        }
        const size_t start = in.find('$');
        return start == std::string::npos ? in : in.substr(start + 1, in.find('#') - start - 1);
    };
    ask("QStartNoAckMode");
    const rv64::ElfImage elf = rv64::load_elf(hello);
    size_t ok = 0, refused = 0;
    for (uint64_t i = 0; i < 5000; ++i) {
        const std::string r = ask(fmt::format("Z0,{:x},2", elf.entry + 2 + 2 * i));
        ok += r == "OK", refused += r == "E01";
    }
    EXPECT_EQ(ok, 256u);
    EXPECT_EQ(ok + refused, 5000u);
    EXPECT_EQ(ask("c"), "S05");  // the first breakpoint reached
    for (uint64_t i = 0; i < 5000; ++i) {
        ask(fmt::format("z0,{:x},2", elf.entry + 2 + 2 * i));
    }
    EXPECT_EQ(ask("p100000021"), "E01");
    const std::string mb(1 << 20, 'a');
    ::send(sock, "$", 1, MSG_NOSIGNAL);
    for (int i = 0; i < 64; ++i) {
        ::send(sock, mb.data(), mb.size(), MSG_NOSIGNAL);
    }
    EXPECT_EQ(ask("p20").size(), 16u);  // the pc: the stub is in step again
    EXPECT_EQ(ask("c"), "W03");         // hello.elf's own exit code without its files
    ::close(sock);
    for (int i = 0; i < 600 && !fs::exists(dir / "npusim.rc"); ++i) {
        ::usleep(100000);
    }
    EXPECT_EQ(slurp(dir / "npusim.rc"), "1\n") << slurp(dir / "npusim.out");
}

TEST_F(Firmware, BadFirmwareFilesAndArgumentsAreOneError) {
    write("text.elf", "not an elf\n");
    Result r = run("run --firmware " + (dir / "text.elf").string());
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("text.elf"), std::string::npos) << r.err;
    r = run("run --out " + (dir / "o").string() + " -- stray");
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("arguments are the firmware's"), std::string::npos) << r.err;
    r = run("run --firmware " + kFaults + " --functional -- exit3");
    EXPECT_EQ(r.rc, 2);
    // The board's inputs: a camera scene that is not there, a flash image at no offset or past
    // the flash's end.
    r = run("run --firmware " + kFaults + " --camera " + (dir / "none.png").string() + " -- exit3");
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("--camera " + (dir / "none.png").string() + ": no such file"),
              std::string::npos)
        << r.err;
    write("image.bin", "0123456789");
    for (const std::string& spec :
         {std::string("@x12"), std::string("@"), std::string("@-1"), std::string("@16777215")}) {
        r = run("run --firmware " + kFaults + " --flash " + (dir / "image.bin").string() + spec +
                " -- exit3");
        EXPECT_EQ(r.rc, 2) << spec;
        EXPECT_NE(r.err.find("--flash"), std::string::npos) << spec << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << spec << r.err;
    }
    // Offsets are decimal as the message says, leading zeros too (they were read as octal):
    // 09 is nine, and 016777210 is past the flash's end for a 10-byte file (octal: 3,997,320).
    r = run("run --firmware " + kFaults + " --flash " + (dir / "image.bin").string() +
            "@09 -- exit3");
    EXPECT_NE(r.rc, 2) << r.err;
    r = run("run --firmware " + kFaults + " --flash " + (dir / "image.bin").string() +
            "@016777210 -- exit3");
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("--flash"), std::string::npos) << r.err;
    // Special files are refused before they are opened: /dev/zero grew memory until bad_alloc
    // (exit 3), a FIFO hung the run.
    const std::string fifo = (dir / "fifo").string();
    ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
    for (const std::string& opt : {std::string("--flash /dev/zero"), "--uart-input " + fifo,
                                   "--pin-input " + fifo, std::string("--uart-input /dev/zero")}) {
        r = run("run --firmware " + kFaults + " " + opt + " -- exit3");
        EXPECT_EQ(r.rc, 2) << opt << r.err;
        EXPECT_NE(r.err.find("not a regular file"), std::string::npos) << opt << r.err;
    }
    // A folder is a user's mistake (exit 2), not an internal error (exit 3).
    r = run("run --firmware " + kFaults + " --flash " + dir.string() + " -- exit3");
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("is a directory, expected a file"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace npu::test
