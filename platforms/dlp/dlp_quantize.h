// int8 as dlhdl quantizes it (dlquantizer): every tensor q · 2^exp with a power-of-two exponent
// per layer, chosen from ranges — the weights' and each activation's largest magnitude over
// calibration samples run through the network in single precision — as the smallest exponent that
// holds that magnitude in 127; biases at in_exp + w_exp (int32), leaky slopes as mul · 2^−7,
// clip ceilings at the output's exponent; pools keep their input's exponent. And the reverse:
// the float network an int8 one stands for. docs/dlp.md "int8". Pure C++.
#pragma once

#include <cstdint>
#include <vector>

#include "models/dlp/dlp_network.h"

namespace npu::dlp {

// `n` (single-precision parameters: weights, bias, constants) quantized for an int8 processor
// from `samples` (CHW float inputs as the network takes them); the float parameters stay. No
// samples: the weights' exponents alone, activations at 2^0 (enough for an estimate: time does
// not depend on exponents). A concat and its inputs share one exponent, that of their largest
// range (a pool's input with the pool, as pooling keeps the scale).
void quantize_network(Network& n, const std::vector<std::vector<float>>& samples);

// The float network an int8 one stands for: w = q · 2^w_exp, bias = b · 2^(in_exp + w_exp),
// constants c · 2^in2_exp, the leaky slope leaky_mul · 2^−leaky_shift, the clip ceiling at
// out_exp, fc outputs plain.
Network float_equivalent(const Network& n);

}  // namespace npu::dlp
