// The compiler's float CPU nodes (platforms/k210/compiler/lower_float.cpp): what real exports
// compute after their convolutions, lowered to nncase v0.2's binary, unary, nnil, strided_slice,
// resize_image, pad, reduce and concat, checked against the float reference.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "platforms/k210/compiler/lowering.h"
#include "platforms/k210/kmodel/cpu_model.h"
#include "platforms/k210/kmodel/cpu_ops_elementwise.h"
#include "sim/core/error.h"
#include "sim/onnx/evaluator.h"
#include "tests/platforms/k210/compiler/agreement.h"
#include "tests/platforms/k210/compiler/net.h"

namespace npu::test {
namespace {

void set_string(onnx::Node& n, const std::string& a, const std::string& v) {
    n.attributes[a].kind = onnx::Attribute::Kind::s;
    n.attributes[a].s = v;
}

// Every activation's nnil program equals the ONNX evaluator's op over [-8, 8] (an independent
// implementation: std::tanh, std::exp, ...) within float rounding.
TEST(K210FloatNodes, ActivationProgramsEqualTheOperators) {
    struct Case {
        const char* op;
        float alpha;  // the attribute, when the op has one
    };
    for (const Case c :
         {Case{"Relu", 0}, Case{"LeakyRelu", 0.1f}, Case{"LeakyRelu", 2.0f}, Case{"Sigmoid", 0},
          Case{"Tanh", 0}, Case{"HardSigmoid", 0.3f}, Case{"HardSwish", 0}, Case{"Reciprocal", 0},
          Case{"Softplus", 0}, Case{"Elu", 0.7f}, Case{"Clip", 0}}) {
        onnx::Graph g;
        g.opset = 13;
        std::vector<float> xs;
        for (int i = -160; i <= 160; ++i) {
            xs.push_back(static_cast<float>(i) * 0.05f + 0.013f);  // never exactly 0
        }
        g.inputs.push_back({"x", 1, {static_cast<int64_t>(xs.size())}});
        onnx::Node n;
        n.op_type = c.op, n.name = "act", n.inputs = {"x"}, n.outputs = {"y"};
        if (c.alpha != 0) {
            Net::set_float(n, "alpha", c.alpha);
        }
        if (std::string(c.op) == "Clip") {
            g.initializers["lo"] = onnx::Value::floats({}, {-1.5f});
            g.initializers["hi"] = onnx::Value::floats({}, {2.5f});
            n.inputs = {"x", "lo", "hi"};
        }
        g.nodes.push_back(n);
        g.outputs.push_back({"y", 1, {}});
        const std::vector<float> ref =
            onnx::evaluate(g, {{"x", onnx::Value::floats({static_cast<int64_t>(xs.size())}, xs)}})
                .at("y")
                .f;
        const std::vector<k210::NnilOp> p = k210::lowering::nnil_program(n, -1.5f, 2.5f);
        ASSERT_FALSE(p.empty()) << c.op;
        for (size_t i = 0; i < xs.size(); ++i) {
            const float y = k210::nnil_eval(p, xs[i]);
            EXPECT_NEAR(y, ref[i], 2e-6f * std::max(1.0f, std::fabs(ref[i])))
                << c.op << " at " << xs[i];
        }
    }
}

// A feature-pyramid head: a KPU layer, nearest 2x upsampling (Resize, asymmetric + floor), a
// second KPU layer, Sigmoid (nnil), a per-channel scale (Mul by a 1 x C x 1 x 1 constant,
// broadcast), a constant subtracted, a channel slice, a zero pad, a spatial mean, then the
// channels concatenated after a Split along the last axis of a 1 x N x 2 view.
Net pyramid_net() {
    Net n({1, 3, 8, 8});
    n.conv("c1", 3, 8, 3);
    n.node("Relu", "r1");
    onnx::Node& up = n.node("Resize", "up", {"", "scales"});
    n.g.initializers["scales"] = onnx::Value::floats({4}, {1, 1, 2, 2});
    set_string(up, "mode", "nearest");
    set_string(up, "coordinate_transformation_mode", "asymmetric");
    set_string(up, "nearest_mode", "floor");
    n.conv("c2", 8, 8, 3);  // 16x16
    n.node("Sigmoid", "sig");
    n.node("Mul", "scale", {n.weight("ch", {1, 8, 1, 1}, 0.5f, 1.0f)});
    n.node("Sub", "shift", {n.weight("off", {}, 0.0f, 0.25f)});
    n.node("Slice", "first6", {"s0", "s1", "s2"});
    n.g.initializers["s0"] = onnx::Value::ints({1}, {0});
    n.g.initializers["s1"] = onnx::Value::ints({1}, {6});
    n.g.initializers["s2"] = onnx::Value::ints({1}, {1});
    n.node("Pad", "pad", {"pads"});
    n.g.initializers["pads"] = onnx::Value::ints({8}, {0, 0, 1, 1, 0, 0, 1, 1});  // 18x18
    n.node("Relu", "r3");
    onnx::Node& mean = n.node("ReduceMean", "mean");
    Net::ints(mean, "axes", {3});  // 1 x 6 x 18 x 1
    n.node("Reshape", "pairs", {"shape"});
    n.g.initializers["shape"] = onnx::Value::ints({3}, {1, 54, 2});
    onnx::Node& split = n.node("Split", "split", {"parts"});
    n.g.initializers["parts"] = onnx::Value::ints({2}, {1, 1});
    Net::set_int(split, "axis", 2);
    split.outputs = {"left", "right"};
    onnx::Node& e = n.node("Exp", "e", {});
    e.inputs = {"right"};
    onnx::Node& cat = n.node("Concat", "cat", {});
    cat.inputs = {"e_out", "left"};
    Net::set_int(cat, "axis", 2);  // along the last axis: 54 blocks of two floats
    n.finish();
    return n;
}

TEST(K210FloatNodes, APyramidHeadLowersToFloatNodesThatAgree) {
    Net n = pyramid_net();
    const Agreement a = compile_and_compare(n);
    EXPECT_EQ(a.version, 4);
    EXPECT_EQ(a.kinds,
              (std::vector<std::string>{
                  "CPU kpu_upload", "KPU conv3x3 + relu", "CPU dequantize",
                  "CPU resize_image nearest", "CPU quantize", "CPU kpu_upload", "KPU conv3x3",
                  "CPU dequantize", "CPU nnil Sigmoid", "CPU binary mul", "CPU binary sub",
                  "CPU strided_slice", "CPU pad", "CPU nnil Relu", "CPU reduce Mean",
                  "CPU strided_slice", "CPU strided_slice", "CPU unary exp", "CPU concat"}));
    std::printf("pyramid head: max |err| %.5f of an output range %.3f, cosine %.6f\n", a.max_abs,
                a.out_range, a.cosine);
    EXPECT_GT(a.cosine, 0.999);
    EXPECT_LT(a.max_abs, 0.02 * a.out_range);
}

// PRelu (MTCNN's activation): per-channel slopes as four binaries on the CPU; one slope for
// every channel is a LeakyRelu, fused into the KPU layer before it.
TEST(K210FloatNodes, PReluIsFourBinariesOrAFusedLeakyRelu) {
    Net n({1, 3, 8, 8});
    n.conv("c1", 3, 8, 3);
    n.node("PRelu", "p1", {n.weight("s1", {8, 1, 1}, 0.2f, 0.1f)});
    n.conv("c2", 8, 4, 3);
    n.node("PRelu", "p2", {"s2"});
    n.g.initializers["s2"] = onnx::Value::floats({4, 1, 1}, {0.25f, 0.25f, 0.25f, 0.25f});
    n.finish();
    const Agreement a = compile_and_compare(n);
    EXPECT_EQ(a.version, 4);
    const auto has = [&](const std::string& k) {
        return std::find(a.kinds.begin(), a.kinds.end(), k) != a.kinds.end();
    };
    EXPECT_TRUE(has("CPU binary mul (prelu: slopes)"));
    EXPECT_TRUE(has("KPU conv3x3 + leaky_relu(0.25)"));
    std::printf("prelu net: max |err| %.5f of an output range %.3f, cosine %.6f\n", a.max_abs,
                a.out_range, a.cosine);
    EXPECT_GT(a.cosine, 0.999);
}

// A CPU layer's estimate in the compile report is what the timed driver charges for it: the
// CPU model (kmodel op name, work units and MACs) of the layer as the functional run counts them.
TEST(K210FloatNodes, CpuLayerEstimatesAreWhatTheRunCharges) {
    for (Net n : {pyramid_net(), cpu_conv_net()}) {
        k210::CompileOptions o;
        o.calibration = n.samples(4);
        o.model_name = "m.onnx";
        const k210::CompiledModel cm = k210::compile_k210(n.g, o);
        const k210::Kmodel km = k210::parse_kmodel(cm.kmodel, "m.kmodel");
        sim::Tensor in(sim::DType::u8, sim::Shape(cm.input_shape.begin(), cm.input_shape.end()));
        const k210::FunctionalResult r = k210::run_functional(km, in);
        const k210::CpuModel cpu;
        size_t checked = 0;
        for (const k210::CompiledLayer& l : cm.layers) {
            if (l.target != "CPU") {
                continue;
            }
            const auto i = static_cast<size_t>(l.kmodel_layer);
            ASSERT_LT(i, r.layers.size()) << l.kind;
            const k210::FunctionalLayer& f = r.layers[i];
            EXPECT_EQ(l.est_cycles,
                      cpu.layer_dispatch_cycles +
                          cpu.layer_work_cycles(km.layers[i].type_name, f.elements, f.cpu_macs))
                << l.kind << " (" << km.layers[i].type_name << ")";
            ++checked;
        }
        EXPECT_GT(checked, 8u);
    }
}

// What nncase's kernels compute differently is refused with one message naming the node.
TEST(K210FloatNodes, WhatTheKernelsComputeDifferentlyIsRefused) {
    {
        Net n({1, 3, 8, 8});
        n.conv("c1", 3, 4, 3);
        onnx::Node& up = n.node("Resize", "up", {"", "scales"});
        n.g.initializers["scales"] = onnx::Value::floats({4}, {1, 1, 2, 2});
        set_string(up, "mode", "linear");  // half_pixel by default: PyTorch's align_corners=False
        n.finish();
        const std::string e = compile_error(n);
        EXPECT_NE(e.find("Resize 'up'"), std::string::npos) << e;
        EXPECT_NE(e.find("coordinate_transformation_mode half_pixel"), std::string::npos) << e;
    }
    {
        Net n({1, 3, 8, 8});
        n.conv("c1", 3, 4, 3);
        set_string(n.node("Pad", "refl", {"pads"}), "mode", "reflect");
        n.g.initializers["pads"] = onnx::Value::ints({8}, {0, 0, 1, 1, 0, 0, 1, 1});
        n.finish();
        const std::string e = compile_error(n);
        EXPECT_NE(e.find("Pad 'refl'"), std::string::npos) << e;
        EXPECT_NE(e.find("reflect pad"), std::string::npos) << e;
    }
    {  // a detector's last step, as some exports include it
        Net n({1, 3, 8, 8});
        n.conv("c1", 3, 4, 3);
        Net::set_int(n.node("Flatten", "flat"), "axis", 1);
        onnx::Node& top = n.node("TopK", "top", {"k"});
        n.g.initializers["k"] = onnx::Value::ints({1}, {5});
        top.outputs = {"values", "indices"};
        n.last = "values";
        n.finish();
        const std::string e = compile_error(n);
        EXPECT_NE(e.find("TopK 'top': TopK's output size depends on the data"), std::string::npos)
            << e;
    }
}

}  // namespace
}  // namespace npu::test
