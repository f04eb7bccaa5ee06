// The K210 blocks around the KPU that firmware touches, each through its bus socket: the PLIC's
// priorities, threshold, claim/complete and level gateways; the CLINT's mtime at the access's own
// time (CPU clock / 50), mtimecmp and the time a timer interrupt becomes due; the UARTs' transmit
// and status registers. Expected values worked by hand from the SiFive PLIC/CLINT and 16550
// register descriptions.
#include <functional>
#include <string>

#include <fmt/format.h>

#include "models/k210_soc/clint.h"
#include "models/k210_soc/fpioa.h"
#include "models/k210_soc/gpio.h"
#include "models/k210_soc/plic.h"
#include "models/k210_soc/timer.h"
#include "models/k210_soc/uart.h"
#include "models/k210_soc/wdt.h"
#include "sim/core/error.h"
#include "tests/models/k210_soc/soc_test_helpers.h"
#include "tests/sim/tlm/sc_harness.h"
#include "tests/sim/tlm/tlm_helpers.h"

namespace npu::test {
namespace {

using sc_core::SC_NS;
using sc_core::sc_time;

TEST_F(ScTest, PlicClaimsTheHighestPriorityAboveTheThresholdAndGatesLevels) {
    soc::Plic plic("plic", sc_time(10, SC_NS));
    TestInitiator cpu("cpu");
    cpu.socket.bind(plic.regs.socket);
    sim::IrqLine kpu("kpu"), dma("dma");
    plic.connect(25, kpu);
    plic.connect(32, dma);
    constexpr uint64_t kClaim = soc::Plic::kTargets + 4, kThreshold = soc::Plic::kTargets;
    Runner r("r");
    r.body = [&] {
        wr32(cpu, 4 * 25, 1);
        wr32(cpu, 4 * 32, 3);
        wr32(cpu, soc::Plic::kEnables, 1u << 25);  // word 0: sources 0-31
        wr32(cpu, soc::Plic::kEnables + 4, 1u);    // word 1: source 32
        kpu.set(true);
        dma.set(true);
        EXPECT_EQ(rd32(cpu, soc::Plic::kPending), 1u << 25);
        EXPECT_EQ(rd32(cpu, soc::Plic::kPending + 4), 1u);
        EXPECT_TRUE(plic.interrupt_pending(0));
        EXPECT_FALSE(plic.interrupt_pending(1));  // core 0's supervisor context enabled nothing
        EXPECT_FALSE(plic.interrupt_pending(2));  // nor core 1's machine context
        // Core 1's machine context where the SDK's plic_t puts target[1]: enables at 0x2100.
        wr32(cpu, 0x2100, 1u << 25);
        EXPECT_TRUE(plic.interrupt_pending(soc::Plic::machine_context(1)));
        wr32(cpu, 0x202000, 1);  // its threshold (targets 0x2000 apart): priority 1 is not above
        EXPECT_FALSE(plic.interrupt_pending(soc::Plic::machine_context(1)));
        EXPECT_EQ(rd32(cpu, kClaim), 32u);  // priority 3 before 1
        EXPECT_EQ(rd32(cpu, kClaim), 25u);  // 32 is in service now
        EXPECT_EQ(rd32(cpu, kClaim), 0u);   // nothing left
        EXPECT_FALSE(plic.interrupt_pending(0));
        wr32(cpu, kClaim, 25);  // complete with the line still high: pending again
        EXPECT_TRUE(plic.interrupt_pending(0));
        wr32(cpu, kThreshold, 1);  // priority 1 is not above threshold 1
        EXPECT_FALSE(plic.interrupt_pending(0));
        kpu.set(false);
        wr32(cpu, kThreshold, 0);
        EXPECT_FALSE(plic.interrupt_pending(0));  // the level fell: nothing pending
        EXPECT_EQ(plic.claims(), 2u);
    };
    sc_core::sc_start();
    EXPECT_THROW(plic.connect(66, kpu), sim::Error);
}

// The SDK's gpiohs_set_drive_mode/gpiohs_set_pin and gpio_set_drive_mode/gpio_set_pin (read-
// modify-write of output_en/output_val, direction/data_output): each driven pin's level change is
// reported once; an output reaches its pad only through the FPIOA (io[n].ch_sel, oe_en), and
// an input reads that pad back.
TEST_F(ScTest, GpioBlocksReportDrivenPinChanges) {
    std::string log;
    auto sink = [&](const char* block) {
        return [&log, block](unsigned pin, bool level, bool output, sc_time at) {
            log += fmt::format("{} {} {} {}\n", block, pin, level ? 1 : 0, output ? "out" : "in");
            (void)at;  // the write's time: checked end to end (Firmware.SdkGpioLedDemoDrivesItsPin)
        };
    };
    soc::Fpioa fpioa("fpioa", sc_time(10, SC_NS));
    soc::Gpiohs hs("hs", sc_time(10, SC_NS), fpioa, sink("hs"));
    soc::DwGpio gp("gp", sc_time(10, SC_NS), fpioa, sink("gp"));
    TestInitiator a("a"), b("b"), f("f");
    a.socket.bind(hs.regs.socket);
    b.socket.bind(gp.regs.socket);
    f.socket.bind(fpioa.regs.socket);
    constexpr uint32_t kOeEn = 1u << 12, kIeEn = 1u << 20, kPadDi = 1u << 31;
    Runner r("r");
    r.body = [&] {
        wr32(a, 0x08, rd32(a, 0x08) | (1u << 5));  // output_en: pin 5 driven, at 0
        wr32(a, 0x0c, rd32(a, 0x0c) | (1u << 5));  // output_val: 1
        wr32(a, 0x0c, rd32(a, 0x0c) | (1u << 5));  // the same level again: no change
        wr32(a, 0x04, 1u << 5);                    // input_en: no pad carries GPIOHS5 yet
        EXPECT_EQ(rd32(a, 0x00), 0u);
        EXPECT_EQ(rd32(f, 4 * 7), 0u);             // io[7]: function 0, pad low
        wr32(f, 4 * 7, (24 + 5) | kOeEn | kIeEn);  // io7 carries GPIOHS5 (fpioa_set_function)
        EXPECT_EQ(rd32(f, 4 * 7), (24 + 5) | kOeEn | kIeEn | kPadDi);  // pad_di: it drives 1
        EXPECT_EQ(rd32(a, 0x00), 1u << 5);                             // and reads it back
        wr32(a, 0x40, 1u << 5);                                        // output_xor inverts it: 0
        EXPECT_EQ(rd32(f, 4 * 7) & kPadDi, 0u);
        wr32(b, 0x04, 1u << 3);                     // direction: pin 3 output, at 0
        wr32(b, 0x00, 1u << 3);                     // data_output: 1
        EXPECT_EQ(rd32(b, 0x50), 0u);               // data_input: no pad carries GPIO3
        wr32(f, 4 * 24, (56 + 3) | kOeEn | kIeEn);  // io24 carries GPIO3 (the gpio_led demo)
        EXPECT_EQ(rd32(b, 0x50), 1u << 3);          // the pad drives 1
        wr32(b, 0x00, 0);
    };
    sc_core::sc_start();
    EXPECT_EQ(log,
              "hs 5 0 out\nhs 5 1 out\nhs 5 1 in\nhs 5 0 out\nhs 5 0 in\ngp 3 0 out\ngp 3 1 out\n"
              "gp 3 0 out\n");
}

// The gpiohs_led demo's key (SiFive GPIO semantics, worked by hand from the FE310 manual): io26
// carries GPIOHS2 as an input with its pull-up; a level from outside takes the pad over. Falling
// and rising edges latch fall_ip/rise_ip whatever the enables; an enabled kind raises the pin's
// own line until a 1 is written to its ip bit (the SDK's read-modify-write clears every pending
// bit of that kind); high_ip/low_ip are set again at once while their level lasts. A tie bit
// overrides the pad.
TEST_F(ScTest, GpiohsInputsLatchEdgesAndLevelsFromThePads) {
    soc::Fpioa fpioa("fpioa", sc_time(10, SC_NS));
    soc::Gpiohs hs("hs", sc_time(10, SC_NS), fpioa, [](unsigned, bool, bool, sc_time) {});
    TestInitiator a("a"), f("f");
    a.socket.bind(hs.regs.socket);
    f.socket.bind(fpioa.regs.socket);
    constexpr uint32_t kIeEn = 1u << 20, kPu = 1u << 16, kKey = 1u << 2;
    constexpr uint64_t kInputEn = 0x04, kRiseIe = 0x18, kRiseIp = 0x1c, kFallIe = 0x20,
                       kFallIp = 0x24, kLowIe = 0x30, kLowIp = 0x34;
    fpioa.set_script({{2'000'000, 26, false, 1},
                      {4'000'000, 26, true, 2},
                      {6'000'000, 26, std::nullopt, 3},
                      {8'000'000, 26, false, 4}});
    Runner r("r");
    r.body = [&] {
        wr32(f, 4 * 26, (24 + 2) | kIeEn | kPu);  // GPIO_DM_INPUT_PULL_UP
        wr32(a, kInputEn, kKey);
        EXPECT_EQ(rd32(a, 0x00), kKey);             // the pull-up: 1
        EXPECT_EQ(rd32(a, kRiseIp) & kKey, kKey);   // 0 -> 1 as the input was enabled
        wr32(a, kRiseIp, rd32(a, kRiseIp) | kKey);  // cleared (read-modify-write, W1C)
        EXPECT_EQ(rd32(a, kRiseIp) & kKey, 0u);
        wr32(a, kFallIe, kKey);
        wr32(a, kRiseIe, kKey);
        EXPECT_FALSE(hs.irq[2].level());
        sc_core::wait(sc_time(2, sc_core::SC_US));  // pressed: the pad low
        EXPECT_EQ(rd32(a, 0x00), 0u);
        EXPECT_TRUE(hs.irq[2].level());
        EXPECT_EQ(rd32(a, kFallIp) & kKey, kKey);
        wr32(a, kFallIp, rd32(a, kFallIp) | kKey);
        EXPECT_FALSE(hs.irq[2].level());
        sc_core::wait(sc_time(2, sc_core::SC_US));  // driven high
        EXPECT_TRUE(hs.irq[2].level());
        wr32(a, kRiseIp, kKey);
        sc_core::wait(sc_time(2, sc_core::SC_US));  // released: the pull-up keeps it high
        EXPECT_EQ(rd32(a, 0x00), kKey);
        EXPECT_FALSE(hs.irq[2].level());
        wr32(a, kFallIe, 0);
        wr32(a, kRiseIe, 0);
        sc_core::wait(sc_time(2, sc_core::SC_US));  // low again, a level interrupt now
        wr32(a, kLowIe, kKey);
        EXPECT_TRUE(hs.irq[2].level());
        wr32(a, kLowIp, kKey);  // cleared, set again: the level lasts
        EXPECT_TRUE(hs.irq[2].level());
        EXPECT_EQ(rd32(a, kLowIp) & kKey, kKey);
        EXPECT_FALSE(hs.irq[3].level());
        wr32(f, 0xc0, 1u << 26);  // tie.en: function 26 (GPIOHS2) tied ...
        wr32(f, 0xe0, 1u << 26);  // ... to 1
        EXPECT_EQ(rd32(a, 0x00), kKey);
    };
    sc_core::sc_start();
}

// DW_apb_gpio interrupts on an input pin: a rising edge latches until interrupt_clear; a masked
// pin shows in the raw status only; a level interrupt follows the pad.
TEST_F(ScTest, DwGpioInterruptsByEdgeAndLevel) {
    soc::Fpioa fpioa("fpioa", sc_time(10, SC_NS));
    soc::DwGpio gp("gp", sc_time(10, SC_NS), fpioa, [](unsigned, bool, bool, sc_time) {});
    TestInitiator b("b"), f("f");
    b.socket.bind(gp.regs.socket);
    f.socket.bind(fpioa.regs.socket);
    fpioa.set_script({{1'000'000, 9, true, 1}, {3'000'000, 9, false, 2}});
    Runner r("r");
    r.body = [&] {
        wr32(f, 4 * 9, (56 + 1) | (1u << 20));  // io9 carries GPIO1, input
        wr32(b, 0x30, 0x2);                     // interrupt_enable pin 1
        wr32(b, 0x38, 0x2);                     // edge
        wr32(b, 0x3c, 0x2);                     // rising
        sc_core::wait(sc_time(1, sc_core::SC_US));
        EXPECT_TRUE(gp.irq.level());
        EXPECT_EQ(rd32(b, 0x40), 0x2u);
        wr32(b, 0x34, 0x2);  // masked
        EXPECT_FALSE(gp.irq.level());
        EXPECT_EQ(rd32(b, 0x40), 0u);
        EXPECT_EQ(rd32(b, 0x44), 0x2u);
        wr32(b, 0x4c, 0x2);  // porta_eoi
        EXPECT_EQ(rd32(b, 0x44), 0u);
        wr32(b, 0x34, 0);
        wr32(b, 0x38, 0);  // level, active high: the pad is high
        EXPECT_TRUE(gp.irq.level());
        sc_core::wait(sc_time(2, sc_core::SC_US));
        EXPECT_FALSE(gp.irq.level());
        EXPECT_EQ(rd32(b, 0x50), 0u);
    };
    sc_core::sc_start();
}

// A DW_apb_timers channel as the SDK's timer.c drives it, at a 1 µs tick: load_count 9, enabled in
// user-defined mode (timer_set_enable: control = USER_MODE | ENABLE) at t = 0: it expires every
// 10 counts (10 µs); current_value counts down; the interrupt (line A for channels 0-1) stays
// until the channel's eoi is read; a masked channel raises nothing; the block's eoi clears all.
TEST_F(ScTest, TimerChannelExpiresEveryLoadCountPlusOneTicks) {
    soc::DwTimer t("t", sc_time(1, sc_core::SC_US), sc_time(0, SC_NS));
    TestInitiator a("a");
    a.socket.bind(t.regs.socket);
    Runner r("r");
    r.body = [&] {
        wr32(a, 0x00, 9);                           // channel 0 load_count
        wr32(a, 0x14 * 2 + 0x00, 4);                // channel 2 load_count
        wr32(a, 0x14 * 2 + 0x08, 0x2 | 0x1 | 0x4);  // channel 2 enabled but masked
        wr32(a, 0x08, 0x2 | 0x1);                   // channel 0: user mode, enabled
        sc_core::wait(sc_time(3, sc_core::SC_US));
        EXPECT_EQ(rd32(a, 0x04), 7u);  // 10 µs period: 7 counts left at 3 µs
        EXPECT_FALSE(t.irq_a.level());
        sc_core::wait(sc_time(7, sc_core::SC_US));  // t = 10 µs: expired
        EXPECT_TRUE(t.irq_a.level());
        EXPECT_EQ(rd32(a, 0x10), 1u);    // channel 0 intr_stat
        EXPECT_EQ(rd32(a, 0xa0), 1u);    // block intr_stat (channel 2 masked)
        EXPECT_EQ(rd32(a, 0xa8), 0x5u);  // raw: channels 0 and 2
        EXPECT_FALSE(t.irq_b.level());
        EXPECT_EQ(rd32(a, 0x0c), 0u);  // channel 0 eoi: acknowledged
        EXPECT_FALSE(t.irq_a.level());
        sc_core::wait(sc_time(10, sc_core::SC_US));  // t = 20 µs: reloaded and expired again
        EXPECT_TRUE(t.irq_a.level());
        EXPECT_EQ(rd32(a, 0xa4), 0u);  // block eoi: all acknowledged
        EXPECT_FALSE(t.irq_a.level());
        EXPECT_EQ(rd32(a, 0xa8), 0x0u);
        wr32(a, 0x08, 0x4);  // disabled (timer_set_enable(.., 0))
        EXPECT_EQ(rd32(a, 0x04), 9u);
    };
    sc_core::sc_start(sc_time(100, sc_core::SC_US));
}

// A new timer clock (SYSCTL): a running channel counts on from where it is, at the new tick.
TEST_F(ScTest, TimerCountsOnAtANewClock) {
    soc::DwTimer t("t", sc_time(1, sc_core::SC_US), sc_time(0, SC_NS));
    TestInitiator a("a");
    a.socket.bind(t.regs.socket);
    Runner r("r");
    r.body = [&] {
        wr32(a, 0x00, 9);          // 10 counts: due at 10 us
        wr32(a, 0x08, 0x2 | 0x1);  // user mode, enabled at 0
        sc_core::wait(sc_time(4, sc_core::SC_US));
        t.set_tick(sc_core::sc_time_stamp(), sc_time(2, sc_core::SC_US));  // 6 counts left
        sc_core::wait(sc_time(2, sc_core::SC_US));
        EXPECT_EQ(rd32(a, 0x04), 5u);               // one count of 2 us later
        sc_core::wait(sc_time(9, sc_core::SC_US));  // 15 us
        EXPECT_FALSE(t.irq_a.level());
        sc_core::wait(sc_time(1, sc_core::SC_US));  // 16 us = 4 + 6 x 2
        EXPECT_TRUE(t.irq_a.level());
        EXPECT_EQ(rd32(a, 0x0c), 0u);
        sc_core::wait(sc_time(19, sc_core::SC_US));  // 35 us: the next 10 counts take 20 us
        EXPECT_FALSE(t.irq_a.level());
        sc_core::wait(sc_time(1, sc_core::SC_US));
        EXPECT_TRUE(t.irq_a.level());
    };
    sc_core::sc_start(sc_time(100, sc_core::SC_US));
}

// The watchdog as wdt.c drives it (DW_apb_wdt): TOP 0 is 2^16 counts (65.536 us at 1 ns a
// count); interrupt mode: the first timeout raises the interrupt and counts again, eoi's read
// clears it (its write is ignored), a restart (crr 0x76) counts again and clears it, a second
// timeout with the interrupt raised resets the chip.
TEST_F(ScTest, WdtInterruptsThenResetsAtASecondTimeout) {
    soc::DwWdt w("w", sc_time(1, SC_NS), sc_time(0, SC_NS));
    TestInitiator a("a");
    a.socket.bind(w.regs.socket);
    sc_time reset_at = sc_core::SC_ZERO_TIME;
    w.on_reset([&](const sc_time& at) { reset_at = at; });
    Runner r("r");
    r.body = [&] {
        wr32(a, 0x04, 0x00);       // torr: TOP 0
        wr32(a, 0x00, 0x2 | 0x1);  // cr: interrupt mode, enabled at 0
        sc_core::wait(sc_time(65'535, SC_NS));
        EXPECT_FALSE(w.irq.level());
        EXPECT_EQ(rd32(a, 0x08), 1u);  // ccvr: one count left
        sc_core::wait(sc_time(1, SC_NS));
        EXPECT_TRUE(w.irq.level());  // 65.536 us
        EXPECT_EQ(rd32(a, 0x10), 1u);
        wr32(a, 0x14, 1);  // the SDK writes back what it read from eoi: ignored
        EXPECT_EQ(rd32(a, 0x14), 0u);
        EXPECT_FALSE(w.irq.level());
        sc_core::wait(sc_time(30'000, SC_NS));
        wr32(a, 0x0c, soc::DwWdt::kRestart);  // fed at 95.536 us: due at 161.072 us
        sc_core::wait(sc_time(65'536, SC_NS));
        EXPECT_TRUE(w.irq.level());
        EXPECT_EQ(reset_at, sc_core::SC_ZERO_TIME);
        sc_core::wait(sc_time(65'536, SC_NS));  // not cleared: reset at 226.608 us
        EXPECT_EQ(reset_at, sc_time(226'608, SC_NS));
    };
    sc_core::sc_start(sc_time(300, sc_core::SC_US));
}

// plic_init writes every source's priority, source 0's included: hard-wired 0, the write is
// ignored and answered OK.
TEST_F(ScTest, PlicSourceZeroPriorityIgnoresWrites) {
    soc::Plic plic("plic", sc_time(10, SC_NS));
    TestInitiator a("a");
    a.socket.bind(plic.regs.socket);
    Runner r("r");
    r.body = [&] {
        wr32(a, 0x0, 7);
        EXPECT_EQ(rd32(a, 0x0), 0u);
        wr32(a, 0x4, 7);
        EXPECT_EQ(rd32(a, 0x4), 7u);  // source 1 keeps what is written
    };
    sc_core::sc_start();
}

TEST_F(ScTest, ClintMtimeCountsTheCpuClockOverFiftyAndTimersFallDue) {
    // 400 MHz / 50: one tick per 125 ns.
    soc::CycleClock cpu_clock(2'500.0);
    soc::Clint clint("clint", 50, sc_time(10, SC_NS));
    clint.count(cpu_clock);
    TestInitiator cpu("cpu");
    cpu.socket.bind(clint.regs.socket);
    Runner r("r");
    r.body = [&] {
        sc_core::wait(sc_time(1000, SC_NS));
        uint64_t t = 0;
        sc_time at = sc_core::SC_ZERO_TIME;
        ASSERT_EQ(cpu.rw(tlm::TLM_READ_COMMAND, soc::Clint::kMtime, &t, 8, at),
                  tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(t, 8u);           // 1000 ns / 125 ns
        sc_time ahead(250, SC_NS);  // a CPU 250 ns ahead of the kernel reads its own time
        cpu.rw(tlm::TLM_READ_COMMAND, soc::Clint::kMtime, &t, 8, ahead);
        EXPECT_EQ(t, 10u);
        EXPECT_FALSE(clint.timer_pending(0, sc_core::sc_time_stamp()));  // mtimecmp resets to max
        const uint64_t cmp = 20;
        cpu.write(soc::Clint::kMtimecmp, &cmp, 8);
        // Cycle 1000 is counted from half a cycle before its edge (the count rounds to the
        // nearest cycle, as mcycle does): 2500 ns - 1.25 ns.
        EXPECT_EQ(clint.timer_due(0, sc_core::sc_time_stamp()), sc_time(2498750, sc_core::SC_PS));
        const uint64_t set = 100;  // firmware sets mtime: due at once
        cpu.write(soc::Clint::kMtime, &set, 8);
        EXPECT_TRUE(clint.timer_pending(0, sc_core::sc_time_stamp()));
        // The CPU clock halves (SYSCTL): mtime counts on from 100, one tick per 250 ns.
        cpu_clock.change(sc_core::sc_time_stamp(), 5'000.0);
        clint.clock_changed();
        EXPECT_EQ(clint.mtime(sc_core::sc_time_stamp() + sc_time(1000, SC_NS)), 104u);
        const uint64_t later = 110;
        cpu.write(soc::Clint::kMtimecmp, &later, 8);
        // Cycle 400 + 500, half a 5 ns cycle early.
        EXPECT_EQ(clint.timer_due(0, sc_core::sc_time_stamp()), sc_time(3497500, sc_core::SC_PS));
        wr32(cpu, soc::Clint::kMsip + 4, 1);
        EXPECT_TRUE(clint.software_pending(1));
        EXPECT_FALSE(clint.software_pending(0));
    };
    sc_core::sc_start();
}

TEST_F(ScTest, UartHsTransmitsAndItsIpIsReadOnly) {
    std::string hs;
    soc::UartHs uarths("uarths", sc_time(10, SC_NS),
                       [&](uint8_t b) { hs += static_cast<char>(b); });
    TestInitiator a("a");
    a.socket.bind(uarths.regs.socket);
    Runner r("r");
    r.body = [&] {
        EXPECT_EQ(rd32(a, 0x00) >> 31, 0u);  // txdata.full clear
        EXPECT_EQ(rd32(a, 0x04) >> 31, 1u);  // rxdata.empty set
        for (char c : std::string("ok\n")) {
            wr32(a, 0x00, static_cast<uint8_t>(c));
        }
        // UARTHS ip is read only; uarths_init writes it anyway: ignored, not an error.
        wr32(a, 0x14, 0x3);
        EXPECT_EQ(rd32(a, 0x14), 1u);  // ip.txwm still 1, rxwm 0
    };
    sc_core::sc_start();
    EXPECT_EQ(hs, "ok\n");
}

}  // namespace
}  // namespace npu::test
