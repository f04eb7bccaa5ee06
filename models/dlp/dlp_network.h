// A network as the DL processor runs it: layers of the conv, fc and adder modules with their
// parameters, in execution order, each reading the network input or earlier layers' outputs.
// Shapes propagate (check_network). What the compiler (platforms/dlp) lays out in DDR and the
// module executes. Pure C++.
#pragma once

#include <string>
#include <vector>

#include "models/dlp/dlp_config.h"
#include "models/dlp/dlp_format.h"
#include "models/dlp/dlp_func.h"

namespace npu::dlp {

// pool: the conv module's pooling alone (max, average, global average), as dlhdl reports it in a
// row of its own. concat: a depth concatenation, which moves no data: its inputs write their
// outputs into its image (docs/dlp.md "Concatenation").
enum class LayerKind : uint16_t { conv = 1, fc = 2, add = 3, multiply = 4, pool = 5, concat = 6 };
const char* kind_name(LayerKind k);
const char* module_name(LayerKind k);  // "conv_module", "fc_module", "adder_module"
bool is_adder(LayerKind k);            // add or multiply

// An adder layer's second operand that is a constant (the input normalization's mean and scale):
// one value per channel, written by the compiler as an image in DDR that the adder reads.
constexpr int kConstantOperand = -2;

// Inference batch normalization after a conv layer, folded into its weights and bias by the
// compiler: s = gamma / √(variance + epsilon), w' = w · s, b' = (b − mean) · s + beta.
struct BatchNorm {
    std::vector<float> gamma, beta, mean, variance;
    float epsilon = 1e-5f;
};

struct Layer {
    std::string name;
    LayerKind kind = LayerKind::conv;
    ConvLayer conv;            // kind conv (in_* filled by check_network; groups 0 = depthwise)
    FcLayer fc;                // kind fc (fc.in filled by check_network)
    int input = -1;            // producing layer, -1 = the network input
    int input2 = -1;           // adder: the second operand (kConstantOperand: `constant`)
    std::vector<int> inputs;   // concat: every input in channel order (`input` is the first)
    bool global_pool = false;  // pool: the window is the whole input map (filled by check_network)
    Int8Quant quant;           // int8 exponents (in_exp is the producer's out_exp)
    // Parameters: single weights/bias, or int8 weights and int32 bias.
    std::vector<float> weights, bias;
    std::vector<int8_t> weights_q;
    std::vector<int32_t> bias_q;
    // An adder's constant operand, one value per channel: single, or int8 at quant.in2_exp.
    std::vector<float> constant;
    std::vector<int8_t> constant_q;

    std::string onnx_tensor;  // an imported layer: the ONNX tensor its output equals
    ActShape out;             // filled by check_network: (out_c, out_h, out_w); fc: (out, 1, 1)
    BatchNorm batch_norm;     // conv: folded by fill_parameters when given (single only)
};

// Folds l.batch_norm into l.weights and l.bias (single) and clears it.
void fold_batch_norm(Layer& l);

// A layer dlhdl runs in software on the host after the processor (softmax, sigmoid at the end).
struct SoftwareLayer {
    std::string name, op;     // op: "softmax" or "sigmoid"
    std::string onnx_tensor;  // an imported layer's ONNX output
};

struct Network {
    std::string name = "network";
    ActShape input;         // Z x H x W
    int32_t input_exp = 0;  // int8: the input's exponent
    std::vector<Layer> layers;
    std::vector<SoftwareLayer> software;  // on the host, in order, on the last layer's output
};

// The software layers on the processor's output values (single precision on the host).
std::vector<float> run_software(const Network& n, std::vector<float> v);

// Fills shapes (and int8 input exponents) and checks every layer against the modules and the
// config; throws sim::Error naming the layer and the problem. A concat's inputs are earlier
// layers in conv format, each written into no other concat, of one height and width, all but the
// last with a multiple of the conv threads C of channels (their images then lie end to end in
// the concat's), and in int8 at one exponent.
void check_network(Network& n, const DlpConfig& cfg);
// The shape a layer reads (its producer's output, or the network input; a concat: its own).
ActShape input_shape(const Network& n, const Layer& l);
// Parameters each layer needs: weights and bias element counts.
size_t weight_count(const Layer& l);
size_t bias_count(const Layer& l);
// The input normalization as dlhdl runs it on the processor: two adder layers in front of the
// network, `imageinput_norm_add` (x + (−mean)) and `imageinput_norm` (x · 1/std), one value per
// channel each (a single value stands for every channel); the layers that read the input read
// their result. Empty `std` is 1 (only the add), empty `mean` 0 (only the multiply).
void add_input_normalization(Network& n, const std::vector<float>& mean,
                             const std::vector<float>& std);
// An int8 constant operand's values at the exponent that holds its largest magnitude in 127.
void quantize_constant(Layer& l);
// Fills missing parameters with deterministic pseudo-random values from `seed` (uniform in
// ±1/√fan_in for single; int8 weights in −127..127, bias 0 for int8).
void fill_parameters(Network& n, const DlpConfig& cfg, uint32_t seed);

}  // namespace npu::dlp
