// FINN dataflow designs in SystemC, host time (docs/performance.md, "FINN"): our TFC-like MLP
// (configs/networks/finn, its folding: 16 cycles a frame per MVAU) streaming 1,000 frames of
// pseudo-random UINT4 input through its six layers and seven FIFOs (target: under 1 s); FIFO
// sizing of the same design on 297 frames (one simulation per bisection step); and the pure
// functions alone on the 1,000 frames (--functional).
#include <random>

#include <systemc>

#include <benchmark/benchmark.h>

#include "models/finn/finn_design.h"
#include "platforms/finn/finn_import.h"
#include "sim/tlm/kernel.h"

namespace npu {
namespace {

const finn::FinnModel& tfc() {
    static const finn::FinnModel m =
        finn::load_finn(NPUSIM_SOURCE_DIR "/configs/networks/finn/tfc_digits.onnx",
                        NPUSIM_SOURCE_DIR "/configs/networks/finn/folding.json");
    return m;
}

std::vector<int64_t> frames(uint64_t n) {
    std::mt19937 rng(1);
    std::vector<int64_t> x(n * tfc().in_elements);
    for (int64_t& v : x) {
        v = static_cast<int64_t>(rng() % 16);
    }
    return x;
}

void tfc_1000_frames(benchmark::State& state) {
    const std::vector<int64_t> x = frames(1000);
    for (auto _ : state) {
        const finn::DesignRun r = finn::simulate(tfc().design, x, 1000);
        benchmark::DoNotOptimize(r.output.data());
        state.counters["interval_cycles"] = static_cast<double>(r.interval());
    }
    state.counters["frames/s"] =
        benchmark::Counter(1000, benchmark::Counter::kIsIterationInvariantRate);
}

void tfc_size_fifos_297(benchmark::State& state) {
    const std::vector<int64_t> x = frames(297);
    for (auto _ : state) {
        const finn::FifoSizing s = finn::size_fifos(tfc().design, x, 297);
        state.counters["simulations"] = static_cast<double>(s.simulations);
    }
}

void tfc_functional_1000(benchmark::State& state) {
    const std::vector<int64_t> x = frames(1000);
    for (auto _ : state) {
        benchmark::DoNotOptimize(finn::evaluate(tfc().design, x).data());
    }
}

BENCHMARK(tfc_1000_frames)->Unit(benchmark::kMillisecond);
BENCHMARK(tfc_size_fifos_297)->Unit(benchmark::kMillisecond);
BENCHMARK(tfc_functional_1000)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace npu

int sc_main(int argc, char* argv[]) {
    npu::sim::install_report_handler();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
