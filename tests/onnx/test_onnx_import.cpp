// The ONNX importer's errors and a seeded mutation run over real models (the node tests' Conv
// and Gemm models): any bytes give a graph or one sim::Error.
#include <filesystem>
#include <random>

#include <gtest/gtest.h>

#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"

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

TEST(OnnxImport, MutatedModelsImportOrFailCleanly) {
    NODE_TEST_OR_SKIP(conv, std::string("test_basic_conv_with_padding"));
    NODE_TEST_OR_SKIP(gemm, std::string("test_gemm_all_attributes"));
    std::mt19937 rng(3);
    int ok = 0, refused = 0;
    for (int t = 0; t < 3000; ++t) {
        std::vector<uint8_t> b = t % 2 == 0 ? conv : gemm;
        for (int e = 0; e < 1 + t % 3; ++e) {
            b[rng() % b.size()] = static_cast<uint8_t>(rng());
        }
        try {
            onnx::ImportOptions o;
            o.supported_ops = onnx::supported_ops();
            onnx::import_model_bytes(b, "m.onnx", o);
            ++ok;
        } catch (const sim::Error& e) {
            EXPECT_EQ(std::string(e.what()).rfind("m.onnx: ", 0), 0u) << e.what();
            ++refused;
        }
    }
    EXPECT_GT(ok, 100);
    EXPECT_GT(refused, 100);
}

}  // namespace
}  // namespace npu::test
