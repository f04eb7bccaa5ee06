#include "platforms/kl730/layout_tool.h"

#include <iterator>
#include <sstream>

#include <fmt/format.h>

#include "models/kl730/kl730_layout.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/npy.h"

namespace npu::kl730 {

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

TensorInfo tensor_info(const LayoutRequest& o) {
    const Layout layout = parse_layout(o.layout);
    const std::vector<int64_t> shape = parse_list<int64_t>(o.shape, "shape");
    const std::vector<float> scales = parse_list<float>(o.scale, "scale");
    const std::vector<int32_t> radixes = parse_list<int32_t>(o.radix, "radix");
    if (scales.size() != radixes.size() && scales.size() != 1 && radixes.size() != 1) {
        throw sim::Error(
            fmt::format("--scale has {} values and --radix {}: give the same number, "
                        "or one of either",
                        scales.size(), radixes.size()));
    }
    std::vector<QuantParam> quant(std::max(scales.size(), radixes.size()));
    for (size_t i = 0; i < quant.size(); ++i) {
        quant[i] = {scales[scales.size() == 1 ? 0 : i], radixes[radixes.size() == 1 ? 0 : i]};
    }
    const int32_t axis = quant.size() > 1 && o.axis < 0 ? 1 : o.axis;  // per channel: NCHW C
    if (o.stride_npu.empty()) {
        return make_info(layout, shape, quant, axis);
    }
    TensorInfo t;
    t.layout = layout;
    t.shape = shape;
    t.stride_onnx = dense_strides(shape);
    t.stride_npu = parse_list<int64_t>(o.stride_npu, "stride-npu");
    t.quant = quant;
    t.quantized_axis = axis;
    validate(t);
    return t;
}

std::string tuple(const std::vector<int64_t>& v) {
    return fmt::format("({})", fmt::join(v, ", "));
}

std::string explain(const TensorInfo& t, size_t limit) {
    std::string text;
    auto it = std::back_inserter(text);
    const Storage s = storage_of(t.layout);
    const char* how = s == Storage::hl         ? "16-bit values as a low entry (bits 7..1) "
                                                 "and a high entry (bits 15..8), 16 bytes apart"
                      : s == Storage::int16    ? "16-bit little-endian values, LSB dropped"
                      : s == Storage::int16_le ? "16-bit values, low byte first"
                      : s == Storage::int16_be ? "16-bit values, high byte first"
                      : s == Storage::float32  ? "float32 values"
                                               : "int8 values";
    const size_t bytes = npu_bytes(t);
    fmt::format_to(it, "{} (enum {}), shape {}: stride_onnx {}, stride_npu {}{}\n",
                   layout_name(t.layout), static_cast<uint32_t>(t.layout), tuple(t.shape),
                   tuple(t.stride_onnx), tuple(t.stride_npu),
                   is_outer_group(t.layout) ? ", outer channel groups of 16" : "");
    fmt::format_to(it, "{}; buffer {} bytes ({} entries of 16 bytes)\n\n", how, bytes, bytes / 16);
    fmt::format_to(it, "{:<24} {:>9} {:>7} {:>5} {:>10}\n", "index", "byte", "entry", "lane",
                   s == Storage::int8 || s == Storage::float32 ? "" : "high byte");
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
        const Place p = place(t, idx);
        fmt::format_to(
            it, "{:<24} {:>9} {:>7} {:>5} {:>10}\n", tuple(idx), p.byte, p.entry, p.lane,
            s == Storage::int8 || s == Storage::float32 ? "" : std::to_string(p.high_byte));
    }
    if (shown < total) {
        fmt::format_to(it, "... {} more elements (--limit {})\n", total - shown, total);
    }
    return text;
}

}  // namespace

std::string run_layout_tool(const LayoutRequest& o) {
    const TensorInfo t = tensor_info(o);
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
        const std::vector<uint8_t> npu = to_npu(t, x.data(), x.size());
        sim::write_file_atomic(o.out, npu);
        return fmt::format("{}: {} {} -> {} ({} bytes, {})\n", o.out, sim::shape_str(in.shape()),
                           sim::dtype_name(in.dtype()), layout_name(t.layout), npu.size(), o.in);
    }
    // to-onnx
    const std::vector<uint8_t> npu = sim::read_file(o.in);
    sim::Shape shape(t.shape.begin(), t.shape.end());
    if (o.fixed) {
        const std::vector<int32_t> q = to_onnx_fixed(t, npu.data(), npu.size());
        sim::Tensor out(sim::DType::i32, shape);
        std::copy(q.begin(), q.begin() + static_cast<std::ptrdiff_t>(out.numel()),
                  out.data<int32_t>());
        sim::write_npy(o.out, out);
    } else {
        const std::vector<float> x = to_onnx(t, npu.data(), npu.size());
        sim::Tensor out(sim::DType::f32, shape);
        std::copy(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(out.numel()),
                  out.data<float>());
        sim::write_npy(o.out, out);
    }
    return fmt::format("{}: {} {} ({}) from {} ({} bytes)\n", o.out, sim::shape_str(shape),
                       o.fixed ? "int32 fixed point" : "float32", layout_name(t.layout), o.in,
                       npu.size());
}

}  // namespace npu::kl730
