// The npusim program as a user runs it: exit codes, one-line errors, outputs whole or not at all,
// and determinism of the default run.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <tuple>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/wait.h>
#include <unistd.h>

#include "models/k210_kpu/kpu_layer_args.h"
#include "platforms/k210/kmodel/cpu_model.h"
#include "platforms/k210/kmodel/demo_model.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "sim/core/image.h"
#include "sim/core/npy.h"
#include "sim/core/run_record.h"
#include "sim/onnx/onnx_import.h"
#include "tests/app/cli_fixture.h"

namespace {

using npu::test::Cli;
using npu::test::Result;
using npu::test::slurp;
namespace fs = std::filesystem;

const std::string kSelfcheck = " --platform " NPUSIM_SOURCE_DIR "/configs/selfcheck.yaml";

// The README's first command: our digits CNN compiled for the K210, accuracy float vs simulated
// over the 297 held-out digits (290 each, as the compiler test measures), one digit timed.
TEST_F(Cli, DefaultRunIsTheDigitsModelOnTheK210) {
    const Result r = run("run --out " + (dir / "digits").string());
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("accuracy on 297 held-out digits: float 97.64 % (290), simulated K210 "
                         "97.64 % (290); top-1 agreement 297/297"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("   0  K210_CONV      1x16x16 -> 8x8x8 3x3                 18432"),
              std::string::npos)
        << r.out;
    for (const char* f : {"digits.kmodel", "digits.kmodel.json", "predictions.csv", "input.npy",
                          "output_0.npy", "report.json", "layers.csv"}) {
        EXPECT_TRUE(fs::exists(dir / "digits" / f)) << f;
    }
    const auto j = nlohmann::json::parse(slurp(dir / "digits" / "report.json"));
    EXPECT_EQ(j["extra"]["digits"]["accuracy_k210"], 290.0 / 297);
    EXPECT_EQ(j["layers"].size(), 5u);
    // The written kmodel and input run again through --model/--input to the same output.
    const Result again =
        run("run --model " + (dir / "digits" / "digits.kmodel").string() + " --input " +
            (dir / "digits" / "input.npy").string() + " --out " + (dir / "again").string());
    ASSERT_EQ(again.rc, 0) << again.err;
    EXPECT_EQ(slurp(dir / "digits" / "output_0.npy"), slurp(dir / "again" / "output_0.npy"));
}

// Where each layer's time went (report.json and layers.csv, docs/k210_platform.md): the KPU's
// parts add up to its cycles, the CPU's to its cycles, and KPU time + CPU time + bus and DMA time
// to the layer's wall time, never more (no overlap, no double count). The edges demo has KPU
// layers drained by DMA and CPU layers.
TEST_F(Cli, EveryLayersTimeSplitsIntoItsParts) {
    const Result r = run("run --demo edges --out " + (dir / "edges").string());
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("layer time: KPU "), std::string::npos) << r.out;
    const npu::sim::RunRecord rec = npu::sim::record_from_json(
        nlohmann::ordered_json::parse(slurp(dir / "edges" / "report.json")), "report.json");
    uint64_t kpu_ps = 0, bus_ps = 0;
    for (const npu::sim::LayerRecord& l : rec.layers) {
        ASSERT_EQ(l.engines.size(), 3u);
        const auto& [kpu, cpu, bus] = std::tie(l.engines[0], l.engines[1], l.engines[2]);
        EXPECT_EQ(kpu.engine + cpu.engine + bus.engine, "KPUCPUbus and DMA");
        const auto sum = [](const npu::sim::EngineTime& e) {
            uint64_t n = 0;
            for (const npu::sim::Part& p : e.parts) {
                n += p.cycles;
            }
            return n;
        };
        const auto measure = [&](const char* name) {
            for (const npu::sim::Quantity& q : l.measures) {
                if (q.name == name) {
                    return static_cast<uint64_t>(q.value);
                }
            }
            ADD_FAILURE() << name;
            return uint64_t{0};
        };
        EXPECT_EQ(sum(kpu), measure("kpu_cycles"));       // fixed + fetch + compute + output stream
        EXPECT_EQ(sum(cpu), measure("cpu_cycles"));       // work + read-back + runtime
        EXPECT_EQ(kpu.ps, measure("kpu_cycles") * 2500);  // 400 MHz: 2500 ps per cycle
        EXPECT_EQ(cpu.ps, measure("cpu_cycles") * 2500);
        EXPECT_EQ(kpu.ps + cpu.ps + bus.ps, *l.end_ps - *l.start_ps) << l.index;
        kpu_ps += kpu.ps, bus_ps += bus.ps;
    }
    const std::vector<npu::sim::EngineTime> totals = npu::sim::engine_totals(rec);
    EXPECT_EQ(totals[0].ps, kpu_ps);
    EXPECT_EQ(totals[2].ps, bus_ps);
    EXPECT_GT(bus_ps, 0u);  // the DMA drains and the driver's register writes take time
    const std::string csv = slurp(dir / "edges" / "layers.csv");
    EXPECT_EQ(csv.substr(0, csv.find('\n')),
              "index,op,shape,macs,param_bytes,start_us,end_us,KPU us,CPU us,bus and DMA us,KPU "
              "fixed cycles,KPU fetch cycles,KPU compute cycles,KPU output stream cycles,CPU work "
              "cycles,CPU read-back cycles,CPU runtime cycles,kpu_cycles,cpu_cycles,cpu_bus_bytes,"
              "utilization");
}

// estimate takes layer sweeps or a program, one of them; a platform without program estimates
// says so. The demo's kmodel: 3 layers' KPU cycles, as the timed run's (EstimateModel.* checks).
TEST_F(Cli, EstimateTakesLayersOrAModel) {
    Result r = run("estimate");
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(r.err,
              "npusim: error: estimate needs --layers FILE (layer configurations) or "
              "--model FILE\n");
    ASSERT_EQ(run("run --demo edges --out " + (dir / "e").string()).rc, 0);
    const std::string km = (dir / "e" / "demo.kmodel").string();
    r = run("estimate --model " + km + " --out " + (dir / "est").string());
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("estimated: "), std::string::npos) << r.out;
    const auto j = nlohmann::json::parse(slurp(dir / "est" / "estimate.json"));
    const auto timed = nlohmann::json::parse(slurp(dir / "e" / "report.json"));
    ASSERT_EQ(j["layers"].size(), timed["layers"].size());
    for (size_t i = 0; i < j["layers"].size(); ++i) {
        const auto& m = timed["layers"][i]["measures"];
        EXPECT_EQ(j["layers"][i]["kpu_cycles"], m["kpu_cycles"]["value"]) << i;
        EXPECT_EQ(j["layers"][i]["cpu_cycles"], m["cpu_cycles"]["value"]) << i;
    }
    // Its report.json is a run record like the run's: each layer's parameter bytes and the KPU's
    // and CPU's cycles split into the same named parts (no bus and DMA: not estimated).
    const auto rec = nlohmann::json::parse(slurp(dir / "est" / "report.json"));
    EXPECT_EQ(rec["command"], "estimate");
    EXPECT_EQ(rec["rows"], "estimate.json");
    ASSERT_EQ(rec["layers"].size(), timed["layers"].size());
    for (size_t i = 0; i < rec["layers"].size(); ++i) {
        const auto& e = rec["layers"][i];
        const auto& t = timed["layers"][i];
        EXPECT_EQ(e["param_bytes"], t["param_bytes"]) << i;
        for (size_t k = 0; k < 2; ++k) {  // KPU, CPU
            EXPECT_EQ(e["engines"][k]["engine"], t["engines"][k]["engine"]) << i;
            EXPECT_EQ(e["engines"][k]["parts"], t["engines"][k]["parts"]) << i << " " << k;
        }
    }
    EXPECT_TRUE(fs::exists(dir / "est" / "report.html"));
    r = run("estimate --platform " NPUSIM_SOURCE_DIR "/configs/dlp_zcu102_int8.yaml --model " + km);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("demo.kmodel: the DL processor runs a network file (.yaml) or an ONNX "
                         "model (.onnx)"),
              std::string::npos)
        << r.err;
}

// npusim calibrate end to end: the edges demo's layer times × 1.25 as a board CSV; the fit brings
// the largest error from 20 % to under 10 %; a platform YAML that includes calibration.yaml (a
// path beside the platform file) runs with the fitted constants, and a missing or malformed
// calibration file is one error naming the platform key.
TEST_F(Cli, CalibrateWritesAYamlThatAPlatformIncludes) {
    ASSERT_EQ(run("run --demo edges --out " + (dir / "e").string()).rc, 0);
    const auto rep = nlohmann::json::parse(slurp(dir / "e" / "report.json"));
    std::string csv = "layer,type,ms\n";
    std::vector<double> board;
    for (const auto& l : rep["layers"]) {
        board.push_back(
            static_cast<double>(l["end_ps"].get<uint64_t>() - l["start_ps"].get<uint64_t>()) / 1e9 *
            1.25);
        csv += fmt::format("{},{},{:.9f}\n", l["index"].get<int>(), l["op"].get<std::string>(),
                           board.back());
    }
    write("board.csv", csv);
    const Result r =
        run("calibrate --model " + (dir / "e" / "demo.kmodel").string() + " --measured " +
            (dir / "board.csv").string() + " --out " + (dir / "cal").string());
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("largest error: 20.0 % before"), std::string::npos) << r.out;
    // The fit as a record: a layer per board row with its board time and errors, the largest
    // errors as totals (board = timed × 1.25, so before = 1/1.25 - 1 = -20 % on every layer).
    const auto cal_rec = nlohmann::json::parse(slurp(dir / "cal" / "report.json"));
    EXPECT_EQ(cal_rec["command"], "calibrate");
    ASSERT_EQ(cal_rec["layers"].size(), board.size());
    EXPECT_NEAR(cal_rec["layers"][0]["measures"]["board_ms"]["value"].get<double>(), board[0],
                1e-9);
    EXPECT_NEAR(cal_rec["layers"][0]["measures"]["before_error"]["value"].get<double>(), -20.0,
                0.01);
    EXPECT_NEAR(cal_rec["totals"]["largest_error_before"]["value"].get<double>(), 20.0, 0.01);
    EXPECT_LT(cal_rec["totals"]["largest_error_after"]["value"].get<double>(), 10.0);
    EXPECT_TRUE(fs::exists(dir / "cal" / "report.html"));
    const std::string yaml = slurp(dir / "cal" / "calibration.yaml");
    EXPECT_NE(yaml.find("kpu:\n"), std::string::npos) << yaml;
    const std::string platform = slurp(fs::path(NPUSIM_SOURCE_DIR) / "configs" / "k210.yaml");
    write("p.yaml", platform + "  calibration: cal/calibration.yaml\n");
    const Result again =
        run("run --platform " + (dir / "p.yaml").string() + " --model " +
            (dir / "e" / "demo.kmodel").string() + " --input " +
            (dir / "e" / "input.npy").string() + " --out " + (dir / "again").string());
    ASSERT_EQ(again.rc, 0) << again.err;
    const auto cal = nlohmann::json::parse(slurp(dir / "again" / "report.json"));
    for (size_t i = 0; i < board.size(); ++i) {
        const double ms = static_cast<double>(cal["layers"][i]["end_ps"].get<uint64_t>() -
                                              cal["layers"][i]["start_ps"].get<uint64_t>()) /
                          1e9;
        EXPECT_NEAR(ms, board[i], 0.1 * board[i]) << "layer " << i;
    }
    write("q.yaml", platform + "  calibration: nope.yaml\n");
    const Result bad = run("run --platform " + (dir / "q.yaml").string() + " --demo edges");
    EXPECT_EQ(bad.rc, 2);
    EXPECT_NE(bad.err.find("q.yaml: platform.calibration: "), std::string::npos) << bad.err;
    EXPECT_NE(bad.err.find("nope.yaml"), std::string::npos) << bad.err;
}

// npusim compile and npusim regress on the digits model's files.
// The digits model as a kmodel v4 (nncase v0.2's format: kpu_upload, kpu_conv2d, dequantize,
// matmul): the report names the version and why, the file is a 'KMDL' v4, and regress measures
// the same agreement and accuracy as for v3.
TEST_F(Cli, CompileAsKmodelV4ThenRegress) {
    const std::string d = NPUSIM_SOURCE_DIR "/platforms/k210/digits/";
    const std::string km = (dir / "digits4.kmodel").string();
    Result c = run("compile --target k210 " + d + "digits_cnn.onnx --calibrate " + d +
                   "calib_images.npy -o " + km + " --kmodel-version 4");
    ASSERT_EQ(c.rc, 0) << c.err;
    EXPECT_NE(c.out.find("kmodel v4 (asked for), 5524 bytes"), std::string::npos) << c.out;
    EXPECT_NE(c.out.find("CPU  matmul"), std::string::npos) << c.out;
    EXPECT_EQ(slurp(km).substr(0, 8), std::string("LDMK\x04\0\0\0", 8));
    Result r = run("regress --onnx " + d + "digits_cnn.onnx --model " + km + " --inputs " + d +
                   "test_images.npy --labels " + d + "test_labels.npy --timed --out " +
                   (dir / "reg4").string());
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    // --timed: the first digit on the timed platform equals the functional run, layer by layer
    // timed: the upload, three KPU layers, the dequantize and the matmul.
    EXPECT_NE(r.out.find("outputs equal the functional run's"), std::string::npos) << r.out;
    const auto j = nlohmann::json::parse(slurp(dir / "reg4" / "report.json"));
    EXPECT_EQ(j["checks"].back()["name"], "timed outputs equal the functional run's");
    EXPECT_EQ(j["checks"].back()["passed"], true);
    const auto& timed = j["tables"]["timed"]["rows"];
    EXPECT_EQ(timed.size(), 6u);
    EXPECT_EQ(timed[1]["type"], "kpu_conv2d");
    // The compiler's estimate of each KPU layer (layer_cost on the ideal parameter bus) is within
    // 0.1 % of the timed platform's, which fetches the tables over its modelled SRAM bus.
    const auto rep = nlohmann::json::parse(slurp(km + ".json"));
    for (size_t k = 1; k <= 3; ++k) {
        const auto kpu = timed[k]["kpu_cycles"].get<uint64_t>();
        uint64_t est = rep["layers"][k]["est_cycles"].get<uint64_t>();
        if (k == 3) {  // its output goes to main memory: the estimate adds nncase's CPU read-back
            uint64_t bytes = 1;
            for (const auto& dim : rep["layers"][k]["out_shape"]) {
                bytes *= dim.get<uint64_t>();
            }
            est -= npu::k210::CpuModel{}.readback_cycles(bytes);
        }
        EXPECT_GE(kpu, est) << k;
        EXPECT_LT(kpu - est, est / 1000) << k;
    }
    EXPECT_NE(r.out.find("top-1 agreement 297/297 (100.00 %) ok"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("accuracy: reference 290/297 (97.64 %), simulated 290/297 (97.64 %)"),
              std::string::npos);
    c = run("compile " + d + "digits_cnn.onnx --calibrate " + d + "calib_images.npy -o " + km +
            " --kmodel-version 5");
    EXPECT_NE(c.rc, 0);
}

// A kmodel without its compile report, as a vendor's would come: regress runs the raw uint8
// digits (round(x · 255), the compiled input quantization) through it and the float model
// through the preprocessing given (x = raw · 1/255): the outputs agree by cosine and arg-max
// for all 297 digits. A wrong mean makes them disagree (exit 1). Layers matched in YAML to
// ONNX tensors: the DEQUANTIZE's floats directly, the KPU layer's uint8 map by its scale.
TEST_F(Cli, RegressAKmodelWithoutItsCompileReport) {
    const std::string d = NPUSIM_SOURCE_DIR "/platforms/k210/digits/";
    const std::string km = (dir / "vendor.kmodel").string();
    ASSERT_EQ(
        run("compile " + d + "digits_cnn.onnx --calibrate " + d + "calib_images.npy -o " + km).rc,
        0);
    const auto report = nlohmann::json::parse(slurp(km + ".json"));
    const double gap_scale = report["layers"][2]["lsb"]["scale"].get<double>();
    fs::remove(km + ".json");
    npu::sim::Tensor raw = npu::sim::read_npy(d + "test_images.npy");
    for (size_t i = 0; i < raw.numel(); ++i) {
        raw.data<float>()[i] = std::round(raw.data<float>()[i] * 255);
    }
    const std::string raw_npy = (dir / "raw.npy").string();
    {
        const std::vector<uint8_t> bytes = npu::sim::encode_npy(raw);
        std::ofstream(raw_npy, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()),
                   static_cast<std::streamsize>(bytes.size()));
    }
    const std::string base =
        "regress --onnx " + d + "digits_cnn.onnx --model " + km + " --inputs " + raw_npy;
    Result r = run(base + " --scale 0.00392156862745098 --out " + (dir / "v").string());
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("preprocessing: x = (raw · 0.00392157 − 0) / 1, nchw"), std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("top-1 agreement 297/297 (100.00 %) ok"), std::string::npos) << r.out;
    const auto j = nlohmann::json::parse(slurp(dir / "v" / "report.json"));
    EXPECT_EQ(j["extra"]["preprocessing"]["formula"], "x = (raw · 0.00392157 − 0) / 1, nchw");
    EXPECT_GT(j["tables"]["outputs"]["rows"][0]["cosine"].get<double>(), 0.999);
    r = run(base + " --scale 0.00392156862745098 --mean 0.3");
    EXPECT_EQ(r.rc, 1) << r.out;
    EXPECT_NE(r.out.find("BELOW TOLERANCE"), std::string::npos);
    std::ofstream(dir / "m.yaml") << "preprocess:\n  scale: 0.00392156862745098\nmatch:\n"
                                  << "  - {layer: 3, onnx: /Flatten_output_0}\n"
                                  << "  - {layer: 2, onnx: /pool/GlobalAveragePool_output_0, "
                                  << "scale: " << fmt::format("{:.17g}", gap_scale) << "}\n";
    r = run(base + " --preprocess " + (dir / "m.yaml").string() + " --out " + (dir / "m").string());
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("  3  DEQUANTIZE /Flatten_output_0"), std::string::npos) << r.out;
    const auto jm = nlohmann::json::parse(slurp(dir / "m" / "report.json"));
    ASSERT_EQ(jm["layers"].size(), 2u);
    // The KPU's map, dequantized here in double, is what the DEQUANTIZE layer turns into floats
    // (one fmadd.s each): the same comparison to 1e-9.
    const auto cosine = [&](size_t k) {
        return jm["layers"][k]["measures"]["cosine"]["value"].get<double>();
    };
    EXPECT_NEAR(cosine(0), cosine(1), 1e-9);
    EXPECT_GT(cosine(0), 0.999);
    EXPECT_NE(slurp(dir / "m" / "junit.xml")
                  .find("<testsuite name=\"npusim.regress\" tests=\"3\" failures=\"0\">"),
              std::string::npos);
}

// Two malformed kmodels an independent fuzzing campaign found (rebuilt here from the bundled
// demo with our writer): a first K210_CONV whose coef_group is 0 (the layout divides by it) and
// a layer relabelled GLOBAL_AVERAGE_POOL2D whose body declares ~10^9 channels (a 4 GB output).
// Each is one clear error, exit 2, from info, a functional run and a timed run, and a run that
// fails leaves no --out directory behind.
TEST_F(Cli, MalformedKmodelsAreOneClearErrorEverywhere) {
    std::vector<uint8_t> demo = npu::k210::build_demo_model().kmodel;
    const npu::k210::Kmodel m = npu::k210::parse_kmodel(demo, "demo");
    std::vector<uint8_t> bad_group = demo;
    npu::kpu::LayerArgs a = m.convs.at(0).args;
    a.coef_group = 0;
    const npu::kpu::Words w = npu::kpu::encode(a);
    for (size_t i = 0; i < w.size(); ++i) {
        for (size_t b = 0; b < 8; ++b) {
            bad_group[m.convs[0].args_offset + 8 * i + b] = static_cast<uint8_t>(w[i] >> (8 * b));
        }
    }
    std::vector<uint8_t> bad_gap = demo;
    bad_gap[44 + 2 * 8] = 5;  // layer 2's type: DEQUANTIZE (12) -> GLOBAL_AVERAGE_POOL2D (5)
    const auto put = [&](const char* name, const std::vector<uint8_t>& bytes) {
        std::ofstream(dir / name, std::ios::binary)
            .write(reinterpret_cast<const char*>(bytes.data()),
                   static_cast<std::streamsize>(bytes.size()));
        return (dir / name).string();
    };
    const std::string in = put("in.npy", npu::sim::encode_npy(npu::sim::test_scene(120, 160)));
    const std::pair<std::string, std::string> cases[] = {
        {put("group.kmodel", bad_group),
         "at byte 0x70 (kpu_layer_argument_t): coef_group is 0, expected 1, 2 or 4 (feature maps "
         "per 64-byte line)"},
        {put("gap.kmodel", bad_gap),
         "GLOBAL_AVERAGE_POOL2D at byte 0x690: the output: 998277249 floats do not fit the "
         "218880-byte working buffer"}};
    for (const auto& [file, why] : cases) {
        const fs::path out = dir / "never";
        for (const std::string& args :
             {"info --model " + file,
              "run --functional --model " + file + " --input " + in + " --out " + out.string(),
              "run --model " + file + " --input " + in + " --out " + out.string()}) {
            const Result r = run(args);
            EXPECT_EQ(r.rc, 2) << args << r.err;
            EXPECT_NE(r.err.find(why), std::string::npos) << args << "\n" << r.err;
            EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
            EXPECT_FALSE(fs::exists(out)) << args;
        }
    }
}

TEST_F(Cli, CompileThenRegressTheDigitsModel) {
    const std::string d = NPUSIM_SOURCE_DIR "/platforms/k210/digits/";
    const std::string km = (dir / "digits.kmodel").string();
    Result c = run("compile --target k210 " + d + "digits_cnn.onnx --calibrate " + d +
                   "calib_images.npy -o " + km);
    ASSERT_EQ(c.rc, 0) << c.err;
    EXPECT_NE(c.out.find("(calibrated on 64 samples)"), std::string::npos) << c.out;
    EXPECT_TRUE(fs::exists(km + ".json"));
    Result r =
        run("regress --onnx " + d + "digits_cnn.onnx --model " + km + " --inputs " + d +
            "test_images.npy --labels " + d + "test_labels.npy --out " + (dir / "reg").string());
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("top-1 agreement 297/297 (100.00 %) ok"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("accuracy: reference 290/297 (97.64 %), simulated 290/297 (97.64 %)"),
              std::string::npos);
    const auto j = nlohmann::json::parse(slurp(dir / "reg" / "report.json"));
    EXPECT_EQ(j["passed"], true);
    EXPECT_EQ(j["layers"].size(), 5u);
    // The confusion matrix agrees with the accuracy line: 290 of 297 on the diagonal.
    uint64_t diagonal = 0, total = 0;
    const auto& rows = j["tables"]["confusion_simulated"]["rows"];
    for (size_t i = 0; i < rows.size(); ++i) {
        EXPECT_EQ(rows[i]["label"], i);
        for (size_t k = 0; k < 10; ++k) {
            const auto v = rows[i][std::to_string(k)].get<uint64_t>();
            total += v, diagonal += i == k ? v : 0;
        }
    }
    EXPECT_EQ(diagonal, 290u);
    EXPECT_EQ(total, 297u);
    EXPECT_NE(slurp(dir / "reg" / "junit.xml")
                  .find("<testsuite name=\"npusim.regress\" "
                        "tests=\"11\" failures=\"0\">"),
              std::string::npos);
    // A tolerance of 1 LSB is exceeded by the 3x3 layers: exit 1, and the first diverging layer.
    r = run("regress --onnx " + d + "digits_cnn.onnx --model " + km + " --inputs " + d +
            "test_images.npy --max-lsb 1 --out " + (dir / "strict").string());
    EXPECT_EQ(r.rc, 1);
    EXPECT_NE(r.out.find("first diverging layer: 0 (/features/features.3/MaxPool_output_0)"),
              std::string::npos)
        << r.out;
    EXPECT_NE(slurp(dir / "strict" / "junit.xml")
                  .find("MaxPool_output_0: max_error_lsb\"><failure message=\"2 LSB, expected "
                        "&lt;= 1 LSB\"/>"),
              std::string::npos);
    // Images calibrate too: the first 8 calibration digits as 16x16 PNGs (pixel = 255 x value),
    // read back as 1-channel luminance / 255; the compile gives the same input quantization.
    const npu::sim::Tensor calib = npu::sim::read_npy(d + "calib_images.npy");
    fs::create_directories(dir / "png");
    for (int i = 0; i < 8; ++i) {
        std::vector<uint8_t> rgb(3 * 256);
        for (int k = 0; k < 256; ++k) {
            const auto v =
                static_cast<uint8_t>(std::lround(calib.data<float>()[i * 256 + k] * 255));
            rgb[static_cast<size_t>(k)] = rgb[static_cast<size_t>(256 + k)] =
                rgb[static_cast<size_t>(512 + k)] = v;
        }
        const std::vector<uint8_t> png = npu::sim::encode_png(rgb.data(), 3, 16, 16);
        std::ofstream(dir / "png" / fmt::format("d{}.png", i), std::ios::binary)
            .write(reinterpret_cast<const char*>(png.data()),
                   static_cast<std::streamsize>(png.size()));
    }
    c = run("compile " + d + "digits_cnn.onnx --calibrate " + (dir / "png").string() + " -o " +
            (dir / "png.kmodel").string());
    ASSERT_EQ(c.rc, 0) << c.err;
    EXPECT_NE(c.out.find("(calibrated on 8 samples)"), std::string::npos) << c.out;
    EXPECT_NE(c.out.find("quantized as q = round(x / 0.00392157) + 0"), std::string::npos);
    // An empty calibration directory is one clear error.
    fs::create_directories(dir / "empty");
    c = run("compile " + d + "digits_cnn.onnx --calibrate " + (dir / "empty").string() + " -o " +
            km);
    EXPECT_EQ(c.rc, 2);
    EXPECT_EQ(c.err, "npusim: error: " + (dir / "empty").string() +
                         ": no .npy or image files in this directory\n");
}

TEST_F(Cli, EdgesDemoRunsOnTheK210) {
    const Result r = run("run --demo edges --out " + (dir / "demo").string());
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(
        r.out.find(
            "<built-in demo.kmodel> (kmodel v3) on kendryte-k210 (<built-in configs/k210.yaml>)"),
        std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("   0  K210_CONV      3x120x160 -> 5x120x160 3x3         2592000"),
              std::string::npos)
        << r.out;
    for (const char* f : {"output_0.npy", "output_1.npy", "demo.kmodel", "input.npy", "input.png",
                          "output_0_gray_blur.png", "output_0_edges.png",
                          "output_1_edges_pooled.png", "report.json", "layers.csv"}) {
        EXPECT_TRUE(fs::exists(dir / "demo" / f)) << f;
    }
    EXPECT_EQ(slurp(dir / "demo" / "output_0_edges.png").substr(1, 3), "PNG");
    const auto j = nlohmann::json::parse(slurp(dir / "demo" / "report.json"));
    EXPECT_EQ(j["layers"].size(), 5u);
    EXPECT_EQ(j["outputs"][1]["shape"], nlohmann::json::parse("[1, 1, 60, 80]"));
    EXPECT_EQ(j["inputs"][0]["note"], "none (built-in scene)");
    // The written model and input run again through --model/--input to the same outputs.
    const Result again =
        run("run --model " + (dir / "demo" / "demo.kmodel").string() + " --input " +
            (dir / "demo" / "input.npy").string() + " --out " + (dir / "again").string());
    ASSERT_EQ(again.rc, 0) << again.err;
    // Same values (the rerun's .npy header says (1, 1, 1, 4800): a plain v3 output is flat).
    const std::string a = slurp(dir / "demo" / "output_1.npy"),
                      b = slurp(dir / "again" / "output_1.npy");
    ASSERT_GE(a.size(), 19200u);
    ASSERT_GE(b.size(), 19200u);
    EXPECT_TRUE(a.substr(a.size() - 19200) == b.substr(b.size() - 19200));
}

TEST_F(Cli, ImageInputIsResizedAndSaysSo) {
    ASSERT_EQ(run("run --demo edges --out " + (dir / "demo").string()).rc, 0);
    // input.png is 160x120 already; a PNG of another size is resized.
    const Result r = run("run --model " + (dir / "demo" / "demo.kmodel").string() + " --input " +
                         (dir / "demo" / "output_1_edges_pooled.png").string());
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(
        r.out.find("(decoded to RGB uint8 80x60, resized to 160x120 (OpenCV INTER_LINEAR), NCHW"),
        std::string::npos)
        << r.out;
}

TEST_F(Cli, SelfCheckPassesAndPrintsTheAddressMap) {
    const Result r = run("run" + kSelfcheck);
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_NE(r.out.find("  0x80000000-0x805fffff     6 MiB  sram"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("  0x40600000-0x407fffff     2 MiB  ai_sram.alias0"), std::string::npos);
    EXPECT_NE(r.out.find("self-check passed: 4 round trips, simulated time 14.240 us"),
              std::string::npos)
        << r.out;
}

TEST_F(Cli, VersionAndHelp) {
    Result r = run("--version");
    EXPECT_EQ(r.rc, 0);
    EXPECT_EQ(r.out.rfind("npusim 0.1.0 (SystemC 2.3.4", 0), 0u) << r.out;
    r = run("--help");
    EXPECT_EQ(r.rc, 0);
    EXPECT_NE(r.out.find("run"), std::string::npos);
    EXPECT_NE(r.out.find("Exit codes: 0 ok, 1 a check failed, 2 bad arguments"), std::string::npos);
}

TEST_F(Cli, BadArgumentsExitTwoWithOneLine) {
    for (const char* args : {"", "run --bogus", "frobnicate", "run --platform /nonexistent.yaml"}) {
        const Result r = run(args);
        EXPECT_EQ(r.rc, 2) << args;
        EXPECT_EQ(r.err.rfind("npusim: error: ", 0), 0u) << args << ": " << r.err;
        EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << ": " << r.err;
    }
}

TEST_F(Cli, BadConfigListsEveryProblemWithLines) {
    const fs::path cfg = write("bad.yaml", R"(platform:
  kind: selfcheck
  name: x
  bus: {data_width_bytes: 6}
  memories:
    - {name: sram, base_addr: 0x80000000, size_bytes: 6MB, colour: blue}
)");
    const Result r = run("run --platform " + cfg.string());
    EXPECT_EQ(r.rc, 2);
    const std::string f = cfg.string();
    EXPECT_EQ(r.err, "npusim: error: " + f + ": 3 configuration problems:\n  " + f +
                         ":4:27: platform.bus.data_width_bytes: expected a power of two\n  " + f +
                         ":6:55: platform.memories[0].size_bytes: expected a size in bytes: an "
                         "integer with optional suffix B, KiB, MiB, GiB or TiB ('MB' is ambiguous "
                         "between powers of 10 and 2; write KiB/MiB/GiB), got '6MB'\n  " +
                         f + ":6:60: platform.memories[0].colour: unknown key\n");
}

TEST_F(Cli, OutputsAreWholeAndDeterministic) {
    Result r = run("run --out " + (dir / "a").string() + " --trace" + kSelfcheck);
    ASSERT_EQ(r.rc, 0) << r.err;
    r = run("run --out " + (dir / "b").string() + " --trace" + kSelfcheck);
    ASSERT_EQ(r.rc, 0) << r.err;
    const std::string report = slurp(dir / "a" / "report.json");
    EXPECT_EQ(report, slurp(dir / "b" / "report.json"));
    EXPECT_EQ(slurp(dir / "a" / "trace.json"), slurp(dir / "b" / "trace.json"));
    const auto j = nlohmann::json::parse(report);
    EXPECT_EQ(j["passed"], true);
    EXPECT_EQ(j["totals"]["simulated_time_ps"]["value"], 14'240'000);
    EXPECT_EQ(j["layers"][0]["engines"][0]["ps"], 1'780'000);
    EXPECT_EQ(j["layers"][0]["engines"][0]["engine"], "write (burst)");
    EXPECT_EQ(j["layers"][1]["engines"][0]["engine"], "write (dmi)");
    EXPECT_EQ(j["checks"].size(), 3 * j["layers"].size());  // data, write and read time each
    EXPECT_EQ(j["stats"]["cpu"]["beats"]["value"], 8 * 514);
    const auto t = nlohmann::json::parse(slurp(dir / "a" / "trace.json"));
    EXPECT_EQ(t["traceEvents"].size(), 3u + 8u);
    // Nothing but the five files and the list of them is left behind (no staging directory):
    // report.json, trace.json, layers.csv, junit.xml (its checks), report.html, .npusim-outputs.
    EXPECT_EQ(std::distance(fs::directory_iterator(dir / "a"), fs::directory_iterator{}), 6);
    EXPECT_EQ(slurp(dir / "a" / ".npusim-outputs"),
              "junit.xml\nlayers.csv\nreport.html\nreport.json\ntrace.json\n");
}

TEST_F(Cli, TraceNeedsOutAndBadOutWritesNothing) {
    Result r = run("run --trace");
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(
        r.err,
        "npusim: error: --trace writes trace.json into the output directory: add --out DIR\n");
    write("file", "x");
    r = run("run --out " + (dir / "file").string());
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("file: exists and is not a folder"), std::string::npos) << r.err;
    EXPECT_EQ(r.out, "");  // failed before simulating
}

TEST_F(Cli, InfoPrintsTheMapOfAFile) {
    const Result r = run("info --platform " NPUSIM_SOURCE_DIR "/configs/selfcheck.yaml");
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("platform k210-memories (selfcheck)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("bus: 8 B/beat, bursts of at most 16 beats, 4 cycles per burst, 4 KiB "
                         "boundary, 400 MHz"),
              std::string::npos)
        << r.out;
    EXPECT_NE(r.out.find("  0x80600000-0x807fffff     2 MiB  ai_sram "), std::string::npos);
}

// The edges demo's page shows its input and the three feature maps it wrote as PNG, each once
// (input.npy and output_1.npy are the same images as input.png and output_1_edges_pooled.png;
// output_0.npy has 2 channels: not an image).
TEST_F(Cli, RunPageShowsTheImagesOnce) {
    ASSERT_EQ(run("run --demo edges --out " + (dir / "e").string()).rc, 0);
    const std::string html = slurp(dir / "e" / "report.html");
    size_t pictures = 0;
    for (size_t p = html.find("class=\"picture\""); p != std::string::npos;
         p = html.find("class=\"picture\"", p + 1)) {
        ++pictures;
    }
    EXPECT_EQ(pictures, 4u);
    for (const char* name :
         {"input.png (160 x 120)", "output_0_edges.png (160 x 120)",
          "output_0_gray_blur.png (160 x 120)", "output_1_edges_pooled.png (80 x 60)"}) {
        EXPECT_NE(html.find(std::string(">") + name + "<"), std::string::npos) << name;
    }
    EXPECT_EQ(html.find(">input.npy"), std::string::npos);
}

TEST_F(Cli, FunctionalRunGivesTheTimedRunsValues) {
    ASSERT_EQ(run("run --demo edges --out " + (dir / "timed").string()).rc, 0);
    const Result r = run("run --demo edges --functional --out " + (dir / "functional").string());
    ASSERT_EQ(r.rc, 0) << r.err;
    // MACs = OC·H·W·k²·IC per KPU layer: 5·120·160·9·3 + 2·120·160·5 + 1·120·160·5
    EXPECT_NE(r.out.find("functional run: 5 layers, 2880000 MACs, 2 outputs"), std::string::npos)
        << r.out;
    for (const char* f : {"output_0.npy", "output_1.npy"}) {
        EXPECT_EQ(slurp(dir / "timed" / f), slurp(dir / "functional" / f)) << f;
    }
    const auto j = nlohmann::json::parse(slurp(dir / "functional" / "report.json"));
    EXPECT_EQ(j["mode"], "functional");
    const std::string csv = slurp(dir / "functional" / "layers.csv");  // no times to list
    EXPECT_EQ(csv.substr(0, csv.find('\n')),
              "index,op,shape,macs,param_bytes,cpu_elements,overflows");
    const Result t = run("run --functional --trace --out " + (dir / "t").string());
    EXPECT_EQ(t.rc, 2);
    EXPECT_NE(t.err.find("--trace excludes --functional"), std::string::npos) << t.err;
}

// Threads split the KPU layers' and the evaluator's work, and spread samples; every output byte
// and report number stays the same.
TEST_F(Cli, ThreadCountChangesNoOutput) {
    const Result one = run("--threads 1 run --demo edges --out " + (dir / "one").string());
    ASSERT_EQ(one.rc, 0) << one.err;
    const Result two = run("run --demo edges --threads 2 --out " + (dir / "two").string());
    ASSERT_EQ(two.rc, 0) << two.err;
    for (const char* f : {"output_0.npy", "output_1.npy", "report.json", "layers.csv"}) {
        EXPECT_EQ(slurp(dir / "one" / f), slurp(dir / "two" / f)) << f;
    }
    // Samples spread over threads (the default job, regress) are added in input order.
    const std::string& d = kDigits;
    std::string km;
    ASSERT_NO_FATAL_FAILURE(compile_digits(km));
    for (const char* t : {"1", "2"}) {
        const std::string threads = std::string("--threads ") + t + " ";
        ASSERT_EQ(run(threads + "regress --onnx " + d + "digits_cnn.onnx --model " + km +
                      " --inputs " + d + "test_images.npy --labels " + d +
                      "test_labels.npy --out " + (dir / (std::string("reg") + t)).string())
                      .rc,
                  0);
        ASSERT_EQ(run(threads + "run --out " + (dir / (std::string("job") + t)).string()).rc, 0);
    }
    for (const char* f : {"report.json", "report.txt", "junit.xml"}) {
        EXPECT_EQ(slurp(dir / "reg1" / f), slurp(dir / "reg2" / f)) << f;
    }
    for (const char* f : {"report.json", "predictions.csv", "output_0.npy"}) {
        EXPECT_EQ(slurp(dir / "job1" / f), slurp(dir / "job2" / f)) << f;
    }
    const Result bad = run("--threads -3 run --demo edges");
    EXPECT_EQ(bad.rc, 2);
    EXPECT_NE(bad.err.find("--threads"), std::string::npos) << bad.err;
}

TEST_F(Cli, InfoListsTheLayersOfAModel) {
    ASSERT_EQ(run("run --demo edges --out " + (dir / "demo").string()).rc, 0);
    const Result r = run("info --model " + (dir / "demo" / "demo.kmodel").string());
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("kmodel v3 (nncase v0.1, Kendryte SDK)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("   0  K210_CONV (0x2800)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("3x120x160 -> 5x120x160 3x3"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("   2  DEQUANTIZE (0xc)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("5 layers, 3 on the KPU, 0 not supported by the simulator"),
              std::string::npos)
        << r.out;
}

TEST_F(Cli, ProgressLineOnRequest) {
    // Off by default (stderr is not a terminal here); --progress always ends with the last layer.
    const Result quiet = run("run");
    EXPECT_EQ(quiet.err, "");
    const Result r = run("run --demo edges --progress");
    ASSERT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.err.find("npusim: layer 5/5 (DEQUANTIZE), "), std::string::npos) << r.err;
    EXPECT_EQ(r.err.back(), '\n');
    const Result f = run("run --demo edges --functional --progress");
    EXPECT_NE(f.err.find("npusim: layer 5/5 (DEQUANTIZE), "), std::string::npos) << f.err;
}

// The register-script player (npusim run --script): the example layer passes its checks and
// writes the datapath's output; its KPU cycles are `npusim estimate`'s for the same shape; a
// wrong expectation, a wait that never ends and a bad line each fail with their line.
TEST_F(Cli, RegisterScriptRunsOneKpuLayer) {
    const std::string example = NPUSIM_SOURCE_DIR "/configs/scripts/kpu_conv3x3/";
    Result r = run("run --script " + example + "layer.script --out " + (dir / "s").string());
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("25 steps, 25 done"), std::string::npos) << r.out;
    EXPECT_EQ(slurp(dir / "s" / "output.bin"), slurp(example + "expected.bin"));
    const auto rep = nlohmann::json::parse(slurp(dir / "s" / "report.json"));
    ASSERT_EQ(rep["layers"].size(), 1u);
    write("l.yaml",
          "layers:\n  - {name: a, in_channels: 3, out_channels: 4, kernel: 3, width: "
          "16, height: 16}\n");
    const Result est = run("estimate --layers " + (dir / "l.yaml").string());
    ASSERT_EQ(est.rc, 0) << est.err;
    EXPECT_NE(
        est.out.find(fmt::format(
            ",27648,{},", rep["layers"][0]["measures"]["kpu_cycles"]["value"].get<uint64_t>())),
        std::string::npos)
        << est.out;
    EXPECT_EQ(rep["layers"][0]["macs"], 27648);   // 4 * 16 * 16 * 9 * 3
    EXPECT_EQ(rep["checks"][0]["passed"], true);  // no step failed
    // A wrong expectation: exit 1, the line and the first differing byte.
    fs::create_directories(dir / "bad");
    for (const auto& e : fs::directory_iterator(example)) {
        fs::copy_file(e.path(), dir / "bad" / e.path().filename());
    }
    std::string expected = slurp(dir / "bad" / "expected.bin");
    expected[700] = static_cast<char>(expected[700] ^ 0x5a);
    write("bad/expected.bin", expected);
    r = run("run --script " + (dir / "bad" / "layer.script").string());
    EXPECT_EQ(r.rc, 1);
    EXPECT_NE(r.out.find("1 failed:\n  line 31: compare_mem 0x40601000 @expected.bin: first "
                         "difference at byte 700 (0x406012bc)"),
              std::string::npos)
        << r.out;
    // An interrupt nobody raises.
    r = run("run --script " +
            write("wait.script", "write_reg 0x40800040 1\nwait_irq kpu\n").string());
    EXPECT_EQ(r.rc, 1);
    EXPECT_NE(r.out.find("line 2: never finished: the simulation ran out of events"),
              std::string::npos)
        << r.out;
    // Bad lines and files: one error with file:line, exit 2.
    const fs::path bad1 = write("bad1.script", "load_mem 0x40010000 missing.bin\n");
    r = run("run --script " + bad1.string());
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find(bad1.string() + ":1: "), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("missing.bin"), std::string::npos) << r.err;
    r = run("run --script " + write("bad2.script", "dump_mem 0x40600000 64 ../x\n").string());
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find(":1: dump_mem NAME '../x': expected a plain file name"), std::string::npos)
        << r.err;
    r = run("run --script " +
            write("bad3.script", "dump_mem 0x40600000 64 a.bin\ndump_mem 0x40600040 64 a.bin\n")
                .string());
    EXPECT_EQ(r.rc, 2);  // the second dump would replace the first unseen
    EXPECT_NE(r.err.find(":2: dump_mem NAME 'a.bin': already the name of an earlier dump"),
              std::string::npos)
        << r.err;
    r = run("run --script " + bad1.string() + " --model " + bad1.string());
    EXPECT_EQ(r.rc, 2);
    r = run("run --script " + bad1.string() + kSelfcheck);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("register scripts play on the k210 platform"), std::string::npos) << r.err;
}

// A platform's own run option (platform::PlatformOption, declared in its kind) is refused on
// another platform, naming the kinds that take it: the K210's --pin-input given to the self-check.
TEST_F(Cli, APlatformsOwnOptionIsRefusedElsewhere) {
    const fs::path pins = write("pins.txt", "0 io1 1\n");
    const Result r =
        run("run --firmware " + pins.string() + " --pin-input " + pins.string() + kSelfcheck);
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("--pin-input: an option of the k210 platform; "), std::string::npos)
        << r.err;
    EXPECT_NE(r.err.find("is a selfcheck platform"), std::string::npos) << r.err;
}

// An error message quotes what the user gave; control characters in it are shown, not sent to
// the terminal (an escape sequence from a file could clear or retitle it).
TEST_F(Cli, ErrorMessagesCarryNoControlCharacters) {
    const Result r =
        shell(std::string(NPUSIM_BIN) + " estimate --platform \"$(printf 'x\\033[2J')\"");
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_EQ(r.err.find('\x1b'), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("x\\x1b[2J"), std::string::npos) << r.err;
}

}  // namespace
