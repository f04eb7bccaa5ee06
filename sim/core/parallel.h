// Threads inside one inference (oneTBB underneath): the ONNX evaluator's and the KPU datapath's
// kernels split their outputs into chunks that threads compute independently. Every output element
// is computed by one thread in the same order whatever the split, so results never depend on the
// number of threads (docs/performance.md).
#pragma once

#include <cstddef>
#include <cstdint>
#include <exception>
#include <functional>
#include <vector>

namespace npu::sim {

// Threads kernels may use: set_threads(n), else NPUSIM_THREADS, else every core of the host.
int threads();
// n >= 1; 0 means every core of the host.
void set_threads(int n);

// Calls body(begin, end) for disjoint ranges covering [0, n), each of at least `grain` items
// (except the last), on up to threads() threads; returns when all have run. With one thread, or
// n <= grain, it is one call on the caller's thread.
void parallel_for(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& body);

// results[i] = f(i) for i < n, computed on up to threads() threads, in input order. If some f(i)
// throw, the exception of the lowest such i is rethrown (the same one whatever the threads).
template <typename T, typename F>
std::vector<T> parallel_map(size_t n, F&& f) {
    std::vector<T> results(n);
    std::vector<std::exception_ptr> errors(n);
    parallel_for(static_cast<int64_t>(n), 1, [&](int64_t begin, int64_t end) {
        for (int64_t i = begin; i < end; ++i) {
            const auto k = static_cast<size_t>(i);
            try {
                results[k] = f(k);
            } catch (...) {
                errors[k] = std::current_exception();
            }
        }
    });
    for (const std::exception_ptr& e : errors) {
        if (e) {
            std::rethrow_exception(e);
        }
    }
    return results;
}

// Sets the thread count for its lifetime (tests, benchmarks).
class ScopedThreads {
public:
    explicit ScopedThreads(int n);
    ~ScopedThreads();
    ScopedThreads(const ScopedThreads&) = delete;
    ScopedThreads& operator=(const ScopedThreads&) = delete;

private:
    int m_previous;
};

}  // namespace npu::sim
