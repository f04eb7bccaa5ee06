// Whole networks: our reference evaluator against an independent ONNX inference engine, OpenCV
// DNN (cv::dnn::readNetFromONNX), on multi-layer CNNs built here as ONNX protobufs with seeded
// random weights. The largest absolute difference is printed and bounded.
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>
#include <opencv2/dnn.hpp>

#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"

namespace npu::test {
namespace {

namespace pb = ::onnx;

struct Builder {
    pb::ModelProto m;
    pb::GraphProto* g;
    std::mt19937 rng{12};
    Builder() {
        m.set_ir_version(7);
        m.add_opset_import()->set_version(13);
        g = m.mutable_graph();
        g->set_name("net");
    }
    void io(pb::ValueInfoProto* v, const std::string& name, const std::vector<int64_t>& shape) {
        v->set_name(name);
        auto* t = v->mutable_type()->mutable_tensor_type();
        t->set_elem_type(pb::TensorProto::FLOAT);
        for (int64_t d : shape) {
            t->mutable_shape()->add_dim()->set_dim_value(d);
        }
    }
    std::string weight(const std::string& name, const std::vector<int64_t>& shape, float scale,
                       float offset = 0) {
        pb::TensorProto* t = g->add_initializer();
        t->set_name(name);
        t->set_data_type(pb::TensorProto::FLOAT);
        size_t n = 1;
        for (int64_t d : shape) {
            t->add_dims(d);
            n *= static_cast<size_t>(d);
        }
        std::uniform_real_distribution<float> u(-scale, scale);
        for (size_t i = 0; i < n; ++i) {
            t->add_float_data(offset + u(rng));
        }
        return name;
    }
    pb::NodeProto* node(const std::string& op, std::vector<std::string> in,
                        const std::string& out) {
        pb::NodeProto* n = g->add_node();
        n->set_op_type(op);
        n->set_name(out);
        for (const std::string& s : in) {
            n->add_input(s);
        }
        n->add_output(out);
        return n;
    }
    static void ints(pb::NodeProto* n, const std::string& name, std::vector<int64_t> v) {
        auto* a = n->add_attribute();
        a->set_name(name);
        a->set_type(pb::AttributeProto::INTS);
        for (int64_t x : v) {
            a->add_ints(x);
        }
    }
    static void integer(pb::NodeProto* n, const std::string& name, int64_t v) {
        auto* a = n->add_attribute();
        a->set_name(name);
        a->set_type(pb::AttributeProto::INT);
        a->set_i(v);
    }
    static void real(pb::NodeProto* n, const std::string& name, float v) {
        auto* a = n->add_attribute();
        a->set_name(name);
        a->set_type(pb::AttributeProto::FLOAT);
        a->set_f(v);
    }
    std::string bytes() const { return m.SerializeAsString(); }
};

// Runs both engines on a seeded input; returns the largest absolute difference.
double compare(const Builder& b, const std::vector<int64_t>& in_shape) {
    const std::string model = b.bytes();
    std::vector<float> x(
        static_cast<size_t>(in_shape[0] * in_shape[1] * in_shape[2] * in_shape[3]));
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> u(-1, 1);
    for (float& v : x) {
        v = u(rng);
    }
    const onnx::Graph g = onnx::import_model_bytes(std::vector<uint8_t>(model.begin(), model.end()),
                                                   "net.onnx", {onnx::supported_ops(), true});
    const std::map<std::string, onnx::Value> ours =
        onnx::evaluate(g, {{"x", onnx::Value::floats(in_shape, x)}});
    const onnx::Value& y = ours.at("y");

    cv::dnn::Net net = cv::dnn::readNetFromONNX(model.data(), model.size());
    const int dims[] = {static_cast<int>(in_shape[0]), static_cast<int>(in_shape[1]),
                        static_cast<int>(in_shape[2]), static_cast<int>(in_shape[3])};
    cv::Mat blob(4, dims, CV_32F, x.data());
    net.setInput(blob);
    const cv::Mat out = net.forward();
    EXPECT_EQ(out.total(), y.f.size());
    double worst = 0;
    for (size_t i = 0; i < y.f.size() && i < out.total(); ++i) {
        worst = std::max(worst, std::abs(static_cast<double>(out.ptr<float>()[i] - y.f[i])));
    }
    return worst;
}

TEST(OnnxOpenCv, ConvPoolBatchNormGemmSoftmax) {
    Builder b;
    b.io(b.g->add_input(), "x", {1, 3, 32, 32});
    b.io(b.g->add_output(), "y", {1, 10});
    auto* c1 =
        b.node("Conv", {"x", b.weight("w1", {8, 3, 3, 3}, 0.4f), b.weight("b1", {8}, 0.1f)}, "c1");
    Builder::ints(c1, "pads", {1, 1, 1, 1});
    Builder::ints(c1, "kernel_shape", {3, 3});  // OpenCV needs it spelt out
    b.node("Relu", {"c1"}, "r1");
    auto* p1 = b.node("MaxPool", {"r1"}, "p1");
    Builder::ints(p1, "kernel_shape", {2, 2});
    Builder::ints(p1, "strides", {2, 2});
    auto* c2 = b.node(
        "Conv", {"p1", b.weight("w2", {16, 8, 3, 3}, 0.2f), b.weight("b2", {16}, 0.1f)}, "c2");
    Builder::ints(c2, "strides", {2, 2});
    Builder::ints(c2, "pads", {1, 1, 1, 1});
    Builder::ints(c2, "kernel_shape", {3, 3});
    auto* bn = b.node("BatchNormalization",
                      {"c2", b.weight("g", {16}, 0.3f, 1.0f), b.weight("beta", {16}, 0.2f),
                       b.weight("mu", {16}, 0.2f), b.weight("var", {16}, 0.2f, 1.0f)},
                      "bn");
    Builder::real(bn, "epsilon", 1e-3f);
    b.node("LeakyRelu", {"bn"}, "lr");
    b.node("GlobalAveragePool", {"lr"}, "gap");
    b.node("Flatten", {"gap"}, "flat");
    auto* fc =
        b.node("Gemm", {"flat", b.weight("wf", {10, 16}, 0.5f), b.weight("bf", {10}, 0.1f)}, "fc");
    Builder::integer(fc, "transB", 1);
    b.node("Softmax", {"fc"}, "y");
    const double d = compare(b, {1, 3, 32, 32});
    std::printf("conv/pool/bn/gemm/softmax network: max |ours - OpenCV| = %.3g\n", d);
    EXPECT_LT(d, 1e-5);
}

TEST(OnnxOpenCv, ResidualDepthwiseConcatNetwork) {
    Builder b;
    b.io(b.g->add_input(), "x", {1, 4, 16, 16});
    b.io(b.g->add_output(), "y", {1, 6, 8, 8});
    auto* c1 =
        b.node("Conv", {"x", b.weight("w1", {4, 4, 3, 3}, 0.3f), b.weight("b1", {4}, 0.1f)}, "c1");
    Builder::ints(c1, "pads", {1, 1, 1, 1});
    Builder::ints(c1, "kernel_shape", {3, 3});
    b.node("Add", {"c1", "x"}, "res");
    b.node("Relu", {"res"}, "r");
    auto* dw = b.node("Conv", {"r", b.weight("wd", {4, 1, 3, 3}, 0.5f)}, "dw");
    Builder::ints(dw, "pads", {1, 1, 1, 1});
    Builder::integer(dw, "group", 4);
    Builder::ints(dw, "kernel_shape", {3, 3});
    b.node("Concat", {"r", "dw"}, "cat");
    Builder::integer(b.g->mutable_node(b.g->node_size() - 1), "axis", 1);
    auto* ap = b.node("AveragePool", {"cat"}, "ap");
    Builder::ints(ap, "kernel_shape", {2, 2});
    Builder::ints(ap, "strides", {2, 2});
    auto* c2 =
        b.node("Conv", {"ap", b.weight("w2", {6, 8, 1, 1}, 0.4f), b.weight("b2", {6}, 0.1f)}, "c2");
    Builder::ints(c2, "kernel_shape", {1, 1});
    b.node("Sigmoid", {"c2"}, "y");
    const double d = compare(b, {1, 4, 16, 16});
    std::printf("residual/depthwise/concat network: max |ours - OpenCV| = %.3g\n", d);
    EXPECT_LT(d, 1e-5);
}

// Models as PyTorch exports them, BatchNormalization kept after every Conv
// (scripts/export_bench_models.py, and scripts/export_ultraface.py's two opset-9 face detectors
// with their SSD decode in the graph): every output of ours within 1e-5 of OpenCV's, relative to
// the output's largest magnitude. (MobileNetV2's opset-13 Clip OpenCV 4.6 cannot read; the
// benchmark compares it after rewriting its Clips.)
TEST(OnnxOpenCv, ExportedModelsWithUnfusedBatchNormAgreeWithOpenCv) {
    for (const std::string path :
         {NPUSIM_SOURCE_DIR "/tests/bench/data/resnet_bn.onnx",
          NPUSIM_SOURCE_DIR "/tests/bench/data/detector_bn.onnx",
          NPUSIM_SOURCE_DIR "/tests/platforms/k210/compiler/data/ultraface_slim_320.onnx",
          NPUSIM_SOURCE_DIR "/tests/platforms/k210/compiler/data/ultraface_rfb_320.onnx"}) {
        const std::string name = std::filesystem::path(path).stem().string();
        const onnx::Graph g = onnx::import_model(path, {onnx::supported_ops(), true});
        const std::vector<int64_t> shape = g.inputs.at(0).shape;
        std::vector<float> x(static_cast<size_t>(shape[0] * shape[1] * shape[2] * shape[3]));
        std::mt19937 rng(5);
        std::uniform_real_distribution<float> u(0, 1);
        for (float& v : x) {
            v = u(rng);
        }
        const std::map<std::string, onnx::Value> ours =
            onnx::evaluate(g, {{g.inputs[0].name, onnx::Value::floats(shape, x)}});
        cv::dnn::Net net = cv::dnn::readNetFromONNX(path);
        const int dims[] = {static_cast<int>(shape[0]), static_cast<int>(shape[1]),
                            static_cast<int>(shape[2]), static_cast<int>(shape[3])};
        net.setInput(cv::Mat(4, dims, CV_32F, x.data()));
        for (const onnx::ValueInfo& o : g.outputs) {
            const cv::Mat ref = net.forward(o.name);
            const onnx::Value& y = ours.at(o.name);
            ASSERT_EQ(ref.total(), y.f.size()) << name << " " << o.name;
            double worst = 0, scale = 0;
            for (size_t i = 0; i < y.f.size(); ++i) {
                const double r = ref.ptr<float>()[i];
                worst = std::max(worst, std::abs(r - static_cast<double>(y.f[i])));
                scale = std::max(scale, std::abs(r));
            }
            std::printf("%s %s: max |ours - OpenCV| = %.3g (largest |output| %.3g)\n", name.c_str(),
                        o.name.c_str(), worst, scale);
            EXPECT_LE(worst, 1e-5 * std::max(scale, 1.0)) << name << " " << o.name;
        }
    }
}

}  // namespace
}  // namespace npu::test
