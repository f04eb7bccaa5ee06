// KL730 ONNX <-> NPU conversion speed (Google Benchmark, release build):
//   build/release/tests/npusim_bench_kl730
// A 1x64x112x112 tensor: our to_npu / to_onnx against the documentation's per-element algorithm
// (tests/models/kl730/kl730_reference.cpp), for an 8-bit, an HL and a 16-bit layout.
#include <random>

#include <benchmark/benchmark.h>

#include "models/kl730/kl730_layout.h"
#include "tests/models/kl730/kl730_reference.h"

namespace {

using namespace npu;

std::vector<float> input() {
    std::vector<float> x(64 * 112 * 112);
    std::mt19937 rng(1);
    std::uniform_real_distribution<float> u(-2, 2);
    for (float& v : x) {
        v = u(rng);
    }
    return x;
}

kl730::TensorInfo info(kl730::Layout l) {
    return kl730::make_info(l, {1, 64, 112, 112}, {{1.0f, 5}});
}

void to_npu(benchmark::State& state, kl730::Layout l) {
    const std::vector<float> x = input();
    const kl730::TensorInfo t = info(l);
    for (auto _ : state) {
        benchmark::DoNotOptimize(kl730::to_npu(t, x.data(), x.size()).data());
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 64 * 112 * 112);
}

void to_onnx(benchmark::State& state, kl730::Layout l) {
    const kl730::TensorInfo t = info(l);
    const std::vector<float> x = input();
    const std::vector<uint8_t> npu = kl730::to_npu(t, x.data(), x.size());
    for (auto _ : state) {
        benchmark::DoNotOptimize(kl730::to_onnx(t, npu.data(), npu.size()).data());
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 64 * 112 * 112);
}

void reference_to_npu(benchmark::State& state, kl730::Layout l) {
    const std::vector<float> x = input();
    const kl730::TensorInfo t = info(l);
    for (auto _ : state) {
        benchmark::DoNotOptimize(test::kl730_reference_to_npu(t, x).data());
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * 64 * 112 * 112);
}

using L = kl730::Layout;
BENCHMARK_CAPTURE(to_npu, 1W16C8B, L::L1W16C8B)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reference_to_npu, 1W16C8B, L::L1W16C8B)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(to_onnx, 1W16C8B, L::L1W16C8B)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(to_npu, 1W16C8BHL, L::L1W16C8BHL)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(reference_to_npu, 1W16C8BHL, L::L1W16C8BHL)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(to_onnx, 1W16C8BHL, L::L1W16C8BHL)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(to_npu, 8W1C16B, L::L8W1C16B)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(to_onnx, 8W1C16B, L::L8W1C16B)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
