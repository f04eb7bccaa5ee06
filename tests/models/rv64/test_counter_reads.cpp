// The loader's rewrite of counter CSR reads into loads from the counter window: each encoding
// worked by hand from the RISC-V spec (csrrs rd, csr, x0 = csr << 20 | 2 << 12 | rd << 7 | 0x73;
// ld rd, off(x0) = off << 20 | 3 << 12 | rd << 7 | 0x03).
#include <cstring>
#include <vector>

#include <gtest/gtest.h>

#include "models/rv64/counter_reads.h"

namespace npu::rv64 {
namespace {

std::vector<uint8_t> bytes(std::initializer_list<uint32_t> words16or32, std::vector<int> widths) {
    std::vector<uint8_t> out;
    size_t i = 0;
    for (uint32_t w : words16or32) {
        const int n = widths[i++];
        for (int b = 0; b < n; ++b) {
            out.push_back(static_cast<uint8_t>(w >> (8 * b)));
        }
    }
    return out;
}

uint32_t word_at(const std::vector<uint8_t>& v, size_t at) {
    uint32_t w = 0;
    std::memcpy(&w, v.data() + at, 4);
    return w;
}

TEST(CounterReads, CounterReadsBecomeLoadsAndNothingElseChanges) {
    const uint32_t csrr_a0_mcycle = 0xB0002573;      // csrrs a0, mcycle, x0
    const uint32_t rdtime_t1 = 0xC0102373;           // csrrs t1, time, x0
    const uint32_t csrrci_a1_minstret = 0xB02075F3;  // csrrci a1, minstret, 0
    const uint32_t csrrs_a0_mcycle_t0 = 0xB002A573;  // csrrs a0, mcycle, t0: also writes: kept
    const uint32_t csrr_a0_mip = 0x34402573;         // mip: not a counter: kept
    const uint16_t c_nop = 0x0001;
    std::vector<uint8_t> code = bytes(
        {c_nop, csrr_a0_mcycle, rdtime_t1, csrrci_a1_minstret, csrrs_a0_mcycle_t0, csrr_a0_mip},
        {2, 4, 4, 4, 4, 4});
    EXPECT_EQ(redirect_counter_reads(code.data(), code.size()), 3u);
    EXPECT_EQ(word_at(code, 2), 0x7E003503u);   // ld a0, 0x7e0(x0)
    EXPECT_EQ(word_at(code, 6), 0x7E803303u);   // ld t1, 0x7e8(x0)
    EXPECT_EQ(word_at(code, 10), 0x7F003583u);  // ld a1, 0x7f0(x0)
    EXPECT_EQ(word_at(code, 14), csrrs_a0_mcycle_t0);
    EXPECT_EQ(word_at(code, 18), csrr_a0_mip);
}

// mhartid (0xF14) becomes a load too, and the reads of it are counted: a firmware that never
// reads it cannot tell two harts apart.
TEST(CounterReads, HartIdReadsBecomeLoadsAndAreCounted) {
    const uint32_t csrr_a0_mhartid = 0xF1402573;  // csrrs a0, mhartid, x0
    const uint32_t csrr_a1_mcycle = 0xB00025F3;   // csrrs a1, mcycle, x0
    std::vector<uint8_t> code = bytes({csrr_a0_mhartid, csrr_a1_mcycle}, {4, 4});
    size_t hartid_reads = 0;
    EXPECT_EQ(redirect_counter_reads(code.data(), code.size(), &hartid_reads), 2u);
    EXPECT_EQ(hartid_reads, 1u);
    EXPECT_EQ(word_at(code, 0), 0x7F803503u);  // ld a0, 0x7f8(x0)
    EXPECT_EQ(word_at(code, 4), 0x7E003583u);  // ld a1, 0x7e0(x0)
}

TEST(CounterReads, DecodingFollowsInstructionLengths) {
    // The bytes of a counter read starting at a halfword that is the second half of a 32-bit
    // instruction are not an instruction: not rewritten. addi x0, x0, 0 with its upper half
    // equal to the low half of csrr a0, mcycle; then the rest.
    const uint32_t csrr = 0xB0002573;
    std::vector<uint8_t> code = bytes({(csrr & 0xffff) << 16 | 0x0013u, csrr >> 16}, {4, 2});
    const std::vector<uint8_t> before = code;
    EXPECT_EQ(redirect_counter_reads(code.data(), code.size()), 0u);
    EXPECT_EQ(code, before);
}

}  // namespace
}  // namespace npu::rv64
