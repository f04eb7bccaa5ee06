// The argument vector posix_spawn takes, over words that outlive it. Pure C++.
#pragma once

#include <string>
#include <vector>

namespace npu::campaign {

// Pointers into `words` (kept alive and unchanged by the caller), then a null.
inline std::vector<char*> argv_of(std::vector<std::string>& words) {
    std::vector<char*> argv;
    argv.reserve(words.size() + 1);
    for (std::string& w : words) {
        argv.push_back(w.data());
    }
    argv.push_back(nullptr);
    return argv;
}

}  // namespace npu::campaign
