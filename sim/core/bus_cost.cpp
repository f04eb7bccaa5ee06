#include "sim/core/bus_cost.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/config.h"
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
        throw Error(
            fmt::format("{}: max_burst_beats is {}, expected 1 to 256", where, max_burst_beats));
    }
    if (!pow2(boundary_bytes) || boundary_bytes < data_width_bytes) {
        throw Error(
            fmt::format("{}: boundary_bytes is {}, expected a power of two >= data_width_bytes",
                        where, boundary_bytes));
    }
    if (clock_hz == 0) {
        throw Error(fmt::format("{}: clock_hz must be positive", where));
    }
}

BusConfig read_bus_config(const ConfigNode& node, const BusConfig& d) {
    BusConfig b;
    b.data_width_bytes = node.get<unsigned>("data_width_bytes", d.data_width_bytes, 1u, 128u);
    if ((b.data_width_bytes & (b.data_width_bytes - 1)) != 0) {
        node.error_at("data_width_bytes", "expected a power of two");
    }
    b.max_burst_beats = node.get<unsigned>("max_burst_beats", d.max_burst_beats, 1u, 256u);
    b.burst_latency_cycles =
        node.get<unsigned>("burst_latency_cycles", d.burst_latency_cycles, 0u, 1u << 20);
    b.boundary_bytes = node.get_bytes("boundary_bytes", d.boundary_bytes);
    if ((b.boundary_bytes & (b.boundary_bytes - 1)) != 0 || b.boundary_bytes < b.data_width_bytes) {
        node.error_at("boundary_bytes", "expected a power of two not below data_width_bytes");
    }
    b.clock_hz = node.get_hz("clock_hz", d.clock_hz);
    return b;
}

TransferCost transfer_cost(const BusConfig& bus, uint64_t addr, uint64_t bytes) {
    TransferCost c;
    if (bytes == 0) {
        return c;
    }
    // W and the boundary are powers of two (validate()): shifts and masks, no divisions, since
    // this runs once per transfer on the simulation's hot path.
    const unsigned w_log2 = static_cast<unsigned>(__builtin_ctzll(bus.data_width_bytes));
    const uint64_t w_mask = bus.data_width_bytes - 1;
    const uint64_t page = bus.boundary_bytes;
    const uint64_t page_mask = page - 1;
    const uint64_t max_beats = bus.max_burst_beats;
    const bool max_pow2 = (max_beats & (max_beats - 1)) == 0;
    const unsigned max_log2 = static_cast<unsigned>(__builtin_ctzll(max_beats));
    auto bursts_of = [&](uint64_t beats) {
        return max_pow2 ? (beats + max_beats - 1) >> max_log2 : ceil_div(beats, max_beats);
    };
    auto piece = [&](uint64_t a, uint64_t n, uint64_t count) {
        const uint64_t beats = ((a & w_mask) + n + w_mask) >> w_log2;
        c.beats += beats * count;
        c.bursts += bursts_of(beats) * count;
    };
    const uint64_t first = std::min(bytes, page - (addr & page_mask));
    piece(addr, first, 1);
    const uint64_t rest = bytes - first;
    if (rest > 0) {
        const uint64_t full = rest >> __builtin_ctzll(page);  // whole pages, each starting aligned
        if (full > 0) {
            piece(0, page, full);
        }
        if ((rest & page_mask) != 0) {
            piece(0, rest & page_mask, 1);
        }
    }
    c.cycles = c.bursts * bus.burst_latency_cycles + c.beats;
    return c;
}

}  // namespace npu::sim
