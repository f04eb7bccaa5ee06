// A deterministic, bounded fuzz run inside the normal test suite: seeded byte mutations of valid
// inputs through every parser. The libFuzzer targets explore further; this keeps CI honest.
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "tests/fuzz/fuzz_targets.h"

namespace npu::fuzz {
namespace {

std::vector<uint8_t> mutate(std::vector<uint8_t> v, std::mt19937& rng) {
    const int edits = 1 + static_cast<int>(rng() % 4);
    for (int i = 0; i < edits && !v.empty(); ++i) {
        const size_t pos = rng() % v.size();
        switch (rng() % 4) {
        case 0: v[pos] = static_cast<uint8_t>(rng()); break;
        case 1: v.erase(v.begin() + static_cast<std::ptrdiff_t>(pos)); break;
        case 2:
            v.insert(v.begin() + static_cast<std::ptrdiff_t>(pos), static_cast<uint8_t>(rng()));
            break;
        default: v.resize(pos); break;
        }
    }
    return v;
}

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
