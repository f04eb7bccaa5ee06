#include "platforms/k210/kmodel/demo_model.h"

#include <algorithm>
#include <array>
#include <cmath>

#include "models/k210_kpu/kpu_layer_builder.h"
#include "models/k210_kpu/kpu_layout.h"
#include "platforms/k210/kmodel/kmodel_writer.h"
#include "sim/core/image.h"

namespace npu::k210 {

namespace {

constexpr int kH = 120, kW = 160;
constexpr double kLum[3] = {0.299, 0.587, 0.114};
using Kernel = std::array<double, 9>;
constexpr Kernel kGauss = {1 / 16., 2 / 16., 1 / 16., 2 / 16., 4 / 16.,
                           2 / 16., 1 / 16., 2 / 16., 1 / 16.};
constexpr Kernel kSobelX = {-1, 0, 1, -2, 0, 2, -1, 0, 1};
constexpr Kernel kSobelY = {-1, -2, -1, 0, 0, 0, 1, 2, 1};

// A layer over a natural layout, weights and BN from real-valued kernels: weights are quantized
// per output channel with scale S_c and zero point 128, so alu = S_c · Σ x·w (arg_x = -128 folds
// the zero point, the input zero point is 0), and BN multiplies by out_scale[oc] / S_c (shift 15).
ConvLayerSpec layer(int ic, int oc, int k, uint32_t pool, uint32_t src, uint32_t dst,
                    const std::vector<double>& weights, const std::vector<double>& out_scale) {
    ConvLayerSpec s;
    s.args = kpu::build_layer({ic, kH, kW, oc, k, false, pool, true}, src, dst);
    s.args.arg_x = -128;

    // Per output channel: scale S_c = 127 / max|w_c| (the zero point 128 is shared, so one
    // arg_x folds it); BN undoes S_c.
    const size_t per_oc = weights.size() / static_cast<size_t>(oc);
    for (size_t o = 0; o < static_cast<size_t>(oc); ++o) {
        double max_abs = 0;
        for (size_t i = 0; i < per_oc; ++i) {
            max_abs = std::max(max_abs, std::abs(weights[o * per_oc + i]));
        }
        const double scale = 127.0 / max_abs;
        for (size_t i = 0; i < per_oc; ++i) {
            s.weights.push_back(
                static_cast<uint8_t>(std::lround(weights[o * per_oc + i] * scale) + 128));
        }
        s.bn.push_back({static_cast<int32_t>(std::lround(out_scale[o] / scale * 32768.0)), 15, 0});
    }
    // Identity on v > 0 (y = v, clamped to 255 by the hardware), 0 otherwise.
    for (auto& seg : s.act) {
        seg = {(int64_t{1} << 35) - 1, 0, 0, 255};
    }
    s.act[0] = {-(int64_t{1} << 35), 0, 0, 0};
    s.act[1] = {0, 1, 0, 0};
    return s;
}

}  // namespace

DemoModel build_demo_model() {
    // Layer 0: 3 -> 5, weights [oc][ic][ky][kx].
    std::vector<double> w0;
    const Kernel* kernels[5] = {&kGauss, &kSobelX, &kSobelX, &kSobelY, &kSobelY};
    const double sign[5] = {1, 1, -1, 1, -1};
    for (int oc = 0; oc < 5; ++oc) {
        for (int ic = 0; ic < 3; ++ic) {
            for (double k : *kernels[oc]) {
                w0.push_back(sign[oc] * kLum[ic] * k);
            }
        }
    }
    const uint32_t in_lines = static_cast<uint32_t>(kpu::fmap_lines(3, kW, kH));
    const uint32_t src0 = static_cast<uint32_t>(kpu::kRamLines) - in_lines;  // input at the top
    const uint32_t l0_out = 0, l1_out = 2000, l3_out = 3000;
    // Gray at full scale; edges halved (|gx| alone reaches 4 · 255).
    ConvLayerSpec c0 = layer(3, 5, 3, 0, src0, l0_out, w0, {1, 0.5, 0.5, 0.5, 0.5});
    // Layer 1: gray passthrough and the sum of the four half-edges, halved again.
    const std::vector<double> w1 = {1, 0, 0, 0, 0, 0, 1, 1, 1, 1};
    ConvLayerSpec c1 = layer(5, 2, 1, 0, l0_out, l1_out, w1, {1, 0.5});
    // Layer 3: the edge magnitude again, max-pooled 2x2.
    const std::vector<double> w3 = {0, 1, 1, 1, 1};
    ConvLayerSpec c3 = layer(5, 1, 1, 1, l0_out, l3_out, w3, {0.5});

    const uint32_t out1_u8 = 0, out1_f32 = 40960, out2_u8 = 194560, out2_f32 = 199680;
    c1.main_mem_out = true;
    c1.main_mem_out_address = out1_u8;
    c3.main_mem_out = true;
    c3.main_mem_out_address = out2_u8;
    V3ModelSpec spec;
    spec.eight_bit = true;
    spec.max_start_address = src0;
    spec.main_mem_usage = out2_f32 + 4800 * 4;
    spec.outputs = {{out1_f32, 38400 * 4}, {out2_f32, 4800 * 4}};
    spec.layers = {c0, c1, DequantizeSpec{out1_u8, out1_f32, 38400, 1.0f / 255, 0}, c3,
                   DequantizeSpec{out2_u8, out2_f32, 4800, 1.0f / 255, 0}};

    DemoModel m;
    m.kmodel = write_kmodel_v3(spec);
    m.input = sim::test_scene(kH, kW);
    m.output_shapes = {{1, 2, kH, kW}, {1, 1, kH / 2, kW / 2}};
    m.channel_names = {{"gray_blur", "edges"}, {"edges_pooled"}};
    return m;
}

}  // namespace npu::k210
