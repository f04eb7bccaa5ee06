// Quantization arithmetic of the K210 compiler (pure C++, no SystemC): asymmetric uint8 tensors,
// batch-norm folding, per-channel weights folded into the KPU's BN stage, and the 16-segment
// activation table fitted to the float function. The KPU datapath these numbers drive is
// ../shared/reference/k210_kpu.md §3; the choices are documented in docs/k210_compiler.md.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/k210_kpu/kpu_func.h"

namespace npu::k210 {

// q = clamp(round(x / scale) + zero_point, 0, 255); x = (q - zero_point) · scale.
struct QuantParams {
    double scale = 1.0 / 255;
    int32_t zero_point = 0;

    uint8_t quantize(double x) const;
    double dequantize(int q) const { return (q - zero_point) * scale; }
};

// The asymmetric uint8 parameters of a calibrated range (widened to contain 0, so that 0 and
// the padding value are exact; a zero-width range gets scale 1/255).
QuantParams quant_params_u8(double lo, double hi);

// The float activation fused into a KPU layer.
struct Activation {
    enum class Kind { Linear, Relu, LeakyRelu, Clip } kind = Kind::Linear;
    double alpha = 0.01;        // LeakyRelu slope for x < 0
    double lo = 0.0, hi = 6.0;  // Clip bounds (Relu6 is Clip 0..6)
    double apply(double x) const;
    std::string name() const;
};

// Conv weights [oc][ic][k][k] (float) and per-output-channel bias, with a BatchNormalization
// (inference) folded in: w' = w · g / sqrt(var + eps), b' = (b - mean) · g / sqrt(var + eps) +
// beta.
void fold_batch_norm(std::vector<float>& weights, std::vector<float>& bias,
                     const std::vector<float>& gamma, const std::vector<float>& beta,
                     const std::vector<float>& mean, const std::vector<float>& var, float eps);

// One KPU layer's quantized parameters.
struct QuantizedConv {
    std::vector<uint8_t> weights;       // [oc][ic][k][k] (depthwise [oc][k][k]), zero point 128
    std::vector<double> weight_scales;  // per output channel
    std::vector<kpu::BnParam> bn;
    kpu::ActTable act{};
    int32_t arg_x = 0, arg_w = 0;
    int64_t arg_add = 0;
    uint8_t pad_value = 0;
    double bn_scale = 0;  // the real value of one unit of the BN output v
    // Largest |table output - round(float activation)| over the calibrated pre-activation range,
    // in output LSBs (fit_activation's measure).
    int max_act_error_lsb = 0;
};

// Quantizes a convolution whose float output (before the activation) is
// Σ x·w + bias[oc], for input and output (after the activation) parameters `in`, `out`, and the
// pre-activation range [pre_lo, pre_hi] seen in calibration. Throws sim::Error when a value
// cannot be represented (a bias beyond the 32-bit norm_add even at the coarsest BN scale).
QuantizedConv quantize_conv(const std::vector<float>& weights, const std::vector<float>& bias,
                            int out_channels, int kernel, bool depthwise, const QuantParams& in,
                            const QuantParams& out, const Activation& act, double pre_lo,
                            double pre_hi);

// The activation table mapping the BN output v (one unit = bn_scale) to the output uint8:
// exact breakpoints of the piecewise-linear function, each line starting where its output is
// an integer, saturated segments where it leaves 0..255. *max_error_lsb (optional) gets the
// largest difference from round(f(v · bn_scale) / out.scale + out.zero_point) over
// [pre_lo, pre_hi] (real units), checked with the KPU's own activate().
kpu::ActTable fit_activation(const Activation& act, double bn_scale, const QuantParams& out,
                             double pre_lo, double pre_hi, int* max_error_lsb = nullptr);

}  // namespace npu::k210
