// The kmodel op table (platforms/k210/kmodel/kmodel_ops.h): every entry complete, the names
// code uses equal to the table's codes, and everything that lists or dispatches ops derived from
// the table.
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "platforms/k210/kmodel/kmodel_ops.h"
#include "sim/core/files.h"

namespace npu::k210 {
namespace {

TEST(KmodelOps, EveryEntryIsComplete) {
    std::set<std::pair<int, uint32_t>> codes;
    size_t cpu = 0, kpu = 0;
    for (const KmodelOp& op : kmodel_ops()) {
        SCOPED_TRACE(op.name);
        EXPECT_TRUE(op.version == 3 || op.version == 4);
        EXPECT_NE(std::string(op.name), "");
        EXPECT_TRUE(codes.insert({op.version, op.code}).second) << "code listed twice";
        // A runner exactly for the CPU ops.
        EXPECT_EQ(op.run != nullptr, op.runs == OpRuns::cpu);
        cpu += op.runs == OpRuns::cpu ? 1u : 0u;
        kpu += op.runs == OpRuns::kpu ? 1u : 0u;
        // Everything else reads the same table.
        EXPECT_EQ(layer_supported(op.version, op.code), op.runs != OpRuns::not_supported);
        EXPECT_EQ(is_kpu_layer(op.version, op.code), op.runs == OpRuns::kpu);
        EXPECT_EQ(std::string(op.version == 3 ? v3_layer_name(op.code) : v4_opcode_name(op.code)),
                  op.name);
    }
    // The 21 v3 CPU layer types kpu.c's ai_step runs + the 27 v4 CPU opcodes of nncase
    // v0.2.0-beta4 (21 neutral, 5 of the cpu target, kpu_upload); one KPU convolution each.
    EXPECT_EQ(cpu, 48u);
    EXPECT_EQ(kpu, 2u);
    EXPECT_EQ(find_op(3, 9999), nullptr);
    EXPECT_FALSE(layer_supported(4, 0x3000));
    EXPECT_EQ(std::string(v4_opcode_name(0x3000)), "unknown");
}

TEST(KmodelOps, NamedCodesAreTheTablesCodes) {
    const std::pair<uint32_t, const char*> v3[] = {
        {op::kV3Add, "ADD"},
        {op::kV3GlobalAveragePool, "GLOBAL_AVERAGE_POOL2D"},
        {op::kV3Quantize, "QUANTIZE"},
        {op::kV3Dequantize, "DEQUANTIZE"},
        {op::kV3Softmax, "SOFTMAX"},
        {op::kV3Concat, "CONCAT"},
        {op::kV3FullyConnected, "FULLY_CONNECTED"},
        {op::kV3Conv, "K210_CONV"},
        {op::kV3Upload, "K210_UPLOAD"}};
    for (const auto& [code, name] : v3) {
        ASSERT_NE(find_op(3, code), nullptr) << name;
        EXPECT_STREQ(find_op(3, code)->name, name);
    }
    const std::pair<uint32_t, const char*> v4[] = {
        {op::kV4Binary, "binary"},          {op::kV4Concat, "concat"},
        {op::kV4Conv2d, "conv2d"},          {op::kV4Dequantize, "dequantize"},
        {op::kV4Matmul, "matmul"},          {op::kV4Pad, "pad"},
        {op::kV4Quantize, "quantize"},      {op::kV4ReduceWindow2d, "reduce_window2d"},
        {op::kV4MemoryCopy, "memory_copy"}, {op::kV4Softmax, "softmax"},
        {op::kV4Transpose, "transpose"},    {op::kV4QuantizedBinary, "quantized_binary"},
        {op::kV4Upload, "kpu_upload"},      {op::kV4Conv, "kpu_conv2d"}};
    for (const auto& [code, name] : v4) {
        ASSERT_NE(find_op(4, code), nullptr) << name;
        EXPECT_STREQ(find_op(4, code)->name, name);
    }
}

// docs/k210_cpu_ops.md documents every CPU op the table runs, one row each ("| v3 `ADD` (1) |").
TEST(KmodelOps, TheDocsHaveARowForEveryCpuOp) {
    const std::string doc = sim::read_text_file(NPUSIM_SOURCE_DIR "/docs/k210_cpu_ops.md");
    for (const KmodelOp& op : kmodel_ops()) {
        if (op.runs == OpRuns::cpu) {
            const std::string row =
                fmt::format("| v{} `{}` ({}) |", op.version, op.name,
                            op.version == 3 ? fmt::format("{}", op.code)
                                            : fmt::format("{:#04X}", op.code).replace(1, 1, "x"));
            EXPECT_NE(doc.find(row), std::string::npos) << row << " missing in the docs";
        }
    }
}

TEST(KmodelOps, SupportedListsComeFromTheTable) {
    EXPECT_EQ(supported_op_names(3),
              "ADD, QUANTIZED_ADD, GLOBAL_AVERAGE_POOL2D, QUANTIZED_MAX_POOL2D, AVERAGE_POOL2D, "
              "QUANTIZE, DEQUANTIZE, REQUANTIZE, L2_NORMALIZATION, SOFTMAX, CONCAT, "
              "QUANTIZED_CONCAT, FULLY_CONNECTED, TENSORFLOW_FLATTEN, RESIZE_NEAREST_NEIGHBOR, "
              "QUANTIZED_RESIZE_NEAREST_NEIGHBOR, CHANNELWISE_DEQUANTIZE, LOGISTIC, K210_CONV, "
              "K210_ADD_PADDING, K210_REMOVE_PADDING, K210_UPLOAD");
}

// The v3 types the table leaves unsupported are exactly those kpu.c's ai_step refuses: its
// switch runs 22 types (Kendryte SDK lib/drivers/kpu.c).
TEST(KmodelOps, UnsupportedV3TypesAreThoseKpuCRefuses) {
    std::set<uint32_t> refused;
    for (const KmodelOp& op : kmodel_ops()) {
        if (op.version == 3 && op.runs == OpRuns::not_supported) {
            refused.insert(op.code);
        }
    }
    // INVALID, GLOBAL_MAX_POOL2D, QUANTIZED_GLOBAL_MAX_POOL2D, QUANTIZED_GLOBAL_AVERAGE_POOL2D,
    // MAX_POOL2D, QUANTIZED_AVERAGE_POOL2D, QUANTIZED_FULLY_CONNECTED,
    // QUANTIZED_TENSORFLOW_FLATTEN.
    EXPECT_EQ(refused, (std::set<uint32_t>{0, 3, 4, 6, 7, 10, 19, 21}));
}

}  // namespace
}  // namespace npu::k210
