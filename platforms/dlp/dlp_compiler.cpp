#include "platforms/dlp/dlp_compiler.h"

#include <cstring>
#include <functional>

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include "models/dlp/dlp_exec.h"
#include "sim/core/address_map.h"
#include "sim/core/error.h"

namespace npu::dlp {

namespace {

uint64_t align(uint64_t v, uint64_t a) {
    return (v + a - 1) / a * a;
}

void append_f32(std::vector<uint8_t>& out, const std::vector<float>& v) {
    for (float f : v) {
        uint32_t b = 0;
        std::memcpy(&b, &f, 4);
        uint8_t le[4];
        boost::endian::store_little_u32(le, b);
        out.insert(out.end(), le, le + 4);
    }
}

void append_i32(std::vector<uint8_t>& out, const std::vector<int32_t>& v) {
    for (int32_t x : v) {
        uint8_t le[4];
        boost::endian::store_little_u32(le, static_cast<uint32_t>(x));
        out.insert(out.end(), le, le + 4);
    }
}

void pad_to(std::vector<uint8_t>& v, uint64_t a) {
    v.resize(align(v.size(), a), 0);
}

// Where each layer's output and parameters are: its scheduler slot (every layer but the last
// and those a concat holds, which write into the concat's image), its weights and bias inside
// the conv or fc weight block.
struct Placement {
    std::vector<uint64_t> slot, w_off, b_off;
    std::vector<ConcatSlot> held;
    uint64_t scheduler_addr = 0;
    uint64_t conv_bytes = 0, fc_bytes = 0;  // the weight blocks' sizes
};

// An adder's constant operand as the image it reads: each channel's value over the map, in
// conv format (64-byte aligned) at the end of the conv weight block.
void pack_constant(const Network& n, const Layer& l, const DlpConfig& cfg,
                   std::vector<uint8_t>& buf) {
    const ActShape s = input_shape(n, l);
    const auto plane = static_cast<size_t>(s.h * s.w);
    std::vector<uint8_t> image;
    if (cfg.data_type == DataType::single) {
        std::vector<float> chw;
        for (float v : l.constant) {
            chw.insert(chw.end(), plane, v);
        }
        image = format_activation(chw, s, cfg);
    } else {
        std::vector<int8_t> chw;
        for (int8_t v : l.constant_q) {
            chw.insert(chw.end(), plane, v);
        }
        image = format_activation(chw, s, cfg);
    }
    buf.insert(buf.end(), image.begin(), image.end());
    pad_to(buf, 64);
}

// The bytes of one layer's parameters: weights (float32 or int8) and bias (float32 or int32).
void append_parameters(const Layer& l, bool single, std::vector<uint8_t>& buf) {
    if (single) {
        append_f32(buf, l.weights);
    } else {
        buf.insert(buf.end(), reinterpret_cast<const uint8_t*>(l.weights_q.data()),
                   reinterpret_cast<const uint8_t*>(l.weights_q.data()) + l.weights_q.size());
    }
    pad_to(buf, 64);
    single ? append_f32(buf, l.bias) : append_i32(buf, l.bias_q);
    pad_to(buf, 64);
}

// Per layer weights then bias, each 64-byte aligned, into the conv or fc weight block; an adder's
// constant operand into the conv block. The offsets come from the sizes alone; `layout_only`
// writes no bytes (a sweep costs layouts, not weights).
void pack_weights(const Network& n, const DlpConfig& cfg, bool layout_only, Program& p,
                  Placement& pl) {
    const bool single = cfg.data_type == DataType::single;
    pl.w_off.assign(n.layers.size(), 0);
    pl.b_off.assign(n.layers.size(), 0);
    for (size_t i = 0; i < n.layers.size(); ++i) {
        const Layer& l = n.layers[i];
        if (l.input2 == kConstantOperand && is_adder(l.kind)) {
            pl.w_off[i] = pl.conv_bytes;
            pl.conv_bytes += align(input_image_bytes(input_shape(n, l), cfg), 64);
            if (!layout_only) {
                pack_constant(n, l, cfg, p.conv_weights);
            }
            continue;
        }
        if (l.kind != LayerKind::conv && l.kind != LayerKind::fc) {
            continue;
        }
        uint64_t& size = l.kind == LayerKind::conv ? pl.conv_bytes : pl.fc_bytes;
        pl.w_off[i] = size;
        size += align(weight_count(l) * element_bytes(cfg.data_type), 64);
        pl.b_off[i] = size;
        size += align(bias_count(l) * 4, 64);
        if (!layout_only) {
            append_parameters(l, single, l.kind == LayerKind::conv ? p.conv_weights : p.fc_weights);
        }
    }
    if (!layout_only &&
        (p.conv_weights.size() != pl.conv_bytes || p.fc_weights.size() != pl.fc_bytes)) {
        throw sim::Error(fmt::format(
            "{}: the weight blocks hold {} and {} bytes, their layout {} "
            "and {} (a layer's parameters missing)",
            n.name, p.conv_weights.size(), p.fc_weights.size(), pl.conv_bytes, pl.fc_bytes));
    }
}

// The memory map (the toolbox's offset names, 4 KiB aligned) and every layer's placement.
Placement lay_out(const Network& n, const DlpConfig& cfg, const CompileOptions& opts, Program& p) {
    uint64_t at = opts.ddr_base_addr;
    auto region = [&](const char* name, uint64_t size) {
        at = align(at, 4096);
        p.map.push_back({name, at, size});
        const uint64_t start = at;
        at += size;
        return start;
    };
    p.input_frame_bytes = align(input_image_bytes(n.input, cfg), 64);
    p.output_frame_bytes = align(image_bytes(n.layers.back(), cfg), 64);
    p.input_addr = region("InputDataOffset", p.input_frame_bytes * p.frames);
    p.output_addr = region("OutputResultOffset", p.output_frame_bytes * p.frames);
    // Scheduler: one slot per intermediate layer output (the last layer writes the results).
    Placement pl;
    pl.slot.assign(n.layers.size(), 0);
    pl.held = concat_slots(n, cfg);
    uint64_t scheduler = 0;
    for (size_t i = 0; i + 1 < n.layers.size(); ++i) {
        if (pl.held[i].concat >= 0) {
            continue;
        }
        pl.slot[i] = scheduler;
        scheduler += align(image_bytes(n.layers[i], cfg), 64);
    }
    pl.scheduler_addr = region("SchedulerDataOffset", scheduler);
    region("SystemBufferOffset", opts.system_buffer_bytes);
    p.instruction_addr = region("InstructionDataOffset", n.layers.size() * kRecordBytes);
    pack_weights(n, cfg, opts.layout_only, p, pl);
    p.conv_weight_addr = region("ConvWeightDataOffset", pl.conv_bytes);
    p.fc_weight_addr = region("FCWeightDataOffset", pl.fc_bytes);
    p.end_addr = align(at, 4096);
    p.map.push_back({"EndOffset", p.end_addr, 0});
    if (p.end_addr > (uint64_t{1} << 32)) {
        throw sim::Error(
            fmt::format("{}: the program needs DDR up to {:#x}, beyond 32-bit "
                        "addresses",
                        n.name, p.end_addr));
    }
    return pl;
}

// Layer i's record, with the placement of frame 0 (the processor offsets by the frame for the
// network input and the results).
Record record_of(const Network& n, const DlpConfig& cfg, const Program& p, const Placement& pl,
                 size_t i) {
    // A layer a concat holds writes at its offset in the concat's image (nested concats too).
    std::function<uint64_t(size_t)> out_addr = [&](size_t k) -> uint64_t {
        if (pl.held[k].concat >= 0) {
            return out_addr(static_cast<size_t>(pl.held[k].concat)) + pl.held[k].offset;
        }
        return k + 1 == n.layers.size() ? p.output_addr : pl.scheduler_addr + pl.slot[k];
    };
    auto image_of = [&](int src) {
        return src < 0 ? input_image_bytes(n.input, cfg)
                       : image_bytes(n.layers[static_cast<size_t>(src)], cfg);
    };
    auto addr_of = [&](int src) {
        return src < 0 ? p.input_addr : out_addr(static_cast<size_t>(src));
    };
    const Layer& l = n.layers[i];
    Record r;
    r.layer = l;
    r.layer.weights.clear(), r.layer.bias.clear(), r.layer.weights_q.clear(),
        r.layer.bias_q.clear(), r.layer.constant.clear(), r.layer.constant_q.clear();
    r.last = i + 1 == n.layers.size();
    r.input = input_shape(n, l);
    r.input_fc_format =
        l.input >= 0 && n.layers[static_cast<size_t>(l.input)].kind == LayerKind::fc;
    LayerPlacement& lp = r.place;
    lp.input_addr =
        static_cast<uint32_t>(l.kind == LayerKind::concat ? out_addr(i) : addr_of(l.input));
    lp.input_bytes = l.kind == LayerKind::concat ? 0 : image_of(l.input);
    if (is_adder(l.kind) && l.input2 == kConstantOperand) {
        lp.input2_addr = static_cast<uint32_t>(p.conv_weight_addr + pl.w_off[i]);
        lp.input2_bytes = lp.input_bytes;
    } else if (is_adder(l.kind)) {
        lp.input2_addr = static_cast<uint32_t>(addr_of(l.input2));
        lp.input2_bytes = image_of(l.input2);
    }
    lp.output_addr = static_cast<uint32_t>(out_addr(i));
    lp.output_bytes = image_bytes(l, cfg);
    if (l.kind == LayerKind::conv || l.kind == LayerKind::fc) {
        const uint64_t base = l.kind == LayerKind::conv ? p.conv_weight_addr : p.fc_weight_addr;
        lp.weight_addr = static_cast<uint32_t>(base + pl.w_off[i]);
        lp.weight_bytes = weight_count(l) * element_bytes(cfg.data_type);
        lp.bias_addr = static_cast<uint32_t>(base + pl.b_off[i]);
        lp.bias_bytes = bias_count(l) * 4;
    }
    return r;
}

}  // namespace

Program compile(const Network& n, const DlpConfig& cfg, const CompileOptions& opts) {
    if (opts.frames < 1 || opts.frames > 65536) {
        throw sim::Error(fmt::format("frame count is {}, expected 1..65536", opts.frames));
    }
    Program p;
    p.frames = opts.frames;
    const Placement pl = lay_out(n, cfg, opts, p);
    for (size_t i = 0; i < n.layers.size(); ++i) {
        p.records.push_back(record_of(n, cfg, p, pl, i));
        if (opts.layout_only) {
            continue;
        }
        const auto bytes = encode(p.records.back());
        p.instructions.insert(p.instructions.end(), bytes.begin(), bytes.end());
    }
    return p;
}

std::string Program::table() const {
    std::string s =
        fmt::format("{:<24} {:>16} {:>16}\n", "offset_name", "offset_address", "allocated_space");
    for (const MemoryRegion& r : map) {
        s += fmt::format("{:<24} {:>16} {:>16}\n", r.name, fmt::format("{:#010x}", r.addr),
                         r.name == "EndOffset"
                             ? fmt::format("Total: {}", sim::format_size(end_addr - map[0].addr))
                             : sim::format_size(r.size));
    }
    return s;
}

}  // namespace npu::dlp
