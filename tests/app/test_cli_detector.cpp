// A detector as PyTorch exports it (tests/bench/data/detector_bn.onnx, written by
// scripts/export_bench_models.py: 320x240, depthwise-separable blocks, every BatchNormalization
// kept after its Conv, class and box heads at two scales): it compiles for the K210 and fits KPU
// RAM only because the plan frees a feature map after its last reader; the plan is checked here
// independently (no two tensors whose layers overlap share a line), and `npusim regress` on the
// real photos of ../shared/k210 gives every output a cosine >= 0.995, the timed run's outputs
// equal to the functional run's.
#include <filesystem>
#include <fstream>
#include <set>
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/core/run_record.h"
#include "tests/app/cli_fixture.h"

namespace {

using npu::test::Cli;
using npu::test::Result;
using npu::test::slurp;
namespace fs = std::filesystem;

// ../shared/k210's two photos into `to`; false when they are absent.
bool copy_photos(const fs::path& to) {
    const fs::path shared = NPUSIM_SHARED_DIR "/k210";
    if (!fs::exists(shared / "astronaut.png") || !fs::exists(shared / "coco_436551.jpg")) {
        return false;
    }
    fs::create_directories(to);
    fs::copy_file(shared / "astronaut.png", to / "astronaut.png");
    fs::copy_file(shared / "coco_436551.jpg", to / "coco_436551.jpg");
    return true;
}

const std::string kDetector = NPUSIM_SOURCE_DIR "/tests/bench/data/detector_bn.onnx";

TEST_F(Cli, AnExportedDetectorWithUnfusedBatchNormFitsAndRegressesOnPhotos) {
    if (!copy_photos(dir / "photos")) {
        GTEST_SKIP() << "needs ../shared/k210's photos";
    }
    const std::string km = (dir / "det.kmodel").string();
    const Result c = run("compile --target k210 " + kDetector + " --calibrate " +
                         (dir / "photos").string() + " -o " + km);
    ASSERT_EQ(c.rc, 0) << c.err;
    const auto rep = nlohmann::json::parse(slurp(km + ".json"));
    // The plan: every placement inside the RAM; two tensors alive at one layer share no line.
    // Alive from the layer that writes it (-1: the input) through the one after which it is
    // freed (-1: the end).
    const auto& ps = rep.at("kpu_placements");
    ASSERT_GT(ps.size(), 20u);
    uint64_t reused = 0;
    for (size_t a = 0; a < ps.size(); ++a) {
        const uint64_t fa = ps[a]["first_line"], la = ps[a]["lines"];
        EXPECT_LE(fa + la, 32768u) << ps[a]["tensor"];
        const int ea = ps[a]["last_read_by_layer"];
        for (size_t b = a + 1; b < ps.size(); ++b) {
            const uint64_t fb = ps[b]["first_line"], lb = ps[b]["lines"];
            const int wb = ps[b]["written_by_layer"];
            const bool lines_overlap = fa < fb + lb && fb < fa + la;
            // b is written after a (placed in order): they overlap in time unless a is freed
            // before the layer that writes b.
            const bool time_overlap = ea < 0 || ea >= wb;
            EXPECT_FALSE(lines_overlap && time_overlap)
                << ps[a]["tensor"] << " and " << ps[b]["tensor"];
            reused += lines_overlap ? 1 : 0;
        }
    }
    EXPECT_GT(reused, 0u);  // without reuse it does not fit (30,480 + 3,840 lines)
    EXPECT_LE(rep.at("kpu_lines").get<uint64_t>(), 32768u);
    // --timed: the first photo also on the timed K210, its outputs equal to the functional run's
    // (a check of the record), so lines reused in KPU RAM are reused right in time too.
    const Result r =
        run("regress --onnx " + kDetector + " --model " + km + " --inputs " +
            (dir / "photos").string() + " --timed --out " + (dir / "regress").string());
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    const npu::sim::RunRecord rec = npu::sim::record_from_json(
        nlohmann::ordered_json::parse(slurp(dir / "regress" / "report.json")), "report.json");
    bool timed_checked = false;
    for (const npu::sim::Check& ch : rec.checks) {
        if (ch.name.find("timed") != std::string::npos) {
            timed_checked = true;
            EXPECT_TRUE(ch.passed) << ch.name;
        }
    }
    EXPECT_TRUE(timed_checked);
    const npu::sim::Table* outs = rec.table("outputs");
    ASSERT_NE(outs, nullptr);
    ASSERT_EQ(outs->rows.size(), 2u);  // scores, boxes
    for (size_t i = 0; i < outs->rows.size(); ++i) {
        const npu::sim::Table::Cell* cos = outs->cell(i, "cosine");
        ASSERT_NE(cos, nullptr);
        EXPECT_GE(npu::sim::Table::number(*cos), 0.995) << "output " << i;
    }
}

// Two face detectors with the structure of the public Ultra-Light-Fast-Generic-Face-Detector
// models (scripts/export_ultraface.py: version-slim-320 and version-RFB-320 as described, random
// weights, opset 9), their SSD post-processing inside the graph: soft-max, prior-box decode
// (Slice, Mul, Add, Exp, Concat along the last axis), centre to corner form (Div, Sub, Add).
// Both compile (the RFB block's dilated and 3x1/1x3 convolutions on the CPU), and every layer and
// both outputs agree with the ONNX reference on real photos; the slim one also runs timed, and is
// compiled with UltraFace's own preprocessing ((pixel − 127) / 128: --mean 127 --std 128), which
// its report records and regress applies: its kmodel then takes the pixels as they are.
TEST_F(Cli, UltraFaceShapedDetectorsWithTheirPostProcessingCompileAndRegress) {
    if (!copy_photos(dir / "photos")) {
        GTEST_SKIP() << "needs ../shared/k210's photos";
    }
    for (const std::string name : {"slim", "rfb"}) {
        const std::string onnx =
            NPUSIM_SOURCE_DIR "/tests/platforms/k210/compiler/data/ultraface_" + name + "_320.onnx";
        const std::string km = (dir / (name + ".kmodel")).string();
        const std::string pre = name == "slim" ? " --mean 127 --std 128" : "";
        const Result c = run("compile --target k210 " + onnx + " --calibrate " +
                             (dir / "photos").string() + pre + " -o " + km);
        ASSERT_EQ(c.rc, 0) << c.err;
        if (name == "slim") {
            const auto rep = nlohmann::json::parse(slurp(km + ".json"));
            EXPECT_EQ(rep.at("preprocess").at("formula"), "x = (raw · 1 − (127)) / (128), nchw");
            EXPECT_NEAR(rep.at("input").at("quant").at("scale").get<double>(), 1.0 / 128, 1e-9);
            EXPECT_EQ(rep.at("input").at("quant").at("zero_point").get<int>(), 127);
        }
        const fs::path out = dir / ("regress_" + name);
        const Result r = run("regress --onnx " + onnx + " --model " + km + " --inputs " +
                             (dir / "photos").string() + (name == "slim" ? " --timed" : "") +
                             " --out " + out.string());
        ASSERT_EQ(r.rc, 0) << r.out << r.err;
        EXPECT_EQ(r.out.find("input x = (raw · 1 − (127)) / (128)") != std::string::npos,
                  name == "slim")
            << r.out;
        const npu::sim::RunRecord rec = npu::sim::record_from_json(
            nlohmann::ordered_json::parse(slurp(out / "report.json")), "report.json");
        std::set<std::string> ops;
        for (const npu::sim::LayerRecord& l : rec.layers) {
            const npu::sim::Quantity* cos = l.measure("cosine");
            ASSERT_NE(cos, nullptr) << l.name;
            EXPECT_GE(cos->value, 0.995) << name << ": " << l.name;
            ops.insert(l.op);
        }
        for (const char* op :
             {"CPU softmax", "CPU strided_slice", "CPU binary mul", "CPU binary add",
              "CPU unary exp", "CPU binary div", "CPU binary sub", "CPU concat"}) {
            EXPECT_EQ(ops.count(op), 1u) << name << ": no " << op;
        }
        const npu::sim::Table* outs = rec.table("outputs");
        ASSERT_NE(outs, nullptr);
        ASSERT_EQ(outs->rows.size(), 2u);  // scores 1x4420x2, boxes 1x4420x4
        for (size_t i = 0; i < outs->rows.size(); ++i) {
            EXPECT_GE(npu::sim::Table::number(*outs->cell(i, "cosine")), 0.995) << name << i;
        }
        for (const npu::sim::Check& ch : rec.checks) {
            EXPECT_TRUE(ch.passed) << name << ": " << ch.name;
        }
    }
}

// A preprocessing given to compile is one the report records: the identity (mean 0, std 1,
// scale 1) on the digits' .npy samples gives the same kmodel bytes as none; regress applies the
// report's; a report whose preprocessing is broken (std 0) is one error naming the file.
TEST_F(Cli, ThePreprocessingCompileRecordsIsTheOneRegressApplies) {
    const std::string d = NPUSIM_SOURCE_DIR "/platforms/k210/digits/";
    const std::string plain = (dir / "plain.kmodel").string(), pre = (dir / "pre.kmodel").string();
    const std::string base =
        "compile " + d + "digits_cnn.onnx --calibrate " + d + "calib_images.npy";
    ASSERT_EQ(run(base + " -o " + plain).rc, 0);
    ASSERT_EQ(run(base + " --mean 0 --std 1 --scale 1 -o " + pre).rc, 0);
    EXPECT_EQ(slurp(plain), slurp(pre));
    auto rep = nlohmann::json::parse(slurp(pre + ".json"));
    EXPECT_EQ(rep.at("preprocess").at("formula"), "x = (raw · 1 − (0)) / (1), nchw");
    const std::string reg = "regress --onnx " + d + "digits_cnn.onnx --model " + pre +
                            " --inputs " + d + "test_images.npy";
    Result r = run(reg);
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("input x = (raw · 1 − (0)) / (1), nchw"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("top-1 agreement 297/297"), std::string::npos) << r.out;
    rep["preprocess"]["std"] = {0.0};
    std::ofstream(pre + ".json") << rep.dump(2);
    r = run(reg);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find(pre + ".json: preprocess std 0: expected finite and not 0"),
              std::string::npos)
        << r.err;
}

}  // namespace
