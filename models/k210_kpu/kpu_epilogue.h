// The per-pixel end of the KPU pipeline, fast: the 36-bit limit, batch normalisation and the
// 16-segment activation of kpu_func.h (limit36, BnParam, activate) over a row of accumulator
// values. The activation depends on the BN output alone, and compiled models scale that to a
// few thousand values, so it is tabulated over the range a layer produces (grown on demand, per
// thread) and looked up; a segment search serves values beyond the table. Bit-identical to the
// reference functions (tests/models/k210_kpu/test_kpu_epilogue.cpp, and the golden layers).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "models/k210_kpu/kpu_func.h"

namespace npu::kpu {

// One thread's working memory for Epilogue::run: the activation table over [lo, lo + size) of the
// Epilogue `owner` (a thread may keep one for all layers: another owner clears it).
struct EpilogueScratch {
    uint64_t owner = 0;
    int64_t lo = 0;
    std::vector<uint8_t> table;
    std::vector<int64_t> bn_out;
};

class Epilogue {
public:
    // max_table_entries: how far a thread's activation table may grow (about the number of
    // values the layer will activate: an entry costs about what activating a value costs).
    Epilogue(const ActTable& table, const Fidelity& fidelity, size_t max_table_entries);

    // out[i] = activate(limit36(bn(limit36(v[i])))); returns the number of values beyond 36 bits
    // (before or after BN), as run_layer counts them.
    uint64_t run(const int64_t* v, size_t n, const BnParam& bn, uint8_t* out,
                 EpilogueScratch& scratch) const;

    // activate(x, table, fidelity) for one value.
    uint8_t activate_one(int64_t x) const;

private:
    template <bool kCarry>
    uint8_t activate_sorted(int64_t x) const;
    // out[x - from] = activate_one(x) for x in [from, to], segment by segment.
    void tabulate(int64_t from, int64_t to, uint8_t* out) const;
    // Makes scratch.table cover [lo, hi] (growing it at least twofold) if it stays within
    // m_max_table entries and the 36-bit range.
    bool cover(int64_t lo, int64_t hi, EpilogueScratch& scratch) const;

    uint64_t m_id;  // unique per Epilogue object of the process
    int64_t m_max_table;
    ActTable m_table;
    Fidelity m_fidelity;
    // The segment search as a 4-step binary search, valid when the x_start are non-decreasing:
    // the segment is the number of i in 1..15 with x > m_above[i - 1] (m_above[15] never passed).
    bool m_sorted = false;
    std::array<int64_t, 16> m_above{};
    std::array<int64_t, 16> m_half{}, m_mask{};  // rounding of each segment's shift
    std::array<uint32_t, 16> m_shift{};
};

}  // namespace npu::kpu
