// AxiPort: exact transfer times (derived in comments from docs/counters.md "Bus transfers"),
// DMI and burst paths agreeing, and two masters serializing on one port.
#include "sim/tlm/axi_port.h"
#include "sim/tlm/memory.h"
#include "sim/tlm/quantum.h"
#include "sim/tlm/router.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

using sc_core::SC_NS;
using sc_core::sc_time;

// 8-byte beats, bursts of at most 16 beats, 4 cycles per burst, 400 MHz (2.5 ns per cycle);
// the memory adds 5 ns per read burst and 3 ns per write burst.
sim::BusConfig bus() {
    sim::BusConfig b;
    b.data_width_bytes = 8;
    b.max_burst_beats = 16;
    b.burst_latency_cycles = 4;
    b.clock_hz = 400'000'000;
    return b;
}

struct Soc : sc_core::sc_module {
    sim::Router router{"router"};
    sim::Memory ddr{"ddr", sim::MemoryConfig{1u << 20, 5, 3, true}};
    sim::AxiPort port;
    Soc(sc_core::sc_module_name n, bool use_dmi)
        : sc_module(n)
        , port("port", bus(), use_dmi) {
        port.socket.bind(router.target_socket);
        router.map("ddr", 0x80000000, 1u << 20, router.bind_target(ddr.socket));
    }
};

class AxiPortTest : public ScTest {};

TEST_F(AxiPortTest, ExactTimeBurstThenDmi) {
    Soc soc("soc", true);
    elaborate();
    std::vector<uint8_t> buf(128);
    sc_time local = sc_core::SC_ZERO_TIME;
    // 128 aligned bytes: 16 beats in 1 burst -> 1·4 + 16 = 20 cycles = 50 ns, + 1 burst · 5 ns.
    ASSERT_EQ(soc.port.read(0x80000000, buf.data(), 128, local), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(ps(local), 55'000u);
    EXPECT_EQ(soc.port.dmi_transfer_count(), 0u);  // first access: b_transport, earns DMI
    // The same again starts when the port is free (55 ns) and takes the same 55 ns, now by DMI.
    ASSERT_EQ(soc.port.read(0x80000000, buf.data(), 128, local), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(ps(local), 110'000u);
    EXPECT_EQ(soc.port.dmi_transfer_count(), 1u);
    // A write of 4109 bytes from offset 3: 646 cycles (see BusCost.HandWorkedCases) = 1615 ns,
    // + 33 bursts · 3 ns = 99 ns -> 1714 ns.
    std::vector<uint8_t> big(4109, 0x5a);
    const sc_time before = local;
    ASSERT_EQ(soc.port.write(0x80000003, big.data(), big.size(), local), tlm::TLM_OK_RESPONSE);
    EXPECT_EQ(ps(local - before), 1'714'000u);
    const auto j = soc.port.stats().to_json();
    EXPECT_EQ(j["beats"]["value"], 16 + 16 + 514);
    EXPECT_EQ(j["bursts"]["value"], 1 + 1 + 33);
    EXPECT_EQ(j["busy_cycles"]["value"], 20 + 20 + 646);
    EXPECT_EQ(j["bytes_written"]["value"], 4109);
}

TEST_F(AxiPortTest, BurstPathMovesTheRightBytesAndAgreesWithDmi) {
    Soc with_dmi("a", true);
    Soc bursts_only("b", false);
    elaborate();
    std::vector<uint8_t> data(10000);
    for (size_t i = 0; i < data.size(); ++i) {
        data[i] = static_cast<uint8_t>(i * 7 + 3);
    }
    sc_time ta = sc_core::SC_ZERO_TIME, tb = sc_core::SC_ZERO_TIME;
    for (uint64_t off : {0ull, 5ull, 4090ull, 12345ull}) {
        ASSERT_EQ(with_dmi.port.write(0x80000000 + off, data.data(), data.size(), ta),
                  tlm::TLM_OK_RESPONSE);
        ASSERT_EQ(bursts_only.port.write(0x80000000 + off, data.data(), data.size(), tb),
                  tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(ta, tb) << "offset " << off;
        EXPECT_EQ(0, std::memcmp(bursts_only.ddr.data() + off, data.data(), data.size()));
        std::vector<uint8_t> back(data.size());
        ASSERT_EQ(bursts_only.port.read(0x80000000 + off, back.data(), back.size(), tb),
                  tlm::TLM_OK_RESPONSE);
        ASSERT_EQ(with_dmi.port.read(0x80000000 + off, back.data(), back.size(), ta),
                  tlm::TLM_OK_RESPONSE);
        EXPECT_EQ(back, data);
        EXPECT_EQ(ta, tb);
    }
    EXPECT_EQ(bursts_only.port.dmi_transfer_count(), 0u);
    EXPECT_GT(with_dmi.port.dmi_transfer_count(), 0u);
}

// Two threads share one port: B asks at 100 ns while A's 1780 ns read holds the port.
struct TwoMasters : sc_core::sc_module {
    Soc soc{"soc", true};
    sc_time a_end, b_end;
    SC_HAS_PROCESS(TwoMasters);
    explicit TwoMasters(sc_core::sc_module_name n)
        : sc_module(n) {
        SC_THREAD(master_a);
        SC_THREAD(master_b);
    }
    void master_a() {
        sim::QuantumKeeper qk;
        std::vector<uint8_t> buf(4109);
        soc.port.read(0x80000003, buf.data(), buf.size(), qk.local());
        a_end = qk.get_current_time();
        qk.sync();
    }
    void master_b() {
        wait(100, SC_NS);
        sim::QuantumKeeper qk;
        std::vector<uint8_t> buf(128);
        soc.port.read(0x80000000, buf.data(), buf.size(), qk.local());
        b_end = qk.get_current_time();
        qk.sync();
    }
};

TEST_F(AxiPortTest, ConcurrentMastersSerialize) {
    sim::set_global_quantum(sc_time(10, sc_core::SC_US));
    TwoMasters top("top");
    sc_core::sc_start();
    // A: 646 cycles · 2.5 ns + 33 bursts · 5 ns = 1780 ns (a first access: b_transport bursts).
    EXPECT_EQ(ps(top.a_end), 1'780'000u);
    // B waits for the port until 1780 ns, then 20 cycles · 2.5 ns + 5 ns = 55 ns.
    EXPECT_EQ(ps(top.b_end), 1'835'000u);
    // B stalled from 100 ns to 1780 ns: 1680 ns / 2.5 ns = 672 cycles.
    EXPECT_EQ(top.soc.port.stats().to_json()["stall_cycles"]["value"], 672);
}

TEST_F(AxiPortTest, ErrorResponseIsReturned) {
    Soc soc("soc", true);
    elaborate();
    uint8_t b[8];
    sc_time local = sc_core::SC_ZERO_TIME;
    ExpectWarnings w;
    EXPECT_EQ(soc.port.read(0x10, b, 8, local), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    EXPECT_EQ(w.messages().size(), 1u);
    EXPECT_EQ(soc.port.stats().to_json()["errors"]["value"], 1);
}

}  // namespace
}  // namespace npu::test
