// Time of one LoadImageToLocal: bandwidth-bound. The engine fetches the crop from global memory
// row by row (only the bytes the crop uses) while it writes the channel-padded tile into L1, so the
// longer of the two transfers sets the pace, plus a fixed start and a per-output-row overhead. The
// transfers cost what the AXI-style bus model charges (sim/core/bus_cost.h) on each port's bus;
// the SystemC module issues exactly these transfers (source_plan), so its time equals this. No
// public AIPP throughput figure exists (../shared/reference/seed_systems.md §2.6): the defaults are
// estimates, every term is a config key, docs/aipp.md gives the formula. Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "models/aipp/aipp_params.h"
#include "sim/core/bus_cost.h"

namespace npu::aipp {

struct AippTiming {
    uint64_t clock_hz = 1'000'000'000;  // the engine's clock
    // Global-memory read port (MTE2) and L1 write port: 32 and 64 bytes per cycle, no burst gaps.
    sim::BusConfig gm_bus{32, 16, 0, 4096, 1'000'000'000};
    sim::BusConfig l1_bus{64, 16, 0, 4096, 1'000'000'000};
    uint64_t start_cycles = 64;        // command decode and first-request latency
    uint64_t row_overhead_cycles = 8;  // per output row (row addressing, border fill)
};

// Where the engine reads: one span per source row it needs (src0 rows of the crop; YUV420SP also
// the UV rows), and where each lands in a compact copy of the crop (stride `stride` pixels, the
// crop width rounded up to even for YUV420SP). `compact` addresses that copy.
struct Span {
    int plane = 0;      // 0: src0, 1: src1 (UV)
    uint64_t addr = 0;  // bus address
    uint32_t bytes = 0;
    size_t offset = 0;  // in the compact plane
};
struct SourcePlan {
    std::vector<Span> spans;
    uint32_t stride = 0;  // compact row stride in pixels
    size_t plane0_bytes = 0, plane1_bytes = 0;
    LoadParams compact;  // the same crop over the compact copy (starts 0, srcHorizSize = stride)
};
SourcePlan source_plan(const Params& p, const LoadParams& l, uint64_t src0_addr,
                       uint64_t src1_addr);

struct AippAddresses {
    uint64_t src0 = 0, src1 = 0, dst = 0;
};

struct AippCost {
    uint64_t read_bytes = 0;        // Σ span bytes
    uint64_t write_bytes = 0;       // H_out · W_out · C0 · sizeof(U)
    uint64_t read_bus_cycles = 0;   // Σ transfer_cost(gm_bus, span).cycles, gm bus clock
    uint64_t write_bus_cycles = 0;  // transfer_cost(l1_bus, dst, write_bytes).cycles, l1 clock
    uint64_t row_cycles = 0;        // H_out · row_overhead_cycles, engine clock
    uint64_t start_cycles = 0;
    // start_cycles · T + row_cycles · T + max(read_bus_cycles · T_gm, write_bus_cycles · T_l1),
    // with each clock's period T in whole picoseconds (as the SystemC kernel holds it)
    uint64_t total_ps = 0;
    uint64_t total_cycles = 0;  // ⌈total_ps / T⌉, engine clock
};

AippCost aipp_cost(const Params& p, const LoadParams& l, const AippTiming& t,
                   const AippAddresses& a = {});
// cycles · the period of `hz` rounded to whole picoseconds.
uint64_t cycles_to_ps(uint64_t cycles, uint64_t hz);

}  // namespace npu::aipp
