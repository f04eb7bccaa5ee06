#include "models/aipp/aipp_cost.h"

#include <algorithm>

namespace npu::aipp {

SourcePlan source_plan(const Params& p, const LoadParams& l, uint64_t src0_addr,
                       uint64_t src1_addr) {
    const Geometry g = geometry(p, l);
    const bool yuv420 = p.format == InputFormat::YUV420SP_U8;
    const uint32_t bpp = p.format == InputFormat::RGB888_U8     ? 3
                         : p.format == InputFormat::XRGB8888_U8 ? 4
                                                                : 1;
    SourcePlan plan;
    plan.stride = yuv420 ? (l.horiz_size + 1) / 2 * 2 : l.horiz_size;
    const size_t row0 = size_t{plan.stride} * bpp;
    for (uint32_t y = 0; y < g.vert_size; ++y) {
        const uint64_t src_row = uint64_t{l.vert_start} + y;
        plan.spans.push_back({0, src0_addr + (src_row * l.src_horiz_size + l.horiz_start) * bpp,
                              l.horiz_size * bpp, y * row0});
    }
    plan.plane0_bytes = g.vert_size * row0;
    if (yuv420) {
        const uint32_t first = l.vert_start / 2, last = (l.vert_start + g.vert_size - 1) / 2;
        for (uint32_t r = first; r <= last; ++r) {
            plan.spans.push_back({1, src1_addr + uint64_t{r} * l.src_horiz_size + l.horiz_start,
                                  plan.stride, size_t{r - first} * plan.stride});
        }
        plan.plane1_bytes = size_t{last - first + 1} * plan.stride;
    }
    plan.compact = l;
    plan.compact.horiz_start = 0;
    plan.compact.vert_start = 0;
    plan.compact.src_horiz_size = plan.stride;
    return plan;
}

uint64_t cycles_to_ps(uint64_t cycles, uint64_t hz) {
    return cycles * ((1'000'000'000'000u + hz / 2) / hz);  // whole-picosecond period, as SystemC
}

AippCost aipp_cost(const Params& p, const LoadParams& l, const AippTiming& t,
                   const AippAddresses& a) {
    const Geometry g = geometry(p, l);
    AippCost c;
    for (const Span& s : source_plan(p, l, a.src0, a.src1).spans) {
        c.read_bytes += s.bytes;
        c.read_bus_cycles += sim::transfer_cost(t.gm_bus, s.addr, s.bytes).cycles;
    }
    c.write_bytes = g.elements() * output_bytes(p.output);
    c.write_bus_cycles = sim::transfer_cost(t.l1_bus, a.dst, c.write_bytes).cycles;
    c.row_cycles = uint64_t{g.height} * t.row_overhead_cycles;
    c.start_cycles = t.start_cycles;
    c.total_ps = cycles_to_ps(c.start_cycles, t.clock_hz) + cycles_to_ps(c.row_cycles, t.clock_hz) +
                 std::max(cycles_to_ps(c.read_bus_cycles, t.gm_bus.clock_hz),
                          cycles_to_ps(c.write_bus_cycles, t.l1_bus.clock_hz));
    const uint64_t period_ps = cycles_to_ps(1, t.clock_hz);
    c.total_cycles = (c.total_ps + period_ps - 1) / period_ps;
    return c;
}

}  // namespace npu::aipp
