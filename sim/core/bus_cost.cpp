#include "sim/core/bus_cost.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::sim {

namespace {
bool pow2(uint64_t v) {
    return v != 0 && (v & (v - 1)) == 0;
}
uint64_t ceil_div(uint64_t a, uint64_t b) {
    return a / b + (a % b != 0 ? 1 : 0);
}
}  // namespace

void BusConfig::validate(const char* where) const {
    if (!pow2(data_width_bytes) || data_width_bytes > 128) {
        throw Error(fmt::format("{}: data_width_bytes is {}, expected a power of two from 1 to 128",
                                where, data_width_bytes));
    }
    if (max_burst_beats < 1 || max_burst_beats > 256) {
        throw Error(fmt::format("{}: max_burst_beats is {}, expected 1 to 256", where, max_burst_beats));
    }
    if (!pow2(boundary_bytes) || boundary_bytes < data_width_bytes) {
        throw Error(fmt::format("{}: boundary_bytes is {}, expected a power of two >= data_width_bytes",
                                where, boundary_bytes));
    }
    if (clock_hz == 0) {
        throw Error(fmt::format("{}: clock_hz must be positive", where));
    }
}

TransferCost transfer_cost(const BusConfig& bus, uint64_t addr, uint64_t bytes) {
    TransferCost c;
    if (bytes == 0) {
        return c;
    }
    const uint64_t w = bus.data_width_bytes;
    const uint64_t page = bus.boundary_bytes;
    auto piece = [&](uint64_t a, uint64_t n, uint64_t count) {
        const uint64_t beats = ceil_div(a % w + n, w);
        c.beats += beats * count;
        c.bursts += ceil_div(beats, bus.max_burst_beats) * count;
    };
    const uint64_t first = std::min(bytes, page - addr % page);
    piece(addr, first, 1);
    const uint64_t rest = bytes - first;
    if (rest > 0) {
        const uint64_t full = rest / page;  // whole pages, each starting aligned
        if (full > 0) {
            piece(0, page, full);
        }
        if (rest % page != 0) {
            piece(0, rest % page, 1);
        }
    }
    c.cycles = c.bursts * bus.burst_latency_cycles + c.beats;
    return c;
}

}  // namespace npu::sim
