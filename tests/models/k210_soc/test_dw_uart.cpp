// UART1-3 (DesignWare DW_apb_uart) at the line rate, driven as the SDK's uart.c drives it: at the
// 13 MHz APB clock the SDK computes, 115200 baud gives divisor 112 (DLL 7): 8N1 characters of
// 10 bits take 10 · 112 / 13 MHz = 86.15 µs. Transmitted bytes leave one character time apart,
// the THR-empty interrupt rises when the FIFO drains to its trigger and reading IIR clears it;
// received bytes fill the FIFO, raise the data interrupt at the trigger level and the character
// timeout 4 character times after the last activity below it; a full FIFO overruns.
#include <functional>
#include <string>

#include "models/k210_soc/dw_uart.h"
#include "tests/models/k210_soc/soc_test_helpers.h"
#include "tests/sim/tlm/sc_harness.h"
#include "tests/sim/tlm/tlm_helpers.h"

namespace npu::test {
namespace {

using sc_core::SC_NS;
using sc_core::sc_time;

constexpr uint64_t kClock = 13'000'000;
const sc_time kChar(10.0 * 112 / kClock, sc_core::SC_SEC);

// uart_configure(channel, 115200, 8, UART_STOP_1, UART_PARITY_NONE) as the SDK writes it.
void sdk_configure(TestInitiator& u) {
    wr32(u, 0x0c, rd32(u, 0x0c) | 0x80);  // LCR.DLAB
    wr32(u, 0x04, 0);                     // DLH
    wr32(u, 0x00, 7);                     // DLL: 112 / 16
    wr32(u, 0xc0, 0);                     // DLF
    wr32(u, 0x0c, 0);
    wr32(u, 0x0c, 3);                             // 8N1
    wr32(u, 0x04, rd32(u, 0x04) | 0x80);          // IER.PTIME
    wr32(u, 0x08, 0 << 6 | 3 << 4 | 1 << 3 | 1);  // FCR: RX 1, TX 8, DMA mode, FIFOs
}

void wait_until(const sc_time& t) {
    sc_core::wait(t - sc_core::sc_time_stamp());
}

TEST_F(ScTest, DwUartSendsAtTheLineRateAndRaisesThrEmptyWhenTheFifoDrains) {
    std::string out;
    std::vector<sc_time> at;
    soc::DwApbUart uart("uart", kClock, sc_time(0, SC_NS), [&](uint8_t b) {
        out += static_cast<char>(b);
        at.push_back(sc_core::sc_time_stamp());
    });
    TestInitiator u("u");
    u.socket.bind(uart.regs.socket);
    Runner r("r");
    r.body = [&] {
        sdk_configure(u);
        wr32(u, 0xa0, 0);  // STET: interrupt when the TX FIFO is empty
        EXPECT_FALSE(uart.irq.level());
        wr32(u, 0x04, rd32(u, 0x04) | 0x2);  // IER.ETBEI with the FIFO empty: raised at once
        EXPECT_TRUE(uart.irq.level());
        EXPECT_EQ(rd32(u, 0x08), 0xc2u);  // IIR: FIFOs on, THR empty; reading it acknowledges
        EXPECT_FALSE(uart.irq.level());
        const sc_time t0 = sc_core::sc_time_stamp();
        for (char c : std::string("abc")) {
            wr32(u, 0x00, static_cast<uint8_t>(c));  // 'a' into the shift register, b c wait
        }
        EXPECT_EQ(rd32(u, 0x80), 2u);           // TFL
        EXPECT_EQ(rd32(u, 0x7c) & 0x6u, 0x2u);  // USR: not full, not empty
        EXPECT_EQ(rd32(u, 0x14) & 0x60u, 0u);   // LSR: not full (PTIME), not empty
        wait_until(t0 + kChar + sc_time(1, SC_NS));
        EXPECT_EQ(out, "a");
        EXPECT_EQ(rd32(u, 0x80), 1u);
        EXPECT_FALSE(uart.irq.level());
        wait_until(t0 + 2 * kChar + sc_time(1, SC_NS));  // 'c' left the FIFO: empty, raised
        EXPECT_EQ(out, "ab");
        EXPECT_TRUE(uart.irq.level());
        EXPECT_EQ(rd32(u, 0x14) & 0x40u, 0u);  // LSR.TEMT: 'c' still shifting out
        EXPECT_EQ(rd32(u, 0x08), 0xc2u);
        wait_until(t0 + 3 * kChar + sc_time(1, SC_NS));
        EXPECT_EQ(out, "abc");
        EXPECT_EQ(rd32(u, 0x14) & 0x40u, 0x40u);
        EXPECT_FALSE(uart.irq.level());
    };
    sc_core::sc_start(sc_time(1, sc_core::SC_MS));
    ASSERT_EQ(at.size(), 3u);
    EXPECT_EQ(at[2] - at[0], 2 * kChar);
    EXPECT_EQ(uart.bytes_sent(), 3u);
}

TEST_F(ScTest, DwUartReceivesAtTheTriggerLevelAndAfterACharacterTimeout) {
    soc::DwApbUart uart("uart", kClock, sc_time(0, SC_NS), [](uint8_t) {});
    const std::string input = "0123456789";
    uart.set_input({input.begin(), input.end()});
    TestInitiator u("u");
    u.socket.bind(uart.regs.socket);
    Runner r("r");
    r.body = [&] {
        wr32(u, 0x0c, 0x80);
        wr32(u, 0x00, 7);
        const sc_time start = sc_core::sc_time_stamp();  // the line starts as DLAB clears
        wr32(u, 0x0c, 3);
        wr32(u, 0x08, 1);    // FIFOs on
        wr32(u, 0x9c, 2);    // SRT: trigger at 8 (uart_set_receive_trigger)
        wr32(u, 0x04, 0x1);  // IER.ERBFI
        wait_until(start + 7 * kChar + kChar / 2);
        EXPECT_EQ(rd32(u, 0x84), 7u);  // RFL
        EXPECT_FALSE(uart.irq.level());
        wait_until(start + 8 * kChar + kChar / 2);
        EXPECT_TRUE(uart.irq.level());
        EXPECT_EQ(rd32(u, 0x08), 0xc4u);  // received data available
        std::string got;
        for (int i = 0; i < 8; ++i) {
            got += static_cast<char>(rd32(u, 0x00));
        }
        EXPECT_EQ(got, "01234567");
        EXPECT_FALSE(uart.irq.level());
        wait_until(start + 13 * kChar + kChar / 2);  // "89" arrived at 9 and 10: no timeout yet
        EXPECT_EQ(rd32(u, 0x84), 2u);
        EXPECT_FALSE(uart.irq.level());
        wait_until(start + 14 * kChar + kChar / 2);  // 4 character times after the last
        EXPECT_TRUE(uart.irq.level());
        EXPECT_EQ(rd32(u, 0x08), 0xccu);    // character timeout
        EXPECT_EQ(rd32(u, 0x14) & 1u, 1u);  // LSR.DR
        got = {static_cast<char>(rd32(u, 0x00)), static_cast<char>(rd32(u, 0x00))};
        EXPECT_EQ(got, "89");
        EXPECT_FALSE(uart.irq.level());
        EXPECT_EQ(rd32(u, 0x14) & 1u, 0u);
    };
    sc_core::sc_start(sc_time(5, sc_core::SC_MS));
    EXPECT_EQ(uart.bytes_received(), 10u);
}

TEST_F(ScTest, DwUartOverrunsAFullFifo) {
    soc::DwApbUart uart("uart", kClock, sc_time(0, SC_NS), [](uint8_t) {});
    uart.set_input(std::vector<uint8_t>(20, 0x55));
    TestInitiator u("u");
    u.socket.bind(uart.regs.socket);
    Runner r("r");
    r.body = [&] {
        sdk_configure(u);
        sc_core::wait(30 * kChar);
        EXPECT_EQ(rd32(u, 0x84), 16u);          // RFL: full
        EXPECT_EQ(rd32(u, 0x14) & 0x3u, 0x3u);  // LSR: DR, OE
        EXPECT_EQ(rd32(u, 0x14) & 0x2u, 0u);    // OE cleared by the read
        EXPECT_EQ(rd32(u, 0xfc), 0x44570110u);  // CTR: a DesignWare peripheral
    };
    sc_core::sc_start(sc_time(10, sc_core::SC_MS));
    EXPECT_EQ(uart.bytes_lost(), 4u);
}

// LCR.DLAB turns offsets 0 and 4 into the divisor latch (a write there is no character, IER
// keeps its value); LSR bit 5 means "TX FIFO full" in programmable THRE mode (the SDK's putc
// spins on it) and "THR empty" without FIFOs.
TEST_F(ScTest, DwUartDivisorLatchAndLsrBitFive) {
    std::string out;
    soc::DwApbUart uart("uart", kClock, sc_time(0, SC_NS),
                        [&](uint8_t b) { out += static_cast<char>(b); });
    TestInitiator u("u");
    u.socket.bind(uart.regs.socket);
    Runner r("r");
    r.body = [&] {
        sdk_configure(u);
        EXPECT_EQ(rd32(u, 0x04), 0x80u);  // IER: PTIME
        wr32(u, 0x0c, 0x83);              // DLAB: 0x00 is DLL, 0x04 DLH
        EXPECT_EQ(rd32(u, 0x00), 7u);
        wr32(u, 0x04, 0);
        wr32(u, 0x0c, 0x03);
        EXPECT_EQ(rd32(u, 0x04), 0x80u);  // IER kept
        for (int i = 0; i < 17; ++i) {    // one into the shift register, 16 fill the FIFO
            wr32(u, 0x00, 'x');
        }
        EXPECT_EQ(rd32(u, 0x14) & 0x20u, 0x20u);  // full
        wr32(u, 0x00, 'y');                       // into a full FIFO: lost
        EXPECT_EQ(uart.bytes_lost(), 1u);
        wr32(u, 0x08, 0x0);  // FIFOs off: bit 5 is THRE, the THR not empty
        EXPECT_EQ(rd32(u, 0x14) & 0x20u, 0u);
        sc_core::wait(20 * kChar);
        EXPECT_EQ(rd32(u, 0x14) & 0x60u, 0x60u);  // THRE, TEMT
    };
    sc_core::sc_start(sc_time(10, sc_core::SC_MS));
    EXPECT_EQ(out, std::string(17, 'x'));
}

// The simulation ends with 'a' half out and 'b', 'c' in the FIFO: drain_tx gives all three to the
// sink, in order, and says the last stop bit ends three character times after 'a' started.
TEST_F(ScTest, DwUartDrainsItsTransmitFifoWhenTheRunEnds) {
    std::string out;
    soc::DwApbUart uart("uart", kClock, sc_time(0, SC_NS),
                        [&](uint8_t b) { out += static_cast<char>(b); });
    TestInitiator u("u");
    u.socket.bind(uart.regs.socket);
    uart.set_input({'q', 'r'});
    Runner r("r");
    sc_time t0;
    r.body = [&] {
        sdk_configure(u);
        t0 = sc_core::sc_time_stamp();
        for (char c : std::string("abc")) {
            wr32(u, 0x00, static_cast<uint8_t>(c));
        }
    };
    sc_core::sc_start(kChar / 2);
    EXPECT_EQ(out, "");
    const sc_time end = sc_core::sc_time_stamp();
    const soc::DwApbUart::Drained d = uart.drain_tx(end);
    EXPECT_EQ(out, "abc");
    EXPECT_EQ(d.bytes, 3u);
    EXPECT_NEAR(d.last.to_seconds(), (t0 + 3 * kChar).to_seconds(), 1e-9);
    EXPECT_EQ(uart.bytes_sent(), 3u);
    EXPECT_TRUE(uart.line_started());
    EXPECT_EQ(uart.input_left(), 2u);  // the first arrives one character time after the set-up
    EXPECT_EQ(uart.drain_tx(end).bytes, 0u);  // nothing twice
    EXPECT_EQ(out, "abc");
}

}  // namespace
}  // namespace npu::test
