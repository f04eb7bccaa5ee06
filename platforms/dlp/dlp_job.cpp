#include "platforms/dlp/dlp_job.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <random>

#include <fmt/format.h>

#include "platforms/dlp/dlp_onnx.h"
#include "platforms/dlp/dlp_quantize.h"
#include "sim/core/error.h"
#include "sim/core/npy.h"
#include "sim/onnx/onnx_import.h"

namespace npu::dlp {

namespace {

// A key that is a number or a list of `n` numbers.
std::vector<int64_t> ints(const sim::ConfigNode& n, const char* key, size_t count,
                          int64_t fallback) {
    std::vector<int64_t> v(count, fallback);
    auto node = n.optional_node(key);
    if (!node) {
        return v;
    }
    const std::vector<sim::ConfigNode> e = node->elements();
    if (e.empty()) {
        v.assign(count, node->as<int64_t>());
    } else if (e.size() == count) {
        for (size_t i = 0; i < count; ++i) {
            v[i] = e[i].as<int64_t>();
        }
    } else {
        n.error_at(key, fmt::format("expected a number or a list of {}", count));
    }
    return v;
}

Activation activation(const sim::ConfigNode& n) {
    return n.get_enum<Activation>("activation", Activation::none,
                                  {{"none", Activation::none},
                                   {"relu", Activation::relu},
                                   {"leaky_relu", Activation::leaky_relu},
                                   {"clipped_relu", Activation::clipped_relu}});
}

}  // namespace

DlpPlatformConfig read_dlp_platform(const sim::ConfigNode& p) {
    DlpPlatformConfig c;
    c.name = p.get<std::string>("name", c.name);
    p.get<std::string>("kind", "dlp");
    if (auto d = p.optional_child("dlp")) {
        c.dlp = read_dlp_config(*d);
    }
    if (auto t = p.optional_child("timing")) {
        for (auto [key, dst] :
             {std::pair<const char*, uint64_t*>{"conv_setup_cycles", &c.timing.conv_setup_cycles},
              {"adder_setup_cycles", &c.timing.adder_setup_cycles},
              {"fc_setup_cycles", &c.timing.fc_setup_cycles},
              {"start_cycles", &c.timing.start_cycles}}) {
            *dst = t->get<uint64_t>(key, *dst, 0u, 1u << 30);
        }
        c.timing.tile_overhead_cycles =
            t->get<uint64_t>("tile_overhead_cycles", c.timing.tile_overhead_cycles, 0u, 1u << 30);
        c.timing.taps_per_pass = t->get<uint64_t>("taps_per_pass", c.timing.taps_per_pass, 1u, 49u);
        c.timing.overlap = t->get<bool>("overlap", c.timing.overlap);
    }
    if (auto d = p.optional_child("ddr")) {
        c.ddr_base_addr = d->get<uint64_t>("base_addr", c.ddr_base_addr);
        c.ddr_size_bytes = d->get_bytes("size_bytes", c.ddr_size_bytes);
    }
    if (auto r = p.optional_child("registers")) {
        c.register_base_addr = r->get<uint64_t>("base_addr", c.register_base_addr);
    }
    if (auto f = p.optional_child("fpga")) {
        c.fpga.part = f->get<std::string>("part", c.fpga.part);
        c.fpga.family =
            f->get_enum<FpgaFamily>("family", c.fpga.family,
                                    {{"xilinx", FpgaFamily::xilinx}, {"intel", FpgaFamily::intel}});
        for (auto [key, dst] : {std::pair<const char*, uint64_t*>{"dsp", &c.fpga.dsp},
                                {"bram", &c.fpga.bram},
                                {"lut", &c.fpga.lut}}) {
            *dst = f->get<uint64_t>(key, *dst, 0u, uint64_t{1} << 40);
        }
    }
    return c;
}

namespace {

// A conv layer's keys (kernel, stride, padding, groups, activation, pooling, batch_norm).
void read_conv(const sim::ConfigNode& ln, Layer& l) {
    ConvLayer& c = l.conv;
    c.out_c = ln.get<int64_t>("out_channels", 1, 1, 1 << 16);
    const auto k = ints(ln, "kernel", 2, 3);
    c.kernel_h = k[0], c.kernel_w = k[1];
    const auto s = ints(ln, "stride", 2, 1);
    c.stride_h = s[0], c.stride_w = s[1];
    const auto pad = ints(ln, "padding", 4, 0);
    c.pad_top = pad[0], c.pad_bottom = pad[1], c.pad_left = pad[2], c.pad_right = pad[3];
    if (ln.has("groups") && ln.get<std::string>("groups", "") == "depthwise") {
        c.groups = 0;  // resolved to in_c by check_network
    } else {
        c.groups = ln.get<int64_t>("groups", 1, 1, 1 << 16);
    }
    c.activation = activation(ln);
    c.leaky_slope = ln.get<float>("leaky_slope", c.leaky_slope);
    c.clip_ceiling = ln.get<float>("clip_ceiling", c.clip_ceiling);
    c.pool = ln.get_enum<PoolType>(
        "pool", PoolType::none,
        {{"none", PoolType::none}, {"max", PoolType::max}, {"average", PoolType::average}});
    const auto ps = ints(ln, "pool_size", 2, 2);
    c.pool_h = ps[0], c.pool_w = ps[1];
    const auto pst = ints(ln, "pool_stride", 2, 2);
    c.pool_stride_h = pst[0], c.pool_stride_w = pst[1];
    const auto pp = ints(ln, "pool_padding", 4, 0);
    c.pool_pad_top = pp[0], c.pool_pad_bottom = pp[1], c.pool_pad_left = pp[2],
    c.pool_pad_right = pp[3];
    if (auto bn = ln.optional_child("batch_norm")) {
        auto values = [&](const char* key) {
            std::vector<float> v;
            for (const sim::ConfigNode& e : bn->items(key)) {
                v.push_back(e.as<float>());
            }
            return v;
        };
        l.batch_norm.gamma = values("gamma");
        l.batch_norm.beta = values("beta");
        l.batch_norm.mean = values("mean");
        l.batch_norm.variance = values("variance");
        l.batch_norm.epsilon = bn->get<float>("epsilon", l.batch_norm.epsilon);
    }
}

// `inputs:` (a name or a list of one or two names) resolved against the layers so far; without
// it, the previous layer (or the network input).
void read_inputs(const sim::ConfigNode& ln, const std::map<std::string, int>& index, int previous,
                 Layer& l) {
    auto source = [&](const std::string& name) {
        auto it = index.find(name);
        if (it == index.end()) {
            ln.error_at("inputs", fmt::format("no earlier layer named '{}'", name));
            return -1;
        }
        return it->second;
    };
    l.input = previous;
    if (auto inputs = ln.optional_node("inputs")) {
        const std::vector<sim::ConfigNode> e = inputs->elements();
        if (e.empty()) {
            l.input = source(inputs->as<std::string>());
        } else if (l.kind == LayerKind::concat) {  // every input, in channel order
            for (const sim::ConfigNode& x : e) {
                l.inputs.push_back(source(x.as<std::string>()));
            }
            l.input = l.inputs[0];
        } else {
            l.input = source(e[0].as<std::string>());
            if (e.size() > 1) {
                l.input2 = source(e[1].as<std::string>());
            }
        }
    }
    if (l.kind == LayerKind::concat && l.inputs.empty()) {
        ln.error_at("type", "a concat needs its inputs as a list: [a, b, ...]");
    }
}

// Floats of `key`: a number or a list.
std::vector<float> floats(const sim::ConfigNode& n, const char* key) {
    std::vector<float> v;
    auto node = n.optional_node(key);
    if (!node) {
        return v;
    }
    const std::vector<sim::ConfigNode> e = node->elements();
    if (e.empty()) {
        v.push_back(node->as<float>());
    }
    for (const sim::ConfigNode& x : e) {
        v.push_back(x.as<float>());
    }
    return v;
}

void read_adder(const sim::ConfigNode& ln, Layer& l) {
    if (ln.has("constant")) {
        if (l.input2 != -1) {
            ln.error_at("constant", "an adder with a constant operand takes one input");
        }
        l.input2 = kConstantOperand;
        l.constant = floats(ln, "constant");
    } else if (l.input2 == -1 && !ln.has("inputs")) {
        ln.error_at("inputs", "an adder layer needs two inputs: [a, b], or one and a constant");
    }
    l.conv.activation = activation(ln);  // the adder's activation: none or relu
}

// A pooling layer of the conv module: `pool` (max, average), pool_size, pool_stride,
// pool_padding; or type global_average_pool.
void read_pool(const sim::ConfigNode& ln, bool global, Layer& l) {
    ConvLayer& c = l.conv;
    l.global_pool = global;
    if (global) {
        c.pool = PoolType::average;
        return;
    }
    c.pool = ln.get_enum<PoolType>("pool", PoolType::max,
                                   {{"max", PoolType::max}, {"average", PoolType::average}});
    const auto ps = ints(ln, "pool_size", 2, 2);
    c.pool_h = ps[0], c.pool_w = ps[1];
    const auto pst = ints(ln, "pool_stride", 2, ps[0]);
    c.pool_stride_h = pst[0], c.pool_stride_w = ln.has("pool_stride") ? pst[1] : ps[1];
    const auto pp = ints(ln, "pool_padding", 4, 0);
    c.pool_pad_top = pp[0], c.pool_pad_bottom = pp[1], c.pool_pad_left = pp[2],
    c.pool_pad_right = pp[3];
}

// Integers of `key` in lo..hi, or none.
template <typename T>
std::vector<T> integers(const sim::ConfigNode& ln, const char* key, int64_t lo, int64_t hi) {
    std::vector<T> v;
    for (const sim::ConfigNode& e : ln.optional_items(key)) {
        const auto x = e.as<int64_t>();
        if (x < lo || x > hi) {
            ln.error_at(key, fmt::format("{} is outside {}..{}", x, lo, hi));
            return {};
        }
        v.push_back(static_cast<T>(x));
    }
    return v;
}

// Parameters given in the file: `weights`/`bias` (floats, single) or `weights_q` (int8) and
// `bias_q` (int32, at in_exp + w_exp); the rest are generated from the seed.
void read_parameters(const sim::ConfigNode& ln, Layer& l) {
    for (const sim::ConfigNode& e : ln.optional_items("weights")) {
        l.weights.push_back(e.as<float>());
    }
    for (const sim::ConfigNode& e : ln.optional_items("bias")) {
        l.bias.push_back(e.as<float>());
    }
    l.weights_q = integers<int8_t>(ln, "weights_q", -128, 127);
    l.bias_q = integers<int32_t>(ln, "bias_q", INT32_MIN, INT32_MAX);
}

Layer read_layer(const sim::ConfigNode& ln, const std::map<std::string, int>& index, int previous) {
    Layer l;
    l.name = ln.get<std::string>("name", fmt::format("layer{}", previous + 1));
    // global_average_pool is a pool layer whose window is its whole input.
    constexpr auto kGlobalPool = static_cast<LayerKind>(0x100);
    l.kind = ln.get_enum<LayerKind>("type", LayerKind::conv,
                                    {{"conv", LayerKind::conv},
                                     {"fc", LayerKind::fc},
                                     {"add", LayerKind::add},
                                     {"multiply", LayerKind::multiply},
                                     {"pool", LayerKind::pool},
                                     {"concat", LayerKind::concat},
                                     {"global_average_pool", kGlobalPool}});
    const bool global = l.kind == kGlobalPool;
    if (global) {
        l.kind = LayerKind::pool;
    }
    read_inputs(ln, index, previous, l);
    l.quant.w_exp = ln.get<int32_t>("w_exp", 0, -31, 31);
    l.quant.out_exp = ln.get<int32_t>("out_exp", 0, -31, 31);
    if (l.kind == LayerKind::conv) {
        read_conv(ln, l);
    } else if (l.kind == LayerKind::pool) {
        read_pool(ln, global, l);
    } else if (l.kind == LayerKind::fc) {
        l.fc.out = ln.get<int64_t>("out_features", 1, 1, 1 << 20);
        l.fc.activation = activation(ln);
        l.fc.output = ln.get_enum<FcLayer::Output>("output", FcLayer::Output::plain,
                                                   {{"plain", FcLayer::Output::plain},
                                                    {"softmax", FcLayer::Output::softmax},
                                                    {"sigmoid", FcLayer::Output::sigmoid}});
    } else if (l.kind != LayerKind::concat) {
        read_adder(ln, l);
    }
    read_parameters(ln, l);
    return l;
}

}  // namespace

NetworkFile read_network(const sim::ConfigNode& n) {
    NetworkFile f;
    Network& net = f.network;
    net.name = n.get<std::string>("name", net.name);
    f.frames = n.get<uint32_t>("frames", 1, 1u, 65536u);
    f.seed = n.get<uint32_t>("seed", 1);
    net.input_exp = n.get<int32_t>("input_exp", 0, -31, 31);
    const sim::ConfigNode in = n.child("input");
    net.input.z = in.get<int64_t>("channels", 1, 1, 1 << 16);
    net.input.h = in.get<int64_t>("height", 1, 1, 1 << 14);
    net.input.w = in.get<int64_t>("width", 1, 1, 1 << 14);
    std::map<std::string, int> index{{"input", -1}};
    for (const sim::ConfigNode& ln : n.items("layers")) {
        Layer l = read_layer(ln, index, static_cast<int>(net.layers.size()) - 1);
        if (index.count(l.name) != 0) {
            ln.error_at("name", fmt::format("'{}' is used twice", l.name));
        }
        index[l.name] = static_cast<int>(net.layers.size());
        net.layers.push_back(l);
    }
    // The input's normalization on the processor (dlhdl's imageinput_norm_add, imageinput_norm).
    if (auto norm = in.optional_child("normalization")) {
        const std::vector<float> mean = floats(*norm, "mean"), std = floats(*norm, "std");
        const auto out_exp = norm->get<int32_t>("out_exp", net.input_exp, -31, 31);
        if (mean.empty() && std.empty()) {
            norm->error_at("mean", "normalization needs mean, std or both");
        } else if (!net.layers.empty()) {
            add_input_normalization(net, mean, std);
            for (size_t i = 0; i < (mean.empty() || std.empty() ? 1u : 2u); ++i) {
                net.layers[i].quant.out_exp = out_exp;
            }
        }
    }
    return f;
}

std::vector<std::vector<float>> read_samples(const std::string& path, const NetworkFile& f,
                                             std::string& note) {
    constexpr size_t kRandomSamples = 16;
    const Network& n = f.network;
    const auto per = static_cast<size_t>(n.input.z * n.input.h * n.input.w);
    std::vector<std::vector<float>> out;
    if (path.empty()) {
        std::mt19937 rng(f.seed);
        std::uniform_real_distribution<float> u(-1, 1);
        for (size_t k = 0; k < kRandomSamples; ++k) {
            std::vector<float> x(per);
            std::generate(x.begin(), x.end(), [&] { return u(rng); });
            out.push_back(std::move(x));
        }
        note = fmt::format("{} pseudo-random samples (uniform −1..1, seed {})", kRandomSamples,
                           f.seed);
        return out;
    }
    const sim::Tensor t = sim::read_npy(path);
    if (t.dtype() != sim::DType::f32 || t.numel() == 0 || t.numel() % per != 0) {
        throw sim::Error(fmt::format("{}: {} of {}, expected float32 samples of {}x{}x{}", path,
                                     sim::shape_str(t.shape()), sim::dtype_name(t.dtype()),
                                     n.input.z, n.input.h, n.input.w));
    }
    for (size_t i = 0; i < t.numel(); ++i) {  // quantized later: a NaN has no int8 value
        if (!std::isfinite(t.data<float>()[i])) {
            throw sim::Error(fmt::format("{}: element {} is {}, expected finite samples", path, i,
                                         t.data<float>()[i]));
        }
    }
    for (size_t k = 0; k < t.numel() / per; ++k) {
        const float* p = t.data<float>() + k * per;
        out.emplace_back(p, p + per);
    }
    note = path;
    return out;
}

NetworkFile load_network(const std::string& path, const DlpPlatformConfig& cfg,
                         const std::string& calibration, bool time_only,
                         const std::vector<float>& mean, const std::vector<float>& std) {
    const auto ends = [&](const char* ext) {
        const std::string e = ext;
        return path.size() > e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0;
    };
    if (!ends(".onnx") && !ends(".yaml") && !ends(".yml")) {
        throw sim::Error(path +
                         ": the DL processor runs a network file (.yaml) or an ONNX model "
                         "(.onnx)");
    }
    if (ends(".onnx")) {
        onnx::ImportOptions io;
        io.supported_ops = {dlp_onnx_ops().begin(), dlp_onnx_ops().end()};
        NetworkFile f = network_from_onnx(onnx::import_model(path, io), path, cfg, {mean, std});
        if (cfg.dlp.data_type == DataType::int8) {
            if (calibration.empty() && !time_only) {
                throw sim::Error(path +
                                 ": an int8 processor runs it with exponents chosen from "
                                 "calibration data: give --calibrate SAMPLES.npy (float32, "
                                 "(N, C, H, W) as the model takes them)");
            }
            std::string note;
            quantize_network(f.network, calibration.empty() ? std::vector<std::vector<float>>{}
                                                            : read_samples(calibration, f, note));
        }
        return f;
    }
    if (!calibration.empty() || !mean.empty() || !std.empty()) {
        throw sim::Error(path +
                         ": --calibrate, --mean and --std are for an ONNX network; a "
                         "network file gives its own exponents and normalization");
    }
    sim::ConfigDocument doc = sim::ConfigDocument::load_file(path);
    NetworkFile f = read_network(doc.root().child("network"));
    doc.finish();
    check_network(f.network, cfg.dlp);
    fill_parameters(f.network, cfg.dlp, f.seed);
    return f;
}

}  // namespace npu::dlp
