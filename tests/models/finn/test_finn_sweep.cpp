// The folding sweep on a two-MVAU chain worked by hand: every combination in order (the first
// knob slowest), a PE that does not divide MH named, FINN's cycles and ours (with the converter
// the folding needs) per configuration, and the front checked against every pair of points.
#include <gtest/gtest.h>

#include "models/finn/finn_sweep.h"
#include "sim/core/error.h"

namespace npu::finn {
namespace {

Mvau mvau(unsigned mw, unsigned mh) {
    Mvau m;
    m.mw = mw, m.mh = mh;
    m.in = m.weight = DataType::sint(4);
    m.weights.assign(size_t{mw} * mh, 1);
    return m;
}

Design two_mvaus() {
    Design d;
    d.layers = {{"A", mvau(8, 4), false, {}}, {"B", mvau(4, 2), false, {}}};
    return d;
}

TEST(FinnSweep, EveryCombinationCostedByHand) {
    const Design d = two_mvaus();
    EXPECT_EQ(folding_attributes(d.layers[0].op), (std::vector<std::string>{"PE", "SIMD"}));
    EXPECT_EQ(allowed_values(d.layers[0].op, "PE"), (std::vector<uint64_t>{1, 2, 4}));
    const std::vector<Knob> knobs = {{0, "PE", {1, 2, 3, 4}}, {1, "SIMD", {1, 2, 4}}};
    const std::vector<SweepPoint> p = sweep(d, knobs, false, 100);
    ASSERT_EQ(p.size(), 12u);
    // Configuration i: A's PE = {1, 2, 3, 4}[i / 3], B's SIMD = {1, 2, 4}[i % 3].
    EXPECT_EQ(p[7].values, (std::vector<uint64_t>{3, 2}));
    for (size_t i = 6; i < 9; ++i) {
        EXPECT_EQ(p[i].error, "A: PE 3 does not divide 4") << i;
    }
    for (size_t i : {0u, 1u, 2u, 3u, 4u, 5u, 9u, 10u, 11u}) {
        ASSERT_EQ(p[i].error, "") << i;
        const uint64_t pe = p[i].values[0], simd = p[i].values[1];
        // FINN: A (4/PE)·(8/1), B (2/1)·(4/SIMD).
        const uint64_t a = 4 / pe * 8, b = 2 * (4 / simd);
        EXPECT_EQ(p[i].max_cycles, std::max(a, b)) << i;
        EXPECT_EQ(p[i].max_cycles_layer, a >= b ? 0u : 1u) << i;
        EXPECT_EQ(p[i].critical_path_cycles, a + b) << i;
        // Ours: a converter from A's PE-element words to B's SIMD-element words, max(4/PE,
        // 4/SIMD) cycles, where they differ.
        const uint64_t dwc = pe == simd ? 0 : std::max(4 / pe, 4 / simd);
        EXPECT_EQ(p[i].formula_latency_cycles, a + b + dwc) << i;
    }
    EXPECT_EQ(p[3].formula_max_cycles, 16u);  // PE 2, SIMD 1: A 16, converter 4, B 8
    // The front: no valid point matches or beats a front point in cycles, LUTs and BRAMs with
    // one better; every other valid point is so beaten (or equals an earlier front point).
    auto beats = [](const SweepPoint& q, const SweepPoint& r) {
        const bool le = q.max_cycles <= r.max_cycles && q.resources.lut <= r.resources.lut &&
                        q.resources.bram_18k <= r.resources.bram_18k;
        const bool lt = q.max_cycles < r.max_cycles || q.resources.lut < r.resources.lut ||
                        q.resources.bram_18k < r.resources.bram_18k;
        return le && lt;
    };
    size_t front = 0;
    for (size_t i = 0; i < p.size(); ++i) {
        bool beaten = false;
        for (size_t j = 0; j < p.size(); ++j) {
            beaten |= p[j].error.empty() && p[i].error.empty() && beats(p[j], p[i]);
        }
        EXPECT_EQ(p[i].pareto, p[i].error.empty() && !beaten) << i;
        front += p[i].pareto ? 1u : 0u;
    }
    EXPECT_GE(front, 2u);  // fewer LUTs and fewer cycles pull apart
}

TEST(FinnSweep, TooManyConfigurationsAreNamed) {
    const Design d = two_mvaus();
    const std::vector<Knob> knobs = {{0, "PE", {1, 2, 4}}, {1, "SIMD", {1, 2, 4}}};
    try {
        sweep(d, knobs, false, 8);
        FAIL() << "expected an error";
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(), "the sweep has 9 configurations; at most 8");
    }
}

}  // namespace
}  // namespace npu::finn
