// AIPP load-image throughput (Google Benchmark, release build):
// build/release/tests/npusim_bench_aipp A 1920x1080 NV12 frame: a 224x224 crop with CSC (BT.601 to
// RGB) and int8 conversion, and the whole frame converted the same way; C0 = 32 (channel padding
// mode 0) and C0 = 4. Reported as output megapixels per host second (items_per_second counts output
// pixels).
#include <random>

#include <benchmark/benchmark.h>

#include "models/aipp/aipp_func.h"

namespace {

using namespace npu;

void run(benchmark::State& state, uint32_t w, uint32_t h, uint32_t c_padding_mode) {
    const uint32_t src_w = 1920, src_h = 1080;
    std::vector<uint8_t> frame(src_w * src_h * 3 / 2);
    std::mt19937 rng(1);
    for (uint8_t& b : frame) {
        b = static_cast<uint8_t>(rng());
    }
    aipp::Params p;
    p.format = aipp::InputFormat::YUV420SP_U8;
    p.output = aipp::OutputType::i8;
    p.csc_enable = true;
    p.csc_matrix = {298, 0, 409, 298, -100, -208, 298, 516, 0};
    p.csc_bias_in = {16, 128, 128};
    p.dtc_mean = {104, 117, 123};
    p.c_padding_mode = c_padding_mode;
    aipp::LoadParams l;
    l.horiz_size = w, l.vert_size = h, l.src_horiz_size = src_w;
    l.horiz_start = (src_w - w) / 2 / 2 * 2, l.vert_start = (src_h - h) / 2 / 2 * 2;
    if (w == src_w && h == src_h) {  // the sizes are at most 4095: the whole frame fits
        l.horiz_start = l.vert_start = 0;
    }
    std::vector<uint8_t> dst(aipp::geometry(p, l).elements());
    const aipp::Source s{frame.data(), size_t{src_w} * src_h, frame.data() + size_t{src_w} * src_h,
                         size_t{src_w} * src_h / 2};
    for (auto _ : state) {
        aipp::load_image(p, l, {}, s, dst.data());
        benchmark::DoNotOptimize(dst.data());
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * w * h);
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations()) *
                            static_cast<int64_t>(dst.size()));
}

BENCHMARK_CAPTURE(run, crop224_csc_int8_c0_32, 224, 224, 0)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, crop224_csc_int8_c0_4, 224, 224, 1)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(run, full1080p_csc_int8_c0_32, 1920, 1080, 0)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(run, full1080p_csc_int8_c0_4, 1920, 1080, 1)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
