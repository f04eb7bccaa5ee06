#include "platforms/k210/kmodel/kmodel.h"

#include <fmt/format.h>

#include "models/k210_kpu/kpu_func.h"
#include "platforms/k210/kmodel/kmodel_ops.h"
#include "sim/core/bytes.h"
#include "sim/core/files.h"

namespace npu::k210 {

namespace {

constexpr uint32_t kMaxLayers = 65536;

// The 12 words of a KPU layer. The two fields the feature-map layout divides by (maps per
// 64-byte line) are checked here, before anything lays out a map with them.
kpu::LayerArgs read_args(sim::ByteReader& r) {
    const size_t at = r.pos();
    kpu::Words w;
    for (uint64_t& x : w) {
        x = r.u64("kpu_layer_argument_t");
    }
    const kpu::LayerArgs a = kpu::decode(w);
    for (const auto& [name, v] :
         {std::pair{"coef_group", a.coef_group}, {"wb_group", a.wb_group}}) {
        if (v != 1 && v != 2 && v != 4) {
            r.fail(at, "kpu_layer_argument_t",
                   fmt::format("{} is {}, expected 1, 2 or 4 (feature maps per 64-byte line)", name,
                               v));
        }
    }
    return a;
}

// Locates and checks the tables of one conv layer (offsets already known).
void check_tables(sim::ByteReader& r, KpuConvLayer& c, bool eight_bit) {
    c.weights_bytes = kpu::weight_bytes(c.args, eight_bit);
    r.seek(c.bn_offset, "batch-norm table");
    r.skip(static_cast<size_t>(c.args.out_channels()) * 8, "batch-norm table");
    r.seek(c.act_offset, "activation table");
    r.skip(kpu::kActTableBytes, "activation table");
    r.seek(c.weights_offset, "weights");
    r.skip(c.weights_bytes, "weights");
}

void parse_v3(sim::ByteReader& r, Kmodel& m) {
    r.u32("version");
    const uint32_t flags = r.u32("flags");
    m.eight_bit = (flags & 1) != 0;
    const uint32_t arch = r.u32("arch");
    if (arch != 0) {
        r.fail(8, "arch", fmt::format("is {}, expected 0", arch));
    }
    const size_t at_layers = r.pos();
    const uint32_t n_layers = r.count("layers_length", 8);
    if (n_layers == 0 || n_layers > kMaxLayers) {
        r.fail(at_layers, "layers_length",
               fmt::format("is {}, expected 1..{}", n_layers, kMaxLayers));
    }
    r.u32("max_start_address");
    m.main_mem_bytes = r.u32("main_mem_usage");
    const uint32_t n_outputs = r.count("output_count", 8);
    for (uint32_t i = 0; i < n_outputs; ++i) {
        KmodelIo o;
        o.range.start = r.u32("output address");
        o.range.size = r.u32("output size");
        o.shape[3] = static_cast<int32_t>(o.range.size / 4);
        m.outputs.push_back(o);
    }
    std::vector<std::pair<uint32_t, uint32_t>> headers(n_layers);
    for (auto& [type, size] : headers) {
        type = r.u32("layer type");
        size = r.u32("layer body_size");
    }
    size_t body = r.pos();
    for (uint32_t i = 0; i < n_layers; ++i) {
        const auto [type, size] = headers[i];
        // The last body's 8-byte padding may be missing from the file (nncase v0.1 writer).
        const bool last = i + 1 == n_layers;
        if (size > r.size() - std::min(body, r.size()) + (last ? 7u : 0u)) {
            r.fail(body, "layer body",
                   fmt::format("layer {} ({}) declares {} bytes, the file has {} left", i,
                               v3_layer_name(type), size, r.size() - std::min(body, r.size())));
        }
        m.layers.push_back({type, body, size, v3_layer_name(type)});
        if (type == k210::op::kV3Conv) {
            r.seek(body, "K210_CONV body");
            KpuConvLayer c;
            c.layer_index = i;
            const uint32_t lflags = r.u32("K210_CONV flags");
            c.main_mem_out = (lflags & 1) != 0;
            c.main_mem_out_address = r.u32("main_mem_out_address");
            c.args_offset = r.u32("layer_offset");
            c.weights_offset = r.u32("weights_offset");
            c.bn_offset = r.u32("bn_offset");
            c.act_offset = r.u32("act_offset");
            r.seek(c.args_offset, "layer_offset");
            c.args = read_args(r);
            check_tables(r, c, m.eight_bit);
            m.convs.push_back(c);
        }
        body += size;
    }
}

// A kpu_conv2d body at `body` (`size` bytes): its main-memory output, batches, layer
// arguments and the tables that follow them.
KpuConvLayer read_v4_conv(sim::ByteReader& r, size_t index, size_t body, uint32_t size) {
    r.seek(body, "kpu_conv2d body");
    KpuConvLayer c;
    c.layer_index = index;
    r.u32("main_mem_output.memory_type");
    r.u32("main_mem_output.datatype");
    c.main_mem_out_address = r.u32("main_mem_output.start");
    c.main_mem_out_size = r.u32("main_mem_output.size");
    c.main_mem_out = c.main_mem_out_size != 0;
    const size_t at_batches = r.pos();
    c.batches = r.u32("batches");
    if (c.batches == 0 || c.batches > 4096) {
        r.fail(at_batches, "kpu_conv2d batches", fmt::format("is {}, expected 1..4096", c.batches));
    }
    r.u32("reserved0");
    c.args_offset = r.pos();
    c.args = read_args(r);
    // Each table follows the previous element after a padding skip stored in its pointer.
    c.bn_offset = r.pos() + c.args.bwsx_base_addr;
    c.act_offset =
        c.bn_offset + static_cast<size_t>(c.args.out_channels()) * 8 + c.args.active_addr;
    c.weights_offset = c.act_offset + kpu::kActTableBytes + c.args.para_start_addr;
    check_tables(r, c, true);
    if (r.pos() > body + size) {
        r.fail(
            body, "kpu_conv2d body",
            fmt::format("the layer's tables end at {:#x}, past the {}-byte body", r.pos(), size));
    }
    return c;
}

// The v4 header's inputs (memory ranges, then shapes) and outputs.
void read_v4_io(sim::ByteReader& r, Kmodel& m, uint32_t n_inputs, uint32_t n_outputs) {
    m.inputs.resize(n_inputs);
    for (KmodelIo& in : m.inputs) {
        in.range = read_memory_range(r, "input memory_range");
    }
    for (KmodelIo& in : m.inputs) {
        for (int32_t& d : in.shape) {
            d = r.i32("input shape");
        }
    }
    m.outputs.resize(n_outputs);
    for (KmodelIo& out : m.outputs) {
        out.range = read_memory_range(r, "output memory_range");
        out.shape[3] = static_cast<int32_t>(out.range.datatype == kFloat32 ? out.range.size / 4
                                                                           : out.range.size);
    }
}

void parse_v4(sim::ByteReader& r, Kmodel& m) {
    r.u32("version");
    r.u32("flags");
    const uint32_t target = r.u32("target");
    if (target > 1) {
        r.fail(12, "target", fmt::format("is {}, expected 0 (CPU) or 1 (K210)", target));
    }
    const uint32_t constants = r.u32("constants");
    m.main_mem_bytes = r.u32("main_mem");
    const size_t at_nodes = r.pos();
    const uint32_t n_nodes = r.count("nodes", 8);
    if (n_nodes == 0 || n_nodes > kMaxLayers) {
        r.fail(at_nodes, "nodes", fmt::format("is {}, expected 1..{}", n_nodes, kMaxLayers));
    }
    const uint32_t n_inputs = r.count("inputs", 32);
    const uint32_t n_outputs = r.count("outputs", 16);
    r.u32("reserved0");
    read_v4_io(r, m, n_inputs, n_outputs);
    m.constants_offset = r.pos();
    m.constants_bytes = constants;
    r.skip(constants, "constants");
    std::vector<std::pair<uint32_t, uint32_t>> headers(n_nodes);
    for (auto& [op, size] : headers) {
        op = r.u32("node opcode");
        size = r.u32("node body_size");
    }
    size_t body = r.pos();
    for (uint32_t i = 0; i < n_nodes; ++i) {
        const auto [op, size] = headers[i];
        // nncase's serializer pads each body to 8 bytes by seeking, so the last body of a file
        // may lack up to 7 of its declared bytes; its runtime never checks the size.
        const bool last = i + 1 == n_nodes;
        if (size > r.size() - body + (last ? 7u : 0u)) {
            r.fail(body, "node body",
                   fmt::format("node {} ({}) declares {} bytes, the file has {} left", i,
                               v4_opcode_name(op), size, r.size() - body));
        }
        m.layers.push_back({op, body, size, v4_opcode_name(op)});
        if (op == k210::op::kV4Conv) {
            m.convs.push_back(read_v4_conv(r, i, body, size));
        }
        body += size;
    }
}

}  // namespace

MemoryRange read_memory_range(sim::ByteReader& r, const char* what) {
    MemoryRange m;
    const size_t at = r.pos();
    m.memory_type = r.u32(what);
    m.datatype = r.u32(what);
    m.start = r.u32(what);
    m.size = r.u32(what);
    if (m.memory_type > 2) {
        r.fail(at, what,
               "memory_type is " + std::to_string(m.memory_type) +
                   ", expected 0 (const), 1 (main) or 2 (kpu)");
    }
    if (m.datatype > 1) {
        r.fail(at + 4, what,
               "datatype is " + std::to_string(m.datatype) + ", expected 0 (f32) or 1 (u8)");
    }
    return m;
}

kpu::LayerParams conv_params(const Kmodel& m, const KpuConvLayer& c) {
    kpu::LayerParams p;
    p.weights = m.bytes.data() + c.weights_offset;
    for (size_t o = 0; o < static_cast<size_t>(c.args.out_channels()); ++o) {
        p.bn.push_back(
            kpu::decode_bn(boost::endian::load_little_u64(m.bytes.data() + c.bn_offset + 8 * o)));
    }
    p.act = kpu::decode_act(m.bytes.data() + c.act_offset);
    return p;
}

sim::ByteReader body_reader(const Kmodel& m, const KmodelLayer& l, const char* what) {
    sim::ByteReader r(m.bytes.data(), m.bytes.size(), m.name);
    r.seek(l.body_offset, what);
    return r;
}

kpu::LayerArgs KpuConvLayer::runtime_args(uint32_t file_bus_addr) const {
    kpu::LayerArgs a = args;
    a.para_start_addr = file_bus_addr + static_cast<uint32_t>(weights_offset);
    a.bwsx_base_addr = file_bus_addr + static_cast<uint32_t>(bn_offset);
    a.active_addr = file_bus_addr + static_cast<uint32_t>(act_offset);
    return a;
}

Kmodel parse_kmodel(std::vector<uint8_t> bytes, const std::string& name) {
    Kmodel m;
    m.name = name;
    m.bytes = std::move(bytes);
    sim::ByteReader r(m.bytes.data(), m.bytes.size(), name);
    if (m.bytes.size() >= 8 && std::memcmp(m.bytes.data(), "LDMK", 4) == 0) {
        r.skip(4, "identifier");
        const uint32_t version = boost::endian::load_little_u32(m.bytes.data() + 4);
        if (version != 4) {
            r.fail(4, "version",
                   fmt::format("KMDL version {} is not supported: expected 4 (nncase "
                               "v0.2); version 5 (nncase v1) is not supported yet",
                               version));
        }
        m.version = 4;
        parse_v4(r, m);
    } else if (m.bytes.size() >= 4 && boost::endian::load_little_u32(m.bytes.data()) == 3) {
        m.version = 3;
        parse_v3(r, m);
    } else {
        r.fail(0, "header", "not a kmodel: expected version 3 or the identifier 'KMDL' version 4");
    }
    return m;
}

Kmodel load_kmodel(const std::string& path) {
    return parse_kmodel(sim::read_file(path), path);
}

const char* v3_layer_name(uint32_t type) {
    const KmodelOp* op = find_op(3, type);
    return op != nullptr ? op->name : "unknown";
}

const char* v4_opcode_name(uint32_t op) {
    const KmodelOp* entry = find_op(4, op);
    return entry != nullptr ? entry->name : "unknown";
}

}  // namespace npu::k210
