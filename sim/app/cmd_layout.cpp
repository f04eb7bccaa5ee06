// npusim layout: KL730 NPU data layouts from the command line: convert an ONNX tensor (.npy) to
// the NPU's packed bytes (.bin) and back, or explain where each element lands.
#include <cstdio>
#include <sstream>

#include <fmt/format.h>

#include "models/kl730/kl730_layout.h"
#include "sim/app/app.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/npy.h"

namespace npu::app {

namespace {

template <typename T>
std::vector<T> parse_list(const std::string& text, const char* what) {
    std::vector<T> out;
    std::stringstream ss(text);
    std::string item;
    while (std::getline(ss, item, ',')) {
        std::stringstream one(item);
        T v{};
        if (!(one >> v) || !(one >> std::ws).eof()) {
            throw sim::Error(
                fmt::format("--{}: '{}' is not a comma-separated list of numbers "
                            "(at '{}')",
                            what, text, item));
        }
        out.push_back(v);
    }
    if (out.empty()) {
        throw sim::Error(fmt::format("--{}: empty list", what));
    }
    return out;
}

kl730::TensorInfo tensor_info(const LayoutOptions& o) {
    const kl730::Layout layout = kl730::parse_layout(o.layout);
    const std::vector<int64_t> shape = parse_list<int64_t>(o.shape, "shape");
    const std::vector<float> scales = parse_list<float>(o.scale, "scale");
    const std::vector<int32_t> radixes = parse_list<int32_t>(o.radix, "radix");
    if (scales.size() != radixes.size() && scales.size() != 1 && radixes.size() != 1) {
        throw sim::Error(
            fmt::format("--scale has {} values and --radix {}: give the same number, "
                        "or one of either",
                        scales.size(), radixes.size()));
    }
    std::vector<kl730::QuantParam> quant(std::max(scales.size(), radixes.size()));
    for (size_t i = 0; i < quant.size(); ++i) {
        quant[i] = {scales[scales.size() == 1 ? 0 : i], radixes[radixes.size() == 1 ? 0 : i]};
    }
    const int32_t axis = quant.size() > 1 && o.axis < 0 ? 1 : o.axis;  // per channel: NCHW C
    if (o.stride_npu.empty()) {
        return kl730::make_info(layout, shape, quant, axis);
    }
    kl730::TensorInfo t;
    t.layout = layout;
    t.shape = shape;
    t.stride_onnx = kl730::dense_strides(shape);
    t.stride_npu = parse_list<int64_t>(o.stride_npu, "stride-npu");
    t.quant = quant;
    t.quantized_axis = axis;
    kl730::validate(t);
    return t;
}

std::string tuple(const std::vector<int64_t>& v) {
    return fmt::format("({})", fmt::join(v, ", "));
}

int explain(const kl730::TensorInfo& t, size_t limit) {
    const kl730::Storage s = kl730::storage_of(t.layout);
    const char* how = s == kl730::Storage::hl         ? "16-bit values as a low entry (bits 7..1) "
                                                        "and a high entry (bits 15..8), 16 bytes apart"
                      : s == kl730::Storage::int16    ? "16-bit little-endian values, LSB dropped"
                      : s == kl730::Storage::int16_le ? "16-bit values, low byte first"
                      : s == kl730::Storage::int16_be ? "16-bit values, high byte first"
                      : s == kl730::Storage::float32  ? "float32 values"
                                                      : "int8 values";
    const size_t bytes = kl730::npu_bytes(t);
    fmt::print("{} (enum {}), shape {}: stride_onnx {}, stride_npu {}{}\n",
               kl730::layout_name(t.layout), static_cast<uint32_t>(t.layout), tuple(t.shape),
               tuple(t.stride_onnx), tuple(t.stride_npu),
               kl730::is_outer_group(t.layout) ? ", outer channel groups of 16" : "");
    fmt::print("{}; buffer {} bytes ({} entries of 16 bytes)\n\n", how, bytes, bytes / 16);
    fmt::print("{:<24} {:>9} {:>7} {:>5} {:>10}\n", "index", "byte", "entry", "lane",
               s == kl730::Storage::int8 || s == kl730::Storage::float32 ? "" : "high byte");
    const size_t rank = t.shape.size();
    std::vector<int64_t> idx(rank, 0);
    size_t shown = 0, total = 1;
    for (int64_t d : t.shape) {
        total *= static_cast<size_t>(d);
    }
    for (size_t n = 0; n < total && shown < limit; ++n, ++shown) {
        size_t rest = n;
        for (size_t a = rank; a-- > 0;) {
            idx[a] = static_cast<int64_t>(rest % static_cast<size_t>(t.shape[a]));
            rest /= static_cast<size_t>(t.shape[a]);
        }
        const kl730::Place p = kl730::place(t, idx);
        fmt::print("{:<24} {:>9} {:>7} {:>5} {:>10}\n", tuple(idx), p.byte, p.entry, p.lane,
                   s == kl730::Storage::int8 || s == kl730::Storage::float32
                       ? ""
                       : std::to_string(p.high_byte));
    }
    if (shown < total) {
        fmt::print("... {} more elements (--limit {})\n", total - shown, total);
    }
    return kExitOk;
}

}  // namespace

int cmd_layout(const LayoutOptions& o) {
    const kl730::TensorInfo t = tensor_info(o);
    if (o.action == "explain") {
        return explain(t, o.limit);
    }
    if (o.action == "to-npu") {
        const sim::Tensor in = sim::read_npy(o.in);
        if (in.shape() != sim::Shape(t.shape.begin(), t.shape.end())) {
            throw sim::Error(fmt::format("{}: the array is {}, --shape says {}", o.in,
                                         sim::shape_str(in.shape()), tuple(t.shape)));
        }
        std::vector<float> x(in.numel());
        for (size_t i = 0; i < x.size(); ++i) {
            x[i] = static_cast<float>(in.get_f64(i));
        }
        const std::vector<uint8_t> npu = kl730::to_npu(t, x.data(), x.size());
        sim::write_file_atomic(o.out, npu);
        fmt::print("{}: {} {} -> {} ({} bytes, {})\n", o.out, sim::shape_str(in.shape()),
                   sim::dtype_name(in.dtype()), kl730::layout_name(t.layout), npu.size(), o.in);
        return kExitOk;
    }
    // to-onnx
    const std::vector<uint8_t> npu = sim::read_file(o.in);
    sim::Shape shape(t.shape.begin(), t.shape.end());
    if (o.fixed) {
        const std::vector<int32_t> q = kl730::to_onnx_fixed(t, npu.data(), npu.size());
        sim::Tensor out(sim::DType::i32, shape);
        std::copy(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(out.numel()),
                  out.data<int32_t>());
        sim::write_npy(o.out, out);
    } else {
        const std::vector<float> x = kl730::to_onnx(t, npu.data(), npu.size());
        sim::Tensor out(sim::DType::f32, shape);
        std::copy(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(out.numel()),
                  out.data<float>());
        sim::write_npy(o.out, out);
    }
    fmt::print("{}: {} {} ({}) from {} ({} bytes)\n", o.out, sim::shape_str(shape),
               o.fixed ? "int32 fixed point" : "float32", kl730::layout_name(t.layout), o.in,
               npu.size());
    return kExitOk;
}

}  // namespace npu::app
