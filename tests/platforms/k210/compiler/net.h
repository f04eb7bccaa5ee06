// A small ONNX graph builder for compiler and platform tests: a chain of nodes with random
// weights (seeded), and random input samples.
#pragma once

#include <map>
#include <random>
#include <string>
#include <vector>

#include "sim/onnx/graph.h"

namespace npu::test {

struct Net {
    onnx::Graph g;
    std::mt19937 rng{7};
    std::string last;

    explicit Net(std::vector<int64_t> input) {
        g.opset = 13;
        g.inputs.push_back({"x", 1, std::move(input)});
        last = "x";
    }
    std::string weight(const std::string& name, std::vector<int64_t> shape, float scale,
                       float offset = 0) {
        size_t n = 1;
        for (int64_t d : shape) {
            n *= static_cast<size_t>(d);
        }
        std::uniform_real_distribution<float> u(-scale, scale);
        std::vector<float> v(n);
        for (float& e : v) {
            e = offset + u(rng);
        }
        g.initializers[name] = onnx::Value::floats(std::move(shape), std::move(v));
        return name;
    }
    onnx::Node& node(const std::string& op, const std::string& name,
                     std::vector<std::string> extra_inputs = {}) {
        onnx::Node n;
        n.op_type = op, n.name = name;
        n.inputs = {last};
        n.inputs.insert(n.inputs.end(), extra_inputs.begin(), extra_inputs.end());
        n.outputs = {name + "_out"};
        last = n.outputs[0];
        g.nodes.push_back(n);
        return g.nodes.back();
    }
    static void ints(onnx::Node& n, const std::string& a, std::vector<int64_t> v) {
        n.attributes[a].kind = onnx::Attribute::Kind::is;
        n.attributes[a].is = std::move(v);
    }
    static void set_int(onnx::Node& n, const std::string& a, int64_t v) {
        n.attributes[a].kind = onnx::Attribute::Kind::i;
        n.attributes[a].i = v;
    }
    static void set_float(onnx::Node& n, const std::string& a, float v) {
        n.attributes[a].kind = onnx::Attribute::Kind::f;
        n.attributes[a].f = v;
    }
    onnx::Node& conv(const std::string& name, int64_t cin, int64_t cout, int64_t k,
                     int64_t group = 1, int64_t stride = 1) {
        onnx::Node& n = node("Conv", name,
                             {weight(name + "_w", {cout, cin / group, k, k}, 0.5f),
                              weight(name + "_b", {cout}, 0.2f)});
        ints(n, "pads", {k / 2, k / 2, k / 2, k / 2});
        ints(n, "strides", {stride, stride});
        set_int(n, "group", group);
        return n;
    }
    void bn(const std::string& name, int64_t c) {
        node("BatchNormalization", name,
             {weight(name + "_s", {c}, 0.3f, 1), weight(name + "_b", {c}, 0.2f),
              weight(name + "_m", {c}, 0.2f), weight(name + "_v", {c}, 0.3f, 1)});
    }
    void pool(const std::string& op, const std::string& name, int64_t k) {
        onnx::Node& n = node(op, name);
        ints(n, "kernel_shape", {k, k});
        ints(n, "strides", {k, k});
    }
    void finish() { g.outputs.push_back({last, 1, {}}); }

    std::vector<std::map<std::string, onnx::Value>> samples(size_t count) {
        std::vector<std::map<std::string, onnx::Value>> v;
        std::uniform_real_distribution<float> u(-1, 1);
        for (size_t i = 0; i < count; ++i) {
            std::vector<float> x(static_cast<size_t>(g.inputs[0].shape[1] * g.inputs[0].shape[2] *
                                                     g.inputs[0].shape[3]));
            for (float& e : x) {
                e = u(rng);
            }
            v.push_back({{"x", onnx::Value::floats(g.inputs[0].shape, x)}});
        }
        return v;
    }
};

// What the KPU cannot run becomes nncase v0.2's float CPU nodes, so the model is a kmodel v4:
// a 5x5 convolution reading the image (the input stays in memory and is uploaded for the first
// KPU layer), a dilated one, a 3x3 max pool with stride 2 and padding, a 3x3 convolution on a
// 2x2 map (under the KPU's 4x4), a global average pool and the classifier as reduce_window2d,
// matmul and softmax.
inline Net cpu_conv_net() {
    Net n({1, 3, 16, 16});
    n.conv("c5", 3, 8, 5);
    n.bn("bn5", 8);
    n.node("Relu", "r5");
    n.conv("k1", 8, 8, 3);
    n.node("Relu", "rk1");
    n.pool("MaxPool", "mp2", 2);  // fused: 8x8
    onnx::Node& d = n.conv("dil", 8, 8, 3);
    Net::ints(d, "dilations", {2, 2});
    Net::ints(d, "pads", {2, 2, 2, 2});
    n.node("Clip", "relu6", {n.weight("lo", {}, 0, 0), n.weight("hi", {}, 0, 6)});
    onnx::Node& mp = n.node("MaxPool", "mp3");
    Net::ints(mp, "kernel_shape", {3, 3});
    Net::ints(mp, "strides", {2, 2});
    Net::ints(mp, "pads", {1, 1, 1, 1});  // 4x4
    n.conv("k2", 8, 8, 3);
    n.node("Relu", "rk2");
    n.pool("AveragePool", "ap2", 2);  // fused: 2x2
    n.conv("small", 8, 8, 3);         // a 2x2 map: CPU
    n.node("Relu", "rs");
    n.node("GlobalAveragePool", "gap");
    Net::set_int(n.node("Flatten", "flat"), "axis", 1);
    onnx::Node& fc =
        n.node("Gemm", "fc", {n.weight("fc_w", {5, 8}, 0.5f), n.weight("fc_b", {5}, 0.1f)});
    Net::set_int(fc, "transB", 1);
    n.node("Softmax", "sm");
    n.finish();
    return n;
}

}  // namespace npu::test
