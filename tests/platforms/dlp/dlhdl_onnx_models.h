// ONNX models of dlhdl's published networks for tests, as exporters write them: the compact CNN
// of ../shared/reference/dlhdl_published_figures.md §1 as MATLAB's exportONNXNetwork writes it
// (seeded weights), and its blocks.
#pragma once

#include <cmath>
#include <string>
#include <vector>

#include "tests/sim/onnx/onnx_graph_builder.h"

namespace npu::test {

// conv + batch norm + relu, as MATLAB and PyTorch export a convolution2dLayer/Conv2d block.
inline std::string conv_bn_relu(OnnxGraphBuilder& b, const std::string& x, const std::string& name,
                                int64_t in_c, int64_t out_c) {
    const std::string w = b.random(name + "_W", {out_c, in_c, 3, 3}, -0.4f, 0.4f);
    const std::string bias = b.random(name + "_B", {out_c}, -0.1f, 0.1f);
    auto* c = b.node("Conv", {x, w, bias}, name);
    OnnxGraphBuilder::set(c, "pads", std::vector<int64_t>{1, 1, 1, 1});
    OnnxGraphBuilder::set(c, "kernel_shape", std::vector<int64_t>{3, 3});
    const std::string bn = name + "_bn";
    b.node("BatchNormalization",
           {name, b.random(bn + "_scale", {out_c}, 0.5f, 1.5f),
            b.random(bn + "_B", {out_c}, -0.2f, 0.2f), b.random(bn + "_mean", {out_c}, -0.1f, 0.1f),
            b.random(bn + "_var", {out_c}, 0.5f, 2.0f)},
           bn);
    b.node("Relu", {bn}, name + "_relu");
    return name + "_relu";
}

inline std::string max_pool(OnnxGraphBuilder& b, const std::string& x, const std::string& name) {
    auto* p = b.node("MaxPool", {x}, name);
    OnnxGraphBuilder::set(p, "kernel_shape", std::vector<int64_t>{2, 2});
    OnnxGraphBuilder::set(p, "strides", std::vector<int64_t>{2, 2});
    return name;
}

// The compact CNN of §1 as exportONNXNetwork writes it.
inline std::vector<uint8_t> compact_cnn() {
    OnnxGraphBuilder b("compact_cnn", "imageinput", {1, 1, 32, 32}, 13, 5);
    b.node("Sub", {"imageinput", b.constant("imageinput_Mean", {1, 1, 1}, {0.5f})},
           "imageinput_Sub");
    b.node("Div",
           {"imageinput_Sub", b.constant("imageinput_StandardDeviation", {1, 1, 1}, {0.25f})},
           "imageinput_Div");
    std::string x = conv_bn_relu(b, "imageinput_Div", "conv_1", 1, 16);
    x = max_pool(b, x, "maxpool_1");
    x = conv_bn_relu(b, x, "conv_2", 16, 32);
    x = max_pool(b, x, "maxpool_2");
    x = conv_bn_relu(b, x, "conv_3", 32, 64);
    b.node("GlobalAveragePool", {x}, "gap");
    b.node("Flatten", {"gap"}, "gap_flatten");
    auto* fc = b.node(
        "Gemm",
        {"gap_flatten", b.random("fc_W", {2, 64}, -0.3f, 0.3f), b.random("fc_B", {2}, -0.1f, 0.1f)},
        "fc");
    OnnxGraphBuilder::set(fc, "transB", int64_t{1});
    b.node("Softmax", {"fc"}, "softmax");
    return b.bytes("softmax", {1, 2});
}

// ResNet-18 as torchvision defines it and PyTorch exports it (BatchNormalization unfused, Conv
// without bias, Flatten + Gemm), at `size` x `size` with seeded weights (uniform, variance
// 1 / fan_in): 7x7/2 conv, 3x3/2 max pool, four stages of two basic blocks (64, 128, 256, 512
// channels; a 1x1/2 downsample where a stage halves the map), global average pooling, fc 1000.
inline std::vector<uint8_t> resnet18(int64_t size, uint32_t seed = 18) {
    OnnxGraphBuilder b("resnet18", "input", {1, 3, size, size}, 13, seed);
    int64_t n = 0;
    const auto conv_bn = [&](const std::string& x, int64_t in_c, int64_t out_c, int64_t k,
                             int64_t stride, bool relu) {
        const std::string name = "conv" + std::to_string(++n);
        const float r = std::sqrt(3.0f / static_cast<float>(in_c * k * k));
        auto* c = b.node("Conv", {x, b.random(name + "_W", {out_c, in_c, k, k}, -r, r)}, name);
        OnnxGraphBuilder::set(c, "kernel_shape", std::vector<int64_t>{k, k});
        OnnxGraphBuilder::set(c, "strides", std::vector<int64_t>{stride, stride});
        OnnxGraphBuilder::set(c, "pads", std::vector<int64_t>{k / 2, k / 2, k / 2, k / 2});
        const std::string bn = name + "_bn";
        b.node("BatchNormalization",
               {name, b.random(bn + "_scale", {out_c}, 0.5f, 1.5f),
                b.random(bn + "_B", {out_c}, -0.1f, 0.1f),
                b.random(bn + "_mean", {out_c}, -0.1f, 0.1f),
                b.random(bn + "_var", {out_c}, 0.5f, 2.0f)},
               bn);
        if (!relu) {
            return bn;
        }
        b.node("Relu", {bn}, name + "_relu");
        return name + "_relu";
    };
    std::string x = conv_bn("input", 3, 64, 7, 2, true);
    auto* mp = b.node("MaxPool", {x}, "maxpool");
    OnnxGraphBuilder::set(mp, "kernel_shape", std::vector<int64_t>{3, 3});
    OnnxGraphBuilder::set(mp, "strides", std::vector<int64_t>{2, 2});
    OnnxGraphBuilder::set(mp, "pads", std::vector<int64_t>{1, 1, 1, 1});
    x = "maxpool";
    int64_t c = 64;
    for (int64_t out_c : {64, 128, 256, 512}) {
        for (int block = 0; block < 2; ++block) {
            const int64_t stride = out_c != c && block == 0 ? 2 : 1;
            const std::string a = conv_bn(x, c, out_c, 3, stride, true);
            const std::string y = conv_bn(a, out_c, out_c, 3, 1, false);
            const std::string skip = stride == 2 ? conv_bn(x, c, out_c, 1, 2, false) : x;
            const std::string add = "add" + std::to_string(n);
            b.node("Add", {y, skip}, add);
            b.node("Relu", {add}, add + "_relu");
            x = add + "_relu", c = out_c;
        }
    }
    b.node("GlobalAveragePool", {x}, "gap");
    b.node("Flatten", {"gap"}, "flatten");
    const float r = std::sqrt(3.0f / 512.0f);
    auto* fc = b.node(
        "Gemm",
        {"flatten", b.random("fc_W", {1000, 512}, -r, r), b.random("fc_B", {1000}, -0.1f, 0.1f)},
        "fc");
    OnnxGraphBuilder::set(fc, "transB", int64_t{1});
    return b.bytes("fc", {1, 1000});
}

}  // namespace npu::test
