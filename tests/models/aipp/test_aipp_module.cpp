// The AIPP sc_module through its registers: access rights, a job's tile equal to the pure
// function, its time equal to the cost model, the done/error interrupt, refused jobs with their
// warnings.
#include <random>

#include <fmt/format.h>

#include "models/aipp/aipp.h"
#include "models/aipp/aipp_func.h"
#include "sim/tlm/memory.h"
#include "sim/tlm/router.h"
#include "tests/sim/tlm/sc_harness.h"
#include "tests/sim/tlm/tlm_helpers.h"

namespace npu::test {
namespace {

using aipp::regs::Offset;
constexpr uint64_t kGm = 0x0, kL1 = 0x10000000, kRegs = 0x20000000;
constexpr uint64_t kGmBytes = 1u << 20, kL1Bytes = 1u << 20;

struct Bench : sc_core::sc_module {
    sim::Router router{"router"};
    sim::Memory gm{"gm", sim::MemoryConfig{kGmBytes, 0, 0, true}};
    sim::Memory l1{"l1", sim::MemoryConfig{kL1Bytes, 0, 0, true}};
    aipp::Aipp aipp;
    TestInitiator cpu{"cpu"};
    sc_core::sc_time irq_time;
    int irq_edges = 0;

    SC_HAS_PROCESS(Bench);
    Bench(sc_core::sc_module_name n, const aipp::AippConfig& cfg)
        : sc_module(n)
        , aipp("aipp", cfg) {
        cpu.socket.bind(router.target_socket);
        aipp.gm.socket.bind(router.target_socket);
        aipp.l1.socket.bind(router.target_socket);
        router.map("gm", kGm, kGmBytes, router.bind_target(gm.socket));
        router.map("l1", kL1, kL1Bytes, router.bind_target(l1.socket));
        router.map("aipp", kRegs, aipp::regs::kBlockBytes, router.bind_target(aipp.regs.socket));
        SC_THREAD(watch_irq);
    }
    void watch_irq() {
        for (;;) {
            sc_core::wait(aipp.irq.posedge_event());
            ++irq_edges;
            irq_time = sc_core::sc_time_stamp();
        }
    }
    uint64_t reg(uint64_t o) {
        uint64_t v = 0;
        EXPECT_EQ(cpu.read(kRegs + o, &v, 8), tlm::TLM_OK_RESPONSE);
        return v;
    }
    tlm::tlm_response_status set(uint64_t o, uint64_t v) { return cpu.write(kRegs + o, &v, 8); }
    // SetAippFunctions + LoadImageToLocal as register writes.
    void program(const aipp::Params& p, const aipp::LoadParams& l, uint64_t src0, uint64_t src1,
                 uint64_t dst) {
        const auto spr = aipp::regs::pack_sprs(p, src0, src1);
        for (size_t i = 0; i < spr.size(); ++i) {
            ASSERT_EQ(set(aipp::regs::SPR0 + 8 * i, spr[i]), tlm::TLM_OK_RESPONSE);
        }
        const auto load = aipp::regs::pack_load(l);
        set(aipp::regs::LOAD_SIZE, load[0]);
        set(aipp::regs::LOAD_START, load[1]);
        set(aipp::regs::LOAD_PAD, load[2]);
        set(aipp::regs::DST_ADDR, dst);
        set(aipp::regs::DST_TYPE, aipp::regs::pack_dst_type(p.output));
    }
};

// A 64x48 NV12 frame in GM at 0 (Y) and 64·48 (UV); a BT.601 job to int8 with mirror padding.
struct Job {
    aipp::Params p;
    aipp::LoadParams l;
    std::vector<uint8_t> y, uv;
    Job() {
        p.format = aipp::InputFormat::YUV420SP_U8;
        p.output = aipp::OutputType::i8;
        p.csc_enable = true;
        p.csc_matrix = {298, 0, 409, 298, -100, -208, 298, 516, 0};
        p.csc_bias_in = {16, 128, 128};
        p.dtc_mean = {128, 128, 128};
        p.padding_mode = 3;
        l.horiz_size = 40, l.vert_size = 30, l.horiz_start = 10, l.vert_start = 6;
        l.src_horiz_size = 64;
        l.top_pad = l.bot_pad = l.left_pad = l.right_pad = 3;
        std::mt19937 rng(4);
        y.resize(64 * 48), uv.resize(64 * 24);
        for (uint8_t& b : y) {
            b = static_cast<uint8_t>(rng());
        }
        for (uint8_t& b : uv) {
            b = static_cast<uint8_t>(rng());
        }
    }
};

aipp::AippConfig config() {
    aipp::AippConfig c;
    c.l1_base_addr = kL1;
    c.l1_size_bytes = kL1Bytes;
    return c;
}

class AippModule : public ScTest {};

TEST_F(AippModule, RegisterMapAndAccessRights) {
    Bench b("b", config());
    elaborate();
    b.set(aipp::regs::SPR4, 0x0123456789abcdef);
    EXPECT_EQ(b.reg(aipp::regs::SPR4), 0x0123456789abcdefu);
    uint64_t v = 0;
    {
        ExpectWarnings w;
        EXPECT_EQ(b.cpu.read(kRegs + aipp::regs::CMD, &v, 8), tlm::TLM_COMMAND_ERROR_RESPONSE);
        EXPECT_EQ(b.cpu.read(kRegs + 0x50, &v, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);  // reserved
        EXPECT_EQ(w.messages().size(), 2u);
    }
    b.set(aipp::regs::STATUS, ~uint64_t{0});  // W1C: nothing set, nothing to clear
    EXPECT_EQ(b.reg(aipp::regs::STATUS), 0u);
}

TEST_F(AippModule, JobEqualsThePureFunctionAndTheCostModel) {
    Bench b("b", config());
    const Job j;
    std::copy(j.y.begin(), j.y.end(), b.gm.data() + kGm);
    std::copy(j.uv.begin(), j.uv.end(), b.gm.data() + kGm + j.y.size());
    elaborate();
    const uint64_t dst = kL1 + 0x400;
    b.program(j.p, j.l, kGm, kGm + j.y.size(), dst);
    b.set(aipp::regs::INT_EN, 1);
    b.set(aipp::regs::CMD, 1);
    EXPECT_EQ(aipp::regs::busy::get(b.reg(aipp::regs::STATUS)), 1u);
    sc_core::sc_start();
    // Values: the pure function on the whole frame.
    const aipp::Geometry g = aipp::geometry(j.p, j.l);
    std::vector<uint8_t> want(g.elements());
    aipp::load_image(j.p, j.l, {}, {j.y.data(), j.y.size(), j.uv.data(), j.uv.size()}, want.data());
    EXPECT_EQ(0, std::memcmp(b.l1.data() + (dst - kL1), want.data(), want.size()));
    // Time: the cost model with the same addresses. By hand: 30 Y rows + 15 UV rows of 40 B, each
    // starting at 10 + 64·r (Y) or 3072 + 10 + 64·r (UV) ≡ 10 mod 32: ⌈(10 + 40) / 32⌉ = 2 beats
    // -> 90 bus cycles; tile 36·46·32 = 52992 B from a 64-aligned address: 828 beats -> 828
    // cycles; rows 36·8 = 288; 64 + 288 + max(90, 828) = 1180 cycles = 1180 ns at 1 GHz.
    const aipp::AippCost cost =
        aipp::aipp_cost(j.p, j.l, config().timing, {kGm, kGm + j.y.size(), dst});
    EXPECT_EQ(cost.read_bus_cycles, 90u);
    EXPECT_EQ(cost.write_bus_cycles, 828u);
    EXPECT_EQ(cost.total_cycles, 1180u);
    ASSERT_EQ(b.aipp.jobs().size(), 1u);
    EXPECT_EQ(b.aipp.jobs()[0].cost.total_ps, cost.total_ps);
    EXPECT_EQ(b.irq_edges, 1);
    EXPECT_EQ(ps(b.irq_time), 1180000u);
    const uint64_t status = b.reg(aipp::regs::STATUS);
    EXPECT_EQ(aipp::regs::done::get(status), 1u);
    EXPECT_EQ(aipp::regs::busy::get(status), 0u);
    b.set(aipp::regs::STATUS, aipp::regs::done::MASK);  // W1C clears done and the line
    EXPECT_EQ(b.reg(aipp::regs::STATUS), 0u);
    EXPECT_FALSE(b.aipp.irq.level());
    EXPECT_EQ(b.aipp.stats().to_json()["read_bytes"]["value"], 45 * 40);
}

TEST_F(AippModule, OutOfRangeParametersRaiseTheErrorInterrupt) {
    Bench b("b", config());
    Job j;
    j.l.top_pad = 40;  // 0..32
    elaborate();
    b.program(j.p, j.l, kGm, kGm + j.y.size(), kL1);
    b.set(aipp::regs::INT_EN, 2);  // error only
    b.set(aipp::regs::CMD, 1);
    ExpectWarnings w;
    sc_core::sc_start();
    ASSERT_EQ(w.messages().size(), 1u);
    EXPECT_EQ(w.messages()[0],
              "b.aipp: job refused (error_code 1): topPadSize is 40, expected 0..32; topPadSize "
              "is 40, expected at most vertSize = 30 (padding modes 2 and 3 copy blocks of the "
              "image)");
    const uint64_t status = b.reg(aipp::regs::STATUS);
    EXPECT_EQ(aipp::regs::error::get(status), 1u);
    EXPECT_EQ(aipp::regs::error_code::get(status), aipp::regs::kBadParameters);
    EXPECT_EQ(b.irq_edges, 1);
    EXPECT_EQ(ps(b.irq_time), 64000u);  // refused after the start cycles
}

TEST_F(AippModule, MisalignedDestinationAndStartWhileBusy) {
    Bench b("b", config());
    const Job j;
    elaborate();
    b.program(j.p, j.l, kGm, kGm + j.y.size(), kL1 + 16);
    b.set(aipp::regs::CMD, 1);
    ExpectWarnings w;
    b.set(aipp::regs::CMD, 1);  // the engine is busy: ignored
    sc_core::sc_start();
    ASSERT_EQ(w.messages().size(), 2u);
    EXPECT_EQ(w.messages()[0], "b.aipp: CMD.start while a job runs: ignored");
    EXPECT_EQ(w.messages()[1],
              "b.aipp: job refused (error_code 3): DST_ADDR 0x10000010: the 52992-byte tile "
              "must start 32-byte aligned inside L1 [0x10000000, 0x10100000)");
    EXPECT_EQ(b.aipp.jobs().size(), 1u);
    EXPECT_EQ(b.aipp.stats().to_json()["ignored_starts"]["value"], 1);
}

TEST_F(AippModule, SourceAlignmentRules) {
    Bench b("b", config());
    const Job j;  // YUV420SP: both planes 2-byte aligned
    elaborate();
    b.program(j.p, j.l, kGm + 1, kGm + 0x1001, kL1);
    b.set(aipp::regs::CMD, 1);
    ExpectWarnings w;
    sc_core::sc_start();
    ASSERT_EQ(w.messages().size(), 1u);
    EXPECT_EQ(w.messages()[0],
              "b.aipp: job refused (error_code 1): src0 address is 0x1, expected a multiple of 2 "
              "(YUV420SP_U8); src1 address is 0x1001, expected a multiple of 2 (YUV420SP_U8)");
    EXPECT_EQ(aipp::check_source_alignment(
                  [] {
                      aipp::Params x;
                      x.format = aipp::InputFormat::XRGB8888_U8;
                      return x;
                  }(),
                  6, 0)
                  .front(),
              "src0 address is 0x6, expected a multiple of 4 (XRGB8888_U8)");
}

}  // namespace
}  // namespace npu::test
