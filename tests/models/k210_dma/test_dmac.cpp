// The DMAC subset: memory to memory, peripheral to memory and memory to peripheral with hardware
// handshake through the SYSCTL selector, completion interrupt, bus errors, and an unrouted
// handshake.
#include <deque>

#include <tlm_utils/simple_target_socket.h>

#include "models/k210_dma/dmac.h"
#include "sim/tlm/memory.h"
#include "sim/tlm/router.h"
#include "tests/sim/tlm/sc_harness.h"
#include "tests/sim/tlm/tlm_helpers.h"

namespace npu::test {
namespace {

namespace dr = dma::regs;
constexpr uint64_t kDmac = 0x50000000, kSysctl = 0x50440000, kMem = 0x80000000;
constexpr unsigned kUart3TxReq = 19;  // SYSCTL_DMA_SELECT_UART3_TX_REQ

// A peripheral with a FIFO of 64-bit words at one address, which requests DMA while non-empty;
// written, it takes words while it has room (its TX request: the room).
struct FifoPeripheral : sc_core::sc_module {
    tlm_utils::simple_target_socket<FifoPeripheral> socket{"socket"};
    std::deque<uint64_t> words, taken;
    size_t room = 0;
    sc_core::sc_event added, freed;
    explicit FifoPeripheral(sc_core::sc_module_name n)
        : sc_module(n) {
        socket.register_b_transport(this, &FifoPeripheral::b_transport);
    }
    void b_transport(tlm::tlm_generic_payload& tx, sc_core::sc_time& delay) {
        uint64_t v = 0;
        if (tx.is_write()) {
            std::memcpy(&v, tx.get_data_ptr(), 8);
            EXPECT_GT(room, 0u) << "a write without room";
            taken.push_back(v);
            room -= room > 0 ? 1 : 0;
        } else if (!words.empty()) {
            v = words.front();
            words.pop_front();
        }
        if (!tx.is_write()) {
            std::memcpy(tx.get_data_ptr(), &v, 8);
        }
        delay += sc_core::sc_time(10, sc_core::SC_NS);
        tx.set_response_status(tlm::TLM_OK_RESPONSE);
    }
};

struct Bench : sc_core::sc_module {
    sim::Router router{"router"};
    sim::Memory mem{"mem", sim::MemoryConfig{1u << 16, 0, 0, true}};
    dma::Dmac dmac{"dmac", dma::DmacConfig{}, nullptr};
    FifoPeripheral fifo{"fifo"};
    TestInitiator cpu{"cpu"};
    explicit Bench(sc_core::sc_module_name n)
        : sc_module(n) {
        cpu.socket.bind(router.target_socket);
        dmac.axi.socket.bind(router.target_socket);
        router.map("mem", kMem, 1u << 16, router.bind_target(mem.socket));
        router.map("dmac", kDmac, dr::kBlockBytes, router.bind_target(dmac.regs.socket));
        router.map("sysctl", kSysctl, dr::kSysctlBytes, router.bind_target(dmac.sysctl.socket));
        router.map("fifo", 0x40800030, 8, router.bind_target(fifo.socket));
        dmac.connect_request(dr::kAiRxReq, {[this] { return fifo.words.size(); }, &fifo.added});
        dmac.connect_request(kUart3TxReq, {[this] { return fifo.room; }, &fifo.freed});
    }
    void reg(uint64_t off, uint64_t v) {
        ASSERT_EQ(cpu.write(kDmac + off, &v, 8), tlm::TLM_OK_RESPONSE);
    }
    uint64_t get(uint64_t off) {
        uint64_t v = 0;
        EXPECT_EQ(cpu.read(kDmac + off, &v, 8), tlm::TLM_OK_RESPONSE);
        return v;
    }
    void channel(unsigned ch, uint64_t sar, uint64_t dar, uint64_t items, uint64_t ctl,
                 uint64_t cfg) {
        const uint64_t b = dr::channel_base(ch);
        reg(dr::CFG, dr::dmac_en::MASK);
        reg(b + dr::INTSTATUS_EN, dr::dma_tfr_done::MASK | dr::src_dec_err::MASK);
        reg(b + dr::INTSIGNAL_EN, dr::dma_tfr_done::MASK | dr::src_dec_err::MASK);
        reg(b + dr::SAR, sar);
        reg(b + dr::DAR, dar);
        reg(b + dr::BLOCK_TS, items - 1);
        reg(b + dr::CTL, ctl);
        reg(b + dr::CH_CFG, cfg);
        reg(dr::CHEN, (uint64_t{1} << ch) | (uint64_t{1} << (ch + 8)));
    }
};

class DmacTest : public ScTest {};

TEST_F(DmacTest, MemoryToMemoryWithCompletionInterrupt) {
    Bench b("b");
    for (int i = 0; i < 256; ++i) {
        b.mem.data()[i] = static_cast<uint8_t>(i);
    }
    elaborate();
    // 32 items of 8 bytes, bursts of 8 items: 0x80000000 -> 0x80001000.
    b.channel(2, kMem, kMem + 0x1000, 32,
              dr::src_tr_width::set(0, 3) | dr::dst_tr_width::set(0, 3) | dr::src_msize::set(0, 2),
              0);
    EXPECT_EQ(b.get(dr::CHEN) & 0x3f, 0x4u);  // running
    sc_core::sc_start();
    EXPECT_EQ(0, std::memcmp(b.mem.data(), b.mem.data() + 0x1000, 256));
    EXPECT_TRUE(b.dmac.irq[2].level());
    EXPECT_EQ(b.get(dr::channel_base(2) + dr::CH_INTSTATUS), dr::dma_tfr_done::MASK);
    EXPECT_EQ(b.get(dr::INTSTATUS), 0x4u);
    EXPECT_EQ(b.get(dr::CHEN) & 0x3f, 0x0u);  // the channel disables itself when done
    EXPECT_EQ(b.get(dr::channel_base(2) + dr::STATUS), 32u);
    b.reg(dr::channel_base(2) + dr::INTCLEAR, ~uint64_t{0});
    EXPECT_FALSE(b.dmac.irq[2].level());
    EXPECT_EQ(b.dmac.stats().to_json()["bytes"]["value"], 256);
}

// dmac_init (SDK dmac.c:611-627): RESET.rst set, polled until it clears; COM_INTCLEAR read,
// modified and written back (write only: reads 0, no error). The reset returns every register to
// its reset value: the channel interrupt enables all set, which is why the SDK's DMA-complete
// interrupt comes although it never writes CHx_INTSIGNAL_ENABLEREG.
TEST_F(DmacTest, SdkInitResetSelfClearsAndInterruptEnablesResetToOnes) {
    Bench b("b");
    elaborate();
    const uint64_t ch5 = dr::channel_base(5);
    EXPECT_EQ(b.get(ch5 + dr::INTSIGNAL_EN), 0xfffffffbu);
    EXPECT_EQ(b.get(ch5 + dr::INTSTATUS_EN), 0xfffffffbu);
    b.reg(ch5 + dr::INTSIGNAL_EN, 0);
    b.reg(dr::CFG, dr::dmac_en::MASK);
    b.reg(dr::RESET, b.get(dr::RESET) | dr::dmac_rst::MASK);
    EXPECT_EQ(b.get(dr::RESET) & dr::dmac_rst::MASK, 0u);   // done: the poll ends
    EXPECT_EQ(b.get(ch5 + dr::INTSIGNAL_EN), 0xfffffffbu);  // back to its reset value
    EXPECT_EQ(b.get(dr::CFG), 0u);
    EXPECT_EQ(b.get(dr::COM_INTCLEAR), 0u);
    b.reg(dr::COM_INTCLEAR, b.get(dr::COM_INTCLEAR) | 0x1f);
    EXPECT_EQ(b.get(ch5 + dr::INTCLEAR), 0u);
    // A transfer on channel 5 with the enables left at reset interrupts on completion.
    b.reg(dr::CFG, dr::dmac_en::MASK);
    b.reg(ch5 + dr::SAR, kMem);
    b.reg(ch5 + dr::DAR, kMem + 0x100);
    b.reg(ch5 + dr::BLOCK_TS, 3);
    b.reg(ch5 + dr::CTL, dr::src_tr_width::set(0, 3) | dr::dst_tr_width::set(0, 3));
    b.reg(ch5 + dr::CH_CFG, 0);
    b.reg(dr::CHEN, (uint64_t{1} << 5) | (uint64_t{1} << 13));
    sc_core::sc_start();
    EXPECT_TRUE(b.dmac.irq[5].level());
    EXPECT_NE(b.get(ch5 + dr::CH_INTSTATUS) & dr::dma_tfr_done::MASK, 0u);
}

TEST_F(DmacTest, PeripheralToMemoryWaitsForTheHandshake) {
    Bench b("b");
    elaborate();
    // Route the FIFO's request (select 22) to handshake interface 5 (DMA_SEL1 bits 0..5).
    uint32_t sel = dr::kAiRxReq;
    ASSERT_EQ(b.cpu.write(kSysctl + dr::DMA_SEL1, &sel, 4), tlm::TLM_OK_RESPONSE);
    b.channel(5, 0x40800030, kMem + 0x2000, 6,
              dr::sinc::set(0, 1) | dr::src_tr_width::set(0, 3) | dr::dst_tr_width::set(0, 3) |
                  dr::src_msize::set(0, 1),  // bursts of 4 items
              dr::tt_fc::set(0, 2) | dr::src_per::set(0, 5));
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_US));
    EXPECT_FALSE(b.dmac.irq[5].level());  // nothing to move yet
    for (uint64_t i = 1; i <= 6; ++i) {
        b.fifo.words.push_back(i * 0x0101010101010101ull);
    }
    b.fifo.added.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
    EXPECT_TRUE(b.dmac.irq[5].level());
    uint64_t got[6];
    std::memcpy(got, b.mem.data() + 0x2000, sizeof(got));
    for (uint64_t i = 0; i < 6; ++i) {
        EXPECT_EQ(got[i], (i + 1) * 0x0101010101010101ull);
    }
    EXPECT_EQ(b.fifo.words.size(), 0u);
    EXPECT_EQ(b.dmac.stats().to_json()["handshake_waits"]["value"], 1);
}

// Memory to peripheral (tt_fc 1): each one-item burst waits for room at the destination's
// handshake interface (dst_per), as the SDK's uart_send_data_dma does on a UART's TX request.
TEST_F(DmacTest, MemoryToPeripheralWaitsForRoom) {
    Bench b("b");
    elaborate();
    uint32_t sel = kUart3TxReq;  // interface 4 (DMA_SEL0 bits 24..29)
    sel <<= 24;
    ASSERT_EQ(b.cpu.write(kSysctl + dr::DMA_SEL0, &sel, 4), tlm::TLM_OK_RESPONSE);
    for (uint64_t i = 0; i < 4; ++i) {
        const uint64_t v = (i + 1) * 0x1111;
        std::memcpy(b.mem.data() + 0x3000 + 8 * i, &v, 8);
    }
    b.channel(4, kMem + 0x3000, 0x40800030, 4,
              dr::dinc::set(0, 1) | dr::src_tr_width::set(0, 3) | dr::dst_tr_width::set(0, 3),
              dr::tt_fc::set(0, 1) | dr::dst_per::set(0, 4));
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_US));
    EXPECT_TRUE(b.fifo.taken.empty());  // no room yet
    EXPECT_FALSE(b.dmac.irq[4].level());
    b.fifo.room = 2;
    b.fifo.freed.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start(sc_core::sc_time(1, sc_core::SC_US));
    EXPECT_EQ(b.fifo.taken.size(), 2u);  // two, then waiting again
    b.fifo.room = 2;
    b.fifo.freed.notify(sc_core::SC_ZERO_TIME);
    sc_core::sc_start();
    EXPECT_TRUE(b.dmac.irq[4].level());
    EXPECT_EQ(b.fifo.taken, (std::deque<uint64_t>{0x1111, 0x2222, 0x3333, 0x4444}));
    EXPECT_EQ(b.dmac.stats().to_json()["handshake_waits"]["value"], 2);
}

TEST_F(DmacTest, BusErrorStopsTheChannel) {
    Bench b("b");
    elaborate();
    ExpectWarnings w;  // the router names the unmapped read
    b.channel(0, 0x10000000, kMem, 4, dr::src_tr_width::set(0, 3) | dr::dst_tr_width::set(0, 3), 0);
    sc_core::sc_start();
    EXPECT_EQ(w.messages().size(), 1u);
    EXPECT_EQ(b.get(dr::channel_base(0) + dr::CH_INTSTATUS), dr::src_dec_err::MASK);
    EXPECT_EQ(b.dmac.stats().to_json()["errors"]["value"], 1);
}

TEST_F(DmacTest, UnroutedHandshakeWarns) {
    Bench b("b");
    elaborate();
    ExpectWarnings w;
    b.channel(1, 0x40800030, kMem, 4, dr::sinc::set(0, 1) | dr::src_tr_width::set(0, 3),
              dr::tt_fc::set(0, 2) | dr::src_per::set(0, 1));  // DMA_SEL0 interface 1 selects 0
    sc_core::sc_start();
    ASSERT_EQ(w.messages().size(), 1u);
    EXPECT_EQ(
        w.messages()[0],
        "b.dmac: channel 1: no peripheral drives handshake interface 1; transfer not started");
}

// SYSCTL beyond the DMA selectors, as SDK start-up code uses it: the PLLs read locked (pll_lock
// at 0x18: PLL0 bits 0-1, PLL1 bit 8, PLL2 bit 16), clock thresholds and resets read back what was
// written, and an offset past the block is an error.
TEST_F(DmacTest, SysctlPllsReadLockedAndOtherRegistersKeepTheirValues) {
    Bench b("b");
    elaborate();
    uint32_t v = 0;
    ASSERT_EQ(b.cpu.read(kSysctl + 0x18, &v, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v & 0x10103u, 0x10103u);
    const uint32_t th = 0x1234;
    ASSERT_EQ(b.cpu.write(kSysctl + 0x38, &th, 4), tlm::TLM_OK_RESPONSE);  // clk_th0
    ASSERT_EQ(b.cpu.read(kSysctl + 0x38, &v, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, th);
    const uint32_t sel = dr::kAiRxReq;  // the DMA selector is still at 0x64
    ASSERT_EQ(b.cpu.write(kSysctl + dr::DMA_SEL0, &sel, 4), tlm::TLM_OK_RESPONSE);
    ASSERT_EQ(b.cpu.read(kSysctl + dr::DMA_SEL0, &v, 4), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(v, sel);
    ExpectWarnings w;
    EXPECT_NE(b.cpu.read(kSysctl + 0x70, &v, 4), tlm::TLM_OK_RESPONSE);  // reserved
}

}  // namespace
}  // namespace npu::test
