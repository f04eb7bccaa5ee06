// The evaluator's bookkeeping: values freed after their last reader, unary ops taking over a dead
// input's storage, and neither visible from outside (every output and every observed value as if
// nothing were freed or reused).
#include <cmath>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "sim/onnx/evaluator.h"

namespace npu::onnx {
namespace {

Node node(const std::string& op, std::vector<std::string> in, std::string out) {
    Node n;
    n.name = out, n.op_type = op, n.inputs = std::move(in), n.outputs = {std::move(out)};
    return n;
}

// x -> Neg -> a; a -> Relu -> b (a is read again below: Relu must not take it over);
// a, b -> Add -> c; c -> Relu -> d (c is dead after: taken over); d -> Abs -> e.
// Graph outputs a, d, e (a stays whole although Relu and Add read it).
TEST(Evaluator, DeadValuesAreReusedAndLiveOnesStayWhole) {
    Graph g;
    g.name = "g", g.opset = 13;
    g.inputs = {{"x", 1, {5}}};
    g.outputs = {{"a", 1, {5}}, {"d", 1, {5}}, {"e", 1, {5}}};
    g.nodes = {node("Neg", {"x"}, "a"), node("Relu", {"a"}, "b"), node("Add", {"a", "b"}, "c"),
               node("Relu", {"c"}, "d"), node("Abs", {"d"}, "e")};
    const std::vector<float> x{-2, -1, 0, 1, 2};
    std::map<std::string, std::vector<float>> seen;
    EvalOptions o;
    o.on_value = [&](const std::string& name, const Value& v) {
        seen[name] = v.f;
    };
    const std::map<std::string, Value> out = evaluate(g, {{"x", Value::floats({5}, x)}}, o);
    // a = -x = {2, 1, 0, -1, -2}; b = relu(a) = {2, 1, 0, 0, 0}; c = a + b = {4, 2, 0, -1, -2};
    // d = relu(c) = {4, 2, 0, 0, 0}; e = |d|.
    EXPECT_EQ(out.at("a").f, (std::vector<float>{2, 1, 0, -1, -2}));
    EXPECT_EQ(out.at("d").f, (std::vector<float>{4, 2, 0, 0, 0}));
    EXPECT_EQ(out.at("e").f, (std::vector<float>{4, 2, 0, 0, 0}));
    EXPECT_EQ(seen.at("b"), (std::vector<float>{2, 1, 0, 0, 0}));
    EXPECT_EQ(seen.at("c"), (std::vector<float>{4, 2, 0, -1, -2}));  // observed before reuse
    EXPECT_EQ(seen.size(), 5u);
}

// Batch norm and a residual Add taking over dead feature maps, as a Conv -> BatchNormalization ->
// Add chain of a real export has them: x -> Neg -> a (dead after BN: taken over) -> BN -> b;
// b, x -> Add -> c (b dead after: taken over). Channels 2, planes of 2; by hand, channel 0:
// (a - 1) / sqrt(3 + 1) · 2 + 0.5 = (a - 1) + 0.5; channel 1: (a - 0) / sqrt(0 + 1) · -1 + 0 = -a.
// The observed a and b are the values before they were taken over.
TEST(Evaluator, BatchNormAndAddTakeOverDeadFeatureMaps) {
    Graph g;
    g.name = "g", g.opset = 13;
    g.inputs = {{"x", 1, {1, 2, 1, 2}}};
    g.outputs = {{"c", 1, {1, 2, 1, 2}}};
    Node bn = node("BatchNormalization", {"a", "s", "bias", "mean", "var"}, "b");
    bn.attributes["epsilon"].f = 1.0f;
    bn.attributes["epsilon"].kind = Attribute::Kind::f;
    g.nodes = {node("Neg", {"x"}, "a"), bn, node("Add", {"b", "x"}, "c")};
    g.initializers = {{"s", Value::floats({2}, {2, -1})},
                      {"bias", Value::floats({2}, {0.5f, 0})},
                      {"mean", Value::floats({2}, {1, 0})},
                      {"var", Value::floats({2}, {3, 0})}};
    std::map<std::string, std::vector<float>> seen;
    EvalOptions o;
    o.on_value = [&](const std::string& name, const Value& v) {
        seen[name] = v.f;
    };
    const std::vector<float> x{1, 2, 3, -4};
    const std::map<std::string, Value> out =
        evaluate(g, {{"x", Value::floats({1, 2, 1, 2}, x)}}, o);
    // a = {-1, -2, -3, 4}; b = {-1.5, -2.5, 3, -4}; c = b + x = {-0.5, -0.5, 6, -8}.
    EXPECT_EQ(seen.at("a"), (std::vector<float>{-1, -2, -3, 4}));
    EXPECT_EQ(seen.at("b"), (std::vector<float>{-1.5f, -2.5f, 3, -4}));
    EXPECT_EQ(out.at("c").f, (std::vector<float>{-0.5f, -0.5f, 6, -8}));
}

}  // namespace
}  // namespace npu::onnx
