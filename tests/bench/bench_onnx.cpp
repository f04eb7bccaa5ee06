// The ONNX reference evaluator's speed (Google Benchmark, release build):
//   build/release/tests/npusim_bench_onnx
// Conv in MAC/s on one core (the im2col kernel the evaluator uses against the textbook loop nest
// it is checked with), and the wall time of the three official ONNX test suites (import,
// evaluate and compare every test, as npusim_onnx_tests does).
#include <filesystem>
#include <random>
#include <vector>

#include <benchmark/benchmark.h>

#include "sim/onnx/conv_kernel.h"
#include "tests/sim/onnx/node_suite.h"

namespace {

using namespace npu;

// n=1, c -> m channels, h x w, k x k kernel, stride 1, "same" padding, `group` groups.
onnx::ConvGeometry layer(int64_t c, int64_t m, int64_t hw, int64_t k, int64_t group) {
    onnx::ConvGeometry g;
    g.c = c, g.m = m, g.h = g.w = g.oh = g.ow = hw, g.kh = g.kw = k, g.group = group;
    g.ph = g.pw = k / 2;
    return g;
}

std::vector<float> random(size_t n) {
    std::vector<float> v(n);
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1, 1);
    for (float& e : v) {
        e = u(rng);
    }
    return v;
}

void conv(benchmark::State& state, onnx::ConvGeometry g, bool naive) {
    const std::vector<float> x = random(static_cast<size_t>(g.c * g.h * g.w));
    const std::vector<float> w = random(static_cast<size_t>(g.m * g.c / g.group * g.kh * g.kw));
    const std::vector<float> b = random(static_cast<size_t>(g.m));
    std::vector<float> y(static_cast<size_t>(g.m * g.oh * g.ow));
    for (auto _ : state) {
        (naive ? onnx::conv2d_naive : onnx::conv2d)(g, x.data(), w.data(), b.data(), y.data());
        benchmark::DoNotOptimize(y.data());
    }
    state.counters["MAC/s"] =
        benchmark::Counter(static_cast<double>(g.macs()) * static_cast<double>(state.iterations()),
                           benchmark::Counter::kIsRate);
}

BENCHMARK_CAPTURE(conv, im2col_3x3_64to64_56x56, layer(64, 64, 56, 3, 1), false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(conv, naive_3x3_64to64_56x56, layer(64, 64, 56, 3, 1), true)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(conv, im2col_1x1_256to256_14x14, layer(256, 256, 14, 1, 1), false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(conv, im2col_3x3_3to32_224x224, layer(3, 32, 224, 3, 1), false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(conv, im2col_depthwise_3x3_64_56x56, layer(64, 64, 56, 3, 64), false)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(conv, naive_depthwise_3x3_64_56x56, layer(64, 64, 56, 3, 64), true)
    ->Unit(benchmark::kMillisecond);

// One iteration: every test of node, pytorch-converted and pytorch-operator.
void node_suites(benchmark::State& state) {
    namespace fs = std::filesystem;
    using namespace npu::test::node_suite;
    if (!fs::exists(std::string(kDataDir) + "/node")) {
        state.SkipWithError("libonnx-testdata is not installed");
        return;
    }
    int64_t tests = 0, passed = 0;
    for (auto _ : state) {
        tests = passed = 0;
        for (const char* suite : {"node", "pytorch-converted", "pytorch-operator"}) {
            for (const fs::path& dir : sorted(std::string(kDataDir) + "/" + suite, "test_")) {
                ++tests;
                passed += run_one(dir) == "pass" ? 1 : 0;
            }
        }
    }
    state.counters["tests"] = static_cast<double>(tests);
    state.counters["passed"] = static_cast<double>(passed);
}
BENCHMARK(node_suites)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
