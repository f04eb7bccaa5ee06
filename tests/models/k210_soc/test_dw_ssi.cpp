// SPI0 (DesignWare DW_apb_ssi) as the SDK's spi.c drives it to send: spi_init (octal, 8- or
// 32-bit frames), BAUDR 20 on a 400 MHz SPI0 clock (SCLK 20 MHz): an 8-bit octal frame takes
// one SCLK, 50 ns; a 32-bit one four, 200 ns. Frames written before a slave is selected wait in
// the FIFO; SR's BUSY and TFE follow the line; the DMA request is the room in the 32-frame FIFO;
// disabling empties it.
#include <vector>

#include "models/k210_soc/dw_ssi.h"
#include "tests/models/k210_soc/soc_test_helpers.h"
#include "tests/sim/tlm/sc_harness.h"
#include "tests/sim/tlm/tlm_helpers.h"

namespace npu::test {
namespace {

using sc_core::SC_NS;
using sc_core::sc_time;

struct Sent {
    uint32_t ser;
    unsigned bits;
    uint32_t value;
    sc_time at;
};

// spi_init(SPI_DEVICE_0, SPI_WORK_MODE_0, SPI_FF_OCTAL, bits, 0) with the rate set.
void sdk_init(TestInitiator& s, unsigned bits) {
    wr32(s, 0x08, 0);                                // SSIENR
    wr32(s, 0x00, (3u << 21) | ((bits - 1) << 16));  // CTRLR0: octal, DFS
    wr32(s, 0x14, 20);                               // BAUDR
    wr32(s, 0x08, 1);
}

TEST_F(ScTest, DwSsiSendsFramesAtTheLineRateOnceASlaveIsSelected) {
    std::vector<Sent> sent;
    soc::DwSsi spi("spi", 400e6, sc_time(0, SC_NS),
                   [&](uint32_t ser, unsigned bits, uint32_t v, sc_time at) {
                       sent.push_back({ser, bits, v, at});
                       return uint32_t{0};
                   });
    TestInitiator s("s");
    s.socket.bind(spi.regs.socket);
    Runner r("r");
    r.body = [&] {
        sdk_init(s, 8);
        EXPECT_EQ(rd32(s, 0x28), 0x6u);  // SR: TFNF, TFE, not busy
        wr32(s, 0x60, 0x2A);
        wr32(s, 0x60, 0x1FF);          // masked to 8 bits
        EXPECT_TRUE(sent.empty());     // no slave selected: they wait
        EXPECT_EQ(rd32(s, 0x20), 2u);  // TXFLR
        const sc_time t0 = sc_core::sc_time_stamp();
        wr32(s, 0x10, 1u << 3);  // SER: slave 3
        ASSERT_EQ(sent.size(), 2u);
        EXPECT_EQ(sent[0].ser, 8u);
        EXPECT_EQ(sent[0].value, 0x2Au);
        EXPECT_EQ(sent[1].value, 0xFFu);
        EXPECT_EQ(sent[0].at, t0);
        EXPECT_EQ(sent[1].at, t0 + sc_time(50, SC_NS));  // one SCLK later
        EXPECT_EQ(rd32(s, 0x28) & 0x1u, 1u);             // busy
        sc_core::wait(sc_time(100, SC_NS));
        EXPECT_EQ(rd32(s, 0x28), 0x6u);  // done: idle, FIFO empty
        sdk_init(s, 32);
        wr32(s, 0x10, 1u << 3);
        wr32(s, 0x60, 0x12345678);
        wr32(s, 0x60, 0x9abcdef0);
        ASSERT_EQ(sent.size(), 4u);
        EXPECT_EQ(sent[3].bits, 32u);
        EXPECT_EQ(sent[3].at - sent[2].at, sc_time(200, SC_NS));
        wr32(s, 0x08, 0);  // disable: the frame not yet started is dropped
        EXPECT_EQ(rd32(s, 0x20), 0u);
    };
    sc_core::sc_start();
}

TEST_F(ScTest, DwSsiDmaRequestIsTheRoomInItsFifo) {
    soc::DwSsi spi("spi", 400e6, sc_time(0, SC_NS), nullptr);
    TestInitiator s("s");
    s.socket.bind(spi.regs.socket);
    Runner r("r");
    r.body = [&] {
        sdk_init(s, 8);
        EXPECT_EQ(spi.tx_room(), 0u);  // DMACR.TDMAE off
        wr32(s, 0x4c, 0x2);
        EXPECT_EQ(spi.tx_room(), 32u);
        for (int i = 0; i < 40; ++i) {  // no slave: 32 wait, 8 are lost
            wr32(s, 0x60, static_cast<uint32_t>(i));
        }
        EXPECT_EQ(spi.tx_room(), 0u);
        EXPECT_EQ(rd32(s, 0x28) & 0x2u, 0u);  // TFNF clear: full
        wr32(s, 0x10, 1);
        sc_core::wait(sc_time(50 * 10 + 1, SC_NS));  // ten frames have left the FIFO
        EXPECT_EQ(spi.tx_room(), 11u);               // and the eleventh is on the wire
    };
    sc_core::sc_start();
}

// SPI3 (its own CTRLR0 layout) reading a flash's status register as spi_receive_data_standard
// does: EEPROM mode, one command byte, two bytes in (CTRLR1 = 1). BAUDR 16 on 400 MHz: 40 ns a
// bit, 320 ns a byte; the bytes in arrive 640 ns and 960 ns after SER, each the device's answer.
TEST_F(ScTest, DwSsiReadsWhatTheDeviceAnswersInEepromMode) {
    std::vector<uint32_t> mosi;
    std::vector<uint32_t> ended;
    soc::DwSsi spi(
        "spi3", 400e6, sc_time(0, SC_NS),
        [&](uint32_t, unsigned, uint32_t v, sc_time) {
            mosi.push_back(v);
            return static_cast<uint32_t>(0xA0 + mosi.size());
        },
        soc::DwSsi::kSpi3);
    spi.on_end([&](uint32_t ser) { ended.push_back(ser); });
    TestInitiator s("s");
    s.socket.bind(spi.regs.socket);
    Runner r("r");
    r.body = [&] {
        wr32(s, 0x08, 0);
        wr32(s, 0x00, 7 | (3u << 10));  // DFS 8, EEPROM read (SPI3 layout), standard
        wr32(s, 0x14, 16);              // BAUDR
        wr32(s, 0x04, 1);               // CTRLR1: two frames in
        wr32(s, 0x08, 1);
        wr32(s, 0x60, 0x35);  // the command, then SER
        wr32(s, 0x10, 1);
        EXPECT_EQ(rd32(s, 0x24), 0u);  // RXFLR
        sc_core::wait(sc_time(640, SC_NS));
        EXPECT_EQ(rd32(s, 0x24), 1u);
        sc_core::wait(sc_time(320, SC_NS));
        EXPECT_EQ(rd32(s, 0x24), 2u);
        EXPECT_EQ(rd32(s, 0x60), 0xA2u);  // the answers to the two frames clocked in
        EXPECT_EQ(rd32(s, 0x60), 0xA3u);
        EXPECT_EQ(rd32(s, 0x24), 0u);
        EXPECT_TRUE(ended.empty());
        wr32(s, 0x10, 0);  // SER 0: the transfer ends for the device
        ASSERT_EQ(ended.size(), 1u);
        EXPECT_EQ(ended[0], 1u);
        ASSERT_EQ(mosi.size(), 3u);
        EXPECT_EQ(mosi[0], 0x35u);
        // Receive only: a DR write starts the frames in, nothing goes out.
        wr32(s, 0x08, 0);
        wr32(s, 0x00, 7 | (2u << 10));
        wr32(s, 0x04, 0);
        wr32(s, 0x08, 1);
        wr32(s, 0x60, 0xffffffff);
        wr32(s, 0x10, 1);
        sc_core::wait(sc_time(320, SC_NS));
        EXPECT_EQ(rd32(s, 0x60), 0xA4u);
        EXPECT_EQ(mosi.size(), 4u);
    };
    sc_core::sc_start();
}

}  // namespace
}  // namespace npu::test
