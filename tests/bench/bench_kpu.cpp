// Bit-exact K210 KPU layer throughput (Google Benchmark, release build):
//   build/release/tests/npusim_bench_kpu
// The reference layer: 3x3 conv, 64 -> 64 channels, 56x56, 8-bit weights. Reported as
// simulated MACs per host second (items_per_second).
#include <random>

#include <benchmark/benchmark.h>

#include "models/k210_kpu/kpu_func.h"
#include "models/k210_kpu/kpu_layer_builder.h"
#include "tests/models/k210_kpu/random_layer.h"

namespace {

using namespace npu;

test::RandomLayer layer(int ic, int oc, int w, int h, int k, bool depthwise, bool eight_bit) {
    std::mt19937_64 rng(1);
    test::LayerLimits lim;
    lim.max_macs = ~0ull;
    test::RandomLayer r = test::random_layer(rng, eight_bit, lim);
    const kpu::LayerArgs terms = r.args;  // keeps the random zero-point terms
    r.args = kpu::build_layer({ic, h, w, oc, k, depthwise, 0, eight_bit}, 0,
                              static_cast<uint32_t>(kpu::fmap_lines(ic, w, h)));
    kpu::LayerArgs& a = r.args;
    a.arg_x = terms.arg_x, a.arg_w = terms.arg_w, a.arg_add = terms.arg_add;
    a.shr_x = terms.shr_x, a.shr_w = terms.shr_w, a.pad_value = terms.pad_value;
    r.weights.assign(kpu::weight_bytes(a, eight_bit), 3);
    for (size_t i = 0; i < r.weights.size(); ++i) {
        r.weights[i] = static_cast<uint8_t>(rng());
    }
    r.bn_words.resize(static_cast<size_t>(oc), r.bn_words.front());
    return r;
}

void run(benchmark::State& state, int ic, int oc, int w, int h, int k, bool dw, bool eight) {
    const test::RandomLayer r = layer(ic, oc, w, h, k, dw, eight);
    const kpu::LayerParams p = r.params();
    std::vector<uint8_t> ram(kpu::kRamBytes);
    uint64_t macs = 0;
    for (auto _ : state) {
        const kpu::LayerResult res = kpu::run_layer(r.args, p, eight, kpu::Fidelity{}, ram.data());
        macs += res.macs;
        benchmark::DoNotOptimize(res.dense_output.data());
    }
    state.SetItemsProcessed(static_cast<int64_t>(macs));
    state.counters["MAC/s"] =
        benchmark::Counter(static_cast<double>(macs), benchmark::Counter::kIsRate);
}

void BM_Conv3x3_64to64_56x56_8bit(benchmark::State& s) {
    run(s, 64, 64, 56, 56, 3, false, true);
}
void BM_Conv3x3_64to64_56x56_16bit(benchmark::State& s) {
    run(s, 64, 64, 56, 56, 3, false, false);
}
void BM_Conv1x1_128to128_28x28_8bit(benchmark::State& s) {
    run(s, 128, 128, 28, 28, 1, false, true);
}
void BM_Depthwise3x3_128_56x56_8bit(benchmark::State& s) {
    run(s, 128, 128, 56, 56, 3, true, true);
}
BENCHMARK(BM_Conv3x3_64to64_56x56_8bit)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Conv3x3_64to64_56x56_16bit)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Conv1x1_128to128_28x28_8bit)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Depthwise3x3_128_56x56_8bit)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
