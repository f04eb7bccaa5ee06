// A deterministic, bounded fuzz run inside the normal test suite: seeded byte mutations of valid
// inputs through every parser. The libFuzzer targets explore further; this keeps CI honest.
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/fuzz/fuzz_targets.h"
#include "tests/fuzz/mutate.h"

namespace npu::fuzz {
namespace {

TEST(FuzzSmoke, NpyReaderSurvivesMutations) {
    sim::Tensor t(sim::DType::f32, {2, 3, 4});
    const std::vector<uint8_t> seed = sim::encode_npy(t);
    std::mt19937 rng(1);
    for (int i = 0; i < 20000; ++i) {
        const auto input = mutate(seed, rng);
        npy(input.data(), input.size());
    }
}

TEST(FuzzSmoke, ConfigReaderSurvivesMutations) {
    const std::string text = R"(platform:
  name: k210
  quantum_ns: 1000
  clock_hz: 400MHz
  memories:
    - {name: sram, base_addr: 0x80000000, size_bytes: 6MiB, dmi: true, signed: -3}
    - name: ai
      base_addr: 0x80600000
      size_bytes: 2MiB
)";
    const std::vector<uint8_t> seed(text.begin(), text.end());
    std::mt19937 rng(2);
    for (int i = 0; i < 5000; ++i) {
        const auto input = mutate(seed, rng);
        config(input.data(), input.size());
    }
}

}  // namespace
}  // namespace npu::fuzz
