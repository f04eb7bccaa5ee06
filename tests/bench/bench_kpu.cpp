// Bit-exact K210 KPU layer throughput (Google Benchmark, release build):
//   build/release/tests/npusim_bench_kpu
// Layers of the kinds real K210 models use (3x3, 1x1, depthwise 3x3; 8- and 16-bit weights).
// Reported as simulated MACs per host second (items_per_second). NPUSIM_SIMD=sse2|avx2 and
// NPUSIM_THREADS=n pick the kernel path and the threads.
#include <random>

#include <benchmark/benchmark.h>

#include "models/k210_kpu/kpu_func.h"
#include "models/k210_kpu/kpu_layer_builder.h"
#include "tests/models/k210_kpu/random_layer.h"

namespace {

using namespace npu;

// A layer as nncase compiles it: zero points folded into arg_x = -Zw, arg_w = -Zx,
// arg_add = k² Zx Zw, BN scaling the sum down to about ±2^12, activation segments over that range
// (random_layer's "compiler-like" draw), random weights and input.
test::RandomLayer layer(int ic, int oc, int w, int h, int k, bool depthwise, bool eight_bit) {
    std::mt19937_64 rng(1);
    test::LayerLimits lim;
    lim.max_macs = ~0ull;
    test::RandomLayer r = test::random_layer(rng, eight_bit, lim);
    while (r.args.shr_x != 0 || r.args.arg_add != r.args.kernel_size() * r.args.kernel_size() *
                                                      int64_t{r.args.pad_value} * -r.args.arg_x) {
        r = test::random_layer(rng, eight_bit, lim);  // until a compiler-like draw
    }
    const kpu::LayerArgs terms = r.args;  // keeps the zero-point terms
    r.args = kpu::build_layer({ic, h, w, oc, k, depthwise, 0, eight_bit}, 0,
                              static_cast<uint32_t>(kpu::fmap_lines(ic, w, h)));
    kpu::LayerArgs& a = r.args;
    a.arg_x = terms.arg_x, a.arg_w = terms.arg_w, a.pad_value = terms.pad_value;
    a.arg_add = int64_t{k} * k * terms.pad_value * -terms.arg_x;
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
