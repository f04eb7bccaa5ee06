// The CPU kernels' fit (platforms/k210/kmodel/cpu_fit.h): the firmware's lines parsed or refused
// with the line named, a kernel's line fit, the board/hart scale and its leave-one-out values,
// worked by hand on small numbers.
#include <cmath>
#include <string>

#include <gtest/gtest.h>

#include "platforms/k210/kmodel/cpu_fit.h"
#include "sim/core/error.h"

namespace npu::test {
namespace {

// Every kernel of the fit's table at two sizes: cycles = 100 + 10·n (20 + 4·n instructions),
// except the three with board figures.
std::string lines(double dequantize, double dequantize_v3, double quantized_binary) {
    const char* names[] = {"dequantize",
                           "DEQUANTIZE",
                           "quantized_binary",
                           "quantize",
                           "binary",
                           "transpose",
                           "transpose_f32",
                           "concat",
                           "pad",
                           "memory_copy",
                           "resize_image",
                           "resize_bilinear",
                           "softmax",
                           "unary",
                           "reduce_window2d",
                           "reduce",
                           "strided_slice",
                           "table_lookup1d",
                           "matmul",
                           "conv2d",
                           "FULLY_CONNECTED",
                           "kpu_upload",
                           "kpu_download",
                           "kpu_download_w64",
                           "QUANTIZE",
                           "QUANTIZED_ADD",
                           "K210_UPLOAD",
                           "ADD",
                           "GLOBAL_AVERAGE_POOL2D",
                           "REQUANTIZE",
                           "SOFTMAX",
                           "CONCAT",
                           "TENSORFLOW_FLATTEN",
                           "RESIZE_NEAREST_NEIGHBOR",
                           "QUANTIZED_RESIZE_NEAREST_NEIGHBOR",
                           "LOGISTIC",
                           "K210_REMOVE_PADDING"};
    std::string s = "firmware banner\n";
    for (const char* name : names) {
        double per = 10;
        if (std::string(name) == "dequantize")
            per = dequantize;
        if (std::string(name) == "DEQUANTIZE")
            per = dequantize_v3;
        if (std::string(name) == "quantized_binary")
            per = quantized_binary;
        for (int n : {1000, 3000}) {
            s += "kernel " + std::string(name) + " " + std::to_string(n) + " " +
                 std::to_string(static_cast<long>(100 + per * n)) + " " +
                 std::to_string(20 + 4 * n) + "\n";
        }
    }
    return s;
}

TEST(CpuFit, AKernelsLineFitGivesItsCyclesPerElementAndPerCall) {
    const auto m = k210::parse_kernel_lines(
        "kernel x 1000 1100 4020\nkernel x 3000 3100 12020\n"
        "other output\nkernel x 2000 2100 8020\n",
        "k.txt");
    ASSERT_EQ(m.size(), 1u);
    EXPECT_DOUBLE_EQ(m[0].per_element, 1.0);
    EXPECT_NEAR(m[0].fixed, 100.0, 1e-9);
    EXPECT_DOUBLE_EQ(m[0].instructions_per_element, 4.0);
    EXPECT_NEAR(m[0].worst_residual, 0.0, 1e-12);
}

TEST(CpuFit, AMalformedLineOrASingleSizeIsRefusedNamingIt) {
    try {
        k210::parse_kernel_lines("kernel x 1000 1100 4020\nkernel x 1000 oops 4020\n", "k.txt");
        FAIL() << "no error";
    } catch (const sim::Error& e) {
        EXPECT_NE(std::string(e.what()).find("k.txt:2:"), std::string::npos) << e.what();
    }
    try {
        k210::parse_kernel_lines("kernel x 1000 1100 4020\nkernel x 1000 1100 4020\n", "k.txt");
        FAIL() << "no error";
    } catch (const sim::Error& e) {
        EXPECT_NE(std::string(e.what()).find("fewer than two sizes"), std::string::npos);
    }
}

// Boards: dequantize 11.323, DEQUANTIZE 17.040, quantized_binary 75.914 (the default CpuModel).
// With hart cycles per element 11.323/2, 17.040/2 and 75.914/8, board/hart is 2, 2 and 8: the
// scale is their geometric mean (2·2·8)^(1/3) = 3.175; without the third row it is 2 (predicts
// 75.914 as 18.979: −75 %), without either of the others √16 = 4.
TEST(CpuFit, TheScaleIsTheGeometricMeanAndEachBoardRowIsPredictedWithoutItself) {
    const k210::CpuModel shipped;
    const auto m = k210::parse_kernel_lines(lines(11.323 / 2, 17.040 / 2, 75.914 / 8), "k.txt");
    const k210::CpuFitReport r = k210::cpu_fit_report(m, shipped);
    EXPECT_NEAR(r.scale, std::cbrt(32.0), 1e-3);
    EXPECT_NEAR(r.scale_min, 2.0, 1e-3);
    EXPECT_NEAR(r.scale_max, 4.0, 1e-3);
    for (const k210::KernelRow& k : r.rows) {
        if (k.m.name == "quantize") {
            EXPECT_EQ(k.use, k210::KernelUse::Scaled);
            EXPECT_NEAR(k.constant, 10 * std::cbrt(32.0), 1e-3);
        }
        if (k.m.name == "K210_UPLOAD") {
            EXPECT_EQ(k.use, k210::KernelUse::Measured);
            EXPECT_NEAR(k.constant, 10.0, 1e-9);  // uncached: not scaled
        }
    }
    EXPECT_FALSE(r.shipped_match);  // the default constants are not this made-up fit's
    EXPECT_NE(r.markdown.find("| -75.0 % |"), std::string::npos) << r.markdown;
}

TEST(CpuFit, AKernelMissingFromTheTableOrTheMeasurementsIsAnError) {
    const k210::CpuModel shipped;
    auto m = k210::parse_kernel_lines(lines(5, 8, 30) +
                                          "kernel new_op 10 20 30\nkernel new_op 20 "
                                          "40 60\n",
                                      "k.txt");
    EXPECT_THROW(k210::cpu_fit_report(m, shipped), sim::Error);
    m = k210::parse_kernel_lines("kernel dequantize 10 20 30\nkernel dequantize 20 40 60\n", "k");
    EXPECT_THROW(k210::cpu_fit_report(m, shipped), sim::Error);
}

}  // namespace
}  // namespace npu::test
