// The KPU sc_module as firmware sees it: registers, FIFO thresholds and interrupts, a layer
// pushed through LAYER_ARGUMENT_FIFO finishing at exactly the cost model's time with the pure
// datapath's bytes, the fifo_data_out stream, and bad layers that warn instead of crashing.
#include <random>

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include "models/k210_kpu/kpu.h"
#include "models/k210_kpu/kpu_layer_builder.h"
#include "platforms/k210/estimate.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/tlm/kernel.h"
#include "sim/tlm/router.h"
#include "tests/models/k210_kpu/random_layer.h"
#include "tests/sim/tlm/sc_harness.h"
#include "tests/sim/tlm/tlm_helpers.h"

namespace npu::test {
namespace {

using kpu::regs::Offset;
constexpr uint64_t kRegs = 0x40800000;
constexpr uint64_t kWeights = 0x40010000, kBn = 0x40020000, kAct = 0x40030000;  // uncached alias

struct Bench : sc_core::sc_module {
    sim::Router router{"router"};
    sim::Memory sram{"sram", sim::MemoryConfig{1u << 20, 0, 0, true}};
    kpu::Kpu kpu;
    TestInitiator cpu{"cpu"};
    sc_core::sc_time irq_time;
    int irq_edges = 0;

    SC_HAS_PROCESS(Bench);
    Bench(sc_core::sc_module_name n, const kpu::KpuConfig& cfg)
        : sc_module(n)
        , kpu("kpu", cfg, nullptr) {
        cpu.socket.bind(router.target_socket);
        kpu.axi.socket.bind(router.target_socket);
        const unsigned s = router.bind_target(sram.socket);
        router.map("sram", 0x80000000, 1u << 20, s);
        router.map("sram.io", 0x40000000, 1u << 20, s);
        router.map("kpu", kRegs, kpu::regs::kBlockBytes, router.bind_target(kpu.regs.socket));
        const unsigned r = router.bind_target(kpu.ram.socket);
        router.map("ai_sram", 0x80600000, kpu::kRamBytes, r);
        router.map("ai_sram.io", 0x40600000, kpu::kRamBytes, r);
        SC_THREAD(watch_irq);
    }
    void watch_irq() {
        for (;;) {
            sc_core::wait(kpu.irq.posedge_event());
            ++irq_edges;
            irq_time = sc_core::sc_time_stamp();
        }
    }
    uint64_t reg(Offset o) {
        uint64_t v = 0;
        EXPECT_EQ(cpu.read(kRegs + o, &v, 8), tlm::TLM_OK_RESPONSE);
        return v;
    }
    tlm::tlm_response_status set(Offset o, uint64_t v) { return cpu.write(kRegs + o, &v, 8); }
    void push(const kpu::Words& w) {
        for (uint64_t x : w) {
            ASSERT_EQ(set(kpu::regs::LAYER_ARGUMENT_FIFO, x), tlm::TLM_OK_RESPONSE);
        }
    }
    // Places a layer's tables in SRAM and its input in the AI SRAM; points the fields at them.
    kpu::Words load(RandomLayer& r) {
        r.args.para_start_addr = static_cast<uint32_t>(kWeights);
        r.args.bwsx_base_addr = static_cast<uint32_t>(kBn);
        r.args.active_addr = static_cast<uint32_t>(kAct);
        std::copy(r.weights.begin(), r.weights.end(), sram.data() + (kWeights & 0xfffff));
        for (size_t i = 0; i < r.bn_words.size(); ++i) {
            boost::endian::store_little_u64(sram.data() + (kBn & 0xfffff) + 8 * i, r.bn_words[i]);
        }
        std::copy(r.act.begin(), r.act.end(), sram.data() + (kAct & 0xfffff));
        kpu::upload(r.input.data(), kpu::input_geometry(r.args),
                    kpu.ram.data() + uint64_t{r.args.image_src_addr} * kpu::kLineBytes);
        return kpu::encode(r.args);
    }
};

class KpuModule : public ScTest {
protected:
    kpu::KpuConfig cfg;
};

TEST_F(KpuModule, ResetValuesAndAccessRights) {
    Bench b("b", cfg);
    elaborate();
    EXPECT_EQ(b.reg(kpu::regs::INTERRUPT_MASK), 0xfu);
    EXPECT_EQ(b.reg(kpu::regs::INTERRUPT_RAW), 0x0u);  // no event yet
    EXPECT_EQ(b.reg(kpu::regs::INTERRUPT_STATUS), 0x0u);
    EXPECT_EQ(b.reg(kpu::regs::FIFO_THRESHOLD), 0x1au);
    EXPECT_EQ(b.reg(kpu::regs::FIFO_CTRL), 0x1fu);
    EXPECT_EQ(b.reg(kpu::regs::EIGHT_BIT_MODE), 0x0u);
    EXPECT_FALSE(b.kpu.irq.level());
    ExpectWarnings w;
    uint64_t v = 0;
    EXPECT_EQ(b.set(kpu::regs::INTERRUPT_STATUS, 1), tlm::TLM_COMMAND_ERROR_RESPONSE);
    EXPECT_EQ(b.cpu.read(kRegs + kpu::regs::LAYER_ARGUMENT_FIFO, &v, 8),
              tlm::TLM_COMMAND_ERROR_RESPONSE);
    EXPECT_EQ(b.cpu.write(kRegs + kpu::regs::LAYER_ARGUMENT_FIFO, &v, 4),
              tlm::TLM_BURST_ERROR_RESPONSE);
    EXPECT_EQ(b.cpu.read(kRegs + 0x48, &v, 8), tlm::TLM_ADDRESS_ERROR_RESPONSE);
    ASSERT_EQ(w.messages().size(), 4u);
    EXPECT_EQ(w.messages()[0],
              "b.kpu.regs: 8-byte write at offset 0x8 (INTERRUPT_STATUS): access not "
              "allowed by the register's access rights");
}

// Almost-empty and almost-full are events (the count reaching a threshold), cleared by writing 1:
// the SDK's kpu_run_kmodel unmasks almost-empty with an empty FIFO and must not be interrupted
// until its input DMA is done.
TEST_F(KpuModule, FifoInterruptsAreEventsClearedByWritingOne) {
    Bench b("b", cfg);
    elaborate();
    b.set(kpu::regs::INTERRUPT_CLEAR, 0x7);
    b.set(kpu::regs::INTERRUPT_MASK, 0b1101);  // almost-empty enabled (0 = enabled)
    EXPECT_FALSE(b.kpu.irq.level());           // the FIFO was empty all along: no event
    EXPECT_EQ(b.reg(kpu::regs::INTERRUPT_RAW), 0x0u);
    // Two layers queued (the KPU thread has not run): 2 > empty threshold 1.
    kpu::Words w{};
    b.push(w);
    b.push(w);
    EXPECT_EQ(b.reg(kpu::regs::INTERRUPT_RAW), 0x0u);
    // Full threshold 2 layers: 2 >= 2 now holds -> almost full.
    b.set(kpu::regs::FIFO_THRESHOLD, 2 | (1 << 4));
    EXPECT_EQ(b.reg(kpu::regs::INTERRUPT_RAW), 0x4u);
    // Flushing the configuration FIFO (cfg_fifo_flush_n written 0) empties it: the count falls
    // to the empty threshold, an almost-empty event; it interrupts (unmasked).
    b.set(kpu::regs::FIFO_CTRL, 0x1f & ~0x4);
    EXPECT_EQ(b.reg(kpu::regs::INTERRUPT_RAW), 0x6u);
    EXPECT_TRUE(b.kpu.irq.level());
    EXPECT_EQ(b.reg(kpu::regs::INTERRUPT_STATUS), 0x2u);
    // A clear sticks: the FIFO is still empty, but that is no new event.
    b.set(kpu::regs::INTERRUPT_CLEAR, 0x2);
    EXPECT_EQ(b.reg(kpu::regs::INTERRUPT_RAW), 0x4u);
    EXPECT_FALSE(b.kpu.irq.level());
}

TEST_F(KpuModule, LayerThroughRegistersMatchesPurePathAndCostModel) {
    std::mt19937_64 rng(99);
    RandomLayer r = random_layer(rng, true);
    r.args.int_en = true;
    r.args.send_data_out = true;
    Bench b("b", cfg);
    const kpu::Words words = b.load(r);
    // The same layer through the pure datapath, on a copy of the RAM, for the expected bytes.
    std::vector<uint8_t> expect_ram(b.kpu.ram.data(), b.kpu.ram.data() + kpu::kRamBytes);
    const kpu::LayerResult expect = kpu::run_layer(r.args, r.params(), true, {}, expect_ram.data());
    const kpu::LayerCost cost = kpu::layer_cost(r.args, true, cfg.timing);

    elaborate();
    b.set(kpu::regs::EIGHT_BIT_MODE, 1);
    b.set(kpu::regs::INTERRUPT_CLEAR, 7);
    b.set(kpu::regs::INTERRUPT_MASK, 0b1110);  // calc_done only
    b.push(words);
    ExpectWarnings warnings;
    sc_core::sc_start();

    // This random layer draws its terms over their full ranges, so some values leave 36 bits:
    // the module says how many, and they are the pure path's count.
    ASSERT_GT(expect.overflows, 0u);
    ASSERT_EQ(warnings.messages().size(), 1u);
    EXPECT_EQ(
        warnings.messages()[0],
        fmt::format("b.kpu: layer 0: {} accumulator/BN values beyond signed 36 bits (overflow "
                    "policy keep64)",
                    expect.overflows));
    ASSERT_EQ(b.irq_edges, 1);
    // 400 MHz: 2.5 ns per cycle; the memory adds no latency, so the bus-measured fetch terms equal
    // transfer_cost and the layer ends at exactly total_cycles.
    EXPECT_EQ(ps(b.irq_time), cost.total_cycles * 2500) << cost.total_cycles;
    EXPECT_TRUE(std::equal(expect_ram.begin(), expect_ram.end(), b.kpu.ram.data()));
    ASSERT_EQ(b.kpu.layers().size(), 1u);
    EXPECT_EQ(b.kpu.layers()[0].cost.total_cycles, cost.total_cycles);
    EXPECT_EQ(b.reg(kpu::regs::INTERRUPT_STATUS), 0x1u);
    // The output stream: dense NCHW bytes in little-endian 64-bit words.
    std::vector<uint8_t> stream;
    while (stream.size() < expect.dense_output.size()) {
        const uint64_t word = b.reg(kpu::regs::FIFO_DATA_OUT);
        for (int i = 0; i < 8; ++i) {
            stream.push_back(static_cast<uint8_t>(word >> (8 * i)));
        }
    }
    stream.resize(expect.dense_output.size());
    EXPECT_EQ(stream, expect.dense_output);
    EXPECT_EQ(b.kpu.output_words(), 0u);
    const auto j = b.kpu.stats().to_json();
    EXPECT_EQ(j["layers"]["value"], 1);
    EXPECT_EQ(j["macs"]["value"], expect.macs);
    EXPECT_EQ(j["output_bytes"]["value"], expect.dense_output.size());
}

// A CPU running ahead of the kernel (temporal decoupling) writes the 12th word 1 µs after the
// kernel's time: the layer starts then, not at the kernel's time (the IRQ is 1 µs later).
TEST_F(KpuModule, ALayerStartsWhenItsLastWordWasWrittenNotBefore) {
    std::mt19937_64 rng(99);
    RandomLayer r = random_layer(rng, true);
    r.args.int_en = true;
    Bench b("b", cfg);
    const kpu::Words words = b.load(r);
    const kpu::LayerCost cost = kpu::layer_cost(r.args, true, cfg.timing);
    elaborate();
    b.set(kpu::regs::EIGHT_BIT_MODE, 1);
    b.set(kpu::regs::INTERRUPT_MASK, 0b1110);
    for (size_t i = 0; i < words.size(); ++i) {
        uint64_t v = words[i];
        sc_core::sc_time ahead =
            i + 1 == words.size() ? sc_core::sc_time(1, sc_core::SC_US) : sc_core::SC_ZERO_TIME;
        ASSERT_EQ(
            b.cpu.rw(tlm::TLM_WRITE_COMMAND, kRegs + kpu::regs::LAYER_ARGUMENT_FIFO, &v, 8, ahead),
            tlm::TLM_OK_RESPONSE);
    }
    ExpectWarnings warnings;
    sc_core::sc_start();
    ASSERT_EQ(b.irq_edges, 1);
    EXPECT_EQ(ps(b.irq_time), 1'000'000 + cost.total_cycles * 2500);
    EXPECT_EQ(b.kpu.layers().at(0).start_ps, 1'000'000u);
}

TEST_F(KpuModule, BadLayerWarnsSetsErrorBitAndDoesNotHang) {
    std::mt19937_64 rng(5);
    RandomLayer r = random_layer(rng, true);
    r.args.kernel_type = 5;
    r.args.int_en = true;
    Bench b("b", cfg);
    const kpu::Words words = b.load(r);
    elaborate();
    b.set(kpu::regs::INTERRUPT_MASK, 0b0110);  // calc_done and layer_error enabled
    b.push(words);
    ExpectWarnings w;
    sc_core::sc_start();
    ASSERT_GE(w.messages().size(), 1u);
    EXPECT_EQ(w.messages()[0],
              "b.kpu: layer 0: kernel_type is 5, expected 0 (1x1) or 1 (3x3) (layer skipped)");
    EXPECT_EQ(b.reg(kpu::regs::INTERRUPT_RAW) & 0x9, 0x9u);  // calc_done + layer_error
    EXPECT_TRUE(b.kpu.layers()[0].skipped);
    EXPECT_EQ(b.irq_edges, 1);
}

TEST_F(KpuModule, UnmappedTableAddressSkipsTheLayer) {
    std::mt19937_64 rng(6);
    RandomLayer r = random_layer(rng, true);
    Bench b("b", cfg);
    kpu::Words words = b.load(r);
    kpu::LayerArgs a = kpu::decode(words);
    a.bwsx_base_addr = 0x10000000;  // nothing there
    elaborate();
    b.set(kpu::regs::EIGHT_BIT_MODE, 1);
    b.push(kpu::encode(a));
    ExpectWarnings w;
    sc_core::sc_start();
    ASSERT_EQ(w.messages().size(), 2u);
    EXPECT_EQ(w.messages()[0], "b.router: read of 72 bytes at 0x10000000 hits no mapped window");
    EXPECT_EQ(
        w.messages()[1],
        "b.kpu: layer 0: fetching 72 bytes of the BN table at 0x10000000 failed (layer skipped)");
    EXPECT_EQ(b.kpu.stats().to_json()["skipped_layers"]["value"], 1);
}

TEST_F(KpuModule, StrictModeTurnsProblemsIntoErrors) {
    cfg.strict = true;
    std::mt19937_64 rng(7);
    RandomLayer r = random_layer(rng, true);
    r.args.active_addr = static_cast<uint32_t>(kAct);
    Bench b("b", cfg);
    kpu::Words words = b.load(r);
    kpu::LayerArgs a = kpu::decode(words);
    a.active_addr += 8;  // misaligned activation table: run, but warn (error when strict)
    elaborate();
    b.set(kpu::regs::EIGHT_BIT_MODE, 1);
    b.push(kpu::encode(a));
    try {
        sc_core::sc_start();
        FAIL() << "expected an error";
    } catch (const sc_core::sc_report& e) {
        EXPECT_STREQ(e.get_msg(),
                     "b.kpu: layer 0: active_addr is 0x40030008, must be 256-byte aligned");
    }
}

// npusim estimate and the timed module use one cost function: on a sweep of layer shapes the
// module's cycles (one layer_cost(); its reads only move the bytes) equal the estimate's.
TEST_F(KpuModule, EstimateEqualsTimedSimulation) {
    auto doc = sim::ConfigDocument::parse(R"(layers:
  - name: mix
    in_channels: [3, 40]
    out_channels: [8, 70]
    width: [17, 70]
    height: 9
    kernel: [1, 3]
    depthwise: [0, 1]
    pool: [0, 6]
    weight_bits: [8, 16]
)",
                                          "sweep.yaml");
    const auto sweeps = k210::read_sweeps(doc.root());
    doc.finish();
    const auto rows = k210::estimate(sweeps, cfg.timing);
    ASSERT_EQ(rows.size(), 128u);
    std::mt19937_64 rng(4);
    size_t compared = 0;
    for (const k210::EstimateRow& row : rows) {
        sim::reset_simulation();
        sim::install_report_handler(on_warning);
        RandomLayer r = random_layer(rng, row.shape.eight_bit);
        const kpu::LayerArgs terms = r.args;
        r.args =
            kpu::build_layer(row.shape, 0,
                             static_cast<uint32_t>(kpu::fmap_lines(
                                 row.shape.in_channels, row.shape.in_width, row.shape.in_height)));
        r.args.arg_x = terms.arg_x, r.args.arg_w = terms.arg_w, r.args.arg_add = terms.arg_add;
        r.args.int_en = true;
        r.weights.assign(kpu::weight_bytes(r.args, row.shape.eight_bit), 1);
        r.bn_words.resize(static_cast<size_t>(row.shape.out_channels), r.bn_words.front());
        r.input.assign(
            static_cast<size_t>(row.shape.in_channels * row.shape.in_width * row.shape.in_height),
            7);
        Bench b("b", cfg);
        const kpu::Words w = b.load(r);
        elaborate();
        b.set(kpu::regs::EIGHT_BIT_MODE, row.shape.eight_bit ? 1 : 0);
        b.push(w);
        ExpectWarnings overflow_warnings;  // the random terms may leave 36 bits
        sc_core::sc_start();
        ASSERT_EQ(b.kpu.layers().size(), 1u);
        // The estimate was made with the table addresses at 0; the module's tables sit elsewhere,
        // which changes nothing here (all aligned), so the cycles must be equal.
        EXPECT_EQ(b.kpu.layers()[0].cost.total_cycles, row.cost.total_cycles)
            << row.shape.in_channels << "x" << row.shape.in_height << "x" << row.shape.in_width
            << " -> " << row.shape.out_channels << " k" << row.shape.kernel << " dw"
            << row.shape.depthwise << " pool" << row.shape.pool_type << " bits "
            << (row.shape.eight_bit ? 8 : 16);
        ++compared;
    }
    EXPECT_EQ(compared, 128u);
}

}  // namespace
}  // namespace npu::test
