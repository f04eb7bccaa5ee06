// Time of one LoadImageToLocal: bandwidth-bound. The engine streams the crop from global memory
// and the channel-padded tile into L1 at the same time, so the longer of the two transfers sets
// the pace, plus a fixed start and a per-output-row overhead. No public AIPP throughput figure
// exists (../shared/reference/seed_systems.md §2.6): the defaults are estimates, every term is a
// config key, and docs/aipp.md gives the formula. Pure C++.
#pragma once

#include <cstdint>

#include "models/aipp/aipp_params.h"

namespace npu::aipp {

struct AippTiming {
    uint64_t clock_hz = 1'000'000'000;     // AI Core clock
    double gm_read_bytes_per_cycle = 32;   // global-memory read bandwidth of the engine (MTE2)
    double l1_write_bytes_per_cycle = 64;  // L1 write port
    uint64_t start_cycles = 64;            // command decode and first-request latency
    uint64_t row_overhead_cycles = 8;      // per output row (row addressing, border fill)
};

struct AippCost {
    uint64_t read_bytes = 0;    // src0 + src1 bytes of the crop (row spans the engine fetches)
    uint64_t write_bytes = 0;   // H_out · W_out · C0 · sizeof(U)
    uint64_t read_cycles = 0;   // ⌈read_bytes / gm_read_bytes_per_cycle⌉
    uint64_t write_cycles = 0;  // ⌈write_bytes / l1_write_bytes_per_cycle⌉
    uint64_t row_cycles = 0;    // H_out · row_overhead_cycles
    uint64_t total_cycles = 0;  // start + row_cycles + max(read_cycles, write_cycles)
};

AippCost aipp_cost(const Params& p, const LoadParams& l, const AippTiming& t);

}  // namespace npu::aipp
