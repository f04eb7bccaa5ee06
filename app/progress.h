// A progress line on stderr for long runs: "npusim: layer 23/99 (kpu_conv2d), 0.8 s". Shown when
// asked for (--progress), or when stderr is a terminal and the run has taken over half a second;
// redrawn at most every 200 ms, finished with a newline. Nothing is printed otherwise, so logs and
// tests stay clean.
#pragma once

#include <chrono>
#include <cstdio>
#include <string>

namespace npu::app {

class Progress {
public:
    explicit Progress(bool forced);
    void update(size_t done, size_t total, const std::string& what);

private:
    using Clock = std::chrono::steady_clock;
    bool m_forced, m_tty, m_printed = false;
    Clock::time_point m_start, m_last;
};

}  // namespace npu::app
