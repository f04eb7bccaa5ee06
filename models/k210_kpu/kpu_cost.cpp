#include "models/k210_kpu/kpu_cost.h"

#include <algorithm>
#include <cmath>

#include "models/k210_kpu/kpu_func.h"

namespace npu::kpu {

uint64_t lane_lines(const LayerArgs& a, const KpuTiming& t) {
    const RowLayout l = row_layout(a.in_width());
    const uint64_t rows = uint64_t{l.row_lines} * static_cast<uint64_t>(a.in_height());
    const uint64_t groups = (static_cast<uint64_t>(a.in_channels()) + l.groups - 1) / l.groups;
    if (a.depth_wise_layer) {
        return groups * rows;
    }
    const uint64_t per_pass =
        a.kernel_size() == 1 ? std::max<uint32_t>(1, t.one_by_one_channels_per_pass) : 1;
    return static_cast<uint64_t>(a.out_channels()) * ((groups + per_pass - 1) / per_pass) * rows;
}

std::vector<uint64_t> weight_chunks(const LayerArgs& a, bool eight_bit) {
    uint64_t left = weight_bytes(a, eight_bit);
    std::vector<uint64_t> out;
    for (uint32_t i = 0; i <= a.load_time && left > 0; ++i) {
        const uint64_t n = a.para_size == 0 ? left : std::min<uint64_t>(a.para_size, left);
        out.push_back(n);
        left -= n;
    }
    if (left > 0) {  // fields too small for the weights (validate() reports it): fetch the rest
        out.push_back(left);
    }
    return out;
}

std::vector<uint64_t> chunk_compute(const LayerArgs& a, uint64_t compute_cycles) {
    const uint64_t oc = static_cast<uint64_t>(a.out_channels());
    const uint64_t per = std::min<uint64_t>(uint64_t{a.o_ch_num_coef} + 1, oc);
    std::vector<uint64_t> out;
    uint64_t done_oc = 0, done_cycles = 0;
    while (done_oc < oc) {
        done_oc = std::min(oc, done_oc + per);
        const uint64_t upto = compute_cycles * done_oc / oc;  // exact split, no drift
        out.push_back(upto - done_cycles);
        done_cycles = upto;
    }
    return out;
}

void pipeline(LayerCost& c, const std::vector<uint64_t>& fetch,
              const std::vector<uint64_t>& compute) {
    uint64_t exposed = fetch.empty() ? 0 : fetch[0];
    const size_t n = std::max(fetch.size(), compute.size());
    for (size_t i = 0; i < n; ++i) {
        const uint64_t comp = i < compute.size() ? compute[i] : 0;
        const uint64_t next = i + 1 < fetch.size() ? fetch[i + 1] : 0;
        exposed += next > comp ? next - comp : 0;
    }
    c.exposed_fetch_cycles = exposed;
    c.total_cycles = c.fixed_cycles + c.param_fetch_cycles + c.compute_cycles + exposed;
}

namespace {
// Bus cycles (at the bus clock) as KPU cycles, rounded up.
uint64_t to_kpu_cycles(uint64_t bus_cycles, const KpuTiming& t) {
    if (t.bus.clock_hz == t.clock_hz) {
        return bus_cycles;
    }
    const double c = static_cast<double>(bus_cycles) * static_cast<double>(t.clock_hz) /
                     static_cast<double>(t.bus.clock_hz);
    return static_cast<uint64_t>(std::ceil(c - 1e-9));
}
}  // namespace

LayerCost layer_cost(const LayerArgs& a, bool eight_bit, const KpuTiming& t) {
    LayerCost c;
    const uint64_t k2 = static_cast<uint64_t>(a.kernel_size() * a.kernel_size());
    c.macs = static_cast<uint64_t>(a.out_channels()) * static_cast<uint64_t>(a.in_width()) *
             static_cast<uint64_t>(a.in_height()) * k2 *
             (a.depth_wise_layer ? 1u : static_cast<uint64_t>(a.in_channels()));
    c.weight_bytes = weight_bytes(a, eight_bit);
    const uint64_t bn_bytes = static_cast<uint64_t>(a.out_channels()) * 8;
    c.param_bytes = bn_bytes + kActTableBytes;
    c.lane_lines = lane_lines(a, t);
    c.fixed_cycles = t.layer_overhead_cycles;
    c.param_fetch_cycles =
        to_kpu_cycles(sim::transfer_cost(t.bus, a.bwsx_base_addr, bn_bytes).cycles +
                          sim::transfer_cost(t.bus, a.active_addr, kActTableBytes).cycles,
                      t);
    const double per_line = eight_bit ? t.cycles_per_lane_line_8bit : t.cycles_per_lane_line;
    c.compute_cycles =
        static_cast<uint64_t>(std::ceil(per_line * static_cast<double>(c.lane_lines)));
    std::vector<uint64_t> fetch;
    uint64_t addr = a.para_start_addr;
    for (uint64_t bytes : weight_chunks(a, eight_bit)) {
        fetch.push_back(to_kpu_cycles(sim::transfer_cost(t.bus, addr, bytes).cycles, t));
        c.weight_fetch_cycles += fetch.back();
        addr += bytes;
    }
    pipeline(c, fetch, chunk_compute(a, c.compute_cycles));
    return c;
}

}  // namespace npu::kpu
