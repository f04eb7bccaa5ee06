// One K210 inference end to end, timed (the SystemC platform: bus, MMIO, FIFO, DMA, CPU layers)
// and functional (the same layer code on plain buffers), Google Benchmark, release build:
//   build/release/tests/npusim_bench_k210
// Models from ../shared/k210 (skipped when absent), on a fixed pseudo-random 320x240 image.
// Counters: sim_cycles (KPU cycles of the inference), sim_ms (simulated inference time, timed
// only), MACs/s (simulated MACs per host second).
#include <filesystem>
#include <fstream>
#include <random>

#include <benchmark/benchmark.h>

#include "platforms/k210/firmware/firmware_run.h"
#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/soc/driver.h"
#include "platforms/k210/soc/k210_config.h"
#include "platforms/k210/soc/k210_platform.h"
#include "sim/core/config.h"
#include "sim/tlm/kernel.h"

namespace {

using namespace npu;

std::string model_path(const char* name) {
    return std::string(NPUSIM_SHARED_DIR) + "/k210/" + name;
}

sim::Tensor image() {
    sim::Tensor t(sim::DType::u8, {1, 3, 240, 320});
    std::mt19937 rng(1);
    for (size_t i = 0; i < t.numel(); ++i) {
        t.data<uint8_t>()[i] = static_cast<uint8_t>(rng());
    }
    return t;
}

k210::K210Config config() {
    auto doc = sim::ConfigDocument::load_file(NPUSIM_SOURCE_DIR "/configs/k210.yaml");
    k210::K210Config c = k210::read_k210_config(doc.root().child("platform"));
    doc.finish();
    return c;
}

void timed(benchmark::State& state, const char* name) {
    if (!std::filesystem::exists(model_path(name))) {
        state.SkipWithError("../shared/k210 is absent");
        return;
    }
    const k210::Kmodel m = k210::load_kmodel(model_path(name));
    const sim::Tensor img = image();
    const k210::K210Config cfg = config();
    uint64_t cycles = 0, macs = 0;
    double sim_ms = 0;
    for (auto _ : state) {
        sim::reset_simulation();
        sim::TraceWriter trace(false);
        k210::K210Platform soc("k210", cfg, trace);
        k210::K210Driver driver("driver", soc, trace);
        driver.load(m, img);
        sc_core::sc_start();
        cycles = 0, macs = 0;
        for (const auto& l : soc.kpu.layers()) {
            cycles += l.cost.total_cycles;
            macs += l.cost.macs;
        }
        const k210::RunResult& r = driver.result();
        sim_ms = static_cast<double>(r.end_ps - r.load_end_ps) / 1e9;
        benchmark::DoNotOptimize(r.outputs.data());
    }
    state.counters["sim_cycles"] = static_cast<double>(cycles);
    state.counters["sim_ms"] = sim_ms;
    state.counters["MACs/s"] =
        benchmark::Counter(static_cast<double>(macs) * static_cast<double>(state.iterations()),
                           benchmark::Counter::kIsRate);
}

void functional(benchmark::State& state, const char* name) {
    if (!std::filesystem::exists(model_path(name))) {
        state.SkipWithError("../shared/k210 is absent");
        return;
    }
    const k210::Kmodel m = k210::load_kmodel(model_path(name));
    const sim::Tensor img = image();
    uint64_t macs = 0;
    for (auto _ : state) {
        const k210::FunctionalResult r = k210::run_functional(m, img);
        macs = 0;
        for (const auto& l : r.layers) {
            macs += l.macs;
        }
        benchmark::DoNotOptimize(r.outputs.data());
    }
    state.counters["MACs/s"] =
        benchmark::Counter(static_cast<double>(macs) * static_cast<double>(state.iterations()),
                           benchmark::Counter::kIsRate);
}

// The same inference by firmware: the firmware kit's kmodel_run.elf on hart 0 of the firmware
// SoC (issue #17: under 5 s of host time for yolo20), reading the model and a raw input by
// semihosting.
void firmware(benchmark::State& state, const char* name) {
    const std::string elf = NPUSIM_FIRMWARE_DIR "/kmodel_run.elf";
    if (!std::filesystem::exists(model_path(name)) || !std::filesystem::exists(elf)) {
        state.SkipWithError("../shared/k210 or the firmware kit is absent");
        return;
    }
    const sim::Tensor img = image();
    const std::string in =
        (std::filesystem::temp_directory_path() / "npusim_bench_in.bin").string();
    std::ofstream(in, std::ios::binary)
        .write(reinterpret_cast<const char*>(img.bytes()),
               static_cast<std::streamsize>(img.size_bytes()));
    const k210::K210Config cfg = config();
    platform::RunRequest req;
    req.firmware = elf;
    req.firmware_args = {model_path(name), in, in + ".out"};
    req.semihost_read_root = "/";  // the bench's own files, named in full
    req.semihost_write_root = std::filesystem::temp_directory_path().string();
    uint64_t instructions = 0;
    double sim_ms = 0;
    for (auto _ : state) {
        sim::reset_simulation();
        const platform::RunReport r = k210::run_firmware(cfg, "bench", req);
        if (!r.passed) {
            state.SkipWithError(r.text.c_str());
            return;
        }
        instructions = static_cast<uint64_t>(r.record->total("instructions")->value);
        sim_ms = r.record->total("end_ps")->value / 1e9;
    }
    state.counters["instructions"] = static_cast<double>(instructions);
    state.counters["sim_ms"] = sim_ms;
}

BENCHMARK_CAPTURE(firmware, face_detect_v3, "face_detect_v3.kmodel")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(firmware, yolo20_v3, "yolo20_v3.kmodel")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(timed, face_detect_v3, "face_detect_v3.kmodel")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(functional, face_detect_v3, "face_detect_v3.kmodel")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(timed, yolo20_v3, "yolo20_v3.kmodel")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(functional, yolo20_v3, "yolo20_v3.kmodel")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(timed, ulffd_landmark_v4, "ulffd_landmark_v4.kmodel")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(functional, ulffd_landmark_v4, "ulffd_landmark_v4.kmodel")
    ->Unit(benchmark::kMillisecond);

}  // namespace

int sc_main(int argc, char* argv[]) {
    sim::install_report_handler();
    benchmark::Initialize(&argc, argv);
    benchmark::RunSpecifiedBenchmarks();
    benchmark::Shutdown();
    return 0;
}
