#include "models/dlp/dlp_cost.h"

#include <algorithm>

#include "models/dlp/dlp_tiles.h"

namespace npu::dlp {

namespace {
uint64_t ceil_div(uint64_t a, uint64_t b) {
    return (a + b - 1) / b;
}
uint64_t bus_cycles(const DlpConfig& cfg, uint64_t addr, uint64_t bytes) {
    return bytes == 0 ? 0 : sim::transfer_cost(cfg.ddr_bus(), addr, bytes).cycles;
}
}  // namespace

uint64_t compute_cycles(const Layer& l, const DlpConfig& cfg, const DlpTiming& t) {
    const uint64_t c = cfg.threads_c();
    switch (l.kind) {
    case LayerKind::conv: {
        const ConvLayer& v = l.conv;
        const auto windows = static_cast<uint64_t>(v.conv_h() * v.conv_w());
        // Kernels larger than the pass run in several passes: ⌈kh·kw / taps_per_pass⌉ (a 3x3
        // pass for taps 9); a 1x1 kernel still takes a whole pass (reduced efficiency).
        const uint64_t passes =
            ceil_div(static_cast<uint64_t>(v.kernel_h * v.kernel_w), t.taps_per_pass);
        const auto g = static_cast<uint64_t>(v.groups);
        const auto gic = static_cast<uint64_t>(v.in_c) / g,
                   goc = static_cast<uint64_t>(v.out_c) / g;
        // The C x C threads pair C input with C output channels; a depthwise layer (one input and
        // one output channel per group) uses only C of them.
        const uint64_t work =
            gic == 1 && goc == 1 ? ceil_div(g, c) : g * ceil_div(gic, c) * ceil_div(goc, c);
        return windows * passes * work;
    }
    case LayerKind::fc:
        return ceil_div(static_cast<uint64_t>(l.fc.in * l.fc.out), cfg.fc_thread_number);
    case LayerKind::pool: {
        // Each window tap of C channels a cycle: ⌈in_c / C⌉ · out_h · out_w · pool_h · pool_w.
        const ConvLayer& v = l.conv;
        return ceil_div(static_cast<uint64_t>(v.in_c), c) *
               static_cast<uint64_t>(v.out_h() * v.out_w() * v.pool_h * v.pool_w);
    }
    case LayerKind::concat: return 0;  // no module runs
    default: return ceil_div(static_cast<uint64_t>(l.out.z * l.out.h * l.out.w), cfg.transfer_n());
    }
}

uint64_t setup_cycles(LayerKind k, bool first_layer, const DlpTiming& t) {
    if (k == LayerKind::concat) {
        return 0;  // no module runs (a concat is never the first layer)
    }
    const uint64_t module = k == LayerKind::conv || k == LayerKind::pool ? t.conv_setup_cycles
                            : k == LayerKind::fc                         ? t.fc_setup_cycles
                                                                         : t.adder_setup_cycles;
    return module + (first_layer ? t.start_cycles : 0);
}

uint64_t total_cycles(const LayerCost& c, const DlpTiming& t) {
    const uint64_t transfers = c.read_cycles + c.weight_cycles + c.write_cycles;
    return c.overhead_cycles +
           (t.overlap ? std::max(c.compute_cycles, transfers) : c.compute_cycles + transfers);
}

LayerCost layer_cost(const Layer& l, const LayerPlacement& p, const DlpConfig& cfg,
                     const DlpTiming& t, bool first_layer) {
    LayerCost c;
    c.compute_cycles = compute_cycles(l, cfg, t);
    const LayerPlan plan = layer_plan(l, p, cfg);
    c.tiles = plan.tiles;
    for (const Transfer& x : plan.transfers) {
        const uint64_t cycles = bus_cycles(cfg, transfer_addr(x, p), x.bytes);
        if (x.buffer == Transfer::Buffer::output) {
            c.write_bytes += x.bytes, c.write_cycles += cycles;
        } else if (x.buffer == Transfer::Buffer::weights || x.buffer == Transfer::Buffer::bias) {
            c.weight_bytes += x.bytes, c.weight_cycles += cycles;
        } else {
            c.read_bytes += x.bytes, c.read_cycles += cycles;
        }
    }
    if (l.kind == LayerKind::conv) {
        c.macs = l.conv.macs();
    } else if (l.kind == LayerKind::fc) {
        c.macs = static_cast<uint64_t>(l.fc.in * l.fc.out);
    }
    c.overhead_cycles =
        setup_cycles(l.kind, first_layer, t) + (c.tiles - 1) * t.tile_overhead_cycles;
    c.total_cycles = total_cycles(c, t);
    return c;
}

}  // namespace npu::dlp
