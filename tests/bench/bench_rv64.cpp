// The RV64 hart's speed (Google Benchmark, release build):
//   build/release/tests/npusim_bench_rv64
// A compute loop (addi, bne) and a memory loop (ld, addi, sd, bne) in RAM, run in budgets of one
// million instructions as the firmware path runs them; items_per_second = simulated instructions
// per host second (issue #17 asks for at least 50 M on a compute loop).
#include <cstring>
#include <vector>

#include <benchmark/benchmark.h>

#include "models/rv64/cpu.h"

namespace {

using namespace npu::rv64;

void run_loop(benchmark::State& state, const std::vector<uint32_t>& code) {
    std::vector<uint8_t> ram(64 * 1024);
    std::memcpy(ram.data(), code.data(), code.size() * 4);
    auto cpu = make_unicorn_cpu();
    cpu->map_ram(0x80000000, ram.size(), ram.data());
    uint64_t instructions = 0;
    for (auto _ : state) {
        cpu->set_pc(0x80000000);
        RunResult r;
        do {
            r = cpu->run(1'000'000);
            instructions += r.instructions;
        } while (r.stop == Stop::Budget);
        if (r.stop != Stop::Wfi) {
            state.SkipWithError("the loop did not end at its wfi");
            break;
        }
    }
    state.SetItemsProcessed(static_cast<int64_t>(instructions));
}

// lui t0, 2442 (10,002,432); loop: addi t0, t0, -1; bne t0, x0, loop; wfi: 20 M instructions.
void BM_ComputeLoop(benchmark::State& state) {
    run_loop(state, {(2442u << 12) | (5 << 7) | 0x37, 0xfff28293, 0xfe029ee3, 0x10500073});
}
BENCHMARK(BM_ComputeLoop)->Unit(benchmark::kMillisecond);

// auipc t1, 8 (0x80008000, an aligned RAM word); lui t0, 2442; loop: ld t2, 0(t1); addi t2, t2, 1;
// sd t2, 0(t1); addi t0, t0, -1; bne t0, x0, loop; wfi: 50 M instructions, a load and a store in
// five.
void BM_MemoryLoop(benchmark::State& state) {
    run_loop(state, {(8u << 12) | (6 << 7) | 0x17, (2442u << 12) | (5 << 7) | 0x37, 0x00033383,
                     0x00138393, 0x00733023, 0xfff28293, 0xfe0298e3, 0x10500073});
}
BENCHMARK(BM_MemoryLoop)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
