// The Kendryte SDK (kmodel v3) layers over u8 data and KPU padding, as kpu.c runs them, each over
// a RuntimeMemory (docs/k210_cpu_ops.md). Pure C++.
#include <fmt/format.h>

#include "models/k210_kpu/kpu_layout.h"
#include "platforms/k210/kmodel/cpu_ops_v3.h"
#include "platforms/k210/kmodel/runtime_detail.h"
#include "sim/core/error.h"

namespace npu::k210::detail {

CpuLayerWork v3_quantized_add(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                              bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "QUANTIZED_ADD body");
    const V3QuantizedAdd q = read_v3_quantized_add(r);
    const uint64_t n = q.aligned_count();  // kpu.c runs whole groups of 8
    const std::vector<uint8_t> a = read_main_bytes(m, l, mem, q.a_address, n, "input a");
    const std::vector<uint8_t> b = read_main_bytes(m, l, mem, q.b_address, n, "input b");
    std::vector<uint8_t> y(n);
    quantized_add_v3(a.data(), b.data(), q, y.data());
    write_main_bytes(m, l, mem, q.out_address, y);
    return {n, 0};
}

CpuLayerWork v3_quantized_max_pool(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                   bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "QUANTIZED_MAX_POOL2D body");
    const V3Pool p = read_v3_pool(r, false);
    check_v3_pool(m, l, p);
    check_main_count(m, l, p.out_shape.elements(), 1, "output");
    const std::vector<uint8_t> x =
        read_main_bytes(m, l, mem, p.in_address, p.in_shape.elements(), "input");
    std::vector<uint8_t> y(p.out_shape.elements());
    max_pool_v3(x.data(), p, y.data());
    write_main_bytes(m, l, mem, p.out_address, y);
    return {y.size() * p.kernel_w * p.kernel_h, 0};
}

CpuLayerWork v3_requantize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                           bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "REQUANTIZE body");
    const V3Requantize q = read_v3_requantize(r);
    std::vector<uint8_t> y = read_main_bytes(m, l, mem, q.in_address, q.count, "input");
    for (uint8_t& v : y) {
        v = q.table[v];
    }
    write_main_bytes(m, l, mem, q.out_address, y);
    return {q.count, 0};
}

CpuLayerWork v3_channelwise_dequantize(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                                       bool fma) {
    sim::ByteReader r = body_reader(m, l, "CHANNELWISE_DEQUANTIZE body");
    const V3ChannelwiseDequantize d = read_v3_channelwise_dequantize(r);
    const uint64_t n = uint64_t{d.channels} * d.channel_size;
    const std::vector<uint8_t> q = read_main_bytes(m, l, mem, d.in_address, n, "input");
    std::vector<float> y(n);
    channelwise_dequantize_v3(q.data(), d, y.data(), fma);
    write_floats(m, l, mem, d.out_address, y);
    return {n, 0};
}

CpuLayerWork v3_add_padding(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                            bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "K210_ADD_PADDING body");
    const V3Channels c = read_v3_channels(r, "K210_ADD_PADDING");
    const std::vector<uint8_t> x = read_main_bytes(m, l, mem, c.in_address, c.channels, "input");
    // kpu.c writes channel oc of the 1x1 map at row_group 4 (16 bytes apart) in groups of 4 lines
    // (the 4x4 map the next KPU layer reads); the other bytes keep their values.
    const uint64_t base = uint64_t{c.out_address} * kpu::kLineBytes;
    const uint64_t end = c.channels == 0 ? base : base + (c.channels - 1) / 4 * 256 + 48 + 1;
    if (end > kpu::kRamBytes) {
        fail(m, l,
             fmt::format("{} channels at line {} run past the 2 MiB AI SRAM", c.channels,
                         c.out_address));
    }
    for (uint32_t oc = 0; oc < c.channels; ++oc) {
        mem.write(kKpuMemory, base + oc / 4 * 256 + oc % 4 * 16, &x[oc], 1);
    }
    mem.result({kMainMemory, kUint8, c.in_address, c.channels});  // the values it placed
    return {c.channels, 0};
}

CpuLayerWork v3_remove_padding(const Kmodel& m, const KmodelLayer& l, RuntimeMemory& mem,
                               bool /*fma*/) {
    sim::ByteReader r = body_reader(m, l, "K210_REMOVE_PADDING body");
    const V3Channels c = read_v3_channels(r, "K210_REMOVE_PADDING");
    const uint64_t span = c.channels == 0 ? 0 : (uint64_t{c.channels} - 1) * 16 + 1;
    const std::vector<uint8_t> x = read_main_bytes(m, l, mem, c.in_address, span, "input");
    std::vector<uint8_t> y(c.channels);
    for (uint32_t oc = 0; oc < c.channels; ++oc) {
        y[oc] = x[uint64_t{oc} * 16];
    }
    write_main_bytes(m, l, mem, c.out_address, y);
    return {c.channels, 0};
}

}  // namespace npu::k210::detail
