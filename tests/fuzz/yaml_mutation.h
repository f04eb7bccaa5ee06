// Seeded mutations of YAML job and network files for the whole-run mutation tests (the DL
// processor's and AIPP's): a number in a value replaced by a boundary value (most often, so that
// many mutants still read and reach the run), a byte changed, a few bytes deleted.
#pragma once

#include <cctype>
#include <fstream>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <vector>

namespace npu::fuzz {

inline std::string read_text(const std::string& path) {
    std::ifstream f(path);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

// `values`: the boundary values numbers are replaced by.
inline std::string mutate_yaml(std::string s, std::mt19937& rng,
                               const std::vector<const char*>& values) {
    const int edits = 1 + static_cast<int>(rng() % 3);
    for (int i = 0; i < edits && !s.empty(); ++i) {
        const size_t pos = rng() % s.size();
        const auto kind = rng() % 6;
        if (kind < 4) {
            size_t b = pos;  // the next number in a value (not a digit of a key's name)
            while (b < s.size() &&
                   (s[b] < '0' || s[b] > '9' ||
                    (b > 0 && std::isalpha(static_cast<unsigned char>(s[b - 1]))))) {
                ++b;
            }
            size_t e = b;
            while (e < s.size() && ((s[e] >= '0' && s[e] <= '9') || s[e] == '.')) {
                ++e;
            }
            if (b < s.size()) {
                s.replace(b, e - b, values[rng() % values.size()]);
            }
        } else if (kind == 4) {
            s[pos] = static_cast<char>(32 + rng() % 95);
        } else {
            s.erase(pos, 1 + rng() % 8);
        }
    }
    return s;
}

}  // namespace npu::fuzz
