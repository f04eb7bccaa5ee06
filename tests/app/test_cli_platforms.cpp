// npusim's other platforms and tools as a user runs them: the Ascend AIPP job, the KL730
// layouts, the DL processor, the ONNX reference evaluator; and platform settings (--set).
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <onnx/onnx_pb.h>

#include "sim/core/npy.h"
#include "sim/onnx/onnx_import.h"
#include "tests/app/cli_fixture.h"
#include "tests/platforms/dlp/dlhdl_onnx_models.h"

namespace {

using npu::test::Cli;
using npu::test::Result;
using npu::test::slurp;
namespace fs = std::filesystem;

TEST_F(Cli, AippDefaultJobWritesTheTileAndItsCost) {
    const Result r = run("aipp --out " + (dir / "aipp").string());
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err, "");
    const std::string npy = slurp(dir / "aipp" / "output.npy");
    EXPECT_NE(npy.find("'descr': '|i1'"), std::string::npos) << npy.substr(0, 80);
    EXPECT_NE(npy.find("'shape': (232, 232, 4)"), std::string::npos) << npy.substr(0, 80);
    EXPECT_EQ(npy.size() % 64, (232u * 232 * 4) % 64);  // header padded to 64, then the tile
    const auto j = nlohmann::json::parse(slurp(dir / "aipp" / "report.json"));
    // 224x224 NV12 crop at (48, 8) of a 320x240 frame (src0 at 0, src1 at 76800): 224 Y rows and
    // (8 + 223) / 2 − 4 + 1 = 112 UV rows of 224 B = 75264 B. Every row starts 16 B into a 32-B
    // beat (48 + 320·r ≡ 16 mod 32): ⌈(16 + 224) / 32⌉ = 8 beats, one burst, no latency (a 4 KiB
    // split keeps 8: both pieces ≡ 16 mod 32) -> 336 · 8 = 2688 bus cycles. Write 232·232·4 =
    // 215296 B from L1 address 0 in 64-B beats: 3364 cycles. Rows 232 · 8 = 1856; total 64 + 1856
    // + max(2688, 3364) = 5284 cycles at 1 GHz.
    const auto& m = j["layers"][0]["measures"];
    EXPECT_EQ(m["read_bytes"]["value"], 75264);
    EXPECT_EQ(m["read_bus_cycles"]["value"], 2688);
    EXPECT_EQ(m["write_bytes"]["value"], 215296);
    EXPECT_EQ(m["write_bus_cycles"]["value"], 3364);
    EXPECT_EQ(m["total_cycles"]["value"], 5284);
    EXPECT_EQ(m["cost_ps"]["value"], 5284000);
    // The engine's own cycles (64 + 1856) at 1 GHz, then the longer port, the L1 write's 3364
    // cycles at 1 GHz: the engines' times add up to the job's.
    const auto& e = j["layers"][0]["engines"];
    EXPECT_EQ(e[0]["ps"], 1920000);
    EXPECT_EQ(e[1]["engine"], "L1 write");
    EXPECT_EQ(e[1]["ps"], 3364000);
    EXPECT_EQ(j["checks"][0]["passed"], true);  // the simulated time is the cost model's
    EXPECT_EQ(slurp(dir / "aipp" / "output.png").substr(1, 3), "PNG");
}

TEST_F(Cli, AippBadParametersAreOneLine) {
    const fs::path cfg = write("bad.yaml",
                               "aipp:\n  format: RGB888_U8\n  load: {horizSize: 5000, vertSize: 8, "
                               "horizStartPos: 3}\n");
    const Result r = run("aipp --config " + cfg.string() + " --out " + (dir / "o").string());
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(r.err, "npusim: error: " + cfg.string() +
                         ": AIPP parameters: horizSize is 5000, expected 2..4095; horizStartPos is "
                         "3, expected an even value (every input format); horizStartPos + "
                         "horizSize is 5003, expected at most srcHorizSize = 320 (the crop must "
                         "lie inside the source rows)\n");
    EXPECT_FALSE(fs::exists(dir / "o"));
    const fs::path typo =
        write("typo.yaml", "aipp:\n  load: {horizSize: 8, vertSize: 8, horizStartPoss: 2}\n");
    const Result t = run("aipp --config " + typo.string());
    EXPECT_EQ(t.rc, 2);
    EXPECT_NE(t.err.find("aipp.load.horizStartPoss: unknown key (did you mean 'horizStartPos'?)"),
              std::string::npos)
        << t.err;
}

TEST_F(Cli, LayoutExplainAndRoundTrip) {
    // 1W16C8BHL, 1x32x7x9: element (0, 17, 2, 3) sits in channel group 1 at pixel 2·9 + 3 = 21,
    // position 16·7·9 + 21·16 + 1 = 1345; HL: low byte (1345 >> 4)·32 + 1 = 2689, high 2705.
    const Result r = run("layout explain --layout 1W16C8BHL --shape 1,32,7,9 --limit 2016");
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("stride_npu (1008, 1, 144, 16), outer channel groups of 16"),
              std::string::npos)
        << r.out.substr(0, 300);
    EXPECT_NE(r.out.find("(0, 17, 2, 3)                 2689     168     1       2705"),
              std::string::npos);
    // .npy -> .bin -> .npy: 1x3x2x5 in 4W4C8B with scale 1, radix 2 (factor 4): 0.3 -> 1 -> 0.25
    npu::sim::Tensor x(npu::sim::DType::f32, {1, 3, 2, 5});
    for (size_t i = 0; i < x.numel(); ++i) {
        x.data<float>()[i] = 0.3f;
    }
    const std::vector<uint8_t> npy = npu::sim::encode_npy(x);
    write("x.npy", std::string(npy.begin(), npy.end()));
    const std::string args = " --layout 4W4C8B --shape 1,3,2,5 --radix 2 ";
    ASSERT_EQ(
        run("layout to-npu" + args + (dir / "x.npy").string() + " " + (dir / "x.bin").string()).rc,
        0);
    EXPECT_EQ(fs::file_size(dir / "x.bin"), 64u);  // 2 rows of W4 = 8 pixels of 4 bytes
    const Result back =
        run("layout to-onnx" + args + (dir / "x.bin").string() + " " + (dir / "y.npy").string());
    ASSERT_EQ(back.rc, 0) << back.err;
    const npu::sim::Tensor y = npu::sim::read_npy((dir / "y.npy").string());
    EXPECT_EQ(y.shape(), x.shape());
    EXPECT_EQ(y.data<float>()[7], 0.25f);
    // The wrong shape, an unknown layout: one line, exit 2.
    const Result bad = run("layout to-npu --layout 4W4C8B --shape 1,3,5,2 " +
                           (dir / "x.npy").string() + " " + (dir / "z.bin").string());
    EXPECT_EQ(bad.rc, 2);
    EXPECT_EQ(bad.err, "npusim: error: " + (dir / "x.npy").string() +
                           ": the array is (1, 3, 2, 5), --shape says (1, 3, 5, 2)\n");
    EXPECT_FALSE(fs::exists(dir / "z.bin"));
}

TEST_F(Cli, DlpEstimateTableAndMemoryMap) {
    const Result r = run("estimate --platform " NPUSIM_SOURCE_DIR
                         "/configs/dlp_zcu102_single.yaml --layers " NPUSIM_SOURCE_DIR
                         "/configs/networks/dlp_tiny.yaml --out " +
                         (dir / "est").string());
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("InputDataOffset                0x80000000           16 KiB"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("LastFrameLatency(cycles)"), std::string::npos);
    // conv1's 12053 cycles are worked by hand in tests/platforms/dlp/test_dlp_compiler.cpp; the
    // rows in network order, as dlhdl's estimator prints them.
    EXPECT_NE(r.out.find("    conv1" + std::string(40, ' ') + "12053"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find(" * The clock frequency of the DL processor is: 200MHz"),
              std::string::npos);
    const auto j = nlohmann::json::parse(slurp(dir / "est" / "estimate.json"));
    EXPECT_EQ(j["layers"][0]["total_cycles"], 12053);
    EXPECT_EQ(j["memory_map"][0]["name"], "InputDataOffset");
    const Result info = run("info --platform " NPUSIM_SOURCE_DIR "/configs/dlp_zcu102_int8.yaml");
    EXPECT_NE(info.out.find("ConvThreadNumber 16 (C = 4 channels at once, N = 4 values per "
                            "transfer), FCThreadNumber 4"),
              std::string::npos)
        << info.out;
    EXPECT_NE(
        info.out.find("ProcessorDataType int8, TargetFrequency 200 MHz, AXI masters 512 bits"),
        std::string::npos)
        << info.out;
}

// An ONNX network as users have it (the compact CNN of dlhdl's published table, exported as
// MATLAB does): estimated as dlhdl's table prints it, and run with softmax on the host.
TEST_F(Cli, DlpRunsAndEstimatesAnOnnxModel) {
    const std::vector<uint8_t> bytes = npu::test::compact_cnn();
    const fs::path model = write("cnn.onnx", std::string(bytes.begin(), bytes.end()));
    const Result e = run("estimate --platform dlp_zcu102_single --model " + model.string());
    ASSERT_EQ(e.rc, 0) << e.err;
    EXPECT_NE(e.out.find("Network                                          90591"),
              std::string::npos)
        << e.out;
    EXPECT_NE(e.out.find("    imageinput_norm_add"), std::string::npos);
    const Result r = run("run --platform dlp_zcu102_single --model " + model.string() + " --out " +
                         (dir / "out").string());
    ASSERT_EQ(r.rc, 0) << r.err;
    const npu::sim::Tensor y = npu::sim::read_npy((dir / "out" / "output_0.npy").string());
    ASSERT_EQ(y.numel(), 2u);
    EXPECT_NEAR(y.data<float>()[0] + y.data<float>()[1], 1.0f, 1e-6f);  // softmax, on the host
    // Layer by layer against the ONNX reference evaluator on the same samples: float rounding.
    const Result g = run("regress --platform dlp_zcu102_single --model " + model.string() +
                         " --out " + (dir / "reg").string());
    ASSERT_EQ(g.rc, 0) << g.out << g.err;
    const auto rep = nlohmann::json::parse(slurp(dir / "reg" / "report.json"));
    ASSERT_EQ(rep["layers"].size(), 8u) << g.out;  // the normalized input (a graph tensor) .. fc
    for (const auto& l : rep["layers"]) {
        EXPECT_GE(l["measures"]["cosine"]["value"].get<double>(), 0.99999) << l;
    }
    EXPECT_NE(g.out.find("top-1 agreement 16/16"), std::string::npos) << g.out;
    // int8: exponents from calibration samples (another set than the regression's), as
    // dlquantizer chooses them; the output within cosine 0.99 of the float reference.
    const auto images = [&](const char* name, uint32_t seed, int64_t count) {
        npu::sim::Tensor x(npu::sim::DType::f32, {count, 1, 32, 32});
        std::mt19937 rng(seed);
        for (size_t i = 0; i < x.numel(); ++i) {
            x.data<float>()[i] = std::uniform_real_distribution<float>(0, 1)(rng);
        }
        const std::vector<uint8_t> npy = npu::sim::encode_npy(x);
        return write(name, std::string(npy.begin(), npy.end())).string();
    };
    const std::string calib = images("calib.npy", 1, 8), test = images("test.npy", 2, 8);
    const Result q = run("regress --platform dlp_zcu102_int8 --model " + model.string() +
                         " --calibrate " + calib + " --inputs " + test);
    EXPECT_EQ(q.rc, 0) << q.out << q.err;
    EXPECT_NE(q.out.find("on the DL processor (int8)"), std::string::npos) << q.out;
    const Result bad = run("run --platform dlp_zcu102_int8 --model " + model.string());
    EXPECT_EQ(bad.rc, 2);
    EXPECT_NE(bad.err.find("give --calibrate SAMPLES.npy"), std::string::npos) << bad.err;
    // A float image into the int8 processor: the host quantizes it at the input's exponent.
    const Result timed = run("run --platform dlp_zcu102_int8 --model " + model.string() +
                             " --calibrate " + calib + " --input " + images("one.npy", 3, 1));
    EXPECT_EQ(timed.rc, 0) << timed.err;
    EXPECT_NE(timed.out.find("(float32, quantized at 2^-6)"), std::string::npos) << timed.out;
    // The estimate needs no exponents: time does not depend on them.
    EXPECT_EQ(run("estimate --platform dlp_zcu102_int8 --model " + model.string()).rc, 0);
}

// dlhdl's question "which processor meets this frame rate within this DSP and BRAM budget" in one
// command: the ONNX model swept over the shipped sweep file, the budget's answer and the front
// printed, every configuration a row, the front on the page; one estimate prints its resources.
TEST_F(Cli, DlpSweepsProcessorConfigurationsForAnOnnxModel) {
    const std::vector<uint8_t> bytes = npu::test::compact_cnn();
    const fs::path model = write("cnn.onnx", std::string(bytes.begin(), bytes.end()));
    const Result one = run("estimate --platform dlp_zcu102_single --model " + model.string());
    ASSERT_EQ(one.rc, 0) << one.err;
    EXPECT_NE(one.out.find("368( 15%)"), std::string::npos) << one.out;  // §2: 377 (R2021b)
    const fs::path out = dir / "sweep";
    const Result r =
        run("estimate --platform dlp_zcu102_single --model " + model.string() +
            " --sweep " NPUSIM_SOURCE_DIR "/configs/dlp_sweep.yaml --out " + out.string());
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("1008 processor configurations of 6 parameters"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("configurations meet it, fastest first"), std::string::npos) << r.out;
    const auto rows = nlohmann::json::parse(slurp(out / "estimate.json"));
    ASSERT_EQ(rows.size(), 1008u);
    size_t front = 0;
    for (const auto& row : rows) {
        front += row.value("pareto", false);
    }
    EXPECT_GT(front, 0u);
    EXPECT_EQ(rows[0]["conv_thread_number"], "4");
    EXPECT_TRUE(rows[0].contains("DSP") && rows[0].contains("frames_per_second"));
    EXPECT_NE(slurp(out / "report.html").find("The front ("), std::string::npos);
    const Result bad =
        run("estimate --platform dlp_zcu102_single --model " + model.string() + " --sweep " +
            write("s.yaml", "sweep:\n  fc_thread_number: [3]\n").string());
    EXPECT_EQ(bad.rc, 2) << bad.err;
    EXPECT_NE(bad.err.find("fc_thread_number is 3"), std::string::npos) << bad.err;
}

// A model without its input normalization (as PyTorch exports it) regressed with --mean/--std:
// the processor normalizes on its adder layers, the reference evaluates the normalized sample.
TEST_F(Cli, DlpRegressNormalizesAnOnnxModelWithMeanAndStd) {
    npu::test::OnnxGraphBuilder b("plain", "x", {1, 3, 8, 8});
    auto* c = b.node("Conv", {"x", b.random("w", {4, 3, 3, 3}, -0.5f, 0.5f)}, "conv");
    npu::test::OnnxGraphBuilder::set(c, "pads", std::vector<int64_t>{1, 1, 1, 1});
    b.node("Relu", {"conv"}, "relu");
    b.node("GlobalAveragePool", {"relu"}, "gap");
    b.node("Flatten", {"gap"}, "flat");
    auto* g = b.node("Gemm", {"flat", b.random("fw", {3, 4}, -1, 1)}, "fc");
    npu::test::OnnxGraphBuilder::set(g, "transB", int64_t{1});
    const std::vector<uint8_t> bytes = b.bytes("fc", {1, 3});
    const fs::path model = write("plain.onnx", std::string(bytes.begin(), bytes.end()));
    const std::string cmd =
        "regress --platform dlp_zcu102_single --model " + model.string() + " --out ";
    const Result r = run(cmd + (dir / "n").string() + " --mean 0.5,0.4,0.3 --std 0.25,0.5,1");
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    const auto rep = nlohmann::json::parse(slurp(dir / "n" / "report.json"));
    for (const auto& l : rep["layers"]) {
        EXPECT_GE(l["measures"]["cosine"]["value"].get<double>(), 0.99999) << l;
    }
    // estimate and run take them too: the normalization is two adder rows of the time, and the
    // run's output is the regressed one's (the same network).
    const Result e = run("estimate --platform dlp_zcu102_single --model " + model.string() +
                         " --mean 0.5,0.4,0.3 --std 0.25,0.5,1");
    ASSERT_EQ(e.rc, 0) << e.err;
    EXPECT_NE(e.out.find("    imageinput_norm_add"), std::string::npos) << e.out;
    EXPECT_NE(e.out.find("    imageinput_norm "), std::string::npos) << e.out;
    const Result plain = run("estimate --platform dlp_zcu102_single --model " + model.string());
    EXPECT_EQ(plain.out.find("imageinput_norm"), std::string::npos) << plain.out;
    const Result ran = run("run --platform dlp_zcu102_single --model " + model.string() +
                           " --mean 0.5 --std 0.25 --out " + (dir / "ran").string());
    EXPECT_EQ(ran.rc, 0) << ran.err;
    const Result bad =
        run("estimate --platform dlp_zcu102_single --model " + model.string() + " --mean 0.5,x");
    EXPECT_EQ(bad.rc, 2);
    EXPECT_NE(bad.err.find("--mean 0.5,x: expected numbers separated by commas"), std::string::npos)
        << bad.err;
    // A network file has its own normalization: the flags are refused for it.
    const Result y = run("regress --platform dlp_zcu102_int8 --model " NPUSIM_SOURCE_DIR
                         "/configs/networks/dlp_tiny.yaml --mean 0.5");
    EXPECT_EQ(y.rc, 2);
    EXPECT_NE(y.err.find("--calibrate, --mean and --std are for an ONNX network"),
              std::string::npos)
        << y.err;
}

TEST_F(Cli, DlpTimedRunEqualsItsEstimate) {
    const std::string args = " --platform " NPUSIM_SOURCE_DIR
                             "/configs/dlp_zcu102_int8.yaml --network " NPUSIM_SOURCE_DIR
                             "/configs/networks/dlp_tiny.yaml";
    const Result r = run("run" + args + " --out " + (dir / "run").string());
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(slurp(dir / "run" / "report.json"));
    EXPECT_EQ(j["totals"]["cycles"]["value"], j["totals"]["estimate_cycles"]["value"]);
    ASSERT_EQ(j["layers"].size(), 5u);
    for (const auto& l : j["layers"]) {
        const auto& m = l["measures"];
        EXPECT_EQ(m["cycles"]["value"], m["estimate_cycles"]["value"]) << l["name"];
        // The module's parts (overhead, then the longer of compute and the transfers) add up
        // to its cycles.
        uint64_t parts = 0;
        for (const auto& [name, cycles] : l["engines"][0]["parts"].items()) {
            parts += cycles.get<uint64_t>();
        }
        EXPECT_EQ(parts, m["cycles"]["value"].get<uint64_t>()) << l["name"];
    }
    EXPECT_EQ(j["outputs"][0]["shape"], nlohmann::json::parse("[10]"));
    const Result e = run("estimate --platform " NPUSIM_SOURCE_DIR
                         "/configs/dlp_zcu102_int8.yaml --layers " NPUSIM_SOURCE_DIR
                         "/configs/networks/dlp_tiny.yaml --out " +
                         (dir / "est").string());
    EXPECT_NE(e.out.find(fmt::format("{:<28}{:>26}", "Network",
                                     j["totals"]["cycles"]["value"].get<uint64_t>())),
              std::string::npos)
        << e.out;
    // The estimate's record has the run's layers with the same parts of the same cycles.
    const auto est = nlohmann::json::parse(slurp(dir / "est" / "report.json"));
    EXPECT_EQ(est["command"], "estimate");
    ASSERT_EQ(est["layers"].size(), j["layers"].size());
    for (size_t i = 0; i < est["layers"].size(); ++i) {
        EXPECT_EQ(est["layers"][i]["engines"][0]["parts"], j["layers"][i]["engines"][0]["parts"])
            << i;
        EXPECT_EQ(est["layers"][i]["engines"][0]["ps"], j["layers"][i]["engines"][0]["ps"]) << i;
        EXPECT_EQ(est["layers"][i]["param_bytes"], j["layers"][i]["param_bytes"]) << i;
    }
    const Result no_net = run("run --platform " NPUSIM_SOURCE_DIR "/configs/dlp_zcu102_int8.yaml");
    EXPECT_EQ(no_net.rc, 2);
    EXPECT_NE(no_net.err.find("a DL processor run needs --network NETWORK.yaml"), std::string::npos)
        << no_net.err;
}

// npusim regress on the DL processor, worked by hand: one 1x1 convolution with int8 weights
// [127, 127] at 2^-7 (0.9921875 each) on the sample [0.1, 0.1]. The int8 network reads the input
// quantized at 2^-7: round(12.8) = 13 each; 127 · 26 = 3302 at 2^-14, shifted to 2^-7: 25.8 ->
// 26, i.e. 0.203125. The float network: 0.9921875 · 0.2 = 0.1984375, 25.4 at 2^-7, which
// quantizes to 25: one LSB apart, |err| 0.0046875. Within the default 8 LSB; over
// --max-lsb 0, exit 1 naming the layer. Without --inputs, 16 pseudo-random samples of the tiny
// network, whose saturating exponents the regression shows (its add layer diverges first).
TEST_F(Cli, DlpRegressComparesTheInt8NetworkWithItsFloatEquivalent) {
    const fs::path net = write("hand.yaml",
                               "network:\n  name: hand\n  input: {channels: 2, height: 1, "
                               "width: 1}\n  input_exp: -7\n  layers:\n    - {name: mix, type: "
                               "conv, out_channels: 1, kernel: 1, w_exp: -7, out_exp: -7, "
                               "weights_q: [127, 127], bias_q: [0]}\n");
    npu::sim::Tensor x(npu::sim::DType::f32, {2, 1, 1});
    x.data<float>()[0] = x.data<float>()[1] = 0.1f;
    const std::vector<uint8_t> npy = npu::sim::encode_npy(x);
    const fs::path in = write("x.npy", std::string(npy.begin(), npy.end()));
    const std::string base = "regress --platform " NPUSIM_SOURCE_DIR
                             "/configs/dlp_zcu102_int8.yaml --model " +
                             net.string() + " --inputs " + in.string();
    Result r = run(base + " --out " + (dir / "r").string());
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    const auto j = nlohmann::json::parse(slurp(dir / "r" / "report.json"));
    const auto& m = j["layers"][0]["measures"];
    EXPECT_EQ(m["max_error_lsb"]["value"], 1);
    EXPECT_NEAR(m["max_abs_error"]["value"].get<double>(), 0.0046875, 1e-8);
    EXPECT_EQ(m["lsb"]["value"], 0.0078125);
    EXPECT_EQ(j["platform"]["kind"], "dlp");
    EXPECT_EQ(j["passed"], true);
    r = run(base + " --max-lsb 0");
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("first diverging layer: 0 (mix)"), std::string::npos) << r.out;
    r = run("regress --platform " NPUSIM_SOURCE_DIR
            "/configs/dlp_zcu102_int8.yaml --model " NPUSIM_SOURCE_DIR
            "/configs/networks/dlp_tiny.yaml");
    EXPECT_EQ(r.rc, 1) << r.out << r.err;
    EXPECT_NE(r.out.find("16 pseudo-random samples"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("first diverging layer: 2 (add1)"), std::string::npos) << r.out;
    // Bad input: one message each, exit 2.
    r = run("regress --platform " NPUSIM_SOURCE_DIR "/configs/dlp_zcu102_single.yaml --model " +
            net.string());
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("give an int8 platform"), std::string::npos) << r.err;
    const fs::path bad = write("bad.yaml",
                               "network:\n  input: {channels: 2, height: 1, width: 1}\n  "
                               "layers:\n    - {name: mix, type: conv, out_channels: 1, "
                               "kernel: 1, weights_q: [127, 300]}\n");
    r = run("regress --platform " NPUSIM_SOURCE_DIR "/configs/dlp_zcu102_int8.yaml --model " +
            bad.string());
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("weights_q: 300 is outside -128..127"), std::string::npos) << r.err;
}

TEST_F(Cli, InferRunsAnOnnxModelOnTheReferenceEvaluator) {
    const std::string t = "/usr/share/libonnx-testdata/data/node/test_basic_conv_with_padding";
    if (!fs::exists(t)) {
        GTEST_SKIP() << "libonnx-testdata is absent";
    }
    // The node test's inputs as .npy; its expected output from output_0.pb.
    std::string inputs;
    for (int i = 0; i < 2; ++i) {
        const npu::onnx::Value v =
            npu::onnx::read_tensor_file(t + "/test_data_set_0/input_" + std::to_string(i) + ".pb");
        npu::sim::Tensor x(npu::sim::DType::f32, npu::sim::Shape(v.shape.begin(), v.shape.end()));
        std::copy(v.f.begin(), v.f.end(), x.data<float>());
        const std::vector<uint8_t> npy = npu::sim::encode_npy(x);
        const fs::path p =
            write("in" + std::to_string(i) + ".npy", std::string(npy.begin(), npy.end()));
        inputs += " --input " + p.string();
    }
    const Result r = run("infer --onnx " + t + "/model.onnx" + inputs + " --out " +
                         (dir / "out").string() + " --dump-all");
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("output y: (1, 1, 5, 5)"), std::string::npos) << r.out;
    const npu::onnx::Value want = npu::onnx::read_tensor_file(t + "/test_data_set_0/output_0.pb");
    const npu::sim::Tensor got = npu::sim::read_npy((dir / "out" / "output_y.npy").string());
    ASSERT_EQ(got.numel(), want.f.size());
    for (size_t i = 0; i < want.f.size(); ++i) {
        EXPECT_FLOAT_EQ(got.data<float>()[i], want.f[i]) << i;
    }
    EXPECT_TRUE(fs::exists(dir / "out" / "node_y.npy"));
    const Result bad =
        run("infer --onnx " + t + "/model.onnx --input " + (dir / "in0.npy").string());
    EXPECT_EQ(bad.rc, 2);
    EXPECT_NE(bad.err.find("takes 2 input(s); --input was given 1 time(s)"), std::string::npos)
        << bad.err;
}

// Output names that clean to the same file name ("a/b" and "a_b": issue #33, where one file was
// lost and both listed) get files of their own, and report.json says which is which.
TEST_F(Cli, InferGivesTensorsWhoseNamesCollideFilesOfTheirOwn) {
    ::onnx::ModelProto m;
    m.set_ir_version(7);
    m.add_opset_import()->set_version(13);
    ::onnx::GraphProto* g = m.mutable_graph();
    g->set_name("g");
    const auto io = [](::onnx::ValueInfoProto* v, const std::string& name) {
        v->set_name(name);
        auto* t = v->mutable_type()->mutable_tensor_type();
        t->set_elem_type(::onnx::TensorProto::FLOAT);
        t->mutable_shape()->add_dim()->set_dim_value(2);
    };
    io(g->add_input(), "x");
    for (const auto& [op, out] : {std::pair{"Relu", "a/b"}, {"Neg", "a_b"}}) {
        ::onnx::NodeProto* n = g->add_node();
        n->set_op_type(op);
        n->add_input("x");
        n->add_output(out);
        io(g->add_output(), out);
    }
    std::string bytes;
    ASSERT_TRUE(m.SerializeToString(&bytes));
    const fs::path model = write("collide.onnx", bytes);
    npu::sim::Tensor x(npu::sim::DType::f32, {2});
    x.data<float>()[0] = -1.0f, x.data<float>()[1] = 2.0f;
    const std::vector<uint8_t> npy = npu::sim::encode_npy(x);
    const fs::path in = write("x.npy", std::string(npy.begin(), npy.end()));
    const Result r = run("infer --onnx " + model.string() + " --input " + in.string() + " --out " +
                         (dir / "out").string() + " --dump-all");
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto j = nlohmann::json::parse(slurp(dir / "out" / "report.json"));
    std::map<std::string, std::string> file_of;
    for (const auto& o : j["outputs"]) {
        file_of[o["name"]] = o["file"];
    }
    ASSERT_EQ(file_of.size(), 2u);
    EXPECT_NE(file_of["a/b"], file_of["a_b"]);
    const auto value = [&](const std::string& name) {
        return npu::sim::read_npy((dir / "out" / file_of[name]).string()).data<float>()[0];
    };
    EXPECT_EQ(value("a/b"), 0.0f);  // Relu(-1)
    EXPECT_EQ(value("a_b"), 1.0f);  // Neg(-1)
    // report.json is a run record: a layer per value computed (its op, its host time), a dump
    // per value with the layer that computed it.
    EXPECT_EQ(j["schema"], "npusim-report/2");
    EXPECT_EQ(j["command"], "infer");
    ASSERT_EQ(j["layers"].size(), 2u);
    EXPECT_EQ(j["layers"][0]["op"], "Relu");
    EXPECT_EQ(j["layers"][0]["name"], "a/b");
    EXPECT_TRUE(j["layers"][1]["measures"]["host_ms"]["value"].is_number());
    std::set<std::string> node_files;
    for (const auto& n : j["layer_dumps"]) {
        node_files.insert(n["file"].get<std::string>());
        EXPECT_EQ(j["layers"][n["layer"].get<size_t>()]["name"], n["name"]);
    }
    EXPECT_EQ(node_files.size(), 2u);
}

}  // namespace

namespace {

// --set gives what the same edit of the platform file gives, and changes the result; a setting
// that is not one is one error naming the --set.
TEST_F(Cli, PlatformSettingsOnTheCommandLineEqualTheEditedFile) {
    std::string yaml = slurp(NPUSIM_SOURCE_DIR "/configs/k210.yaml");
    const std::string kpu_clock = "    clock_hz: 400MHz            # PLL1";
    const size_t at = yaml.find(kpu_clock);
    ASSERT_NE(at, std::string::npos);
    yaml.replace(at, kpu_clock.size(), "    bus: {data_width_bytes: 16}\n    clock_hz: 200MHz #");
    const fs::path edited = write("k210_edited.yaml", yaml);
    const std::string layers = " --layers " NPUSIM_SOURCE_DIR "/configs/k210_layers.yaml";
    const Result by_file = run("estimate" + layers + " --platform " + edited.string());
    const Result by_set =
        run("estimate" + layers + " --set kpu.clock_hz=200MHz --set kpu.bus.data_width_bytes=16");
    const Result plain = run("estimate" + layers);
    ASSERT_EQ(by_file.rc, 0) << by_file.err;
    ASSERT_EQ(by_set.rc, 0) << by_set.err;
    EXPECT_EQ(by_set.out, by_file.out);
    EXPECT_NE(by_set.out, plain.out);
    EXPECT_NE(by_set.err.find("at 200 MHz"), std::string::npos) << by_set.err;
    // The last of a key wins; info names the settings after the file.
    const Result info = run("info --set kpu.clock_hz=100MHz --set kpu.clock_hz=300MHz");
    EXPECT_NE(info.out.find("from <built-in configs/k210.yaml> --set kpu.clock_hz=100MHz --set "
                            "kpu.clock_hz=300MHz"),
              std::string::npos)
        << info.out;
    EXPECT_NE(info.out.find("clocks: KPU 300 MHz"), std::string::npos) << info.out;
    const struct {
        const char* args;
        const char* message;
    } bad[] = {
        {"--set kpu.clok_hz=1MHz",
         "npusim: error: <built-in configs/k210.yaml>: 1 configuration problem:\n  --set "
         "kpu.clok_hz=1MHz: platform.kpu.clok_hz: unknown key\n"},
        {"--set kpu.clock_hz",
         "npusim: error: --set kpu.clock_hz: expected KEY=VALUE, KEY a path under platform: (e.g. "
         "kpu.clock_hz=200MHz)\n"},
        {"--set memories[3].size_bytes=1MiB",
         "npusim: error: --set memories[3].size_bytes=1MiB: platform.memories has no item [3] (it "
         "has 1 items)\n"},
    };
    for (const auto& b : bad) {
        const Result r = run(std::string("info ") + b.args);
        EXPECT_EQ(r.rc, 2) << b.args;
        EXPECT_EQ(r.err, b.message) << b.args;
    }
    const Result range = run("estimate" + layers + " --set kpu.clock_hz=fast");
    EXPECT_EQ(range.rc, 2);
    EXPECT_NE(
        range.err.find("--set kpu.clock_hz=fast: platform.kpu.clock_hz: expected a frequency"),
        std::string::npos)
        << range.err;
}

// --platform NAME: the built-in platform configs by name (what an installed Python package, with
// no checkout at hand, has); a file of that name wins; anything else is one error listing them.
TEST_F(Cli, PlatformByNameIsTheBuiltInConfig) {
    for (const char* name : {"ascend", "dlp_arria10soc_int8", "dlp_arria10soc_single",
                             "dlp_zc706_int8", "dlp_zc706_single", "dlp_zcu102_int8",
                             "dlp_zcu102_single", "finn", "k210", "selfcheck"}) {
        const Result by_name = run(std::string("info --platform ") + name);
        const Result by_file =
            run(fmt::format("info --platform {}/configs/{}.yaml", NPUSIM_SOURCE_DIR, name));
        ASSERT_EQ(by_name.rc, 0) << name << by_name.err;
        ASSERT_EQ(by_file.rc, 0) << name << by_file.err;
        const std::string builtin = fmt::format("<built-in configs/{}.yaml>", name);
        EXPECT_NE(by_name.out.find("from " + builtin), std::string::npos) << by_name.out;
        // The same platform, only named differently.
        std::string as_file = by_file.out;
        const std::string path = fmt::format("{}/configs/{}.yaml", NPUSIM_SOURCE_DIR, name);
        for (size_t at = as_file.find(path); at != std::string::npos; at = as_file.find(path)) {
            as_file.replace(at, path.size(), builtin);
        }
        EXPECT_EQ(by_name.out, as_file) << name;
    }
    EXPECT_EQ(run("info --platform finn.yaml").out, run("info --platform finn").out);
    const Result unknown = run("run --platform k211 --functional");
    EXPECT_EQ(unknown.rc, 2);
    EXPECT_EQ(unknown.err,
              "npusim: error: --platform: File does not exist: k211 (nor a built-in platform: "
              "ascend, dlp_arria10soc_int8, dlp_arria10soc_single, dlp_zc706_int8, "
              "dlp_zc706_single, dlp_zcu102_int8, dlp_zcu102_single, finn, k210, selfcheck) (see "
              "'npusim --help')\n");
    const Result device = run("info --platform /dev/zero");  // it exists: say what it is
    EXPECT_EQ(device.rc, 2);
    EXPECT_EQ(device.err.rfind("npusim: error: --platform: Not a regular file (a device, FIFO or "
                               "socket): /dev/zero (nor a built-in platform: ",
                               0),
              0u)
        << device.err;
    EXPECT_EQ(run("info --platform aipp").rc, 2);  // a job, not a platform
    write("finn", "bad: 1\n");
    const Result file_wins =
        shell("cd " + dir.string() + " && " NPUSIM_BIN " info --platform finn");
    EXPECT_EQ(file_wins.rc, 2);
    EXPECT_NE(file_wins.err.find("finn:1:1: bad: unknown key"), std::string::npos) << file_wins.err;
}

}  // namespace
