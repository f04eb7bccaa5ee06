#include "sim/core/simd.h"

#include <atomic>
#include <cstdlib>
#include <string>

#include "sim/core/error.h"

namespace npu::sim {
namespace {

SimdLevel widest() {
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx2")) {
        return SimdLevel::Avx2;
    }
#endif
    return SimdLevel::Sse2;
}

SimdLevel from_environment() {
    const char* env = std::getenv("NPUSIM_SIMD");
    if (env == nullptr || *env == '\0') {
        return widest();
    }
    const std::string v = env;
    if (v == "sse2") {
        return SimdLevel::Sse2;
    }
    if (v == "avx2") {
        if (!host_supports(SimdLevel::Avx2)) {
            throw Error("NPUSIM_SIMD=avx2: this host has no AVX2 (use sse2, or leave it unset)");
        }
        return SimdLevel::Avx2;
    }
    throw Error(fmt::format("NPUSIM_SIMD={}: expected sse2 or avx2", v));
}

std::atomic<int>& current() {
    static std::atomic<int> level{static_cast<int>(from_environment())};
    return level;
}

}  // namespace

std::string_view to_string(SimdLevel level) {
    return level == SimdLevel::Avx2 ? "avx2" : "sse2";
}

bool host_supports(SimdLevel level) {
    return level == SimdLevel::Sse2 || widest() == SimdLevel::Avx2;
}

SimdLevel simd_level() {
    return static_cast<SimdLevel>(current().load(std::memory_order_relaxed));
}

ScopedSimdLevel::ScopedSimdLevel(SimdLevel level)
    : m_previous(simd_level()) {
    if (!host_supports(level)) {
        throw Error(fmt::format("SIMD level {} is not supported by this host", to_string(level)));
    }
    current().store(static_cast<int>(level));
}

ScopedSimdLevel::~ScopedSimdLevel() {
    current().store(static_cast<int>(m_previous));
}

}  // namespace npu::sim
