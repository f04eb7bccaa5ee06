// ONNX models of dlhdl's published networks for tests, as exporters write them: the compact CNN
// of ../shared/reference/dlhdl_published_figures.md §1 as MATLAB's exportONNXNetwork writes it
// (seeded weights), and its blocks.
#pragma once

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

}  // namespace npu::test
