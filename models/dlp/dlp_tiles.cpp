#include "models/dlp/dlp_tiles.h"

#include <algorithm>

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::dlp {

namespace {

uint64_t ceil_div(uint64_t a, uint64_t b) {
    return (a + b - 1) / b;
}

// The slow spatial axis of the external format (width when x is the height) of a conv-module
// layer: its kernel and pooling along it and the extents of its images.
struct Axis {
    int64_t k = 1, s = 1, pad = 0;      // the convolution (identity for a pool layer)
    bool pooled = false;                // pooling after it
    int64_t pk = 1, ps = 1, ppad = 0;   // the pooling
    int64_t in = 1, conv = 1, out = 1;  // extents: input, convolution, output
    int64_t in_fast = 1, out_fast = 1;  // extents of the fast axis
};

Axis slow_axis(const ConvLayer& c, bool x_is_height) {
    Axis a;
    const bool w = x_is_height;  // the slow axis is the width
    a.k = w ? c.kernel_w : c.kernel_h, a.s = w ? c.stride_w : c.stride_h;
    a.pad = w ? c.pad_left : c.pad_top;
    a.pooled = c.pool != PoolType::none;
    a.pk = w ? c.pool_w : c.pool_h, a.ps = w ? c.pool_stride_w : c.pool_stride_h;
    a.ppad = w ? c.pool_pad_left : c.pool_pad_top;
    a.in = w ? c.in_w : c.in_h, a.conv = w ? c.conv_w() : c.conv_h();
    a.out = w ? c.out_w() : c.out_h();
    a.in_fast = w ? c.in_h : c.in_w, a.out_fast = w ? c.out_h() : c.out_w();
    return a;
}

// Input rows [first, last) the output rows [r0, r1) need.
std::pair<int64_t, int64_t> input_rows(const Axis& a, int64_t r0, int64_t r1) {
    int64_t c0 = r0, c1 = r1;
    if (a.pooled) {
        c0 = std::clamp<int64_t>(r0 * a.ps - a.ppad, 0, a.conv);
        c1 = std::clamp<int64_t>((r1 - 1) * a.ps - a.ppad + a.pk, 0, a.conv);
    }
    return {std::clamp<int64_t>(c0 * a.s - a.pad, 0, a.in),
            std::clamp<int64_t>((c1 - 1) * a.s - a.pad + a.k, 0, a.in)};
}

// The most input rows a tile of `r` output rows reads (a band in the middle: no padding cut).
int64_t max_input_rows(const Axis& a, int64_t r) {
    const int64_t conv_rows = a.pooled ? (r - 1) * a.ps + a.pk : r;
    return std::min(a.in, (conv_rows - 1) * a.s + a.k);
}

// Rows [y0, y0 + rows) of the slow axis of an image in conv format: one piece per channel block,
// or the whole image in one when the band is every row.
void add_band(std::vector<Transfer>& out, Transfer::Buffer b, const ActShape& s, int64_t fast,
              int64_t slow, const DlpConfig& cfg, int64_t y0, int64_t rows) {
    const uint64_t n = cfg.transfer_n(), eb = element_bytes(cfg.data_type);
    const uint64_t blocks = ceil_div(static_cast<uint64_t>(s.z), cfg.threads_c());
    const auto plane = static_cast<uint64_t>(fast * slow) * n * eb;
    if (y0 == 0 && rows == slow) {
        out.push_back({b, 0, blocks * plane});
        return;
    }
    for (uint64_t zb = 0; zb < blocks; ++zb) {
        out.push_back({b, zb * plane + static_cast<uint64_t>(y0 * fast) * n * eb,
                       static_cast<uint64_t>(rows * fast) * n * eb});
    }
}

LayerPlan conv_plan(const Layer& l, const LayerPlacement& p, const DlpConfig& cfg) {
    const Axis a = slow_axis(l.conv, cfg.x_is_height);
    const ActShape input{l.conv.in_c, l.conv.in_h, l.conv.in_w};
    const auto& im = cfg.conv_input_memory_size;
    const auto& om = cfg.conv_output_memory_size;
    const uint64_t in_cap = im[0] * im[1] * im[2], out_cap = om[0] * om[1] * om[2];
    const auto in_row = static_cast<uint64_t>(a.in_fast * input.z);
    const auto out_row = static_cast<uint64_t>(a.out_fast * l.out.z);
    int64_t r = std::min<int64_t>(a.out, static_cast<int64_t>(out_cap / out_row));
    while (r >= 1 && static_cast<uint64_t>(max_input_rows(a, r)) * in_row > in_cap) {
        --r;
    }
    if (r < 1) {
        throw sim::Error(fmt::format(
            "one row of its images ({} input values with the kernel's rows, {} output values) "
            "exceeds the conv module's memories ({} and {} values): no tiling fits",
            static_cast<uint64_t>(max_input_rows(a, 1)) * in_row, out_row, in_cap, out_cap));
    }
    LayerPlan plan;
    plan.rows_per_tile = static_cast<uint64_t>(r);
    plan.tiles = ceil_div(static_cast<uint64_t>(a.out), static_cast<uint64_t>(r));
    std::vector<Transfer> writes;
    for (int64_t r0 = 0; r0 < a.out; r0 += r) {
        const int64_t r1 = std::min(a.out, r0 + r);
        const auto [i0, i1] = input_rows(a, r0, r1);
        add_band(plan.transfers, Transfer::Buffer::input, input, a.in_fast, a.in, cfg, i0, i1 - i0);
        if (r0 == 0) {
            plan.transfers.push_back({Transfer::Buffer::weights, 0, p.weight_bytes});
            plan.transfers.push_back({Transfer::Buffer::bias, 0, p.bias_bytes});
        }
        add_band(writes, Transfer::Buffer::output, l.out, a.out_fast, a.out, cfg, r0, r1 - r0);
    }
    plan.transfers.insert(plan.transfers.end(), writes.begin(), writes.end());
    return plan;
}

LayerPlan fc_plan(const Layer& l, const LayerPlacement& p, const DlpConfig& cfg) {
    const uint64_t in_chunks = ceil_div(static_cast<uint64_t>(l.fc.in), cfg.fc_input_memory_size);
    const auto out = static_cast<uint64_t>(l.fc.out);
    const uint64_t out_chunks = ceil_div(out, cfg.fc_output_memory_size);
    LayerPlan plan;
    plan.tiles = in_chunks * out_chunks;
    for (uint64_t k = 0; k < out_chunks; ++k) {  // the input again for each chunk of outputs
        plan.transfers.push_back({Transfer::Buffer::input, 0, p.input_bytes});
    }
    plan.transfers.push_back({Transfer::Buffer::weights, 0, p.weight_bytes});
    plan.transfers.push_back({Transfer::Buffer::bias, 0, p.bias_bytes});
    if (out_chunks == 1) {
        plan.transfers.push_back({Transfer::Buffer::output, 0, p.output_bytes});
        return plan;
    }
    const uint64_t chunk = element_bytes(cfg.data_type) * cfg.fc_output_memory_size;
    for (uint64_t at = 0; at < p.output_bytes; at += chunk) {
        plan.transfers.push_back(
            {Transfer::Buffer::output, at, std::min(chunk, p.output_bytes - at)});
    }
    return plan;
}

}  // namespace

LayerPlan layer_plan(const Layer& l, const LayerPlacement& p, const DlpConfig& cfg) {
    if (l.kind == LayerKind::conv || l.kind == LayerKind::pool) {
        return conv_plan(l, p, cfg);
    }
    if (l.kind == LayerKind::fc) {
        return fc_plan(l, p, cfg);
    }
    if (l.kind == LayerKind::concat) {
        return {};  // no transfers: its inputs wrote its image
    }
    LayerPlan plan;  // the adder: its images whole
    plan.transfers = {{Transfer::Buffer::input, 0, p.input_bytes},
                      {Transfer::Buffer::input2, 0, p.input2_bytes},
                      {Transfer::Buffer::output, 0, p.output_bytes}};
    return plan;
}

uint64_t transfer_addr(const Transfer& t, const LayerPlacement& p) {
    switch (t.buffer) {
    case Transfer::Buffer::input: return p.input_addr + t.offset;
    case Transfer::Buffer::input2: return p.input2_addr + t.offset;
    case Transfer::Buffer::weights: return p.weight_addr + t.offset;
    case Transfer::Buffer::bias: return p.bias_addr + t.offset;
    default: return p.output_addr + t.offset;
    }
}

}  // namespace npu::dlp
