// The fast epilogue (table lookup, vector BN, 4-step segment search) against the reference
// functions of kpu_func.h, value by value: random BN words and activation tables (sorted and not),
// values over small and 36-bit-wide ranges and at the 32/36-bit edges, every fidelity option,
// on both SIMD paths.
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "models/k210_kpu/kpu_epilogue.h"
#include "sim/core/simd.h"

namespace npu::kpu {
namespace {

int64_t wrap(int64_t v, int64_t mul, uint32_t shift, int64_t add) {
    const auto p = static_cast<int64_t>(static_cast<uint64_t>(v) * static_cast<uint64_t>(mul));
    return static_cast<int64_t>(static_cast<uint64_t>(p >> shift) + static_cast<uint64_t>(add));
}

// What run_layer's reference loop did before the fast path: limit, BN, limit, activate.
uint8_t reference(int64_t v, const BnParam& bn, const ActTable& t, const Fidelity& f,
                  uint64_t& overflows) {
    overflows += limit36(v, f.overflow) ? 1u : 0u;
    v = wrap(v, bn.mul, bn.shift, bn.add);
    overflows += limit36(v, f.overflow) ? 1u : 0u;
    return activate(v, t, f);
}

ActTable random_table(std::mt19937_64& rng, bool sorted, int64_t range) {
    auto uni = [&](int64_t lo, int64_t hi) {
        return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
    };
    ActTable t;
    for (size_t i = 0; i < 16; ++i) {
        t[i].x_start = i == 0 ? -(int64_t{1} << 35) : uni(-range, range);
        // Mostly slopes that keep outputs inside (0, 255), as compiled tables do.
        t[i].y_mul = static_cast<int32_t>(uni(0, 3) == 0 ? uni(-32768, 32767) : uni(-64, 64));
        // Mostly small shifts (ties at the half are common), some beyond 62 (act_shift clamps).
        t[i].shift = static_cast<uint32_t>(uni(0, 3) == 0 ? uni(0, 70) : uni(0, 8));
        t[i].bias = static_cast<uint8_t>(uni(0, 255));
    }
    if (sorted) {
        std::sort(t.begin() + 1, t.end(),
                  [](const ActSegment& a, const ActSegment& b) { return a.x_start < b.x_start; });
        t[3].x_start = t[4].x_start;  // equal starts are sorted too
    }
    return t;
}

std::vector<int64_t> random_values(std::mt19937_64& rng, size_t n, int64_t range, bool edges) {
    std::vector<int64_t> v(n);
    std::uniform_int_distribution<int64_t> d(-range, range);
    for (int64_t& x : v) {
        x = d(rng);
    }
    if (!edges) {
        return v;
    }
    // Edges: the int32 limits of the vector BN, the 36-bit limits, and far beyond.
    const int64_t edge[] = {INT32_MAX,
                            INT32_MIN,
                            int64_t{INT32_MAX} + 1,
                            int64_t{INT32_MIN} - 1,
                            (int64_t{1} << 35) - 1,
                            -(int64_t{1} << 35),
                            int64_t{1} << 35,
                            -(int64_t{1} << 35) - 1,
                            int64_t{1} << 50,
                            -(int64_t{1} << 60)};
    for (size_t i = 0; i < std::size(edge) && i * 7 < n; ++i) {
        v[i * 7] = edge[i];
    }
    return v;
}

void check(sim::SimdLevel level, uint64_t seed) {
    const sim::ScopedSimdLevel simd(level);
    std::mt19937_64 rng(seed);
    EpilogueScratch scratch;  // reused across tables: a new Epilogue must not see the old table
    int lookups = 0;
    uint64_t mid = 0, total = 0;
    for (int round = 0; round < 400; ++round) {
        Fidelity f;
        f.segment = rng() % 2 ? SegmentRule::GreaterThan : SegmentRule::GreaterEqual;
        f.rounding = rng() % 2 ? ActRounding::Banker : ActRounding::Carry;
        f.overflow = static_cast<Overflow>(rng() % 3);
        const bool narrow = round % 3 != 0;  // compiler-like: BN output within a few thousand
        const ActTable table = random_table(rng, round % 5 != 0, narrow ? 4096 : int64_t{1} << 34);
        const BnParam bn = narrow ? BnParam{static_cast<int32_t>(rng() % 4096 + 1), 15,
                                            static_cast<int32_t>(rng() % 8192) - 4096}
                                  : decode_bn(rng());
        const size_t n = 1 + rng() % 2000;
        const std::vector<int64_t> v =
            random_values(rng, n, narrow ? int64_t{1} << 14 : int64_t{1} << 40, round % 2 == 0);
        std::vector<uint8_t> got(n);
        const Epilogue e(table, f, round % 4 == 0 ? 64 : 1u << 20);  // some tables too small
        const uint64_t got_overflows = e.run(v.data(), n, bn, got.data(), scratch);
        uint64_t want_overflows = 0;
        for (size_t i = 0; i < n; ++i) {
            const uint8_t want = reference(v[i], bn, table, f, want_overflows);
            ASSERT_EQ(got[i], want) << "round " << round << " value " << v[i];
            mid += want != 0 && want != 255 ? 1 : 0;
        }
        ASSERT_EQ(got_overflows, want_overflows) << "round " << round;
        total += n;
        lookups += scratch.table.empty() ? 0 : 1;
    }
    EXPECT_GT(lookups, 100);  // the table path was taken, not only the search
    EXPECT_GT(mid, total / 5) << "outputs strictly inside (0, 255): the rounding is exercised";
}

TEST(KpuEpilogue, EqualsTheReferenceFunctionsOnSse2) {
    check(sim::SimdLevel::Sse2, 11);
}

TEST(KpuEpilogue, EqualsTheReferenceFunctionsOnAvx2) {
    if (!sim::host_supports(sim::SimdLevel::Avx2)) {
        GTEST_SKIP() << "this host has no AVX2";
    }
    check(sim::SimdLevel::Avx2, 11);
}

}  // namespace
}  // namespace npu::kpu
