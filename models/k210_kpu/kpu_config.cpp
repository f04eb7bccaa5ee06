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

void read_kpu_timing(const sim::ConfigNode& n, KpuTiming& t) {
    t.layer_fixed_cycles =
        n.get<uint64_t>("layer_fixed_cycles", t.layer_fixed_cycles, 0u, 1u << 30);
    t.cycles_per_input_line =
        n.get<double>("cycles_per_input_line", t.cycles_per_input_line, 0.0, 100.0);
    t.cycles_per_pass = n.get<double>("cycles_per_pass", t.cycles_per_pass, 0.0, 1e6);
    t.cycles_per_output_line =
        n.get<double>("cycles_per_output_line", t.cycles_per_output_line, 0.0, 100.0);
    t.fetch_cycles_per_byte =
        n.get<double>("fetch_cycles_per_byte", t.fetch_cycles_per_byte, 0.0, 100.0);
    t.output_cycles_per_word =
        n.get<double>("output_cycles_per_word", t.output_cycles_per_word, 0.0, 1e6);
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
    read_kpu_timing(n, c.timing);
    if (auto bus = n.optional_child("bus")) {
        c.timing.bus = sim::read_bus_config(*bus, c.timing.bus);
    }
    return c;
}

}  // namespace npu::kpu
