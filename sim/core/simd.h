// Which x86 SIMD width the hot kernels use (the ONNX evaluator, the KPU datapath). Chosen once at
// run time: AVX2 where the host has it, SSE2 (the x86-64 baseline) otherwise; the environment
// variable NPUSIM_SIMD=sse2|avx2 or a ScopedSimdLevel (tests, benchmarks) forces one. Every kernel
// computes the same bits on either path (docs/performance.md, "Bit-identical on every host").
#pragma once

#include <string_view>

namespace npu::sim {

enum class SimdLevel { Sse2, Avx2 };

std::string_view to_string(SimdLevel level);
// True if this host can execute the level's instructions.
bool host_supports(SimdLevel level);
// The level kernels use now (NPUSIM_SIMD, else the widest the host supports).
SimdLevel simd_level();

// Forces a level for its lifetime (refused with an error if the host cannot run it).
class ScopedSimdLevel {
public:
    explicit ScopedSimdLevel(SimdLevel level);
    ~ScopedSimdLevel();
    ScopedSimdLevel(const ScopedSimdLevel&) = delete;
    ScopedSimdLevel& operator=(const ScopedSimdLevel&) = delete;

private:
    SimdLevel m_previous;
};

}  // namespace npu::sim
