// Bus transfer cost: hand-worked cases, then the O(1) formula against a beat-by-beat reference.
#include <random>

#include <gtest/gtest.h>

#include "sim/core/bus_cost.h"
#include "sim/core/error.h"

namespace npu::sim {
namespace {

BusConfig axi64() {
    BusConfig b;
    b.data_width_bytes = 8;
    b.max_burst_beats = 16;
    b.burst_latency_cycles = 4;
    b.boundary_bytes = 4096;
    return b;
}

TEST(BusCost, HandWorkedCases) {
    const BusConfig b = axi64();
    // 128 aligned bytes: 16 beats, one burst: 1·4 + 16 = 20 cycles.
    auto c = transfer_cost(b, 0x1000, 128);
    EXPECT_EQ(c.beats, 16u);
    EXPECT_EQ(c.bursts, 1u);
    EXPECT_EQ(c.cycles, 20u);
    // 129 bytes: 17 beats, two bursts: 2·4 + 17 = 25.
    c = transfer_cost(b, 0x1000, 129);
    EXPECT_EQ(c.cycles, 25u);
    // 1 byte at offset 7: one beat, one burst: 5.
    c = transfer_cost(b, 0x7, 1);
    EXPECT_EQ(c.cycles, 5u);
    // 2 bytes at offset 7 straddle two beats: 2 beats, 1 burst: 6.
    c = transfer_cost(b, 0x7, 2);
    EXPECT_EQ(c.beats, 2u);
    EXPECT_EQ(c.cycles, 6u);
    // 4109 bytes from 0x80000003 (the self-check transfer): first piece 4093 bytes to the 4 KiB
    // boundary = ceil((3 + 4093) / 8) = 512 beats in 32 bursts; then 16 bytes = 2 beats, 1 burst.
    // cycles = 33·4 + 514 = 646.
    c = transfer_cost(b, 0x80000003, 4109);
    EXPECT_EQ(c.beats, 514u);
    EXPECT_EQ(c.bursts, 33u);
    EXPECT_EQ(c.cycles, 646u);
    // 1 MiB aligned: 256 pages of 512 beats = 131072 beats in 8192 bursts.
    c = transfer_cost(b, 0, 1u << 20);
    EXPECT_EQ(c.beats, 131072u);
    EXPECT_EQ(c.bursts, 8192u);
    EXPECT_EQ(c.cycles, 8192u * 4 + 131072u);
    // Nothing moved, nothing spent.
    c = transfer_cost(b, 0x1234, 0);
    EXPECT_EQ(c.cycles, 0u);
}

// Independent reference: walk the transfer beat by beat, opening a burst whenever the previous
// one is full or a boundary is crossed.
TransferCost reference(const BusConfig& b, uint64_t addr, uint64_t bytes) {
    TransferCost c;
    uint64_t beat_in_burst = 0;
    uint64_t prev_beat = ~0ull;
    for (uint64_t a = addr; a < addr + bytes; ++a) {
        const uint64_t beat = a / b.data_width_bytes;
        if (beat == prev_beat) {
            continue;
        }
        const bool new_page =
            prev_beat == ~0ull || (beat * b.data_width_bytes) % b.boundary_bytes == 0;
        if (new_page || beat_in_burst == b.max_burst_beats) {
            ++c.bursts;
            beat_in_burst = 0;
        }
        ++beat_in_burst;
        ++c.beats;
        prev_beat = beat;
    }
    c.cycles = c.bursts * b.burst_latency_cycles + c.beats;
    return c;
}

TEST(BusCost, MatchesBeatByBeatReference) {
    std::mt19937_64 rng(42);
    const unsigned widths[] = {1, 4, 8, 16, 64};
    const unsigned bursts[] = {1, 4, 16, 256};
    for (int i = 0; i < 3000; ++i) {
        BusConfig b = axi64();
        b.data_width_bytes = widths[rng() % 5];
        b.max_burst_beats = bursts[rng() % 4];
        b.boundary_bytes = (rng() % 2) ? 4096 : 256;
        if (b.boundary_bytes < b.data_width_bytes) {
            continue;
        }
        const uint64_t addr = rng() % 20000;
        const uint64_t bytes = rng() % 10000;
        const TransferCost got = transfer_cost(b, addr, bytes);
        const TransferCost want = reference(b, addr, bytes);
        ASSERT_EQ(got.beats, want.beats) << "addr " << addr << " bytes " << bytes;
        ASSERT_EQ(got.bursts, want.bursts) << "addr " << addr << " bytes " << bytes;
        ASSERT_EQ(got.cycles, want.cycles);
    }
}

TEST(BusCost, ValidateNamesTheField) {
    BusConfig b = axi64();
    b.data_width_bytes = 6;
    try {
        b.validate("platform.bus");
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(),
                     "platform.bus: data_width_bytes is 6, expected a power of two from 1 to 128");
    }
    b = axi64();
    b.max_burst_beats = 0;
    EXPECT_THROW(b.validate("x"), Error);
}

}  // namespace
}  // namespace npu::sim
