#include "models/k210_kpu/kpu_layer_args.h"

#include <algorithm>
#include <type_traits>

#include <fmt/format.h>

#include "models/k210_kpu/kpu_layout.h"

namespace npu::kpu {

namespace {

struct Decoder {
    const Words& w;
    template <typename F, typename T>
    void operator()(int word, Tag<F>, T& member, const char*) const {
        const uint64_t raw = F::get(w[static_cast<size_t>(word)]);
        if constexpr (std::is_same_v<T, bool>) {
            member = raw != 0;
        } else if constexpr (std::is_signed_v<T>) {
            member = static_cast<T>(sim::sign_extend(raw, F::width));
        } else {
            member = static_cast<T>(raw);
        }
    }
};

struct Encoder {
    Words& w;
    template <typename F, typename T>
    void operator()(int word, Tag<F>, const T& member, const char*) const {
        const uint64_t raw = static_cast<uint64_t>(member) & F::max;
        w[static_cast<size_t>(word)] = F::set(w[static_cast<size_t>(word)], raw);
    }
};

}  // namespace

LayerArgs decode(const Words& w) {
    LayerArgs a;
    visit_fields(a, Decoder{w});
    return a;
}

Words encode(const LayerArgs& a) {
    Words w{};
    visit_fields(a, Encoder{w});
    return w;
}

bool LayerArgs::operator==(const LayerArgs& o) const {
    return encode(*this) == encode(o);
}

namespace {

class Checker {
public:
    explicit Checker(std::vector<Problem>& out)
        : m_out(out) {}
    template <typename... Args>
    void fail(const char* field, fmt::format_string<Args...> f, Args&&... args) {
        m_out.push_back({field, fmt::format(f, std::forward<Args>(args)...), false});
    }
    template <typename... Args>
    void fatal(const char* field, fmt::format_string<Args...> f, Args&&... args) {
        m_out.push_back({field, fmt::format(f, std::forward<Args>(args)...), true});
    }

private:
    std::vector<Problem>& m_out;
};

void check_layout(Checker& c, const char* group_name, uint32_t group, const char* row_name,
                  uint32_t row_switch, const char* chan_name, uint32_t chan_switch, int w, int h) {
    const RowLayout want = row_layout(w);
    if (group != 1 && group != 2 && group != 4) {
        c.fatal(group_name, "is {}, expected 1, 2 or 4", group);
        return;
    }
    if (group != want.groups) {
        c.fail(group_name, "is {} but a row of width {} needs {} channel(s) per 64-byte line",
               group, w, want.groups);
    }
    if (row_switch != want.row_lines) {
        c.fail(row_name, "is {} but a row of width {} takes {} line(s)", row_switch, w,
               want.row_lines);
    }
    if (chan_switch != want.row_lines * static_cast<uint32_t>(h)) {
        c.fail(chan_name, "is {}, expected lines per row × height = {} × {} = {}", chan_switch,
               want.row_lines, h, want.row_lines * static_cast<uint32_t>(h));
    }
}

}  // namespace

bool any_fatal(const std::vector<Problem>& problems) {
    return std::any_of(problems.begin(), problems.end(), [](const Problem& p) { return p.fatal; });
}

namespace {

// The geometry and mode fields: kernel, pool, what the model does not cover, depthwise.
void check_modes(Checker& c, const LayerArgs& a) {
    const int w = a.in_width(), h = a.in_height();
    if (a.kernel_type > 1) {
        c.fatal("kernel_type", "is {}, expected 0 (1x1) or 1 (3x3)", a.kernel_type);
    }
    if (a.pool_type > 9) {
        c.fatal("pool_type", "is {}, expected 0..9", a.pool_type);
    } else {
        const int ow = pool_output_size(w, a.pool_type), oh = pool_output_size(h, a.pool_type);
        if (a.out_width() != ow || a.out_height() != oh) {
            c.fatal("o_row_wid", "output is {}x{} but a {}x{} input with pool_type {} gives {}x{}",
                    a.out_width(), a.out_height(), w, h, a.pool_type, ow, oh);
        }
    }
    if (a.first_stride) {
        c.fatal("first_stride", "is 1: input subsampling is not modelled (nncase never sets it)");
    }
    if (a.bypass_conv) {
        c.fatal("bypass_conv", "is 1: the hardware cannot skip the convolution");
    }
    if (a.full_add) {
        c.fatal("full_add",
                "is 1: the per-channel sum output is not modelled (its format is unknown)");
    }
    if (!a.load_para || !a.load_coor || !a.load_act) {
        c.fatal(!a.load_para   ? "load_para"
                : !a.load_coor ? "load_coor"
                               : "load_act",
                "is 0: layers without freshly loaded BN, weights and activation table are not "
                "modelled (the activation output would be all zero)");
    }
    if (a.depth_wise_layer && a.in_channels() != a.out_channels()) {
        c.fatal("depth_wise_layer", "is 1 but input channels {} != output channels {}",
                a.in_channels(), a.out_channels());
    }
}

// Both maps inside the 2 MiB RAM, addressed as the datapath addresses them: by the layout
// fields when they are usable, and never less than the natural layout needs.
void check_map_bounds(Checker& c, const LayerArgs& a) {
    auto end_of = [](uint32_t line, const FmapGeometry& fields) {
        uint64_t bytes = fmap_lines(fields.channels, fields.width, fields.height) * kLineBytes;
        if (fields.groups == 1 || fields.groups == 2 || fields.groups == 4) {
            bytes = std::max(bytes, fields.extent());
        }
        return uint64_t{line} * kLineBytes + bytes;
    };
    const uint64_t in_end =
        end_of(a.image_src_addr, {a.in_channels(), a.in_width(), a.in_height(), a.coef_group,
                                  a.row_switch_addr, a.channel_switch_addr});
    const uint64_t out_end =
        end_of(a.image_dst_addr, {a.out_channels(), a.out_width(), a.out_height(), a.wb_group,
                                  a.wb_row_switch_addr, a.wb_channel_switch_addr});
    if (in_end > kRamBytes) {
        c.fatal("image_src_addr",
                "input feature map at line {} ends at byte {:#x}, past the 2 MiB RAM",
                a.image_src_addr, in_end);
    }
    if (out_end > kRamBytes) {
        c.fatal("image_dst_addr",
                "output feature map at line {} ends at byte {:#x}, past the 2 MiB RAM",
                a.image_dst_addr, out_end);
    }
}

// Weight chunks: load_time + 1 chunks of para_size bytes, each (o_ch_num_coef + 1) kernels;
// the activation table's alignment; the output stream's length.
void check_parameters(Checker& c, const LayerArgs& a, bool eight_bit) {
    const int ic = a.in_channels(), oc = a.out_channels();
    if (a.active_addr % 256 != 0) {
        c.fail("active_addr", "is {:#x}, must be 256-byte aligned", a.active_addr);
    }
    const uint64_t k2 = static_cast<uint64_t>(a.kernel_size() * a.kernel_size());
    const uint64_t per_oc =
        k2 * (a.depth_wise_layer ? 1u : static_cast<uint64_t>(ic)) * (eight_bit ? 1u : 2u);
    const uint64_t oc_per_load = uint64_t{a.o_ch_num_coef} + 1;
    if (a.para_size != per_oc * oc_per_load) {
        c.fail("para_size",
               "is {}, expected (o_ch_num_coef + 1) × bytes per output channel = {} × {} = {}",
               a.para_size, oc_per_load, per_oc, per_oc * oc_per_load);
    }
    if ((uint64_t{a.load_time} + 1) * oc_per_load < static_cast<uint64_t>(oc)) {
        c.fail("load_time", "{} chunk(s) of {} output channels cover fewer than {} channels",
               a.load_time + 1, oc_per_load, oc);
    }
    if (a.send_data_out) {
        const uint64_t plane =
            static_cast<uint64_t>(a.out_width()) * static_cast<uint64_t>(a.out_height());
        if (a.dma_total_byte + uint64_t{1} != plane * static_cast<uint64_t>(oc)) {
            c.fail("dma_total_byte", "is {}, expected output bytes − 1 = {}", a.dma_total_byte,
                   plane * static_cast<uint64_t>(oc) - 1);
        }
    }
}

}  // namespace

std::vector<Problem> validate(const LayerArgs& a, bool eight_bit) {
    std::vector<Problem> out;
    Checker c(out);
    check_modes(c, a);
    check_layout(c, "coef_group", a.coef_group, "row_switch_addr", a.row_switch_addr,
                 "channel_switch_addr", a.channel_switch_addr, a.in_width(), a.in_height());
    check_layout(c, "wb_group", a.wb_group, "wb_row_switch_addr", a.wb_row_switch_addr,
                 "wb_channel_switch_addr", a.wb_channel_switch_addr, a.out_width(), a.out_height());
    check_map_bounds(c, a);
    check_parameters(c, a, eight_bit);
    return out;
}

std::string shape_summary(const LayerArgs& a) {
    return fmt::format("{}x{}x{} -> {}x{}x{} {}{}", a.in_channels(), a.in_height(), a.in_width(),
                       a.out_channels(), a.out_height(), a.out_width(),
                       a.kernel_size() == 3 ? "3x3" : "1x1", a.depth_wise_layer ? " dw" : "");
}

}  // namespace npu::kpu
