// Bit-exact K210 KPU layer throughput (Google Benchmark, release build):
//   build/release/tests/npusim_bench_kpu
// The reference layer: 3x3 conv, 64 -> 64 channels, 56x56, 8-bit weights. Reported as
// simulated MACs per host second (items_per_second).
#include <random>

#include <benchmark/benchmark.h>

#include "models/k210_kpu/kpu_func.h"
#include "tests/k210_kpu/random_layer.h"

namespace {

using namespace npu;

test::RandomLayer layer(int ic, int oc, int w, int h, int k, bool depthwise, bool eight_bit) {
    std::mt19937_64 rng(1);
    test::LayerLimits lim;
    lim.max_macs = ~0ull;
    test::RandomLayer r = test::random_layer(rng, eight_bit, lim);
    kpu::LayerArgs& a = r.args;
    a.i_ch_num = static_cast<uint32_t>(ic - 1);
    a.o_ch_num = static_cast<uint32_t>(oc - 1);
    a.i_row_wid = a.o_row_wid = static_cast<uint32_t>(w - 1);
    a.i_col_high = a.o_col_high = static_cast<uint32_t>(h - 1);
    a.kernel_type = k == 3 ? 1 : 0;
    a.depth_wise_layer = depthwise;
    a.pool_type = 0;
    test::fill_derived_fields(a, eight_bit);
    a.image_src_addr = 0;
    a.image_dst_addr = static_cast<uint32_t>(kpu::fmap_lines(ic, w, h));
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
