#include "models/k210_kpu/kpu_config.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::kpu {

void KpuConfig::validate() const {
    if (layer_fifo_words < 12) {
        throw sim::Error(fmt::format("kpu.layer_fifo_words is {}, expected at least 12 (one layer)",
                                     layer_fifo_words));
    }
    if (timing.clock_hz == 0) {
        throw sim::Error("kpu.clock_hz must be positive");
    }
    timing.bus.validate("kpu.bus");
}

KpuConfig read_kpu_config(const sim::ConfigNode& n) {
    KpuConfig c;
    c.timing.clock_hz = n.get_hz("clock_hz", c.timing.clock_hz);
    c.timing.bus.clock_hz = c.timing.clock_hz;
    c.layer_fifo_words = n.get<uint32_t>("layer_fifo_words", c.layer_fifo_words, 12u, 1u << 16);
    c.register_latency_ns = n.get<double>("register_latency_ns", c.register_latency_ns, 0.0, 1e6);
    c.strict = n.get<bool>("strict", c.strict);
    c.fidelity.segment = n.get_enum(
        "activation_segment", c.fidelity.segment,
        {{"greater", SegmentRule::GreaterThan}, {"greater_equal", SegmentRule::GreaterEqual}});
    c.fidelity.rounding =
        n.get_enum("activation_rounding", c.fidelity.rounding,
                   {{"banker", ActRounding::Banker}, {"carry", ActRounding::Carry}});
    c.fidelity.overflow = n.get_enum("overflow", c.fidelity.overflow,
                                     {{"keep64", Overflow::Keep64},
                                      {"wrap36", Overflow::Wrap36},
                                      {"saturate36", Overflow::Saturate36}});
    c.timing.layer_overhead_cycles =
        n.get<uint64_t>("layer_overhead_cycles", c.timing.layer_overhead_cycles, 0u, 1u << 30);
    c.timing.cycles_per_lane_line =
        n.get<double>("cycles_per_lane_line", c.timing.cycles_per_lane_line, 0.01, 100.0);
    c.timing.cycles_per_lane_line_8bit =
        n.get<double>("cycles_per_lane_line_8bit", c.timing.cycles_per_lane_line_8bit, 0.01, 100.0);
    if (auto bus = n.optional_child("bus")) {
        c.timing.bus = sim::read_bus_config(*bus, c.timing.bus);
    }
    return c;
}

}  // namespace npu::kpu
