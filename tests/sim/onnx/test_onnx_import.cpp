// The ONNX importer's errors and a seeded mutation run over real models (the node tests' Conv
// and Gemm models): any bytes give a graph or one sim::Error.
#include <cctype>
#include <filesystem>
#include <map>
#include <random>
#include <set>

#include <gtest/gtest.h>
#include <onnx/onnx_pb.h>

#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"
#include "tests/fuzz/fuzz_onnx_target.h"
#include "tests/sim/onnx/onnx_graph_builder.h"

namespace npu::test {
namespace {

const std::string kNode = "/usr/share/libonnx-testdata/data/node/";

#define NODE_TEST_OR_SKIP(var, name)                                      \
    if (!std::filesystem::exists(kNode + name)) {                         \
        GTEST_SKIP() << kNode << " is absent (install libonnx-testdata)"; \
    }                                                                     \
    const std::vector<uint8_t> var = sim::read_file(kNode + name + "/model.onnx")

std::string error_of(const std::vector<uint8_t>& bytes, const onnx::ImportOptions& o = {}) {
    try {
        onnx::import_model_bytes(bytes, "m.onnx", o);
    } catch (const sim::Error& e) {
        return e.what();
    }
    return "no error";
}

// A one-node float model: inputs A (shape a) and B (shape b), output Y, at `opset`.
std::vector<uint8_t> binary_model(int64_t opset, const std::string& op,
                                  const std::vector<int64_t>& a, const std::vector<int64_t>& b,
                                  int64_t legacy_axis) {
    ::onnx::ModelProto m;
    m.set_ir_version(3);
    m.add_opset_import()->set_version(opset);
    ::onnx::GraphProto* g = m.mutable_graph();
    g->set_name("g");
    test::onnx_proto::value_info(g->add_input(), "A", a);
    test::onnx_proto::value_info(g->add_input(), "B", b);
    test::onnx_proto::value_info(g->add_output(), "Y", a);
    ::onnx::NodeProto* n = g->add_node();
    n->set_op_type(op);
    n->add_input("A");
    n->add_input("B");
    n->add_output("Y");
    if (legacy_axis >= 0) {
        test::onnx_proto::set(n, "broadcast", int64_t{1});
        test::onnx_proto::set(n, "axis", legacy_axis);
    }
    std::string bytes;
    m.SerializeToString(&bytes);
    return {bytes.begin(), bytes.end()};
}

// Names that are not UTF-8 become text (each bad byte U+FFFD) and the graph computes as before;
// two names that would read the same are refused rather than joined into one tensor.
TEST(OnnxImport, NamesThatAreNotUtf8BecomeTextAndNeverJoinTwoTensors) {
    const auto renamed = [](const std::string& a, const std::string& b) {
        const std::vector<uint8_t> bytes = binary_model(13, "Add", {2}, {2}, -1);
        ::onnx::ModelProto m;
        EXPECT_TRUE(m.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())));
        ::onnx::GraphProto* g = m.mutable_graph();
        g->mutable_input(0)->set_name(a), g->mutable_input(1)->set_name(b);
        g->mutable_node(0)->set_input(0, a), g->mutable_node(0)->set_input(1, b);
        std::string out;
        m.SerializeToString(&out);
        return std::vector<uint8_t>(out.begin(), out.end());
    };
    const std::string r = "\xef\xbf\xbd";  // U+FFFD
    const onnx::Graph g = onnx::import_model_bytes(renamed("A\xff", "B\xc3"), "m.onnx");
    ASSERT_EQ(g.inputs.size(), 2u);
    EXPECT_EQ(g.inputs[0].name, "A" + r);
    EXPECT_EQ(g.nodes[0].inputs, (std::vector<std::string>{"A" + r, "B" + r}));
    std::map<std::string, onnx::Value> in;
    in["A" + r] = onnx::Value::floats({2}, {1, 2});
    in["B" + r] = onnx::Value::floats({2}, {10, 20});
    EXPECT_EQ(onnx::evaluate(g, in).at("Y").f, (std::vector<float>{11, 22}));
    EXPECT_EQ(error_of(renamed("A\xff", "A\xfe")),
              "m.onnx: two different names read 'A" + r +
                  "' once their bytes that are not UTF-8 are replaced (U+FFFD); rename one");
}

TEST(OnnxImport, OpsetsOutside6To17AreRefused) {
    EXPECT_EQ(error_of(binary_model(5, "Add", {2}, {2}, -1)),
              "m.onnx: default-domain opset 5, expected 6..17");
    EXPECT_EQ(error_of(binary_model(18, "Add", {2}, {2}, -1)),
              "m.onnx: default-domain opset 18, expected 6..17");
    EXPECT_EQ(error_of(binary_model(6, "Add", {2}, {2}, -1)), "no error");
}

// Shapes that contradict each other are one error naming the node, from the evaluator (ONNX's
// shape inference is not used: libonnx 1.12's crashes on malformed ConvTranspose nodes).
TEST(OnnxImport, InconsistentShapesAreOneErrorNamingTheNode) {
    const onnx::Graph g =
        onnx::import_model_bytes(binary_model(13, "Add", {2, 3}, {4}, -1), "m.onnx");
    std::map<std::string, onnx::Value> in;
    in["A"] = onnx::Value::floats({2, 3}, std::vector<float>(6, 1));
    in["B"] = onnx::Value::floats({4}, std::vector<float>(4, 1));
    try {
        onnx::evaluate(g, in);
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(), "Add (output 'Y'): shapes (2, 3) and (4) do not broadcast");
    }
}

// Opset 6's `broadcast = 1, axis = 1`: B (3) is laid along A's axis 1, i.e. read as (1, 3, 1),
// where numpy-style alignment would need B's length to match A's last axis (2).
TEST(OnnxImport, Opset6LegacyBroadcastAlignsBAtAxis) {
    const onnx::Graph g =
        onnx::import_model_bytes(binary_model(6, "Add", {1, 3, 2}, {3}, 1), "m.onnx");
    std::map<std::string, onnx::Value> in;
    in["A"] = onnx::Value::floats({1, 3, 2}, {0, 1, 2, 3, 4, 5});
    in["B"] = onnx::Value::floats({3}, {10, 20, 30});
    const onnx::Value y = onnx::evaluate(g, in).at("Y");
    EXPECT_EQ(y.shape, (std::vector<int64_t>{1, 3, 2}));
    EXPECT_EQ(y.f, (std::vector<float>{10, 11, 22, 23, 34, 35}));
    // PRelu at opset 6: a 1-D slope is per channel.
    const onnx::Graph p =
        onnx::import_model_bytes(binary_model(6, "PRelu", {1, 2, 2}, {2}, -1), "m.onnx");
    in["A"] = onnx::Value::floats({1, 2, 2}, {-1, 1, -2, 2});
    in["B"] = onnx::Value::floats({2}, {0.5f, 0.25f});
    EXPECT_EQ(onnx::evaluate(p, in).at("Y").f, (std::vector<float>{-0.5f, 1, -0.5f, 2}));
}

TEST(OnnxImport, BrokenFilesAreOneClearError) {
    NODE_TEST_OR_SKIP(conv, std::string("test_basic_conv_with_padding"));
    EXPECT_EQ(error_of(std::vector<uint8_t>(conv.begin(), conv.begin() + 20)),
              "m.onnx: not a valid ONNX model (the protobuf does not parse: truncated or not "
              "ONNX)");
    EXPECT_EQ(error_of({0xff, 0xff, 0xff}),
              "m.onnx: not a valid ONNX model (the protobuf does not parse: truncated or not "
              "ONNX)");
    onnx::ImportOptions only_relu;
    only_relu.supported_ops = {"Relu"};
    EXPECT_EQ(error_of(conv, only_relu), "m.onnx: unsupported ops: Conv");
    const onnx::Graph g = onnx::import_model_bytes(conv, "m.onnx");
    ASSERT_EQ(g.nodes.size(), 1u);
    EXPECT_EQ(g.nodes[0].op_type, "Conv");
    EXPECT_EQ(g.nodes[0].get_ints("pads"), (std::vector<int64_t>{1, 1, 1, 1}));
    EXPECT_EQ(g.inputs.size(), 2u);  // x and W are graph inputs in the node tests
}

// The libFuzzer target's entry point on seeded mutations of real models: the importer gives a
// graph or one error, and a graph that imports runs on constant inputs or gives one error.
TEST(OnnxImport, MutatedModelsImportAndRunOrFailCleanly) {
    NODE_TEST_OR_SKIP(conv, std::string("test_basic_conv_with_padding"));
    NODE_TEST_OR_SKIP(gemm, std::string("test_gemm_all_attributes"));
    NODE_TEST_OR_SKIP(pool, std::string("test_maxpool_2d_pads"));
    NODE_TEST_OR_SKIP(resize, std::string("test_resize_upsample_scales_linear"));
    const std::vector<uint8_t>* seeds[] = {&conv, &gemm, &pool, &resize};
    std::mt19937 rng(3);
    int outcome[3] = {0, 0, 0};
    for (int t = 0; t < 4000; ++t) {
        std::vector<uint8_t> b = *seeds[t % 4];
        for (int e = 0; e < 1 + t % 3; ++e) {
            b[rng() % b.size()] = static_cast<uint8_t>(rng());
        }
        ++outcome[fuzz::onnx_model(b.data(), b.size())];
    }
    EXPECT_GT(outcome[0], 100);  // refused by the importer
    EXPECT_GT(outcome[2], 100);  // imported and ran
}

// Pad in reflect mode with pads wider than the axis repeats the reflection, as numpy does:
// np.pad([1, 2, 3], (4, 0), "reflect") = [1 2 3 2 1 2 3], np.pad([7], (2, 1), "reflect") = [7 7 7
// 7]. (A width-1 axis once made the reflection loop forever; found by fuzz_onnx.)
TEST(OnnxEvaluator, PadReflectBeyondTheAxisRepeatsLikeNumpy) {
    auto pad = [](std::vector<float> x, int64_t before, int64_t after) {
        onnx::Graph g;
        g.opset = 6;
        g.inputs.push_back({"x", 1, {static_cast<int64_t>(x.size())}});
        g.outputs.push_back({"y", 1, {}});
        onnx::Node n;
        n.op_type = "Pad", n.inputs = {"x"}, n.outputs = {"y"};
        n.attributes["mode"].kind = onnx::Attribute::Kind::s;
        n.attributes["mode"].s = "reflect";
        n.attributes["pads"].kind = onnx::Attribute::Kind::is;
        n.attributes["pads"].is = {before, after};
        g.nodes.push_back(n);
        std::map<std::string, onnx::Value> in;
        in["x"] = onnx::Value::floats({static_cast<int64_t>(x.size())}, x);
        return onnx::evaluate(g, in).at("y").f;
    };
    EXPECT_EQ(pad({1, 2, 3}, 4, 0), (std::vector<float>{1, 2, 3, 2, 1, 2, 3}));
    EXPECT_EQ(pad({7}, 2, 1), (std::vector<float>{7, 7, 7, 7}));
}

// A node's work is checked before it runs: MatMul of (64, 256) x (256, 64) is 64 * 64 outputs
// of 256 multiply-adds = 2^20. Under a limit of 2^20 it runs (each output sums 256 ones = 256);
// under 2^20 - 1 it is one error naming the node and the work. (fuzz_onnx_compile once spent 38 s
// in a mutated model's convolution.)
TEST(OnnxEvaluator, ANodeOverTheWorkLimitIsOneErrorBeforeItRuns) {
    onnx::Graph g;
    g.opset = 13;
    g.inputs.push_back({"a", 1, {64, 256}});
    g.initializers["b"] = onnx::Value::floats({256, 64}, std::vector<float>(256 * 64, 1.0f));
    g.outputs.push_back({"y", 1, {}});
    onnx::Node n;
    n.name = "mm", n.op_type = "MatMul", n.inputs = {"a", "b"}, n.outputs = {"y"};
    g.nodes.push_back(n);
    const std::map<std::string, onnx::Value> in{
        {"a", onnx::Value::floats({64, 256}, std::vector<float>(64 * 256, 1.0f))}};
    EXPECT_EQ(onnx::work_limit(), uint64_t{1} << 36);
    {
        const onnx::ScopedWorkLimit limit(uint64_t{1} << 20);
        EXPECT_EQ(onnx::evaluate(g, in).at("y").f, std::vector<float>(64 * 64, 256.0f));
    }
    {
        const onnx::ScopedWorkLimit limit((uint64_t{1} << 20) - 1);
        try {
            onnx::evaluate(g, in);
            ADD_FAILURE() << "no error";
        } catch (const sim::Error& e) {
            EXPECT_NE(std::string(e.what()).find("'mm'"), std::string::npos) << e.what();
            EXPECT_NE(std::string(e.what()).find("4096 outputs of 256 multiply-adds"),
                      std::string::npos)
                << e.what();
        }
    }
    EXPECT_EQ(onnx::work_limit(), uint64_t{1} << 36);
}

// Every output element counts as one step: a Pad of 1 element to 1 + 1023 + 0 = 1024 runs
// under a limit of 1024 and is refused under 1023 (a mutated model once padded to 2^27
// elements, 18 s under the fuzzer's instrumentation).
TEST(OnnxEvaluator, OutputElementsCountAgainstTheWorkLimit) {
    onnx::Graph g;
    g.opset = 6;
    g.inputs.push_back({"x", 1, {1}});
    g.outputs.push_back({"y", 1, {}});
    onnx::Node n;
    n.name = "p", n.op_type = "Pad", n.inputs = {"x"}, n.outputs = {"y"};
    n.attributes["pads"].kind = onnx::Attribute::Kind::is;
    n.attributes["pads"].is = {1023, 0};
    g.nodes.push_back(n);
    const std::map<std::string, onnx::Value> in{{"x", onnx::Value::floats({1}, {5.0f})}};
    {
        const onnx::ScopedWorkLimit limit(1024);
        const std::vector<float> y = onnx::evaluate(g, in).at("y").f;
        ASSERT_EQ(y.size(), 1024u);
        EXPECT_EQ(y[0], 0.0f);
        EXPECT_EQ(y[1023], 5.0f);
    }
    const onnx::ScopedWorkLimit limit(1023);
    EXPECT_THROW(onnx::evaluate(g, in), sim::Error);
}

}  // namespace
}  // namespace npu::test

namespace npu::onnx {
namespace {

// The op table is the one list of ops: supported_ops() comes from it, and docs/onnx.md names
// every entry (a new op without its documentation fails here).
TEST(OnnxOps, TheTableIsTheListAndTheDocsNameEveryOp) {
    const std::set<std::string>& ops = supported_ops();
    EXPECT_EQ(ops.size(), 111u);  // see the list in docs/onnx.md
    const std::string doc = sim::read_text_file(NPUSIM_SOURCE_DIR "/docs/onnx.md");
    std::set<std::string> words;
    std::string w;
    for (const char ch : doc + " ") {
        if (std::isalnum(static_cast<unsigned char>(ch)) != 0) {
            w += ch;
        } else if (!w.empty()) {
            words.insert(w);
            w.clear();
        }
    }
    for (const std::string& op : ops) {
        EXPECT_EQ(words.count(op), 1u) << op << " is not named in docs/onnx.md";
    }
}

}  // namespace
}  // namespace npu::onnx
