// Hand-built kmodels that chain every CPU layer type and opcode added for vendor models
// (v4: the neutral and cpu-target nodes; v3: kpu.c's layers), written by our kmodel writer: the
// SoC tests run them timed and functional, and the kmodel fuzzer starts from them.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "platforms/k210/kmodel/kmodel_writer.h"
#include "tests/platforms/k210/kmodel/node_harness.h"

namespace npu::test::chain {

constexpr uint32_t kConst = 0, kMain = 1, kF32 = 0, kU8 = 1;
constexpr float kLowest = std::numeric_limits<float>::lowest();
constexpr float kMax = std::numeric_limits<float>::max();

inline k210::RawLayerSpec node(uint32_t opcode, const Body& b) {
    return {opcode, b.bytes};
}

inline Body io(uint32_t in_type, uint32_t in_at, uint32_t in_bytes, uint32_t out_type,
               uint32_t out_at, uint32_t out_bytes, uint32_t in_mem = kMain) {
    Body b;
    b.range(in_mem, in_type, in_at, in_bytes).range(kMain, out_type, out_at, out_bytes);
    return b;
}

inline Body floats(Body b, size_t n, float start, float step) {
    for (size_t i = 0; i < n; ++i) {
        b.f32(start + step * static_cast<float>(i));
    }
    return b;
}

// input u8 (1,2,4,4) -> dequantize -> unary sin -> nnil x²+2 -> reduce mean over H (output 0)
// -> resize_image bilinear 6x6 -> strided_slice by 2 (output 1) -> conv2d_transpose 2x2/2
// -> cpu_conv2d 3x3 -> cpu_depthwise_conv2d 3x3/2 -> cpu_reduce_window2d max (output 2)
// -> quantize -> quantized_conv2d -> quantized_matmul -> table_lookup1d -> cpu_quantized_conv2d
// -> cpu_quantized_depthwise_conv2d -> resize_image u8 nearest -> dequantize (output 3).
inline std::vector<uint8_t> v4_chain() {
    k210::V4ModelSpec s;
    s.main_mem = 1792;
    s.inputs = {{{kMain, kU8, 0, 32}, {1, 2, 4, 4}}};
    s.outputs = {{kMain, kF32, 448, 32},
                 {kMain, kF32, 800, 72},
                 {kMain, kF32, 1536, 32},
                 {kMain, kF32, 1664, 32}};
    s.constants.resize(272);
    for (size_t i = 0; i < 12; ++i) {
        s.constants[i] = static_cast<uint8_t>(100 + 5 * i);  // the matmul's B (3x4)
    }
    for (size_t i = 0; i < 256; ++i) {
        s.constants[16 + i] = static_cast<uint8_t>(255 - i);  // the lookup table
    }
    Body relu6;
    s.nodes = {
        node(0x03, io(kU8, 0, 32, kF32, 64, 128).i32(0).f32(16.0f)),
        node(0x0E, io(kF32, 64, 128, kF32, 192, 128).u32(8)),
        node(0x14, io(kF32, 192, 128, kF32, 320, 128)
                       .u8(0x03)
                       .u8(0x01)
                       .u8(0x42)
                       .u8(0x06)
                       .f32(2.0f)
                       .u8(0x40)
                       .u8(0xA0)),
        node(
            0x07,
            io(kF32, 320, 128, kF32, 448, 32).u32(0).shape(1, 2, 4, 4).shape(1, 2, 1, 4).f32(0.0f)),
        node(0x0A, io(kF32, 320, 128, kF32, 512, 288)
                       .shape(1, 2, 4, 4)
                       .i32(6)
                       .i32(6)
                       .u32(0)
                       .u8(0)
                       .u8(0)
                       .u8(0)
                       .u8(0)),
        node(0x0D, io(kF32, 512, 288, kF32, 800, 72)
                       .shape(1, 2, 6, 6)
                       .shape(0, 0, 0, 0)
                       .shape(1, 2, 6, 6)
                       .shape(1, 1, 2, 2)
                       .i32(0)
                       .i32(0)
                       .i32(0)
                       .i32(0)
                       .i32(0)),
        node(0x13, floats(io(kF32, 800, 72, kF32, 896, 144)
                              .shape(1, 2, 3, 3)
                              .shape(1, 1, 6, 6)
                              .i32(1)
                              .window(2, 2, 2, 0)
                              .f32(kLowest)
                              .f32(kMax),
                          9, 0.5f, -0.25f)),
        node(0x1001, floats(io(kF32, 896, 144, kF32, 1088, 288)
                                .shape(1, 6, 6, 1)
                                .i32(2)
                                .window(3, 3, 1, 1)
                                .f32(0.0f)
                                .f32(6.0f),
                            20, -0.5f, 0.1f)),
        node(0x1002, floats(io(kF32, 1088, 288, kF32, 1408, 72)
                                .shape(1, 6, 6, 2)
                                .window(3, 3, 2, 1)
                                .f32(kLowest)
                                .f32(kMax),
                            20, 0.3f, -0.05f)),
        node(0x1003, io(kF32, 1408, 72, kF32, 1536, 32)
                         .u32(2)
                         .shape(1, 3, 3, 2)
                         .window(2, 2, 1, 0)
                         .f32(kLowest)
                         .f32(kLowest)
                         .f32(kMax)),
        node(0x06, io(kF32, 1536, 32, kU8, 1600, 8).i32(128).f32(10.0f)),
    };
    Body qconv = io(kU8, 1600, 8, kU8, 1616, 3).shape(1, 2, 2, 2).i32(1).i32(3).window(2, 2, 1, 0);
    qconv.i32(-128).i32(-128).i32(1).i32(8).i32(128).i32(10).i32(-20).i32(30);
    for (int i = 0; i < 24; ++i) {
        qconv.u8(static_cast<uint8_t>(100 + 7 * i));
    }
    Body qmm;
    qmm.range(kMain, kU8, 1616, 3).range(kConst, kU8, 0, 12).range(kMain, kU8, 1624, 4);
    qmm.i32(1).i32(3).i32(4).i32(-128).i32(-128).i32(1).i32(6).i32(128);
    qmm.i32(0).i32(50).i32(-50).i32(100);
    Body lut;
    lut.range(kMain, kU8, 1624, 4).range(kConst, kU8, 16, 256).range(kMain, kU8, 1632, 4);
    Body cq = io(kU8, 1632, 4, kU8, 1640, 2).shape(1, 1, 1, 4).i32(2).window(1, 1, 1, 0);
    cq.i32(128).i32(128).i32(1).i32(7).i32(128);
    for (int w : {130, 120, 140, 110, 90, 200, 128, 129}) {
        cq.u8(static_cast<uint8_t>(w));
    }
    cq.i32(5).i32(-5);
    Body cqd = io(kU8, 1640, 2, kU8, 1648, 2).shape(1, 1, 1, 2).window(1, 1, 1, 0);
    cqd.i32(128).i32(128).i32(3).i32(2).i32(20).u8(200).u8(60).i32(7).i32(-7);
    s.nodes.insert(s.nodes.end(), {node(0x0F, qconv), node(0x10, qmm), node(0x12, lut),
                                   node(0x1004, cq), node(0x1005, cqd),
                                   node(0x0A, io(kU8, 1648, 2, kU8, 1656, 8)
                                                  .shape(1, 2, 1, 1)
                                                  .i32(2)
                                                  .i32(2)
                                                  .u32(1)
                                                  .u8(0)
                                                  .u8(0)
                                                  .u8(0)
                                                  .u8(0)),
                                   node(0x03, io(kU8, 1656, 8, kF32, 1664, 32).i32(0).f32(1.0f))});
    return k210::write_kmodel_v4(s);
}

// input f32 8 -> FULLY_CONNECTED 8x8 -> L2_NORMALIZATION -> LOGISTIC -> TENSORFLOW_FLATTEN
// (2x2x2) -> RESIZE_NEAREST_NEIGHBOR 4x4 -> AVERAGE_POOL2D 2x2/2 -> QUANTIZE -> QUANTIZED_ADD
// -> QUANTIZED_MAX_POOL2D -> REQUANTIZE -> QUANTIZED_RESIZE_NEAREST_NEIGHBOR -> QUANTIZED_CONCAT
// -> CHANNELWISE_DEQUANTIZE (output 0); K210_ADD_PADDING to the KPU; K210_REMOVE_PADDING ->
// DEQUANTIZE (output 1).
inline std::vector<uint8_t> v3_chain() {
    std::vector<float> w(64), bias(8);
    for (size_t i = 0; i < 64; ++i) {
        w[i] = static_cast<float>(static_cast<int>(i % 9) - 4) * 0.25f;
    }
    for (size_t i = 0; i < 8; ++i) {
        bias[i] = 0.1f * static_cast<float>(i);
    }
    const auto raw = [](uint32_t type, const Body& b) {
        return k210::RawLayerSpec{type, b.bytes};
    };
    const auto chans = [](uint32_t in, uint32_t out, uint32_t c) {
        Body b;
        b.u32(0).u32(in).u32(out).u32(c);
        return b;
    };
    Body flatten, resize, avg, quant, qadd, qmax, requant, qresize, qconcat, cwdq;
    flatten.u32(0).u32(96).u32(128).u32(2).u32(2).u32(2);
    resize.u32(0).u32(128).u32(160).u32(2).u32(2).u32(2).u32(4).u32(4).u32(0);
    avg.u32(0).u32(160).u32(288).u32(4).u32(4).u32(2).u32(2).u32(2).u32(2);
    avg.u32(2).u32(2).u32(2).u32(2).u32(0).u32(0).u32(0);
    quant.u32(0).u32(288).u32(320).u32(8).f32(1.0f / 255).f32(0.0f);
    qadd.u32(0).u32(320).u32(320).u32(336).u32(8);
    qadd.i32(-10).i32(3).i32(1).i32(0).i32(2).i32(2).i32(5).i32(7).i32(4);
    qmax.u32(0).u32(336).u32(344).u32(2).u32(2).u32(2).u32(1).u32(1).u32(2);
    qmax.u32(2).u32(2).u32(1).u32(1).u32(0).u32(0);
    requant.u32(0).u32(344).u32(352).u32(2);
    for (int i = 0; i < 256; ++i) {
        requant.u8(static_cast<uint8_t>((i * 7) & 255));
    }
    qresize.u32(0).u32(352).u32(360).u32(1).u32(1).u32(2).u32(2).u32(2).u32(0);
    qconcat.u32(0).u32(368).u32(2).u32(360).u32(8).u32(320).u32(8);
    cwdq.u32(0).u32(368).u32(384).u32(2).u32(8).f32(0.5f).f32(-3.0f).f32(0.25f).f32(1.5f);
    k210::V3ModelSpec s;
    s.main_mem_usage = 512;
    s.outputs = {{384, 64}, {456, 8}};
    s.layers = {k210::fully_connected_layer(0, 32, 8, 8, 0, w, bias),
                raw(14, chans(32, 64, 8)),
                raw(25, chans(64, 96, 8)),
                raw(20, flatten),
                raw(22, resize),
                raw(9, avg),
                raw(11, quant),
                raw(2, qadd),
                raw(8, qmax),
                raw(13, requant),
                raw(23, qresize),
                raw(17, qconcat),
                raw(24, cwdq),
                raw(10241, chans(368, 100, 4)),
                raw(10242, chans(368, 452, 2)),
                k210::DequantizeSpec{452, 456, 2, 0.5f, 1.0f}};
    return k210::write_kmodel_v3(s);
}

}  // namespace npu::test::chain
