// nncase v0.2's `cpu` target nodes (opcodes 0x1001–0x1005, NHWC), each over a RuntimeMemory
// (docs/k210_cpu_ops.md). Pure C++.
#include <fmt/format.h>

#include "platforms/k210/kmodel/cpu_ops_nhwc.h"
#include "platforms/k210/kmodel/runtime_detail.h"
#include "sim/core/error.h"

namespace npu::k210::detail {

namespace {

CpuLayerWork nhwc_conv(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma,
                       bool depthwise, bool quantized) {
    sim::ByteReader r = body_reader(m, l, "body");
    const NhwcConv c = read_nhwc_conv(r, depthwise, quantized);
    const uint32_t type = quantized ? kUint8 : kFloat32;
    const uint64_t elem = quantized ? 1 : 4;
    check_range(m, l, c.in, "input", static_cast<int>(type));
    check_range(m, l, c.out, "output", static_cast<int>(type), true);
    const uint64_t n_out = window_outputs(m, l, c.win, c.nchw(), c.out_channels);
    const uint64_t n_in = shape_elements(c.in_shape);
    need(m, l, c.in, "input", n_in * elem);
    need(m, l, c.out, "output", n_out * elem);
    check_work(m, l, n_out,
               (depthwise ? 1u : static_cast<uint64_t>(c.in_shape[3])) * window_size(c.win));
    if (quantized) {
        const std::vector<uint8_t> in = read_range(mem, c.in);
        std::vector<uint8_t> out(static_cast<size_t>(n_out));
        const uint64_t macs = nhwc_conv_u8(in.data(), c, out.data());
        write_range(mem, c.out, out);
        return {n_out, macs};
    }
    const std::vector<float> in = read_floats(mem, c.in, n_in);
    std::vector<float> out(static_cast<size_t>(n_out));
    const uint64_t macs = nhwc_conv_f32(in.data(), c, out.data(), fma);
    write_floats(mem, c.out, out);
    return {n_out, macs};
}

}  // namespace

CpuLayerWork v4_cpu_conv2d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem, bool fma) {
    return nhwc_conv(m, l, mem, fma, false, false);
}

CpuLayerWork v4_cpu_depthwise_conv2d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                     bool fma) {
    return nhwc_conv(m, l, mem, fma, true, false);
}

CpuLayerWork v4_cpu_quantized_conv2d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                     bool fma) {
    return nhwc_conv(m, l, mem, fma, false, true);
}

CpuLayerWork v4_cpu_quantized_depthwise_conv2d(const Kmodel& m, const KmodelLayer& l,
                                               RuntimeMemory& mem, bool fma) {
    return nhwc_conv(m, l, mem, fma, true, true);
}

CpuLayerWork v4_cpu_reduce_window2d(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                    bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "cpu_reduce_window2d body");
    const V4ReduceWindow2d w = read_v4_reduce_window2d(r);
    if (w.op == ReduceOp::sum) {
        fail(m, l,
             "reduce_op 3 (sum): nncase's cpu_reduce_window2d runs mean, min and max only (the "
             "runtime returns an error)");
    }
    check_range(m, l, w.in, "input", kFloat32);
    check_range(m, l, w.out, "output", kFloat32, true);
    const Shape4& s = w.in_shape;  // N, H, W, C
    const uint64_t n_out = window_outputs(m, l, w.win, {s[0], s[3], s[1], s[2]}, s[3]);
    const uint64_t n_in = shape_elements(s);
    need(m, l, w.in, "input", n_in * 4);
    need(m, l, w.out, "output", n_out * 4);
    check_work(m, l, n_out, window_size(w.win));
    const std::vector<float> in = read_floats(mem, w.in, n_in);
    std::vector<float> out(static_cast<size_t>(n_out));
    nhwc_reduce_window2d_f32(in.data(), w, out.data());
    write_floats(mem, w.out, out);
    return {n_out * window_size(w.win)};
}

}  // namespace npu::k210::detail
