// The ONNX -> K210 compiler's state and its passes (compiler.h is the interface): one Lowering
// per attempt holds the graph, the calibration, the placement of every tensor and the layers
// written so far; its member functions are grouped by pass, each pass in its own file:
//   calibrate.cpp     check the graph's interface, run the float reference on the samples
//   graph_passes.cpp  fold constants, bypass identities, index consumers
//   placement.cpp     allocate KPU RAM (kpu_ram.h: freed after a tensor's last reader) and the
//   working buffer, move tensors between u8, f32 and
//                     the KPU layout, start and finish the kmodel
//   lower_conv.cpp    Conv (KPU with fused BN, activation and pooling, or a CPU conv2d), pools
//   lower_ops.cpp     the table of ONNX op lowerings and the other ops
//   lower_float.cpp   nncase's float CPU nodes: elementwise, unary and activations, slices,
//                     resize, pad, reduce (the post-processing of detectors)
// A v3 attempt that meets a layer only kmodel v4 has throws NeedsV4; compile_k210 starts over.
// Pure C++.
#pragma once

#include <limits>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "models/k210_kpu/kpu_layout.h"
#include "platforms/k210/compiler/compiler.h"
#include "platforms/k210/compiler/kpu_ram.h"
#include "platforms/k210/kmodel/cpu_ops.h"
#include "platforms/k210/kmodel/kmodel_writer.h"
#include "sim/onnx/graph.h"

namespace npu::k210::lowering {

using Shape = std::vector<int64_t>;

struct Range {
    double lo = std::numeric_limits<double>::infinity();
    double hi = -std::numeric_limits<double>::infinity();
};

std::string shape_str(const Shape& s);
int64_t numel(const Shape& s);

// Activation node `n` (Relu, Clip with bounds `lo`, `hi`, LeakyRelu, Sigmoid, Tanh, HardSigmoid,
// HardSwish, Reciprocal, Softplus, Elu with alpha > 0; ONNX semantics) as the nnil program
// nncase v0.2's nnil_unary_method runs per element, or empty when it has none.
std::vector<NnilOp> nnil_program(const onnx::Node& n, float lo, float hi);

// Thrown while compiling for v3 when a layer needs kmodel v4; compile_k210 then starts over in
// v4 (or, with v3 forced, reports it as the error).
struct NeedsV4 {
    std::string why;
};

// Every tensor's calibrated range and shape: computed once, shared by a v3 attempt and the v4
// compilation that may follow it.
struct Calibration {
    bool done = false;
    std::map<std::string, Range> ranges;
    std::map<std::string, Shape> shapes;
};

class Lowering {
public:
    Lowering(const onnx::Graph& g, const CompileOptions& o, bool v4, Calibration& cal);
    // The passes in order; the compiled model.
    CompiledModel run();

    // Where a computed tensor is: in KPU RAM (row layout, from a line), in the working buffer as
    // dense uint8 and/or float32; `q` is the parameters of its uint8 copies.
    struct Where {
        Shape shape;
        QuantParams q;
        std::optional<uint32_t> kpu, u8, f32;
        int conv = -1;  // the K210_CONV spec that produced it (its DMA gives the u8 copy)
    };

    // One lowering per ONNX op the compiler maps (lower_ops.cpp): the op and its member.
    struct OpLowering {
        const char* op;
        void (Lowering::*lower)(size_t index);
    };
    static const std::vector<OpLowering>& op_lowerings();

private:
    // ---- calibrate.cpp
    void check_io();
    // Runs the float reference on every calibration sample (unless an earlier attempt did);
    // records each tensor's range and shape.
    void calibrate();
    void observe(const std::string& name, const onnx::Value& v);

    // ---- graph_passes.cpp
    // Exporters compute constants in the graph (PyTorch: Constant nodes for Clip bounds, Shape ->
    // Gather -> Concat for a Reshape's shape). A node whose inputs are all constant runs once
    // here, in the reference evaluator, and its outputs become initializers; Shape of a computed
    // tensor is its calibrated (static) shape.
    void fold_constants();
    // Nodes that pass their input through: Identity, Dropout (inference), and a Pad of zeros
    // (PyTorch exports avg_pool2d as Pad + AveragePool).
    bool is_identity(const onnx::Node& n) const;
    // Node i's consumers read its input instead.
    void bypass(size_t i);
    void index_consumers();
    // The node that alone consumes tensor `t` (not a graph output), or nullptr.
    const onnx::Node* sole_consumer(const std::string& t, size_t* index = nullptr) const;
    const onnx::Value& init(const onnx::Node& n, size_t i, const char* what) const;
    bool has_init(const onnx::Node& n, size_t i) const;

    // ---- placement.cpp
    [[noreturn]] void fail(const std::string& why) const;
    [[noreturn]] void fail(const onnx::Node& n, const std::string& why) const;
    // What only kmodel v4 has: in a v3 compilation, give up (compile_k210 decides what next).
    void needs_v4(const std::string& why) const;
    // Ranges in the working buffer (v4 nodes name their memory).
    static MemoryRange main_u8(uint32_t at, uint64_t n);
    static MemoryRange main_f32(uint32_t at, uint64_t n);
    static Shape4 shape4(const Shape& s);
    uint32_t add_constants(const std::vector<float>& v);
    QuantParams qparams(const std::string& t) const;
    uint32_t alloc_main(uint64_t bytes);
    // Lines of KPU RAM for `tensor` (the KpuRamPlan), written by the layer about to be added;
    // `what` names it in the error when it does not fit.
    uint32_t alloc_kpu(uint64_t lines, const std::string& tensor, const std::string& what);
    // After node `index`: the KPU RAM of tensors no node after it reads is free again.
    void release_dead(size_t index);
    // Makes room in KPU RAM: of the live tensors the node being lowered does not read, the one
    // whose move costs the CPU least per line freed (CpuModel: the upload again, and in v4 the
    // read-back when it has no main-memory copy yet; equal costs: the one whose next reader comes
    // last) is given a main-memory copy (its layer also writes it out) and its lines are freed;
    // its next KPU reader uploads it again. False when no tensor can go.
    bool move_one_out();
    void start();
    CompiledLayer& add_layer(const std::string& nodes, const std::string& target,
                             const std::string& kind);
    // A computed tensor, or an error naming the node that wants it.
    Where& tensor(const onnx::Node& n, size_t input);
    // Tensor `t` as float32 in the working buffer (dense NCHW).
    Where& to_f32(const std::string& t, const std::string& why);
    // Tensor `t` as dense uint8 in the working buffer (a KPU output: by the layer's DMA).
    Where& to_main_u8(const std::string& t);
    void push_quantize(uint32_t f32_at, uint32_t u8_at, uint64_t count, const QuantParams& q);
    // Tensor `t` quantized in KPU RAM.
    Where& to_kpu(const std::string& t, const onnx::Node& n);
    // A CPU layer's float output `t` at working-buffer byte `at`.
    void float_output(CompiledLayer& l, const std::string& t, uint32_t at);
    const Where& to_main_u8_or_f32(const onnx::Node& n);
    void finish();

    // ---- lower_conv.cpp
    // A Conv's parameters with what fuses after it (fuse_after).
    struct Fused {
        std::vector<float> weights, bias;  // BatchNormalization folded in
        std::vector<std::string> names;    // the fused nodes
        std::vector<std::string> kind;     // "bn", the activation, the pool
        Activation act;                    // none unless fused
        std::string out;                   // the last fused tensor
        std::string pre;                   // the tensor before the activation
        const onnx::Node* next = nullptr;  // the sole consumer of `out`, if any
        size_t next_index = 0;
    };
    Fused fuse_after(const onnx::Node& n, const onnx::Value& wv, bool leaky);
    void take(Fused& f, const std::string& what);
    void kpu_conv_layer(const onnx::Node& n, const Where& x, const Fused& f,
                        const std::string& act_out, uint32_t pool);
    static std::string kpu_refusal(const onnx::Node& n, const onnx::Value& w, const Shape& in);
    void conv(size_t index);
    // The window of a Conv or pooling node with kernel `k` over `in`: its strides, dilations
    // and pads (explicit, VALID, or SAME_* computed from the input size).
    Window2d window_of(const onnx::Node& n, const Shape& in, const Shape& k) const;
    // A CPU window node's output shape must be the reference's.
    void check_output_shape(const onnx::Node& n, const std::string& t, const Shape& s) const;
    static ValueRange fused_range(const Activation& a);
    // A convolution the KPU cannot run: nncase v0.2's float conv2d on the CPU, with a
    // BatchNormalization folded in and a Relu or Clip as its fused activation.
    void cpu_conv(size_t index, const onnx::Value& wv, const Shape& in_shape,
                  const std::string& refusal);
    // MaxPool, AveragePool, GlobalMaxPool, GlobalAveragePool not fused into a KPU layer:
    // nncase v0.2's float reduce_window2d.
    void cpu_pool(const onnx::Node& n);
    bool activation_of(const onnx::Node& n, Activation& a) const;
    // The KPU pool type of pooling node `n` after an h x w layer, or 0 if it does not fit.
    static uint32_t pool_of(const onnx::Node& n, int h, int w);

    // ---- lower_ops.cpp
    // Lowers node `index` by its op's entry of op_lowerings(); an op without one is an error
    // naming what the compiler maps.
    void node(size_t index);
    void lower_conv(size_t index);
    void lower_reshape(size_t index);
    void lower_pool(size_t index);
    void lower_global_average_pool(size_t index);
    void lower_softmax(size_t index);
    void lower_concat(size_t index);
    // Transpose of a float tensor of rank ≤ 4: v3's TENSORFLOW_FLATTEN for NCHW -> NHWC of one
    // map, else nncase's transpose (kmodel v4).
    void lower_transpose(size_t index);
    void lower_gemm(size_t index);
    // Add of two same-shaped tensors: the SDK's float ADD. A Relu that alone follows is the
    // clamp at 0 of the QUANTIZE that brings the sum back to uint8 (zero point 0).
    // Concat along channels of 1 x C x H x W maps (or along any axis with only 1s before it):
    // the SDK's CONCAT copies the inputs' bytes one after another, here of float copies.
    void add(const onnx::Node& n);
    void concat(const onnx::Node& n);
    void gemm(const onnx::Node& n);
    void gemm_params(const onnx::Node& n, size_t in, size_t out, std::vector<float>& w,
                     std::vector<float>& bias) const;
    void push_fully_connected(uint32_t x, uint32_t o, size_t in, size_t out, uint32_t act,
                              const std::vector<float>& w, const std::vector<float>& bias);

    // ---- lower_float.cpp (kmodel v4)
    // Operand `i` of `n` as float32: a computed tensor in the working buffer, or a constant in
    // the kmodel's constants; its shape.
    MemoryRange float_operand(const onnx::Node& n, size_t i, Shape& shape);
    // Adds float CPU node `body` writing ONNX tensor `t` at `o`; `kind` is what the compile
    // report shows.
    CompiledLayer& float_node(const onnx::Node& n, RawLayerSpec body, const std::string& kind,
                              const Shape& in, const std::string& t, uint32_t o);
    void lower_binary(size_t index);
    void lower_unary(size_t index);
    void unary_node(const onnx::Node& n);
    void lower_prelu(size_t index);
    void lower_slice(size_t index);
    void lower_split(size_t index);
    void strided_slice_node(const onnx::Node& n, const std::string& out, const Shape& begin,
                            const Shape& end, const Shape& stride);
    void lower_resize(size_t index);
    void lower_pad(size_t index);
    void lower_reduce(size_t index);

    onnx::Graph m_g;  // a copy: constant nodes are folded into its initializers
    const CompileOptions& m_o;
    Calibration& m_cal;
    std::map<std::string, Range>& m_ranges;
    std::map<std::string, Shape>& m_shapes;
    std::map<std::string, std::vector<size_t>> m_consumers;
    std::set<size_t> m_done;
    size_t m_current = 0;  // the node being lowered
    bool m_v4 = false;
    V3ModelSpec m_spec;                // the layers (v4: ConvLayerSpec and RawLayerSpec nodes)
    std::vector<uint8_t> m_constants;  // v4
    CompiledModel m_out;
    // Every computed tensor and its copies.
    std::map<std::string, Where> m_t;
    KpuRamPlan m_kpu{kpu::kRamLines};
    uint64_t m_kpu_top = kpu::kRamLines;  // v3: the input's first line (max_start_address)
    uint32_t m_main = 0;
};

}  // namespace npu::k210::lowering
