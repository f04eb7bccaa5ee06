// report.json is the run record (docs/reports.md): every report a migrated platform writes (the
// K210's runs, the DL processor's, AIPP's, the self-check's, FINN's, a regression's) validates
// against docs/report.schema.json (Debian's python3-jsonschema, through scripts/validate-report),
// and the validator rejects a damaged one; `npusim report` draws the same page again from the
// record alone.
#include <filesystem>
#include <fstream>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <sys/stat.h>

#include "sim/core/npy.h"
#include "sim/core/run_record.h"
#include "tests/app/cli_fixture.h"

namespace {

using npu::test::Cli;
using npu::test::Result;
using npu::test::slurp;
namespace fs = std::filesystem;

const std::string kValidate = NPUSIM_SOURCE_DIR "/scripts/validate-report";

TEST_F(Cli, EveryReportValidatesAgainstTheSchema) {
    if (shell("/usr/bin/python3 -c 'import jsonschema'").rc != 0) {
        GTEST_SKIP() << "python3-jsonschema is not installed (scripts/install-deps installs it)";
    }
    const std::vector<std::pair<std::string, std::string>> runs = {
        {"timed", "run"},
        {"functional", "run --functional"},
        {"dumps", "run --demo edges --dump-all"},
        {"traced", "run --demo edges --trace"},
        {"dlp", "run --platform " NPUSIM_SOURCE_DIR
                "/configs/dlp_zcu102_int8.yaml --network " NPUSIM_SOURCE_DIR
                "/configs/networks/dlp_tiny.yaml"},
        {"aipp", "aipp"},
        {"selfcheck", "run --platform " NPUSIM_SOURCE_DIR "/configs/selfcheck.yaml"},
        {"finn", "run --platform " NPUSIM_SOURCE_DIR "/configs/finn.yaml --model " NPUSIM_SOURCE_DIR
                 "/configs/networks/finn/tfc_digits.onnx --size-fifos"},
        {"finn_functional", "run --platform " NPUSIM_SOURCE_DIR
                            "/configs/finn.yaml --functional --model " NPUSIM_SOURCE_DIR
                            "/configs/networks/finn/tfc_digits.onnx"},
    };
    std::string reports;
    // A regression's verdict (checks tied to layers, the outputs, timed and confusion tables).
    const std::string d = NPUSIM_SOURCE_DIR "/platforms/k210/digits/";
    const std::string km = (dir / "d.kmodel").string();
    ASSERT_EQ(
        run("compile " + d + "digits_cnn.onnx --calibrate " + d + "calib_images.npy -o " + km).rc,
        0);
    ASSERT_EQ(run("regress --onnx " + d + "digits_cnn.onnx --model " + km + " --inputs " + d +
                  "test_images.npy --labels " + d + "test_labels.npy --timed --out " +
                  (dir / "regress").string())
                  .rc,
              0);
    reports += " " + (dir / "regress" / "report.json").string();
    // The DL processor's tiny network against its float equivalent (it fails: exit 1).
    ASSERT_EQ(run("regress --platform " NPUSIM_SOURCE_DIR
                  "/configs/dlp_zcu102_int8.yaml --model " NPUSIM_SOURCE_DIR
                  "/configs/networks/dlp_tiny.yaml --out " +
                  (dir / "dlp_regress").string())
                  .rc,
              1);
    reports += " " + (dir / "dlp_regress" / "report.json").string();
    ASSERT_EQ(
        run("regress --platform " NPUSIM_SOURCE_DIR "/configs/finn.yaml --model " NPUSIM_SOURCE_DIR
            "/configs/networks/finn/tfc_digits.onnx --out " +
            (dir / "finn_regress").string())
            .rc,
        0);
    reports += " " + (dir / "finn_regress" / "report.json").string();
    for (const auto& [name, args] : runs) {
        const Result r = run(args + " --out " + (dir / name).string());
        ASSERT_EQ(r.rc, 0) << args << r.err;
        reports += " " + (dir / name / "report.json").string();
    }
    // Program estimates on the three platforms that make them records.
    for (const auto& [name, args] : std::vector<std::pair<std::string, std::string>>{
             {"k210_estimate", "estimate --model " + (dir / "dumps" / "demo.kmodel").string()},
             {"dlp_estimate", "estimate --platform " NPUSIM_SOURCE_DIR
                              "/configs/dlp_zcu102_int8.yaml --layers " NPUSIM_SOURCE_DIR
                              "/configs/networks/dlp_tiny.yaml"},
             {"finn_estimate", "estimate --platform " NPUSIM_SOURCE_DIR
                               "/configs/finn.yaml --model " NPUSIM_SOURCE_DIR
                               "/configs/networks/finn/tfc_digits.onnx"}}) {
        ASSERT_EQ(run(args + " --out " + (dir / name).string()).rc, 0) << args;
        reports += " " + (dir / name / "report.json").string();
    }
    // Sweeps (K210 layers, a FINN folding), a calibration (the edges demo's times as the board's)
    // and the float reference: records too.
    write("k210_sweep.yaml",
          "layers:\n  - name: s\n    in_channels: [8, 16]\n    out_channels: 8\n"
          "    width: 16\n    height: 16\n    kernel: 3\n");
    write("finn_sweep.json", R"({"MVAU_hls_0": {"PE": [1, 2]}})");
    std::string board = "layer,type,ms\n";
    const auto timed = nlohmann::json::parse(slurp(dir / "dumps" / "report.json"));
    for (const auto& l : timed["layers"]) {
        board += fmt::format(
            "{},{},{}\n", l["index"].get<int>(), l["op"].get<std::string>(),
            static_cast<double>(l["end_ps"].get<uint64_t>() - l["start_ps"].get<uint64_t>()) / 1e9);
    }
    write("board.csv", board);
    const std::string digits = NPUSIM_SOURCE_DIR "/platforms/k210/digits/";
    npu::sim::Tensor x(npu::sim::DType::f32, {1, 1, 16, 16});
    const std::vector<uint8_t> npy = npu::sim::encode_npy(x);
    write("x.npy", std::string(npy.begin(), npy.end()));
    for (const auto& [name, args] : std::vector<std::pair<std::string, std::string>>{
             {"k210_sweep", "estimate --layers " + (dir / "k210_sweep.yaml").string()},
             {"finn_sweep", "estimate --platform " NPUSIM_SOURCE_DIR
                            "/configs/finn.yaml --model " NPUSIM_SOURCE_DIR
                            "/configs/networks/finn/tfc_digits.onnx --layers " +
                                (dir / "finn_sweep.json").string()},
             {"calibrate", "calibrate --model " + (dir / "dumps" / "demo.kmodel").string() +
                               " --measured " + (dir / "board.csv").string()},
             {"infer",
              "infer --onnx " + digits + "digits_cnn.onnx --input " + (dir / "x.npy").string()}}) {
        const Result r = run(args + " --out " + (dir / name).string());
        ASSERT_EQ(r.rc, 0) << args << r.err;
        reports += " " + (dir / name / "report.json").string();
    }
    const Result valid = shell(kValidate + reports);
    EXPECT_EQ(valid.rc, 0) << valid.out << valid.err;
    EXPECT_EQ(valid.out, "");
    // A record with every optional field, and one damaged: a layer without its MACs and an
    // engine's negative time are both named.
    nlohmann::ordered_json j = nlohmann::ordered_json::parse(slurp(dir / "dumps" / "report.json"));
    j["checks"].push_back({{"name", "max_lsb"},
                           {"measured", 2},
                           {"relation", "<="},
                           {"limit", 1},
                           {"unit", "LSB"},
                           {"passed", false}});
    j["passed"] = false;
    const auto finn = nlohmann::ordered_json::parse(slurp(dir / "finn" / "report.json"));
    j["tables"] = finn["tables"];
    j["notes"] = finn["notes"];
    std::ofstream(dir / "full.json") << j.dump();
    EXPECT_EQ(shell(kValidate + " " + (dir / "full.json").string()).rc, 0);
    j["layers"][0].erase("macs");
    j["layers"][1]["engines"][0]["ps"] = -1;
    j["tables"]["fifos"]["rows"][0]["depth"] = nullptr;
    std::ofstream(dir / "bad.json") << j.dump();
    const Result bad = shell(kValidate + " " + (dir / "bad.json").string());
    EXPECT_EQ(bad.rc, 1);
    EXPECT_NE(bad.out.find("layers/0: 'macs' is a required property"), std::string::npos)
        << bad.out;
    EXPECT_NE(bad.out.find("layers/1/engines/0/ps: -1 is less than the minimum of 0"),
              std::string::npos)
        << bad.out;
    EXPECT_NE(bad.out.find("tables/fifos/rows/0/depth: None is not of type"), std::string::npos)
        << bad.out;
}

// A functional run's layers have the parameter bytes the timed run's KPU fetches (weights, the
// batch-norm and activation tables), layer by layer.
TEST_F(Cli, FunctionalAndTimedRunsAgreeOnEachLayersParameterBytes) {
    for (const char* mode : {"timed", "functional"}) {
        ASSERT_EQ(run(std::string("run --demo edges --out ") + (dir / mode).string() +
                      (std::string(mode) == "functional" ? " --functional" : ""))
                      .rc,
                  0);
    }
    const auto t = nlohmann::json::parse(slurp(dir / "timed" / "report.json"));
    const auto f = nlohmann::json::parse(slurp(dir / "functional" / "report.json"));
    ASSERT_EQ(t["layers"].size(), f["layers"].size());
    uint64_t kpu_bytes = 0;
    for (size_t i = 0; i < t["layers"].size(); ++i) {
        EXPECT_EQ(f["layers"][i]["param_bytes"], t["layers"][i]["param_bytes"]) << i;
        kpu_bytes += f["layers"][i]["param_bytes"].get<uint64_t>();
    }
    EXPECT_GT(kpu_bytes, 0u);
}

// The page is drawn from the record: `npusim report` reads report.json back into the record and
// draws the same bytes; the time bars have one series per engine part the record names.
TEST_F(Cli, TheReportPageIsDrawnFromTheRecordAlone) {
    ASSERT_EQ(run("run --demo edges --trace --out " + (dir / "e").string()).rc, 0);
    const std::string page = slurp(dir / "e" / "report.html");
    fs::remove(dir / "e" / "report.html");
    const Result again = run("report " + (dir / "e").string());
    ASSERT_EQ(again.rc, 0) << again.err;
    EXPECT_EQ(slurp(dir / "e" / "report.html"), page);
    const npu::sim::RunRecord rec = npu::sim::record_from_json(
        nlohmann::ordered_json::parse(slurp(dir / "e" / "report.json")), "report.json");
    size_t series = 0;
    for (const npu::sim::EngineTime& e : npu::sim::engine_totals(rec)) {
        series += std::max<size_t>(e.parts.size(), 1);
        for (const npu::sim::Part& p : e.parts) {
            EXPECT_NE(page.find("data-series=\"" + e.engine + " " + p.name + "\""),
                      std::string::npos)
                << e.engine << " " << p.name;
        }
    }
    EXPECT_EQ(series, 8u);  // KPU: 4 parts, CPU: 3, bus and DMA
}

// `npusim report DIR` embeds only pictures the run wrote as regular files of DIR: a link named
// .png to a secret, a text file named .png, a picture added beside the run's are never in the page
// (a crafted run folder copied any readable file, base64-encoded, into a page the user shares).
TEST_F(Cli, AReportEmbedsOnlyThePicturesTheRunWrote) {
    const fs::path e = dir / "e";
    ASSERT_EQ(run("run --demo edges --out " + e.string()).rc, 0);
    const std::string page = slurp(e / "report.html");
    write("secret.txt", "TOKEN-0123456789");
    fs::create_symlink(dir / "secret.txt", e / "link.png");
    std::ofstream(e / "fake.png") << "TOKEN-0123456789";
    fs::copy_file(e / "input.png", e / "added.png");
    fs::create_directories(e / "lcd");
    fs::create_symlink(dir / "secret.txt", e / "lcd" / "0000.png");
    fs::remove(e / "report.html");
    const Result again = run("report " + e.string());
    ASSERT_EQ(again.rc, 0) << again.err;
    const std::string redrawn = slurp(e / "report.html");
    EXPECT_EQ(redrawn, page);  // exactly the run's own pictures
    for (const char* name : {"link.png", "fake.png", "added.png", "0000.png"}) {
        EXPECT_EQ(redrawn.find(name), std::string::npos) << name;
    }
    mkfifo((e / "trace.json").c_str(), 0600);  // a FIFO would block the reader forever
    const Result fifo = run("report " + e.string());
    EXPECT_EQ(fifo.rc, 2);
    EXPECT_NE(fifo.err.find("trace.json: not a regular file"), std::string::npos) << fifo.err;
}

// Record files of another shape are the user's mistake (exit 2, naming the file), not an internal
// error (exit 3): a campaign.json and a report.json that are JSON but no record.
TEST_F(Cli, AReportOfAMalformedRecordIsOneMessageNamingTheFile) {
    fs::create_directories(dir / "c");
    write("c/campaign.json", R"({"jobs": 5, "campaign": []})");
    Result r = run("report " + (dir / "c").string());
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("campaign.json: not a campaign record"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "c" / "report.html"));
    fs::create_directories(dir / "r");
    write("r/report.json", R"({"layers": 7, "totals": "x"})");
    r = run("report " + (dir / "r").string());
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("report.json"), std::string::npos) << r.err;
    EXPECT_FALSE(fs::exists(dir / "r" / "report.html"));
}

// A sweep's page is drawn from its record's plot and the rows file it names: `npusim report`
// draws the same bytes again; a record naming a rows file outside the folder is refused.
TEST_F(Cli, ASweepsPageIsDrawnAgainFromItsRecord) {
    write("sweep.yaml",
          "layers:\n  - name: s\n    in_channels: [8, 16]\n    out_channels: 8\n"
          "    width: 16\n    height: 16\n    kernel: 3\n");
    const Result r = run("estimate --layers " + (dir / "sweep.yaml").string() + " --out " +
                         (dir / "s").string());
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto rec = npu::sim::record_from_json(
        nlohmann::ordered_json::parse(slurp(dir / "s" / "report.json")), "report.json");
    ASSERT_TRUE(rec.plot.has_value());
    EXPECT_EQ(rec.rows, "estimate.json");
    EXPECT_EQ(rec.total("configurations")->value, 2.0);
    const std::string page = slurp(dir / "s" / "report.html");
    fs::remove(dir / "s" / "report.html");
    ASSERT_EQ(run("report " + (dir / "s").string()).rc, 0);
    EXPECT_EQ(slurp(dir / "s" / "report.html"), page);
    std::string j = slurp(dir / "s" / "report.json");
    j.replace(j.find("\"rows\": \"estimate.json\""), 23, "\"rows\": \"../estimate.json\"");
    write("s/report.json", j);
    const Result bad = run("report " + (dir / "s").string());
    EXPECT_EQ(bad.rc, 2);
    EXPECT_NE(bad.err.find("'rows' is not the name of a file in the folder"), std::string::npos)
        << bad.err;
}

// A run never writes over its inputs or over files npusim did not write (docs/reports.md "Output
// folders"): an input inside --out is refused before anything runs (a camera run with --camera
// DIR/camera --out DIR lost the photos), and so is a folder of the user's files; in its own
// folder a second run replaces its outputs and keeps the user's file beside them.
TEST_F(Cli, OutputFoldersNeverLoseWhatNpusimDidNotWrite) {
    const fs::path photos = dir / "photos";
    fs::create_directories(photos);
    const std::string layers =
        "layers:\n  - {name: conv, width: 32, height: 32, in_channels: 8, out_channels: 8, "
        "kernel: 3}\n";
    std::ofstream(photos / "layers.yaml") << layers;
    const fs::path mine = write("layers.yaml", layers);
    std::ofstream(photos / "face.jpg") << "jpeg";
    Result r =
        run("estimate --layers " + (photos / "layers.yaml").string() + " --out " + photos.string());
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("--layers " + (photos / "layers.yaml").string() +
                         ": an input inside the output folder"),
              std::string::npos)
        << r.err;
    r = run("estimate --layers " + mine.string() + " --out " + photos.string());
    EXPECT_EQ(r.rc, 2) << r.err;
    EXPECT_NE(r.err.find("holds files npusim did not write (face.jpg and 1 more)"),
              std::string::npos)
        << r.err;
    EXPECT_EQ(slurp(photos / "face.jpg"), "jpeg");
    const fs::path out = dir / "est";
    r = run("estimate --layers " + mine.string() + " --out " + out.string());
    ASSERT_EQ(r.rc, 0) << r.err;
    std::ofstream(out / "notes.txt") << "mine";
    r = run("estimate --layers " + mine.string() + " --out " + out.string());
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_EQ(slurp(out / "notes.txt"), "mine");
    EXPECT_TRUE(fs::exists(out / "estimate.csv"));
}

}  // namespace
