// The Kendryte SDK's own demos (../shared/vendor/kendryte-standalone-demo), unmodified, built by
// scripts/k210-sdk-app with Debian's toolchain and run on the virtual K210: judged by what they
// print, the pins they drive and the interrupts they take, with inputs on their UARTs and pins
// (--uart-input, --pin-input); and an SDK program of ours that runs the shared kmodels through the
// SDK's kpu.c. Skips, saying why, without ../shared/vendor or the cross compiler.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <sstream>

#include <fmt/format.h>

#include "tests/platforms/k210/firmware/firmware_fixture.h"

namespace npu::test {
namespace {

// The Kendryte SDK's hello_world, unmodified, built by scripts/k210-sdk-app with Debian's
// toolchain: the SDK's own start-up (crt.S, _init_bsp: UART3 as console, dmac_init, fpioa,
// plic_init) reaches main, which prints through the SDK's ecall handler to UART3. The demo never
// exits (core 0 spins after waking core 1): judged by what it printed within its budget, twice
// with the same console, instruction count and simulated time. Both cores print.
TEST_F(Firmware, SdkHelloWorldBuildsAndRunsUnmodified) {
    const fs::path elf = sdk_demo("hello_world");
    if (elf.empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    std::string first;
    for (int i = 0; i < 2; ++i) {
        // The console is UART3 at 115200 baud: the two lines take 38 characters of 86.5 µs.
        const Result r = run("run --firmware " + elf.string() + " --max-instructions 1500000");
        EXPECT_NE(r.out.find("Core 0 Hello world\n"), std::string::npos) << r.out << r.err;
        // main wakes core 1 (register_core1: the CLINT IPI and the wake-up flag), which prints
        // from its own hart: mhartid reads 1 there.
        EXPECT_NE(r.out.find("Core 1 Hello world\n"), std::string::npos) << r.out << r.err;
        EXPECT_NE((r.out + r.err).find("did not finish within its budget of 1500000 instructions"),
                  std::string::npos)
            << r.out << r.err;
        if (i == 0) {
            first = r.out;
        } else {
            EXPECT_EQ(r.out, first);  // console, instructions, cycles, simulated time
        }
    }
}

// --max-time bounds a firmware that never exits in simulated time: hello_world (both cores print,
// 38 characters at 115200 baud, then spin) stops at 5 ms, saying so; a duration without its unit
// is one error.
TEST_F(Firmware, MaxTimeStopsAFirmwareAtItsSimulatedTime) {
    const fs::path elf = sdk_demo("hello_world");
    if (elf.empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    const Result r = run("run --firmware " + elf.string() + " --max-time 5ms");
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("Core 1 Hello world\n"), std::string::npos) << r.out;
    EXPECT_NE((r.out + r.err).find("did not finish within its --max-time of 5 ms (simulated)"),
              std::string::npos)
        << r.out << r.err;
    double us = 0;
    const size_t at = r.out.find("simulated time ");
    ASSERT_NE(at, std::string::npos) << r.out;
    ASSERT_EQ(std::sscanf(r.out.c_str() + at, "simulated time %lf us", &us), 1);
    EXPECT_GE(us, 5000.0);
    EXPECT_LT(us, 5002.0);  // within a quantum (1 µs) and the piece that crossed it
    const Result bad = run("run --firmware " + elf.string() + " --max-time 2");
    EXPECT_EQ(bad.rc, 2);
    EXPECT_NE(bad.err.find("--max-time: expected a duration"), std::string::npos) << bad.err;
}

// FNV-1a 64 of `bytes`, as the SDK program of sdk_kmodel/main.c prints it.
std::string fnv1a64(const std::string& bytes) {
    uint64_t h = 0xcbf29ce484222325ull;
    for (const char c : bytes) {
        h = (h ^ static_cast<unsigned char>(c)) * 0x100000001b3ull;
    }
    return fmt::format("{:016x}", h);
}

// An SDK application of ours (sdk_kmodel/main.c) runs face_detect_v3 and yolo20_v3 through the
// SDK's own kpu_load_kmodel and kpu_run_kmodel (kpu.c's interrupt-chained ai_step, its input DMA,
// its DMA-drained last layer): each output equals `npusim run --model`'s byte for byte (by hash)
// and every KPU layer has the driver's cycles. The SDK's start-up and its first iomem_malloc
// (which zeroes the uncached I/O heap byte by byte: ~0.4 s simulated) come first; main returns
// into the SDK's sys_exit, which spins, so the run ends at its budget.
TEST_F(Firmware, SdkProgramRunsKmodelsAsTheDriverDoes) {
    const std::string sdk = NPUSIM_SHARED_DIR "/vendor/kendryte-standalone-sdk";
    if (!fs::exists(sdk)) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    for (const std::string name : {"face_detect_v3", "yolo20_v3"}) {
        SCOPED_TRACE(name);
        const fs::path app = dir / ("app_" + name);
        fs::create_directories(app);
        fs::copy_file(NPUSIM_SOURCE_DIR "/tests/platforms/k210/firmware/sdk_kmodel/main.c",
                      app / "main.c");
        fs::copy_file(NPUSIM_SHARED_DIR "/k210/" + name + ".kmodel", app / "model.kmodel");
        const fs::path elf = dir / (name + ".elf");
        const Result b = shell(std::string(NPUSIM_SOURCE_DIR "/scripts/k210-sdk-app --sdk ") + sdk +
                               " " + app.string() + " -o " + elf.string());
        ASSERT_EQ(b.rc, 0) << b.out << b.err;
        const std::string fw_out = "fw_" + name;
        run("run --firmware " + elf.string() + " --max-instructions 45000000 --out " +
            (dir / fw_out).string());
        const std::string console = slurp(dir / fw_out / "uart3.txt");
        // The same input the program makes: (i * 7 + i / 256) mod 256.
        sim::Tensor t(sim::DType::u8, {1, 3, 240, 320});
        for (uint32_t i = 0; i < t.numel(); ++i) {
            t.data<uint8_t>()[i] = static_cast<uint8_t>(i * 7u + (i >> 8));
        }
        sim::write_npy((dir / "sdk_in.npy").string(), t);
        const std::string drv_out = "drv_" + name;
        const Result drv =
            run("run --model " NPUSIM_SHARED_DIR "/k210/" + name + ".kmodel --input " +
                (dir / "sdk_in.npy").string() + " --out " + (dir / drv_out).string());
        ASSERT_EQ(drv.rc, 0) << drv.err;
        const std::string expected = npy_data(dir / drv_out / "output_0.npy");
        EXPECT_NE(console.find(fmt::format("output 0: {} bytes, fnv1a64 {}\n", expected.size(),
                                           fnv1a64(expected))),
                  std::string::npos)
            << console;
        EXPECT_EQ(kpu_cycles(report(fw_out), ""), kpu_cycles(report(drv_out), "K210_CONV"));
        EXPECT_TRUE(report(fw_out)["extra"]["warnings"].empty())
            << report(fw_out)["extra"]["warnings"];
        EXPECT_NEAR(report(fw_out)["platform"]["parameters"]["ai_clock_hz"]["value"].get<double>(),
                    26e6 * 46 / 3, 1);
    }
}

// One line of pins.txt: "<µs> <block> <pin> <level> <pad> <out|in>".
struct PinChange {
    double us = 0;
    std::string block;
    unsigned pin = 0, level = 9;
    std::string pad, dir;
};

std::vector<PinChange> pin_changes(const std::string& log) {
    std::vector<PinChange> out;
    std::istringstream in(log);
    PinChange c;
    while (in >> c.us >> c.block >> c.pin >> c.level >> c.pad >> c.dir) {
        out.push_back(c);
    }
    EXPECT_EQ(std::count(log.begin(), log.end(), '\n'), static_cast<long>(out.size())) << log;
    return out;
}

// gpio_led, unmodified: GPIO pin 3 on pad io24 becomes an output (driven low), is set high, and
// toggles every second: sleep(1) is usleep(1000000), mcycle counting to the CPU clock the SDK
// computes from SYSCTL (390 MHz after boot, the clock the hart runs at), so one toggle is 1 s
// plus the loop's few hundred cycles later. The counter loop is waited out (busy_waits), not run:
// 2.5 s of simulated time take a fraction of a second.
TEST_F(Firmware, SdkGpioLedDemoDrivesItsPin) {
    const fs::path elf = sdk_demo("gpio_led");
    if (elf.empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    run("run --firmware " + elf.string() + " --max-time 2.5s --out " + (dir / "o").string());
    const std::vector<PinChange> pins = pin_changes(slurp(dir / "o" / "pins.txt"));
    ASSERT_EQ(pins.size(), 4u);
    for (const PinChange& c : pins) {
        EXPECT_EQ(c.block + " " + std::to_string(c.pin) + " " + c.pad + " " + c.dir,
                  "gpio 3 io24 out");
    }
    EXPECT_EQ(pins[0].level * 1000 + pins[1].level * 100 + pins[2].level * 10 + pins[3].level,
              101u);  // low, high, low, high
    EXPECT_GT(pins[0].us, 0.0);
    for (size_t i = 2; i < pins.size(); ++i) {
        const double gap = pins[i].us - pins[i - 1].us;
        EXPECT_GE(gap, 1e6) << i;      // 390,000,000 cycles at 390 MHz
        EXPECT_LT(gap, 1e6 + 5) << i;  // and the loop around the sleep
    }
    const json rep = report("o");
    EXPECT_TRUE(rep["extra"]["warnings"].empty()) << rep["extra"]["warnings"];
    EXPECT_GE(rep["totals"]["busy_waits"]["value"].get<uint64_t>(), 2u);
    EXPECT_EQ(rep["platform"]["parameters"]["cpu_clock_hz"]["value"], 390e6);
}

// gpiohs_led, unmodified, with its key pressed (--pin-input): GPIOHS pin 3 on io25 drives the LED
// (low, then high at start); the key is GPIOHS pin 2 on io26, an input with the FPIOA's pull-up
// (reads 1 while nobody drives it), interrupting on both edges (PLIC source 36). Pressed at 5 ms
// (io26 driven 0), released at 10 ms (z: the pull-up again): each edge runs the SDK's handler,
// which prints the level and a count over UART3 (28 characters at 115200 baud: the 16-byte FIFO
// and the transmitter's shift register take 17 at once, the last 11 wait for room: 0.95 ms) and
// then sets the LED to the key's level.
TEST_F(Firmware, SdkGpiohsLedDemoFollowsItsKey) {
    const fs::path elf = sdk_demo("gpiohs_led");
    if (elf.empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    const fs::path keys = write("keys.txt", "# the key on io26\n5ms io26 0\n10ms io26 z\n");
    const Result r = run("run --firmware " + elf.string() + " --pin-input " + keys.string() +
                         " --max-time 14ms --out " + (dir / "o").string());
    EXPECT_EQ(r.rc, 1) << r.out << r.err;  // the demo never exits
    EXPECT_EQ(slurp(dir / "o" / "uart3.txt"),
              "IRQ The PIN is 0\ncount is 0\nIRQ The PIN is 1\ncount is 1\n");
    std::vector<PinChange> led, key;
    for (const PinChange& c : pin_changes(slurp(dir / "o" / "pins.txt"))) {
        (c.pin == 3 ? led : key).push_back(c);
        EXPECT_EQ(c.block + " " + c.pad + " " + c.dir,
                  c.pin == 3 ? "gpiohs io25 out" : "gpiohs io26 in");
    }
    ASSERT_EQ(led.size(), 4u);
    ASSERT_EQ(key.size(), 3u);
    EXPECT_EQ(key[0].level * 100 + key[1].level * 10 + key[2].level, 101u);  // pull-up, 0, 1
    EXPECT_DOUBLE_EQ(key[1].us, 5000.0);
    EXPECT_DOUBLE_EQ(key[2].us, 10000.0);
    EXPECT_EQ(led[0].level * 1000 + led[1].level * 100 + led[2].level * 10 + led[3].level, 101u);
    const double kChar = 10.0 * 225 / 26.0;  // µs
    for (size_t i = 0; i < 2; ++i) {  // the LED follows the key after the handler's 28 characters
        EXPECT_GT(led[2 + i].us, key[1 + i].us + 11 * kChar) << i;
        EXPECT_LT(led[2 + i].us, key[1 + i].us + 12 * kChar) << i;
    }
    EXPECT_EQ(report("o")["totals"]["irq_external"]["value"], 2);
    EXPECT_TRUE(report("o")["extra"]["warnings"].empty()) << report("o")["extra"]["warnings"];
    // A bad line is one error naming the file and line.
    const fs::path bad = write("bad.txt", "5ms io26 0\n4ms io48 1\n");
    const Result b = run("run --firmware " + elf.string() + " --pin-input " + bad.string());
    EXPECT_EQ(b.rc, 2);
    EXPECT_NE(b.err.find("bad.txt:2: pad 'io48': expected io0 .. io47"), std::string::npos)
        << b.err;
}

// An SDK application of ours (sdk_pwm/main.c) drives TIMER0 channel 0's PWM output on io24 with
// the SDK's pwm.c: 200 kHz at duty 0.5, then 0.25, then off. The SDK computes from the 13 MHz
// timer clock 65 counts a period (and answers 200,000 Hz): load_count 33 and load_count2 32,
// then 49 and 16. DW_apb_timers' PWM counts each +1: high 33 and low 34 counts (13 MHz / 67 =
// 194,029.85 Hz, duty 33/67), then high 17, low 50 (duty 17/67), the second setting taking effect
// at the end of a period (pwm.txt: the SDK's two writes one change).
TEST_F(Firmware, SdkPwmDrivesItsTimersToggleOutput) {
    const fs::path elf = our_sdk_app("sdk_pwm");
    if (elf.empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    run("run --firmware " + elf.string() + " --max-time 5ms --out " + (dir / "o").string());
    const std::string console = slurp(dir / "o" / "uart3.txt");  // then sys_exit's warning
    EXPECT_EQ(console.rfind("pwm: 200000 Hz\npwm: 200000 Hz\npwm: off\n", 0), 0u) << console;
    std::istringstream in(slurp(dir / "o" / "pwm.txt"));
    double us[3] = {}, hz[3] = {}, duty[3] = {};
    std::string timer, pad;
    unsigned channel = 9;
    for (int i = 0; i < 3; ++i) {
        ASSERT_TRUE(in >> us[i] >> timer >> channel >> hz[i] >> duty[i] >> pad) << i;
        EXPECT_EQ(timer + " " + std::to_string(channel) + " " + pad, "timer0 0 io24");
    }
    const double period_us = 67 / 13.0;
    EXPECT_NEAR(hz[0], 13e6 / 67, 0.5);
    EXPECT_NEAR(duty[0], 33.0 / 67, 1e-4);
    EXPECT_NEAR(hz[1], 13e6 / 67, 0.5);
    EXPECT_NEAR(duty[1], 17.0 / 67, 1e-4);
    const double periods = (us[1] - us[0]) / period_us;  // a whole number of periods later
    EXPECT_NEAR(periods, std::round(periods), 0.01) << us[0] << " " << us[1];
    EXPECT_EQ(hz[2], 0.0);
    EXPECT_EQ(duty[2], 0.0);
    EXPECT_FALSE(in >> us[0]);
}

// An SDK application of ours (sdk_clocks/main.c) sets the clocks as the SDK's KPU demos do. The
// SDK computes them from SYSCTL's registers and the models run at what it computes: after boot
// CPU 390 MHz (PLL0 780 MHz / 2), APB0 195 MHz (the AI clock's PLL1 is off: the SDK, reading its
// factors only, says 26 MHz); sysctl_pll_set_freq gets PLL0 806 MHz (26 MHz x 31) and PLL1
// 398.67 MHz (26 MHz x 46 / 3), so CPU 403 MHz, APB0 201.5 MHz. usleep(10000) counts mcycle to
// 10 ms at the CPU clock the SDK computes: 3.9 M cycles, then 4.03 M, and mtime (CPU / 50) 78,000
// then 80,600 ticks in the same 10 ms; the clock changes are in clocks.txt at their times.
TEST_F(Firmware, SdkClocksDriveTheModelsClocks) {
    const fs::path elf = our_sdk_app("sdk_clocks");
    if (elf.empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    run("run --firmware " + elf.string() + " --max-time 40ms --out " + (dir / "o").string());
    const std::string console = slurp(dir / "o" / "uart3.txt");
    unsigned long cycles[2] = {}, ticks[2] = {};
    const size_t first = console.find("usleep(10000): "), second = console.rfind("usleep(10000): ");
    ASSERT_NE(first, second) << console;
    ASSERT_EQ(std::sscanf(console.c_str() + first, "usleep(10000): %lu cycles, %lu ticks",
                          &cycles[0], &ticks[0]),
              2);
    ASSERT_EQ(std::sscanf(console.c_str() + second, "usleep(10000): %lu cycles, %lu ticks",
                          &cycles[1], &ticks[1]),
              2);
    EXPECT_NE(console.find("boot: cpu 390000000 apb0 195000000 ai 26000000\n"), std::string::npos)
        << console;
    EXPECT_NE(console.find("set: pll0 806000000 pll1 398666666\n"
                           "now: cpu 403000000 apb0 201500000 ai 398666666\n"),
              std::string::npos)
        << console;
    EXPECT_GE(cycles[0], 3'900'000u);
    EXPECT_LT(cycles[0], 3'900'200u);  // the calls around the loop
    EXPECT_GE(cycles[1], 4'030'000u);
    EXPECT_LT(cycles[1], 4'030'200u);
    EXPECT_NEAR(static_cast<double>(ticks[0]), static_cast<double>(cycles[0]) / 50.0, 1.0);
    EXPECT_NEAR(static_cast<double>(ticks[1]), static_cast<double>(cycles[1]) / 50.0, 1.0);
    const std::string log = slurp(dir / "o" / "clocks.txt");
    EXPECT_EQ(log.rfind("0.000 cpu 390000000\n", 0), 0u) << log;
    for (const char* change : {" cpu 26000000\n", " cpu 403000000\n", " ai 398666667\n"}) {
        EXPECT_NE(log.find(change), std::string::npos) << change << log;
    }
    const json rep = report("o");
    EXPECT_EQ(rep["platform"]["parameters"]["cpu_clock_hz"]["value"], 403e6);
    EXPECT_EQ(rep["platform"]["parameters"]["apb0_clock_hz"]["value"], 201.5e6);
    EXPECT_GE(rep["totals"]["busy_waits"]["value"].get<uint64_t>(), 2u);
}

// An SDK application of ours (sdk_wdt/main.c) uses WDT0 as the SDK's watchdog demo does:
// wdt_init(2000 ms) picks TOP 8 at the WDT clock the SDK computes (IN0 / 2 = 13 MHz): a timeout is
// 2^24 counts, 1.2906 s, and wdt_init answers 2 timeouts, 2581 ms. Fed three times 0.5 s apart,
// then not: the interrupt (PLIC 21) one timeout after the last feed, cleared by the handler; again
// one timeout later, not cleared (the handler spins); the third timeout resets the chip, which
// ends the run with the reset's time, the run failing.
TEST_F(Firmware, SdkWatchdogInterruptsThenResetsTheChip) {
    const fs::path elf = our_sdk_app("sdk_wdt");
    if (elf.empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    const Result r =
        run("run --firmware " + elf.string() + " --max-time 8s --out " + (dir / "o").string());
    EXPECT_EQ(r.rc, 1);
    const std::string console = slurp(dir / "o" / "uart3.txt");
    unsigned long fed = 0, irq1 = 0, irq2 = 0;
    ASSERT_EQ(std::sscanf(console.c_str(),
                          "timeout 2581 ms\nfed at %lu us\nirq 1 at %lu us\n"
                          "irq 2 at %lu us\n",
                          &fed, &irq1, &irq2),
              3)
        << console;
    const double timeout_us = (1 << 24) / 13.0;                      // 1,290,554.6 us
    EXPECT_NEAR(static_cast<double>(irq1 - fed), timeout_us, 50.0);  // the feed, then its print
    EXPECT_NEAR(static_cast<double>(irq2 - irq1), timeout_us, 2.0);  // printed in whole us
    double reset_us = 0;
    const size_t at = r.out.find("the watchdog WDT0 reset the chip at ");
    ASSERT_NE(at, std::string::npos) << r.out;
    ASSERT_EQ(
        std::sscanf(r.out.c_str() + at, "the watchdog WDT0 reset the chip at %lf us", &reset_us),
        1);
    EXPECT_NEAR(reset_us - static_cast<double>(irq2), timeout_us, 50.0);
}

// The SDK's timer demo, unmodified: twelve channels of TIMER0-2 in single-shot mode with 500 ms
// intervals (timer_set_interval at the timer clock the SDK computes), interrupts through the PLIC
// (sources 14-19), its callbacks counting to 12: it prints its own "[PASS]".
TEST_F(Firmware, SdkTimerDemoPassesItsSingleShotTest) {
    const fs::path elf = sdk_demo("timer");
    if (elf.empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    const Result r = run("run --firmware " + elf.string() + " --max-instructions 160000000 --out " +
                         (dir / "o").string());
    const std::string console = slurp(dir / "o" / "uart3.txt");
    EXPECT_NE(console.find("Timer callback [11], count [12]"), std::string::npos) << console;
    EXPECT_NE(console.find("[PASS]: Timer single shot test OK"), std::string::npos)
        << console << r.out << r.err;
    // Twelve callbacks in at least six interrupts: a line serves two channels, and the SDK's
    // handler runs the callback of each channel whose status it finds set.
    const int irqs = report("o")["totals"]["irq_external"]["value"].get<int>();
    EXPECT_GE(irqs, 6);
    EXPECT_LE(irqs, 12);
}

// The uart demos' pin log: GPIOHS pin 3 (on io24) driven low and set high at start, then low and
// high again by the two commands; returns when the commands switched it.
std::vector<double> command_pin_times(const std::string& log) {
    const std::vector<PinChange> pins = pin_changes(log);
    EXPECT_EQ(pins.size(), 4u) << log;
    if (pins.size() != 4) {
        return {0, 0};
    }
    unsigned levels = 0;
    for (const PinChange& c : pins) {
        EXPECT_EQ(c.block + " " + std::to_string(c.pin) + " " + c.pad + " " + c.dir,
                  "gpiohs 3 io24 out");
        levels = levels * 10 + c.level;
    }
    EXPECT_EQ(levels, 101u) << log;  // 0 1 0 1
    return {pins[2].us, pins[3].us};
}

// The SDK's uart and uart_interrupt demos, unmodified, with input on UART3 (--uart-input): 0x55
// 0xAA then four bytes is a command, 0x55555555 drives GPIOHS pin 3 low, 0xAAAAAAAA high. The
// input: a "close" command, two stray bytes, an "open" command, 14 bytes back to back at 115200
// baud from the SDK's 26 MHz divisor 225: 86.54 µs a character. uart polls and echoes every byte;
// its two pin changes come as the 6th and the 14th byte arrive: 8 characters apart.
// uart_interrupt: the data interrupt at the RX trigger of 8 bytes runs the first command; the
// last 6 bytes stay below the trigger and are taken at the character timeout, 4 characters after
// the 14th: 10 characters apart. Its THR-empty interrupt, registered before it prints, fires
// once the TX FIFO has drained "hello world!\n" and sends "Send ok Uart3" (the SDK's callback).
TEST_F(Firmware, SdkUartDemosReceiveTheirCommands) {
    if (sdk_demo("uart").empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    const std::string input = "\x55\xaa\x55\x55\x55\x55xy\x55\xaa\xaa\xaa\xaa\xaa";
    const fs::path in = write("in.bin", input);
    const double kChar = 10.0 * 225 / 26.0;  // µs
    const auto run_demo = [&](const std::string& demo, std::vector<double>& low_high) {
        const fs::path elf = sdk_demo(demo);
        const Result r =
            run("run --firmware " + elf.string() + " --uart-input uart3=" + in.string() +
                " --max-time 3ms --out " + (dir / demo).string());
        EXPECT_EQ(r.rc, 1) << r.out << r.err;  // the demos never exit
        low_high = command_pin_times(slurp(dir / demo / "pins.txt"));
        return slurp(dir / demo / "uart3.txt");
    };
    std::vector<double> polled, irq;
    EXPECT_EQ(run_demo("uart", polled), "hello world!\n" + input);  // every byte echoed
    EXPECT_GE(polled[1] - polled[0], 8 * kChar);
    EXPECT_LT(polled[1] - polled[0], 8 * kChar + 20);
    EXPECT_EQ(run_demo("uart_interrupt", irq), "hello world!\nSend ok Uart3");
    EXPECT_GE(irq[1] - irq[0], 10 * kChar);
    EXPECT_LT(irq[1] - irq[0], 10 * kChar + 20);
    // The first command is taken at the 8th byte, not the 6th: after the polled demo's.
    EXPECT_GT(irq[0], polled[0] + kChar);
    EXPECT_EQ(report("uart_interrupt")["totals"]["irq_external"]["value"], 4);
    // Without the flag, no input, and a run without firmware does not take it.
    const Result bad = run("run --uart-input " + in.string());
    EXPECT_EQ(bad.rc, 2);
    const Result port =
        run("run --firmware " + sdk_demo("uart").string() + " --uart-input uart4=" + in.string());
    EXPECT_NE(port.err.find("the K210's UARTs with receivers are uart1, uart2, uart3"),
              std::string::npos)
        << port.err;
}

// The SDK's uart_dma demo, unmodified: "hello world!\n" leaves by DMA (memory to UART3's THR,
// 13 items of 32 bits, the UART's TX request pacing them), then every command byte is fetched by
// a one-item DMA transfer from RBR on the UART's RX request. Its buffers come from iomem_malloc,
// whose first call zeroes the whole I/O heap byte by byte (~0.37 s simulated, docs/firmware.md):
// the 14 input bytes wait in the 16-byte RX FIFO meanwhile, none lost.
TEST_F(Firmware, SdkUartDmaDemoMovesItsBytesByDma) {
    const fs::path elf = sdk_demo("uart_dma");
    if (elf.empty()) {
        GTEST_SKIP() << "../shared/vendor is absent";
    }
    const fs::path in = write("in.bin", "\x55\xaa\x55\x55\x55\x55xy\x55\xaa\xaa\xaa\xaa\xaa");
    const Result r = run("run --firmware " + elf.string() + " --uart-input " + in.string() +
                         " --max-time 390ms --out " + (dir / "o").string());
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    EXPECT_EQ(slurp(dir / "o" / "uart3.txt"), "hello world!\n");
    EXPECT_GT(command_pin_times(slurp(dir / "o" / "pins.txt"))[0], 300'000.0)
        << "after the I/O heap is zeroed";
    const json stats = report("o")["stats"];
    EXPECT_EQ(stats["dmac"]["transfers"]["value"], 15);  // one send, fourteen receives
    EXPECT_EQ(stats["dmac"]["bytes"]["value"], (13 + 14) * 4);
    EXPECT_EQ(stats["uart3"]["bytes_received"]["value"], 14);
    EXPECT_EQ(stats["uart3"]["bytes_lost"]["value"], 0);
}

// The CPU calibration's firmware (firmware/k210-cpu-kernels: nncase v0.2's kernels and kpu.c's
// kmodel v3 layers, from this SDK) prints, on today's hart, exactly the measurements the CPU
// constants were fitted on (platforms/k210/data/k210_cpu_kernels.txt): a change of the hart's
// timing, the kernels or their sizes without `scripts/k210-cpu-fit --measure --write` fails here.
TEST_F(Firmware, VendorCpuKernelsGiveTheCalibrationData) {
    const std::string sdk = NPUSIM_SHARED_DIR "/vendor/kendryte-standalone-sdk";
    if (!fs::exists(sdk + "/lib/nncase/v0")) {
        GTEST_SKIP() << "../shared/vendor (with the SDK's lib/nncase) is absent";
    }
    if (shell("command -v riscv64-linux-gnu-g++ && test -f /usr/include/xtl/xspan.hpp").rc != 0) {
        GTEST_SKIP() << "needs g++-riscv64-linux-gnu and xtl-dev (scripts/install-deps)";
    }
    const fs::path elf = dir / "cpu_kernels.elf";
    const Result b = shell(std::string(NPUSIM_SOURCE_DIR "/scripts/k210-cpu-kernels --sdk ") + sdk +
                           " -o " + elf.string());
    ASSERT_EQ(b.rc, 0) << b.out << b.err;
    // Run as the script runs it, from its folder: the command line the firmware gets (its own
    // name) is the same, so are the instructions before the first kernel and the phase of the
    // hart's time against its clock (docs/firmware.md "Time").
    const Result r = shell("cd " + dir.string() + " && " + NPUSIM_BIN +
                           " run --firmware cpu_kernels.elf --out ck");
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    std::istringstream console(slurp(dir / "ck" / "console.txt"));
    std::string measured, line;
    while (std::getline(console, line)) {
        if (line.rfind("kernel ", 0) == 0) {
            measured += line + "\n";
        }
    }
    EXPECT_EQ(measured, slurp(NPUSIM_SOURCE_DIR "/platforms/k210/data/k210_cpu_kernels.txt"))
        << "run scripts/k210-cpu-fit --measure --write";
}

}  // namespace
}  // namespace npu::test
