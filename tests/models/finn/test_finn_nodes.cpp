// The MVAU as a streaming process: over FINN's test grid (MW = MH = 16, PE and SIMD folded
// fully, partly and not at all) its outputs equal the pure function's, each frame takes exactly
// the formula's NF·SF cycles once the pipeline runs (FINN's tests allow 15), a period moves SF
// input words and NF output words (FINN's I/O characterization), and a slow consumer behind a
// 2-deep FIFO holds it back.
#include <random>

#include "models/finn/finn_cost.h"
#include "models/finn/finn_design.h"
#include "models/finn/finn_nodes.h"
#include "sim/core/error.h"
#include "sim/tlm/kernel.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

using finn::Word;
using finn::WordStream;

// A source of `frames` vectors in words of `simd`, one word a cycle; a sink taking a word every
// `sink_ii` cycles.
struct Bench : sc_core::sc_module {
    WordStream in, out;
    finn::MvauNode node;
    std::vector<int64_t> x;
    unsigned simd;
    uint64_t out_words, sink_ii;
    std::vector<int64_t> got;
    SC_HAS_PROCESS(Bench);
    Bench(sc_core::sc_module_name n, const finn::Mvau& m, std::vector<int64_t> inputs,
          uint64_t frames, uint64_t out_depth, uint64_t sink_every)
        : sc_module(n)
        , in("in", 64, m.simd * 4)
        , out("out", out_depth, m.pe * 32)
        , node("mvau", m, frames, in, out)
        , x(std::move(inputs))
        , simd(m.simd)
        , out_words(frames * m.mh / m.pe)
        , sink_ii(sink_every) {
        SC_THREAD(source);
        SC_THREAD(sink);
    }
    void source() {
        uint64_t c = 0;
        for (size_t i = 0; i < x.size(); i += simd, ++c) {
            in.write(
                Word(x.begin() + static_cast<long>(i), x.begin() + static_cast<long>(i + simd)), c);
        }
    }
    void sink() {
        uint64_t c = 0;
        for (uint64_t i = 0; i < out_words; ++i, c += sink_ii) {
            const Word w = out.read(c);
            got.insert(got.end(), w.begin(), w.end());
        }
    }
};

finn::Mvau layer(unsigned pe, unsigned simd, std::mt19937& rng) {
    finn::Mvau m;
    m.mw = m.mh = 16, m.pe = pe, m.simd = simd;
    m.in = m.weight = finn::DataType::sint(4);
    for (int i = 0; i < 256; ++i) {
        m.weights.push_back(static_cast<int64_t>(rng() % 16) - 8);
    }
    return m;
}

// One layer between a source and a sink that never hold it back.
finn::DesignRun run_alone(finn::LayerOp op, const std::vector<int64_t>& x, uint64_t frames) {
    finn::Design d;
    d.layers.push_back({"node", std::move(op), false, {}});
    d.fifo_depths = {1024, 1024};
    finn::SimulateOptions record;
    record.record = true;
    return finn::simulate(d, x, frames, record);
}

// How many of `cycles` lie in [from, from + length).
size_t in_window(const std::vector<uint64_t>& cycles, uint64_t from, uint64_t length) {
    size_t n = 0;
    for (uint64_t c : cycles) {
        n += c >= from && c < from + length ? 1 : 0;
    }
    return n;
}

TEST_F(ScTest, MvauNodeFollowsTheFormulaOverFinnsGrid) {
    std::mt19937 rng(3);
    constexpr uint64_t kFrames = 4;
    for (unsigned pe : {1u, 2u, 16u}) {
        for (unsigned simd : {1u, 2u, 16u}) {
            SCOPED_TRACE(testing::Message() << "PE " << pe << " SIMD " << simd);
            const finn::Mvau m = layer(pe, simd, rng);
            std::vector<int64_t> x(kFrames * 16);
            for (int64_t& v : x) {
                v = static_cast<int64_t>(rng() % 16) - 8;
            }
            const finn::DesignRun r = run_alone(m, x, kFrames);
            EXPECT_EQ(r.output, finn::mvau(m, x));
            // FINN's tests allow 15 cycles against RTL simulation; the schedule is exact.
            const uint64_t formula = finn::mvau_cycles(16, 16, pe, simd, 1);
            EXPECT_EQ(r.nodes[0].formula_cycles, formula);
            EXPECT_EQ(r.nodes[0].frame_cycles, formula);
            EXPECT_EQ(r.nodes[0].end - r.nodes[0].start, kFrames * formula);
            // A period of NF·SF cycles moves SF input words and NF output words (FINN's I/O
            // characterization), in every period.
            EXPECT_EQ(r.fifos[0].words, kFrames * (16 / simd));
            EXPECT_EQ(r.fifos[1].words, kFrames * (16 / pe));
            for (uint64_t start : r.nodes[0].frame_starts) {
                EXPECT_EQ(in_window(r.fifos[0].read_cycles, start, formula), 16 / simd);
                EXPECT_EQ(in_window(r.fifos[1].write_cycles, start, formula), 16 / pe);
            }
        }
    }
}

TEST_F(ScTest, MvauNodeIsHeldBackByASlowConsumer) {
    // PE 1, SIMD 16: NF 16, SF 1, one output word per cycle; the sink takes one every 5 cycles
    // through 2 slots, so a frame takes 16 · 5 = 80 cycles instead of 16.
    std::mt19937 rng(4);
    const finn::Mvau m = layer(1, 16, rng);
    std::vector<int64_t> x(3 * 16, 1);
    Bench b("b", m, x, 3, 2, 5);
    sc_core::sc_start();
    EXPECT_EQ(b.got, finn::mvau(m, x));
    const auto& starts = b.node.frame_starts();
    EXPECT_EQ(starts[2] - starts[1], 80u);
    EXPECT_GT(b.out.stats().write_stall_cycles, 0u);
    EXPECT_EQ(b.out.stats().max_occupancy, 2u);
}

TEST_F(ScTest, ThresholdingNodeTakesChannelsOverPeCyclesPerFrame) {
    // 12 channels, 3 thresholds each (channel c: c-4, c, c+4), ActVal -1; PE 1, 3, 4, 12.
    finn::ThresholdingLayer l;
    l.channels = 12, l.act_val = -1;
    for (int64_t c = 0; c < 12; ++c) {
        l.thresholds.push_back({c - 4, c, c + 4});
    }
    std::mt19937 rng(6);
    std::vector<int64_t> x(5 * 12);
    for (int64_t& v : x) {
        v = static_cast<int64_t>(rng() % 32) - 8;
    }
    // First, before any simulation ran in this process: an exception unwinding the main stack
    // after SystemC switched stacks confuses AddressSanitizer (platform_face.h, RunReport).
    l.pe = 5;  // 12 % 5 != 0
    try {
        WordStream a("a", 2, 8), c("c", 2, 8);
        finn::ThresholdingNode bad("bad", l, 1, a, c);
        ADD_FAILURE();
    } catch (const sim::Error& e) {
        EXPECT_NE(std::string(e.what()).find("NumChannels % PE == 0: NumChannels 12 is not a "
                                             "multiple of PE 5"),
                  std::string::npos)
            << e.what();
    }
    for (unsigned pe : {1u, 3u, 4u, 12u}) {
        SCOPED_TRACE(testing::Message() << "PE " << pe);
        l.pe = pe;
        const finn::DesignRun r = run_alone(l, x, 5);
        EXPECT_EQ(r.output, finn::thresholding(x, 12, l.thresholds, -1, false));
        EXPECT_EQ(r.nodes[0].frame_cycles, finn::thresholding_cycles(12, pe, 1));
        EXPECT_EQ(r.nodes[0].end - r.nodes[0].start, 5 * finn::thresholding_cycles(12, pe, 1));
    }
}

}  // namespace
}  // namespace npu::test
