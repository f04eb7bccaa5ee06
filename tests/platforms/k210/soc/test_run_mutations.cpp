// The whole run path under seeded mutations (the normal suite's share of fuzz_k210_run): byte
// mutations of kmodels that use every CPU layer type and opcode, each parsed, given an input of
// its declared shape and run functionally (a run or one sim::Error, never a crash: ASan checks
// memory in CI). The first mutants that run also run on the timed platform, whose outputs must
// equal the functional run's bit for bit.
#include <random>
#include <vector>

#include <gtest/gtest.h>

#include "platforms/k210/kmodel/demo_model.h"
#include "tests/fuzz/fuzz_k210_run.h"
#include "tests/platforms/k210/kmodel/chain_models.h"
#include "tests/platforms/k210/soc/soc_harness.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

std::vector<uint8_t> mutate(std::vector<uint8_t> v, std::mt19937& rng) {
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < edits && !v.empty(); ++i) {
        const size_t pos = rng() % v.size();
        switch (rng() % 5) {
        case 0: v[pos] = static_cast<uint8_t>(rng()); break;
        case 1: v[pos] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;
        case 2: v.erase(v.begin() + static_cast<std::ptrdiff_t>(pos)); break;
        case 3: v[pos] = static_cast<uint8_t>(v[pos] + 1); break;
        default: v.resize(pos); break;
        }
    }
    return v;
}

class RunMutations : public ScTest {};

TEST_F(RunMutations, EveryMutantRunsOrFailsCleanlyAndTimedEqualsFunctional) {
    const std::vector<std::vector<uint8_t>> seeds = {chain::v4_chain(), chain::v3_chain(),
                                                     k210::build_demo_model().kmodel};
    std::mt19937 rng(22);
    size_t ran = 0, total = 0;
    // Every mutant functionally first; the timed runs after (an exception unwinding this stack
    // once SystemC has switched stacks would confuse AddressSanitizer: docs/testing.md).
    std::vector<std::pair<std::vector<uint8_t>, k210::FunctionalResult>> runnable;
    for (const std::vector<uint8_t>& seed : seeds) {
        for (int i = 0; i < 400; ++i, ++total) {
            std::vector<uint8_t> bytes = mutate(seed, rng);
            k210::FunctionalResult f;
            if (!fuzz::k210_run(bytes.data(), bytes.size(), &f)) {
                continue;
            }
            ++ran;
            if (runnable.size() < 9 && (runnable.empty() || i % 40 == 0)) {
                runnable.emplace_back(std::move(bytes), std::move(f));
            }
        }
    }
    const size_t timed = runnable.size();
    for (const auto& [bytes, f] : runnable) {
        const k210::Kmodel m = k210::parse_kmodel(bytes, "mutant.kmodel");
        const k210::ScopedCpuWorkLimit limit(fuzz::kRunCpuWork);
        const Inference t =
            infer(m, sim::Tensor(k210::model_input_dtype(m), k210::model_input_shape(m)));
        ASSERT_TRUE(t.result.done) << t.result.error;
        EXPECT_TRUE(t.result.outputs == f.outputs);
    }
    std::printf("%zu mutants: %zu ran, %zu of them also timed\n", total, ran, timed);
    EXPECT_GT(ran, total / 10);  // the mutations keep many models runnable
}

}  // namespace
}  // namespace npu::test
