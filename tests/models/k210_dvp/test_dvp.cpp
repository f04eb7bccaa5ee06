// The DVP as dvp.c drives it, with a camera on its pins: SCCB transactions take their bits at SCL
// = APB1 / (LCNT + HCNT) and carry the bytes to and from the sensor (0xFF from a sensor held in
// reset); STS's flags change only under their write-enable bits; a frame is written to memory
// only when DVP_EN is set at its first line (the SDK sets it from the FRAME_START interrupt), at
// the sensor's line times, then FRAME_FINISH rises and DVP_EN clears. Times and pixels worked by
// hand.
#include <map>
#include <vector>

#include "models/k210_dvp/dvp.h"
#include "sim/tlm/memory.h"
#include "tests/models/k210_soc/soc_test_helpers.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

using sc_core::SC_NS;
using sc_core::sc_time;
using sc_core::SC_US;

constexpr uint64_t kCfg = 0x00, kR = 0x04, kG = 0x08, kB = 0x0c, kCmos = 0x10, kSccbCfg = 0x14,
                   kSccbCtl = 0x18, kSts = 0x20, kRgb = 0x28;
constexpr uint32_t kSccbEn = 0x1000000, kSccbEnWe = 0x2000000;

// A camera at SCCB address 0x60 with 8-bit registers (0x0A holds 0x26), streaming 32 x 24 when
// XCLK is 25 MHz: a frame every 31.9872 ms (672 lines of 47.6 us), its 24 lines one every 1.19 ms
// after 1.7136 ms of blanking; pixel (x, y) = 0x1000 x y + 0x0111 x x, high byte first.
struct FakeCamera : dvp::Camera {
    std::map<uint8_t, uint8_t> regs{{0x0a, 0x26}};
    uint8_t address = 0;
    double xclk = 0;
    std::string name() const override { return "fake"; }
    uint8_t sccb_address() const override { return 0x60; }
    void sccb_write(const std::vector<uint8_t>& b) override {
        address = b.at(0);
        if (b.size() > 1) {
            regs[address] = b[1];
        }
    }
    uint8_t sccb_read() override { return regs[address]; }
    void reset_pin() override { regs = {{0x0a, 0x26}}; }
    dvp::SensorStream stream(double xclk_hz) override {
        xclk = xclk_hz;
        const double line = 1190 / xclk_hz;
        return {xclk_hz > 0, 32, 24, 672 * line, 36 * line, 25 * line, "fake"};
    }
    static uint16_t pixel(unsigned x, unsigned y) {
        return static_cast<uint16_t>(0x1000 * y + 0x0111 * x);
    }
    std::vector<uint8_t> frame(size_t, const dvp::SensorStream&) override {
        std::vector<uint8_t> b;
        for (unsigned y = 0; y < 24; ++y) {
            for (unsigned x = 0; x < 32; ++x) {
                b.push_back(static_cast<uint8_t>(pixel(x, y) >> 8));
                b.push_back(static_cast<uint8_t>(pixel(x, y)));
            }
        }
        return b;
    }
};

// An APB1 of 100 MHz; the sensor out of reset with XCLK = 100 MHz / ((1 + 1) x 2) = 25 MHz.
struct Bench {
    dvp::Dvp dvp{"dvp", sim::BusConfig{}, 100e6, sc_time(0, SC_NS)};
    sim::Memory mem{"mem", {1 << 20, 0, 0, true}};
    TestInitiator cpu{"cpu"};
    Runner runner{"runner"};
    FakeCamera camera;
    Bench() {
        cpu.socket.bind(dvp.regs.socket);
        dvp.axi.socket.bind(mem.socket);
        dvp.attach(&camera);
    }
    void sccb(uint32_t ctl, uint32_t byte_num) {
        wr32(cpu, kSccbCfg, (50u << 16) | (50u << 8) | byte_num);  // SCL: 100 APB1 cycles, 1 us
        wr32(cpu, kSccbCtl, ctl);
        wr32(cpu, kSts, kSccbEn | kSccbEnWe);
    }
};

TEST_F(ScTest, DvpSccbReadsTheSensorsIdAtTheBusRate) {
    Bench b;
    b.runner.body = [&] {
        EXPECT_EQ(rd32(b.cpu, kCmos), 0u);
        b.sccb(0x60, 1);  // held in reset (cmos_cfg RESET low): no answer
        sc_core::wait(sc_time(20, SC_US));
        EXPECT_EQ(rd32(b.cpu, kSccbCfg) >> 24, 0xffu);
        wr32(b.cpu, kCmos, 0x10000 | 0x100 | 1);  // out of reset, XCLK on, divider 1
        const sc_time t0 = sc_core::sc_time_stamp();
        b.sccb(0x01 | 0x60 | (0x44 << 8) | (0x12 << 16), 2);  // write 0x12 to register 0x44
        EXPECT_NE(rd32(b.cpu, kSts) & kSccbEn, 0u);           // busy: 3 bytes x 9 + 2 = 29 SCL
        sc_core::wait(sc_time(28.9, SC_US));
        EXPECT_NE(rd32(b.cpu, kSts) & kSccbEn, 0u);
        sc_core::wait(sc_time(0.2, SC_US));
        EXPECT_EQ(rd32(b.cpu, kSts) & kSccbEn, 0u);
        EXPECT_EQ(b.camera.regs[0x44], 0x12);
        b.sccb(0x01 | 0x60 | (0x0a << 8), 1);  // dvp_sccb_receive_data: the address, then a read
        sc_core::wait(sc_time(21, SC_US));
        b.sccb(0x60, 1);
        sc_core::wait(sc_time(21, SC_US));
        EXPECT_EQ(rd32(b.cpu, kSccbCfg) >> 24, 0x26u);  // PIDH
        EXPECT_GT(sc_core::sc_time_stamp(), t0);
        EXPECT_EQ(b.dvp.warnings().size(), 1u);  // the transaction to the sensor in reset
        sc_core::sc_stop();                      // the sensor streams on
    };
    elaborate();
    sc_core::sc_start();
}

TEST_F(ScTest, DvpWritesAFrameItWasToldToConvert) {
    Bench b;
    std::vector<sc_time> irqs;
    b.runner.body = [&] {
        // START/FINISH interrupts, AI and display output, 4-beat bursts, RGB, 32 x 24.
        wr32(b.cpu, kCfg, 0x1 | 0x2 | 0x4 | 0x8 | 0x100 | (1u << 12) | (24u << 20));
        wr32(b.cpu, kR, 0x1000);
        wr32(b.cpu, kG, 0x1000 + 768);
        wr32(b.cpu, kB, 0x1000 + 2 * 768);
        wr32(b.cpu, kRgb, 0x4000);
        wr32(b.cpu, kCmos, 0x10000 | 0x100 | 1);
        b.dvp.irq.wait_high();  // VSYNC
        const sc_time t0 = sc_core::sc_time_stamp();
        EXPECT_EQ(rd32(b.cpu, kSts) & 0x101u, 0x1u);  // FRAME_START
        wr32(b.cpu, kSts, 0x1 | 0x10000);             // no write-enable bits: nothing changes
        EXPECT_EQ(rd32(b.cpu, kSts) & 0x10001u, 0x1u);
        wr32(b.cpu, kSts, 0x10000 | 0x20000 | 0x1 | 0x2);  // dvp_start_convert, clear START
        EXPECT_FALSE(b.dvp.irq.level());
        b.dvp.irq.wait_high();
        const sc_time t1 = sc_core::sc_time_stamp();
        EXPECT_EQ(rd32(b.cpu, kSts) & 0x10101u, 0x100u);  // FRAME_FINISH, DVP_EN cleared
        EXPECT_EQ(t1 - t0, sc_time(1713.6 + 24 * 1190.0, SC_US));
        irqs = {t0, t1};
        wr32(b.cpu, kSts, 0x100 | 0x200);  // the next frame is not converted: no FINISH
        sc_core::wait(sc_time(64, sc_core::SC_MS));
        EXPECT_EQ(rd32(b.cpu, kSts) & 0x100u, 0u);
        sc_core::sc_stop();
    };
    elaborate();
    sc_core::sc_start();
    ASSERT_EQ(irqs.size(), 2u);
    const uint8_t* m = b.mem.data();
    int wrong = 0;
    for (unsigned i = 0; i < 32 * 24; ++i) {
        const unsigned v = FakeCamera::pixel(i % 32, i / 32);
        // Display: the pair's 4 stream bytes reversed; pixel i's high byte sits at 3 - 2 (i % 2).
        const size_t word = 0x4000 + (i / 2) * 4;
        const unsigned hi = m[word + 3 - 2 * (i % 2)], lo = m[word + 2 - 2 * (i % 2)];
        const unsigned r5 = v >> 11, g6 = (v >> 5) & 0x3f, b5 = v & 0x1f;
        if (((hi << 8) | lo) != v || m[0x1000 + i] != ((r5 << 3) | (r5 >> 2)) ||
            m[0x1000 + 768 + i] != ((g6 << 2) | (g6 >> 4)) ||
            m[0x1000 + 2 * 768 + i] != ((b5 << 3) | (b5 >> 2))) {
            ++wrong;
        }
    }
    EXPECT_EQ(wrong, 0);
    EXPECT_EQ(b.dvp.frames().front().captured, true);
}

}  // namespace
}  // namespace npu::test
