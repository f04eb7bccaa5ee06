// The timestamped stream channel: a fast writer against a slow reader through a 2-deep FIFO
// (back-pressure), a slow writer against a fast reader (the reader stalls), and a deep FIFO that
// never fills; stall cycles and occupancy worked by hand, values in order; and the largest
// occupancy equal to the occupancy curve's in whatever event order the two threads run.
#include <algorithm>
#include <memory>
#include <random>
#include <vector>

#include "sim/tlm/stream.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

// A writer of `n` words (0, 1, ...) one every `write_ii` cycles and a reader one every
// `read_ii`, each in its own thread, each keeping its own cycle count.
struct Pair : sc_core::sc_module {
    sim::Stream<int> s;
    int n;
    uint64_t write_ii, read_ii;
    std::vector<uint64_t> write_at, read_at;
    std::vector<int> got;
    SC_HAS_PROCESS(Pair);
    Pair(sc_core::sc_module_name name, uint64_t depth, int words, uint64_t wii, uint64_t rii)
        : sc_module(name)
        , s("s", depth, 32)
        , n(words)
        , write_ii(wii)
        , read_ii(rii) {
        SC_THREAD(writer);
        SC_THREAD(reader);
    }
    void writer() {
        uint64_t c = 0;
        for (int i = 0; i < n; ++i) {
            s.write(i, c);
            write_at.push_back(c);
            c += write_ii;
        }
    }
    void reader() {
        uint64_t c = 0;
        for (int i = 0; i < n; ++i) {
            got.push_back(s.read(c));
            read_at.push_back(c);
            c += read_ii;
        }
    }
};

TEST_F(ScTest, StreamBackPressureStallsAFastWriter) {
    // Writer every cycle, reader every 3, depth 2. By hand: w0 0, w1 1; w2 needs r0 (0): 2;
    // w3 needs r1 (3): 3; w4 needs r2 (6): 6, stalled 2; w5 needs r3 (9): 9, stalled 2.
    // Reads at 0, 3, 6, 9, 12, 15, never waiting.
    Pair p("p", 2, 6, 1, 3);
    sc_core::sc_start();
    EXPECT_EQ(p.got, (std::vector<int>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(p.write_at, (std::vector<uint64_t>{0, 1, 2, 3, 6, 9}));
    EXPECT_EQ(p.read_at, (std::vector<uint64_t>{0, 3, 6, 9, 12, 15}));
    const sim::StreamStats st = p.s.stats();
    EXPECT_EQ(st.words, 6u);
    EXPECT_EQ(st.write_stall_cycles, 4u);
    EXPECT_EQ(st.read_stall_cycles, 0u);
    EXPECT_EQ(st.max_occupancy, 2u);  // full from w2 on
}

TEST_F(ScTest, StreamASlowWriterStallsTheReader) {
    // Writer every 4 cycles, reader every cycle: read k at 4k, stalled 3 cycles for k >= 1; each
    // word is read in the cycle it was written, so the FIFO never holds one.
    Pair p("p", 4, 5, 4, 1);
    sc_core::sc_start();
    EXPECT_EQ(p.read_at, (std::vector<uint64_t>{0, 4, 8, 12, 16}));
    const sim::StreamStats st = p.s.stats();
    EXPECT_EQ(st.read_stall_cycles, 12u);
    EXPECT_EQ(st.write_stall_cycles, 0u);
    EXPECT_EQ(st.max_occupancy, 0u);
}

TEST_F(ScTest, StreamADeepEnoughFifoNeverPushesBack) {
    // Writer every cycle, reader every 2, 8 words, depth 8: no write stalls; w_k at k, r_k at
    // 2k; occupancy after w_k = k + 1 - (reads at or before k) = k + 1 - (k/2 + 1): max at
    // k = 7: 8 - 4 = 4.
    Pair p("p", 8, 8, 1, 2);
    sc_core::sc_start();
    EXPECT_EQ(p.write_at.back(), 7u);
    EXPECT_EQ(p.read_at.back(), 14u);
    const sim::StreamStats st = p.s.stats();
    EXPECT_EQ(st.write_stall_cycles, 0u);
    EXPECT_EQ(st.max_occupancy, 4u);
}

// A writer and a reader with random gaps between words (in cycles) that also yield to SystemC at
// random (in simulated time, which the stream does not see): the threads interleave in an event
// order unrelated to their cycle counts, as the layers of a design do.
struct Shuffled : sc_core::sc_module {
    sim::Stream<int> s;
    int n;
    std::mt19937 rng;
    SC_HAS_PROCESS(Shuffled);
    Shuffled(sc_core::sc_module_name name, uint64_t depth, int words, unsigned seed)
        : sc_module(name)
        , s("s", depth, 32)
        , n(words)
        , rng(seed) {
        s.record_times(true);
        SC_THREAD(writer);
        SC_THREAD(reader);
    }
    void pause() {
        if (rng() % 3 == 0) {
            wait(sc_core::sc_time(static_cast<double>(rng() % 50), sc_core::SC_NS));
        }
    }
    void writer() {
        uint64_t c = 0;
        for (int i = 0; i < n; ++i) {
            s.write(i, c);
            c += rng() % 4 == 0 ? rng() % 40 : rng() % 2;
            pause();
        }
    }
    void reader() {
        uint64_t c = 0;
        for (int i = 0; i < n; ++i) {
            s.read(c);
            c += rng() % 5 == 0 ? rng() % 30 : rng() % 3;
            pause();
        }
    }
};

TEST_F(ScTest, StreamMaxOccupancyIsTheCurvesInAnyEventOrder) {
    // The statistic settles each write against reads that may come before or after it in event
    // order; the curve is computed afterwards from the sorted cycles. They must agree.
    std::vector<std::unique_ptr<Shuffled>> pairs;
    for (unsigned seed = 0; seed < 40; ++seed) {
        pairs.push_back(std::make_unique<Shuffled>(("p" + std::to_string(seed)).c_str(),
                                                   1 + seed % 70, 400, seed));
    }
    sc_core::sc_start();
    for (auto& p : pairs) {
        const auto curve = sim::occupancy_curve(p->s.write_times(), p->s.read_times());
        uint64_t max = 0;
        for (const auto& [cycle, words] : curve) {
            max = std::max(max, words);
        }
        EXPECT_EQ(p->s.stats().max_occupancy, max) << p->name();
        EXPECT_LE(max, p->s.depth()) << p->name();
    }
}

TEST(StreamCurve, ReadsOfACycleComeBeforeItsWrites) {
    // Writes at 0, 1, 1, 5; reads at 1, 2, 5, 6. At 0: 1 word; at 1 a read then two writes: 2;
    // at 2: 1; at 5 a read then a write: 1 (no change, no point); at 6: 0.
    const auto c = sim::occupancy_curve({0, 1, 1, 5}, {1, 2, 5, 6});
    EXPECT_EQ(c, (std::vector<std::pair<uint64_t, uint64_t>>{{0, 1}, {1, 2}, {2, 1}, {6, 0}}));
}

}  // namespace
}  // namespace npu::test
