#include "app/progress.h"

#include <fmt/format.h>
#include <unistd.h>

namespace npu::app {

Progress::Progress(bool forced)
    : m_forced(forced)
    , m_tty(isatty(fileno(stderr)) != 0)
    , m_start(Clock::now())
    , m_last(m_start) {
}

void Progress::update(size_t done, size_t total, const std::string& what) {
    const Clock::time_point now = Clock::now();
    const bool last = done >= total;
    const bool long_run = now - m_start > std::chrono::milliseconds(500);
    if (!m_forced && !(m_tty && (long_run || m_printed))) {
        return;
    }
    if (!last && m_printed && now - m_last < std::chrono::milliseconds(200)) {
        return;
    }
    m_last = now;
    m_printed = true;
    const double s = std::chrono::duration<double>(now - m_start).count();
    fmt::print(stderr, "\rnpusim: layer {}/{} ({}), {:.1f} s{}", done, total, what, s,
               last ? "\n" : "  ");
    std::fflush(stderr);
}

}  // namespace npu::app
