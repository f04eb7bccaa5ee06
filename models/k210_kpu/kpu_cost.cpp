#include "models/k210_kpu/kpu_cost.h"

#include <algorithm>
#include <cmath>

#include "models/k210_kpu/kpu_func.h"

namespace npu::kpu {

namespace {
uint64_t div_up(uint64_t n, uint64_t d) {
    return (n + d - 1) / d;
}
uint64_t cycles(double per, uint64_t n) {
    return static_cast<uint64_t>(std::ceil(per * static_cast<double>(n) - 1e-9));
}
}  // namespace

LayerWork layer_work(const LayerArgs& a) {
    // The layout the layer words give: G channels share a 64-byte line (coef_group: 4, 2 or 1),
    // a channel group spans channel_switch_addr lines (rows · row_switch_addr).
    const uint64_t g = std::max<uint32_t>(1, a.coef_group);
    const uint64_t lines = a.channel_switch_addr;
    const uint64_t in_groups = div_up(static_cast<uint64_t>(a.in_channels()), g);
    LayerWork w;
    w.passes = a.depth_wise_layer ? in_groups : static_cast<uint64_t>(a.out_channels()) * in_groups;
    w.input_lines = w.passes * lines;
    w.output_lines = div_up(static_cast<uint64_t>(a.out_channels()), g) * lines;
    w.output_words = a.send_data_out ? div_up(uint64_t{a.dma_total_byte} + 1, 8) : 0;
    return w;
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
    c.total_cycles =
        c.fixed_cycles + c.param_fetch_cycles + c.compute_cycles + exposed + c.output_cycles;
}

LayerCost layer_cost(const LayerArgs& a, bool eight_bit, const KpuTiming& t) {
    LayerCost c;
    const uint64_t k2 = static_cast<uint64_t>(a.kernel_size() * a.kernel_size());
    c.macs = static_cast<uint64_t>(a.out_channels()) * static_cast<uint64_t>(a.in_width()) *
             static_cast<uint64_t>(a.in_height()) * k2 *
             (a.depth_wise_layer ? 1u : static_cast<uint64_t>(a.in_channels()));
    c.weight_bytes = weight_bytes(a, eight_bit);
    c.param_bytes = static_cast<uint64_t>(a.out_channels()) * 8 + kActTableBytes;
    c.work = layer_work(a);
    c.fixed_cycles = t.layer_fixed_cycles;
    c.param_fetch_cycles = cycles(t.fetch_cycles_per_byte, c.param_bytes);
    c.compute_cycles = cycles(t.cycles_per_input_line, c.work.input_lines) +
                       cycles(t.cycles_per_pass, c.work.passes) +
                       cycles(t.cycles_per_output_line, c.work.output_lines);
    c.output_cycles = cycles(t.output_cycles_per_word, c.work.output_words);
    std::vector<uint64_t> fetch;
    for (uint64_t bytes : weight_chunks(a, eight_bit)) {
        fetch.push_back(cycles(t.fetch_cycles_per_byte, bytes));
        c.weight_fetch_cycles += fetch.back();
        if (c.first_chunk_bytes == 0) {
            c.first_chunk_bytes = bytes;
        }
    }
    pipeline(c, fetch, chunk_compute(a, c.compute_cycles));
    return c;
}

}  // namespace npu::kpu
