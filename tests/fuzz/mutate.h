// A seeded byte mutation for the suite's bounded fuzz runs: 1-4 edits (replace, erase, insert,
// truncate) of a valid input.
#pragma once

#include <cstdint>
#include <random>
#include <vector>

namespace npu::fuzz {

inline std::vector<uint8_t> mutate(std::vector<uint8_t> v, std::mt19937& rng) {
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

}  // namespace npu::fuzz
