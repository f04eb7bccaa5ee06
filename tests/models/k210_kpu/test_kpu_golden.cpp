// Golden test: the fast datapath against the independent naive reference on random valid layers,
// bit-identical in the output stream and in every byte of the 2 MiB RAM.
#include <random>

#include <gtest/gtest.h>

#include "models/k210_kpu/kpu_func.h"
#include "sim/core/parallel.h"
#include "sim/core/simd.h"
#include "tests/models/k210_kpu/naive_reference.h"
#include "tests/models/k210_kpu/random_layer.h"

namespace npu::test {
namespace {

void compare(const RandomLayer& r, const kpu::Fidelity& f, const NaiveOptions& o, uint64_t seed,
             uint64_t& mid_range) {
    std::vector<uint8_t> ram_fast(kpu::kRamBytes), ram_ref;
    std::mt19937_64 fill(seed);
    for (size_t i = 0; i < 4096; ++i) {  // some background so untouched bytes are visible
        ram_fast[i * 512] = static_cast<uint8_t>(fill());
    }
    kpu::upload(r.input.data(), kpu::input_geometry(r.args),
                ram_fast.data() + uint64_t{r.args.image_src_addr} * kpu::kLineBytes);
    ram_ref = ram_fast;

    const kpu::LayerResult fast =
        kpu::run_layer(r.args, r.params(), r.eight_bit, f, ram_fast.data());
    const std::vector<uint8_t> ref =
        naive_layer(r.args, r.weights.data(), r.bn_words, r.act.data(), o, ram_ref.data());
    ASSERT_EQ(fast.dense_output, ref) << "seed " << seed;
    ASSERT_TRUE(ram_fast == ram_ref) << "seed " << seed;
    for (uint8_t v : ref) {
        mid_range += (v != 0 && v != 255) ? 1 : 0;
    }
}

TEST(KpuGolden, FastPathEqualsNaiveReferenceOn240RandomLayers) {
    std::mt19937_64 rng(2026);
    uint64_t mid = 0, total = 0;
    for (int i = 0; i < 240; ++i) {
        const bool eight = i % 4 != 3;  // a quarter in 16-bit mode
        const RandomLayer r = random_layer(rng, eight);
        NaiveOptions o;
        o.eight_bit = eight;
        compare(r, kpu::Fidelity{}, o, static_cast<uint64_t>(i), mid);
        total +=
            static_cast<uint64_t>(r.args.out_channels() * r.args.out_width() * r.args.out_height());
    }
    // The random tables must exercise the activation, not just saturate it.
    EXPECT_GT(mid, total / 10) << mid << " of " << total << " outputs strictly inside (0, 255)";
}

// Every kernel path and thread count computes the same bytes: 60 layers on SSE2 with one thread,
// AVX2 with one, and AVX2 with four.
TEST(KpuGolden, EverySimdPathAndThreadCountEqualsTheReference) {
    struct Path {
        sim::SimdLevel level;
        int threads;
    };
    for (const Path path : {Path{sim::SimdLevel::Sse2, 1}, Path{sim::SimdLevel::Avx2, 1},
                            Path{sim::SimdLevel::Avx2, 4}}) {
        if (!sim::host_supports(path.level)) {
            GTEST_SKIP() << "this host has no AVX2";
        }
        const sim::ScopedSimdLevel simd(path.level);
        const sim::ScopedThreads threads(path.threads);
        std::mt19937_64 rng(99);
        uint64_t mid = 0;
        for (int i = 0; i < 60; ++i) {
            const bool eight = i % 3 != 2;
            NaiveOptions o;
            o.eight_bit = eight;
            compare(random_layer(rng, eight), kpu::Fidelity{}, o, static_cast<uint64_t>(i), mid);
        }
    }
}

TEST(KpuGolden, V01SegmentRuleAndRoundingAgreeToo) {
    std::mt19937_64 rng(77);
    uint64_t mid = 0;
    kpu::Fidelity f;
    f.segment = kpu::SegmentRule::GreaterEqual;
    f.rounding = kpu::ActRounding::Carry;
    NaiveOptions o;
    o.greater_equal = true;
    o.carry_rounding = true;
    for (int i = 0; i < 40; ++i) {
        compare(random_layer(rng, true), f, o, static_cast<uint64_t>(i), mid);
    }
}

}  // namespace
}  // namespace npu::test

namespace npu::test {
namespace {

// Layer words with random bit flips: whatever validate() does not call fatal must run without
// touching memory outside the RAM and the weight buffer (ASan checks this in CI).
TEST(KpuSafety, MutatedLayersThatPassTheFatalChecksRunSafely) {
    std::mt19937_64 rng(31);
    int ran = 0;
    for (int i = 0; i < 1500; ++i) {
        RandomLayer r = random_layer(rng, true, LayerLimits{8, 40, 8, 100'000});
        kpu::Words w = kpu::encode(r.args);
        for (int f = 0; f < 3; ++f) {
            w[rng() % 12] ^= uint64_t{1} << (rng() % 64);
        }
        const kpu::LayerArgs a = kpu::decode(w);
        const bool eight = (rng() & 1) != 0;
        if (kpu::any_fatal(kpu::validate(a, eight))) {
            continue;
        }
        const uint64_t k2 = static_cast<uint64_t>(a.kernel_size() * a.kernel_size());
        const uint64_t macs = static_cast<uint64_t>(a.out_channels()) *
                              static_cast<uint64_t>(a.in_width()) *
                              static_cast<uint64_t>(a.in_height()) * k2 *
                              (a.depth_wise_layer ? 1u : static_cast<uint64_t>(a.in_channels()));
        if (macs > 3'000'000) {
            continue;  // valid but slow: not what this test is about
        }
        std::vector<uint8_t> weights(kpu::weight_bytes(a, eight), 7);
        kpu::LayerParams p;
        p.weights = weights.data();
        p.bn.assign(static_cast<size_t>(a.out_channels()), kpu::BnParam{1, 0, 0});
        std::vector<uint8_t> ram(kpu::kRamBytes, 1);
        const kpu::LayerResult res = kpu::run_layer(a, p, eight, {}, ram.data());
        EXPECT_EQ(res.dense_output.size(),
                  static_cast<size_t>(a.out_channels() * a.out_width() * a.out_height()));
        ++ran;
    }
    EXPECT_GT(ran, 100);  // enough mutated layers were runnable to mean something
}

}  // namespace
}  // namespace npu::test
