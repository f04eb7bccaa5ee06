#include "sim/core/parallel.h"

#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include <tbb/blocked_range.h>
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>

#include "sim/core/error.h"

namespace npu::sim {
namespace {

int all_cores() {
    return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

int from_environment() {
    const char* env = std::getenv("NPUSIM_THREADS");
    if (env == nullptr || *env == '\0') {
        return all_cores();
    }
    char* end = nullptr;
    const long n = std::strtol(env, &end, 10);
    if (*end != '\0' || n < 0 || n > 4096) {
        throw Error(fmt::format("NPUSIM_THREADS={}: expected a thread count 0..4096", env));
    }
    return n == 0 ? all_cores() : static_cast<int>(n);
}

struct Pool {
    std::mutex mutex;
    int threads = from_environment();
    std::unique_ptr<tbb::task_arena> arena;  // made on first use with `threads` slots

    tbb::task_arena& get() {
        std::lock_guard<std::mutex> lock(mutex);
        if (!arena) {
            // More threads than cores would only take turns (and oneTBB warns about it).
            arena = std::make_unique<tbb::task_arena>(std::min(threads, all_cores()));
        }
        return *arena;
    }
};

Pool& pool() {
    static Pool p;
    return p;
}

}  // namespace

int threads() {
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    return p.threads;
}

void set_threads(int n) {
    if (n < 0) {
        throw Error(fmt::format("thread count {}: expected 0 (every core) or more", n));
    }
    Pool& p = pool();
    std::lock_guard<std::mutex> lock(p.mutex);
    const int want = n == 0 ? all_cores() : n;
    if (want != p.threads) {
        p.threads = want;
        p.arena.reset();
    }
}

void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body) {
    if (n <= 0) {
        return;
    }
    grain = std::max<int64_t>(grain, 1);
    if (n <= grain || threads() == 1) {
        body(0, n);
        return;
    }
    pool().get().execute([&] {
        tbb::parallel_for(tbb::blocked_range<int64_t>(0, n, static_cast<size_t>(grain)),
                          [&](const tbb::blocked_range<int64_t>& r) { body(r.begin(), r.end()); });
    });
}

ScopedThreads::ScopedThreads(int n)
    : m_previous(threads()) {
    set_threads(n);
}

ScopedThreads::~ScopedThreads() {
    set_threads(m_previous);
}

}  // namespace npu::sim
