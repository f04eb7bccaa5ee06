// The FINN platform as a user runs it: our TFC-like MLP (scripts/train_finn_tfc.py) with its
// folding config on the 297 held-out digits gives, bit for bit, the top-1 indices of the
// script's independent NumPy run of the same graph (288/297 correct); behind FINN's default
// 2-deep FIFOs it runs a cycle slower than its slowest layer, and --size-fifos finds the one
// deeper FIFO that restores the rate and writes it as a folding config; --functional gives the
// same values; estimate gives FINN's own formulas; mistakes are one line each.
#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "sim/core/npy.h"
#include "tests/app/cli_fixture.h"

namespace {

using npu::test::Cli;
using npu::test::Result;
using npu::test::slurp;
namespace fs = std::filesystem;

#define TFC NPUSIM_SOURCE_DIR "/configs/networks/finn/"
const std::string kRun = "run --platform " NPUSIM_SOURCE_DIR "/configs/finn.yaml --model " TFC
                         "tfc_digits.onnx --folding " TFC "folding.json";

std::vector<int32_t> ints(const fs::path& npy) {
    const npu::sim::Tensor t = npu::sim::read_npy(npy.string());
    const auto* p = t.data<int32_t>();
    return {p, p + t.numel()};
}

TEST_F(Cli, FinnTfcIsBitExactAndFifoSizingRestoresItsRate) {
    const fs::path out = dir / "tfc";
    const Result r =
        run(kRun + " --input " TFC "test_inputs.npy --size-fifos --trace --out " + out.string());
    ASSERT_EQ(r.rc, 0) << r.err;
    const std::vector<int32_t> got = ints(out / "output.npy");
    EXPECT_EQ(got, ints(TFC "reference_outputs.npy"));
    const std::vector<int32_t> labels = ints(TFC "test_labels.npy");
    ASSERT_EQ(labels.size(), got.size());
    int correct = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        correct += got[i] == labels[i] ? 1 : 0;
    }
    EXPECT_EQ(correct, 288);  // the script's NumPy accuracy, 96.97 %
    const auto j = nlohmann::json::parse(slurp(out / "report.json"));
    // Every MVAU is folded to 16 cycles a frame; MVAU_hls_0 writes its 4 words at cycles 3, 7,
    // 11, 15 and MVAU_hls_1 wants them in its first 4: behind 2 slots a frame takes 17.
    // FINN's estimate on the graph as given (dataflow_performance): three MVAUs at 16 and
    // LabelSelect at Labels/PE = 10; npusim's formulas add the two converters it inserts (16 and
    // 10 words) and LabelSelect's output word: 16 + 16 + 16 + 16 + 10 + 11 = 85.
    EXPECT_EQ(j["tables"]["finn_estimate"]["rows"][0]["max_cycles"], 16);
    EXPECT_EQ(j["tables"]["finn_estimate"]["rows"][0]["max_cycles_node_name"], "MVAU_hls_0");
    EXPECT_EQ(j["tables"]["finn_estimate"]["rows"][0]["critical_path_cycles"], 58);
    EXPECT_EQ(j["tables"]["finn_estimate"]["rows"][0]["estimated_latency_ns"], 580.0);
    EXPECT_EQ(j["tables"]["finn_estimate"]["rows"][0]["estimated_throughput_fps"], 6.25e6);
    EXPECT_EQ(j["tables"]["formula_estimate"]["rows"][0]["latency_cycles"], 85);
    EXPECT_NE(j["notes"][0].get<std::string>().find("lower bound"), std::string::npos);
    EXPECT_NE(r.out.find("a lower bound"), std::string::npos);
    EXPECT_EQ(j["tables"]["fifo_sizing"]["rows"][0]["interval_before_cycles"], 17);
    EXPECT_EQ(j["tables"]["fifo_sizing"]["rows"][0]["depths"], "2 3 2 2 2 2 2");
    EXPECT_EQ(j["totals"]["interval_cycles"]["value"], 16);
    EXPECT_EQ(j["totals"]["frames_per_second"]["value"], 6.25e6);
    EXPECT_EQ(j["layers"][0]["measures"]["frame_cycles"]["value"], 16);
    EXPECT_EQ(j["layers"][3]["shape"], "64 -> 10");  // MVAU_hls_2 after a converter
    EXPECT_EQ(j["layers"][3]["macs"], 640);
    const auto sized = nlohmann::json::parse(slurp(out / "folding_sized.json"));
    EXPECT_EQ(sized["MVAU_hls_0"]["PE"], 16);  // the given folding, kept
    EXPECT_EQ(sized["MVAU_hls_0"]["outFIFODepths"], nlohmann::json::parse("[3]"));
    EXPECT_EQ(sized["MVAU_hls_1"]["inFIFODepths"], nlohmann::json::parse("[3]"));
    EXPECT_FALSE(sized.contains("StreamingDataWidthConverter_inserted_0"));
    const std::string trace = slurp(out / "trace.json");
    EXPECT_NE(trace.find("\"FIFO MVAU_hls_0 -> MVAU_hls_1\""), std::string::npos);
    EXPECT_NE(trace.find("\"ph\": \"C\""), std::string::npos);
    // The sized folding run again gives the rate without sizing.
    const Result again =
        run("run --platform " NPUSIM_SOURCE_DIR "/configs/finn.yaml --model " TFC
            "tfc_digits.onnx --input " TFC "test_inputs.npy --folding " +
            (out / "folding_sized.json").string() + " --out " + (dir / "again").string());
    ASSERT_EQ(again.rc, 0) << again.err;
    EXPECT_EQ(nlohmann::json::parse(
                  slurp(dir / "again" / "report.json"))["totals"]["interval_cycles"]["value"],
              16);
}

// Every FIFO's largest occupancy in report.json is the largest value of its counter in the
// trace, and the counter never exceeds the FIFO's depth.
void expect_fifos_match_trace(const nlohmann::json& report, const nlohmann::json& trace) {
    std::map<std::string, double> peak;
    for (const auto& e : trace["traceEvents"]) {
        if (e["ph"] == "C") {
            double& p = peak[e["name"].get<std::string>()];
            p = std::max(p, e["args"]["value"].get<double>());
        }
    }
    ASSERT_FALSE(report["tables"]["fifos"]["rows"].empty());
    for (const auto& f : report["tables"]["fifos"]["rows"]) {
        const std::string name = "FIFO " + f["name"].get<std::string>();
        ASSERT_TRUE(peak.count(name)) << name;
        EXPECT_EQ(f["max_occupancy"].get<double>(), peak[name]) << name;
        EXPECT_LE(peak[name], f["depth"].get<double>()) << name;
    }
}

// The CNV-like network (scripts/train_finn_cnv.py): two 3x3 convolutions as sliding windows and
// MVAUs, a max-pool, a fully connected MVAU and LabelSelect; five converters inserted.
TEST_F(Cli, FinnCnvIsBitExactAndItsWindowNeedsADeepFifo) {
    const std::string cnv = "run --platform " NPUSIM_SOURCE_DIR "/configs/finn.yaml --model " TFC
                            "cnv_digits.onnx --folding ";
    const Result r = run(cnv + TFC "cnv_folding.json --input " TFC "cnv_test_inputs.npy --out " +
                         (dir / "cnv").string());
    ASSERT_EQ(r.rc, 0) << r.err;
    const std::vector<int32_t> got = ints(dir / "cnv" / "output.npy");
    EXPECT_EQ(got, ints(TFC "cnv_reference_outputs.npy"));
    const std::vector<int32_t> labels = ints(TFC "test_labels.npy");
    int correct = 0;
    for (size_t i = 0; i < got.size(); ++i) {
        correct += got[i] == labels[i] ? 1 : 0;
    }
    EXPECT_EQ(correct, 277);  // the script's NumPy accuracy, 93.27 %
    auto j = nlohmann::json::parse(slurp(dir / "cnv" / "report.json"));
    ASSERT_EQ(j["layers"].size(), 10u);
    // The first window: 8·3·1 + 6·max(6·3·3·1, 1·8·1) = 24 + 324 = 348 cycles, the slowest.
    EXPECT_EQ(j["layers"][0]["measures"]["formula_cycles"]["value"], 348);
    EXPECT_EQ(j["tables"]["finn_estimate"]["rows"][0]["max_cycles"], 348);
    // FINN's sum over the seven graph nodes: 348 + 288 + 162 + 288 + 20 (the pool: 4·4·1.25) +
    // 40 + 10 = 1,156; npusim's adds the three converters (324 + 288 + 32) and LabelSelect's
    // output word: 1,801.
    EXPECT_EQ(j["tables"]["finn_estimate"]["rows"][0]["critical_path_cycles"], 1156);
    EXPECT_EQ(j["tables"]["formula_estimate"]["rows"][0]["latency_cycles"], 1801);
    // The second window (SIMD 16: 6·3 + 4·max(4·9, 6) = 162 cycles) writes each output row's
    // 36 words in a burst that the MVAU behind it (8 · 9 · 16 = 288 cycles a frame) takes 9 at
    // a time: behind FINN's 2 slots every frame takes 456 cycles instead of 348.
    EXPECT_EQ(j["layers"][4]["measures"]["formula_cycles"]["value"], 162);
    EXPECT_EQ(j["totals"]["interval_cycles"]["value"], 456);
    // Sizing (on the platform's 8 pseudo-random frames) deepens that FIFO alone.
    const fs::path sized = dir / "sized";
    const Result s = run(cnv + TFC "cnv_folding.json --size-fifos --trace --out " + sized.string());
    ASSERT_EQ(s.rc, 0) << s.err;
    j = nlohmann::json::parse(slurp(sized / "report.json"));
    expect_fifos_match_trace(j, nlohmann::json::parse(slurp(sized / "trace.json")));
    EXPECT_EQ(j["tables"]["fifo_sizing"]["rows"][0]["interval_before_cycles"], 456);
    EXPECT_EQ(j["totals"]["interval_cycles"]["value"], 348);
    std::vector<int> depths;
    std::istringstream text(j["tables"]["fifo_sizing"]["rows"][0]["depths"].get<std::string>());
    for (int d = 0; text >> d;) {
        depths.push_back(d);
    }
    ASSERT_EQ(depths.size(), 11u);  // the input, between the ten layers, the output
    for (size_t i = 0; i < depths.size(); ++i) {
        EXPECT_EQ(depths[i] > 2, i == 5) << i;
    }
    // One slot less there is slower again.
    auto folding = nlohmann::json::parse(slurp(sized / "folding_sized.json"));
    const int less = depths[5] - 1;
    folding["ConvolutionInputGenerator_hls_1"]["outFIFODepths"] = {less};
    folding["MVAU_hls_1"]["inFIFODepths"] = {less};
    const fs::path f = write("less.json", folding.dump());
    const Result l = run(cnv + f.string() + " --out " + (dir / "less").string());
    ASSERT_EQ(l.rc, 0) << l.err;
    j = nlohmann::json::parse(slurp(dir / "less" / "report.json"));
    EXPECT_GT(j["totals"]["interval_cycles"]["value"].get<int>(), 348);
}

// A folding sweep of the CNV: 5 · 3 (MVAU_hls_0's PE and SIMD: every value) · 5 (the windows'
// SIMD, by op type: every value; the first window has one channel, so 1) · 5 · 7 (MVAU_hls_1)
// = 2,625 configurations, all designs. Configuration 0 (everything 1) by hand; the front checked
// against every pair of rows; its fastest configuration written as a folding file and estimated
// alone (the import's own path, converters inserted afresh) gives the same numbers; the page
// draws the front.
TEST_F(Cli, FinnFoldingSweepOfTheCnv) {
    const fs::path sweep = write("sweep.json", R"({
        "MVAU_hls_0": {"PE": "all", "SIMD": "all"},
        "ConvolutionInputGenerator": {"SIMD": "all"},
        "MVAU_hls_1": {"PE": "all", "SIMD": [1, 2, 4, 8, 16, 48, 144]}})");
    const Result r =
        run("estimate --model " TFC "cnv_digits.onnx --folding " TFC "cnv_folding.json --layers " +
            sweep.string() + " --out " + (dir / "sweep").string());
    ASSERT_EQ(r.rc, 0) << r.err;
    const auto rows = nlohmann::json::parse(slurp(dir / "sweep" / "estimate.json"));
    const auto report = nlohmann::json::parse(slurp(dir / "sweep" / "report.json"));
    ASSERT_EQ(rows.size(), 2625u);
    EXPECT_EQ(report["totals"]["configurations"]["value"], 2625);
    EXPECT_EQ(report["totals"]["invalid"]["value"], 0);
    // Configuration 0: MVAU_hls_0 16·9·36 = 5184, window 1 6·3·16 + 4·max(4·9·16, 6·16) =
    // 2592, MVAU_hls_1 16·144·16 = 36864; fixed: window 0 348, pool 20, MVAU_hls_2 40,
    // LabelSelect 10.
    const auto& c0 = rows[0];
    EXPECT_EQ(c0["max_cycles"], 36864);
    EXPECT_EQ(c0["max_cycles_node_name"], "MVAU_hls_1");
    EXPECT_EQ(c0["critical_path_cycles"], 348 + 5184 + 2592 + 36864 + 20 + 40 + 10);
    struct P {
        uint64_t cycles, lut, bram;
        bool front;
    };
    std::vector<P> pts;
    for (const auto& row : rows) {
        pts.push_back({row["max_cycles"], row["LUT"], row["BRAM_18K"], row["pareto"]});
    }
    size_t front = 0, fastest = 0;
    for (size_t i = 0; i < pts.size(); ++i) {
        bool beaten = false;
        for (const P& q : pts) {
            const P& p = pts[i];
            beaten |= q.cycles <= p.cycles && q.lut <= p.lut && q.bram <= p.bram &&
                      (q.cycles < p.cycles || q.lut < p.lut || q.bram < p.bram);
        }
        EXPECT_FALSE(pts[i].front && beaten) << i;
        front += pts[i].front ? 1u : 0u;
        if (pts[i].front && pts[i].cycles < pts[fastest].cycles) {
            fastest = i;
        }
    }
    EXPECT_EQ(report["totals"]["pareto"]["value"], front);
    ASSERT_TRUE(pts[fastest].front);
    // The fastest front configuration as a folding file, estimated alone.
    nlohmann::json folding = nlohmann::json::parse(slurp(TFC "cnv_folding.json"));
    for (const auto& [key, value] : rows[fastest].items()) {
        const size_t dot = key.find('.');
        if (dot != std::string::npos) {
            folding[key.substr(0, dot)][key.substr(dot + 1)] = value;
        }
    }
    const fs::path f = write("fastest.json", folding.dump());
    const Result one = run("estimate --model " TFC "cnv_digits.onnx --folding " + f.string());
    ASSERT_EQ(one.rc, 0) << one.err;
    const auto& best = rows[fastest];
    EXPECT_NE(one.out.find(fmt::format("max_cycles {} ({}), critical_path_cycles {}",
                                       best["max_cycles"].get<uint64_t>(),
                                       best["max_cycles_node_name"].get<std::string>(),
                                       best["critical_path_cycles"].get<uint64_t>())),
              std::string::npos)
        << one.out;
    EXPECT_NE(one.out.find(fmt::format("LUT {}, BRAM_18K {},", best["LUT"].get<uint64_t>(),
                                       best["BRAM_18K"].get<uint64_t>())),
              std::string::npos)
        << one.out;
    EXPECT_NE(one.out.find(fmt::format("{} cycles as a sum",
                                       best["formula_latency_cycles"].get<uint64_t>())),
              std::string::npos)
        << one.out;
    // The page: the front drawn large on each of its two charts (LUT, BRAM_18K).
    const std::string page = slurp(dir / "sweep" / "report.html");
    size_t circles = 0;
    for (size_t at = page.find("class=\"front\""); at != std::string::npos;
         at = page.find("class=\"front\"", at + 1)) {
        ++circles;
    }
    EXPECT_EQ(circles, 2 * front);
    EXPECT_NE(page.find("data-front=\"LUT\""), std::string::npos);
}

// npusim regress on FINN: the streaming design (words through 2-deep FIFOs, width converters
// inserted) against each layer's function, layer by layer, on the 297 test digits: every layer
// equal (0 LSB), and the labels give the accuracy the training scripts' NumPy computed
// independently (TFC 288/297, CNV 277/297) for both; junit.xml has a case per check (per layer
// its LSB and cosine, the output's cosine). Labels of another count are one message.
TEST_F(Cli, FinnRegressStreamsEqualTheLayersFunctions) {
    const std::string base = "regress --platform " NPUSIM_SOURCE_DIR
                             "/configs/finn.yaml --labels " TFC "test_labels.npy --model " TFC;
    Result r =
        run(base +
            "tfc_digits.onnx --folding " TFC "folding.json --inputs " TFC "test_inputs.npy --out " +
            (dir / "tfc").string());
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("accuracy: reference 288/297 (96.97 %), simulated 288/297 (96.97 %)"),
              std::string::npos)
        << r.out;
    const auto j = nlohmann::json::parse(slurp(dir / "tfc" / "report.json"));
    ASSERT_EQ(j["layers"].size(), 6u);
    for (const auto& l : j["layers"]) {
        EXPECT_EQ(l["measures"]["max_error_lsb"]["value"], 0) << l["name"];
    }
    EXPECT_EQ(j["totals"]["accuracy_simulated"]["value"].get<double>() * 297, 288);
    EXPECT_NE(slurp(dir / "tfc" / "junit.xml")
                  .find("<testsuite name=\"npusim.regress\" tests=\"13\" failures=\"0\">"),
              std::string::npos);
    r = run(base + "cnv_digits.onnx --folding " TFC "cnv_folding.json --inputs " TFC
                   "cnv_test_inputs.npy");
    ASSERT_EQ(r.rc, 0) << r.out << r.err;
    EXPECT_NE(r.out.find("simulated 277/297 (93.27 %)"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("no layer exceeds the tolerances"), std::string::npos) << r.out;
    r = run("regress --platform " NPUSIM_SOURCE_DIR "/configs/finn.yaml --model " TFC
            "tfc_digits.onnx --labels " TFC "test_labels.npy");
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("test_labels.npy: 297 labels for 8 frames"), std::string::npos) << r.err;
    // A hostile label (2^31 - 1) allocates no matrix: the accuracy counts it wrong, no more.
    npu::sim::Tensor labels = npu::sim::read_npy(TFC "test_labels.npy");
    npu::sim::Tensor wide(npu::sim::DType::i32, labels.shape());
    std::copy(labels.data<int32_t>(), labels.data<int32_t>() + labels.numel(),
              wide.data<int32_t>());
    wide.data<int32_t>()[0] = INT32_MAX;
    const std::vector<uint8_t> npy = npu::sim::encode_npy(wide);
    const fs::path hostile = write("hostile.npy", std::string(npy.begin(), npy.end()));
    r = run("regress --platform " NPUSIM_SOURCE_DIR "/configs/finn.yaml --model " TFC
            "tfc_digits.onnx --folding " TFC "folding.json --inputs " TFC
            "test_inputs.npy --labels " +
            hostile.string());
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("simulated 28"), std::string::npos) << r.out;  // 287 or 288
}

TEST_F(Cli, FinnFunctionalAndEstimate) {
    const Result f =
        run(kRun + " --input " TFC "test_inputs.npy --functional --out " + (dir / "f").string());
    ASSERT_EQ(f.rc, 0) << f.err;
    EXPECT_EQ(ints(dir / "f" / "output.npy"), ints(TFC "reference_outputs.npy"));
    const Result e = run("estimate --platform " NPUSIM_SOURCE_DIR "/configs/finn.yaml --model " TFC
                         "tfc_digits.onnx --folding " TFC "folding.json --out " +
                         (dir / "e").string());
    ASSERT_EQ(e.rc, 0) << e.err;
    // Its record: a layer per layer of the chain, a frame's formula cycles at the clock, FINN's
    // cycles where the graph has the node (not on the converters npusim inserted).
    const auto j = nlohmann::json::parse(slurp(dir / "e" / "report.json"));
    EXPECT_EQ(j["command"], "estimate");
    ASSERT_EQ(j["layers"].size(), 6u);
    EXPECT_EQ(j["layers"][0]["engines"][0]["parts"]["frame"], 16);
    EXPECT_EQ(j["layers"][0]["engines"][0]["ps"], 160000);  // 16 cycles at 100 MHz
    EXPECT_EQ(j["layers"][0]["measures"]["finn_cycles"]["value"], 16);
    EXPECT_FALSE(j["layers"][2]["measures"].contains("finn_cycles"));  // a converter
    EXPECT_EQ(j["tables"]["formula_estimate"]["rows"][0]["latency_cycles"], 85);
    EXPECT_EQ(j["totals"]["critical_path_cycles"]["value"], 58);
    // FINN's as FINN prints it; ours: 16 + 16 + 16 (converter 16 -> 4 words) + 16 + 10
    // (converter 10 -> 1) + 11 = 85.
    EXPECT_NE(e.out.find("FINN's estimate (its dataflow_performance on the graph as given): "
                         "max_cycles 16 (MVAU_hls_0), critical_path_cycles 58, "
                         "estimated_throughput_fps 6250000, estimated_latency_ns 580"),
              std::string::npos)
        << e.out;
    EXPECT_NE(e.out.find("16 cycles a frame (MVAU_hls_0), 6250000 frames/s, 85 cycles as a sum"),
              std::string::npos)
        << e.out;
    // Unfolded (PE = SIMD = 1): MVAU_hls_0 64·64 = 4096 cycles.
    const Result u = run("estimate --platform " NPUSIM_SOURCE_DIR "/configs/finn.yaml --model " TFC
                         "tfc_digits.onnx");
    EXPECT_NE(u.out.find("max_cycles 4096 (MVAU_hls_0)"), std::string::npos) << u.out;
    // info: the chain as imported; unfolded, MVAU_hls_1 (PE 1) feeds the max-pool (whole pixels
    // of 16) through an inserted converter.
    const Result i = run("info --platform " NPUSIM_SOURCE_DIR "/configs/finn.yaml --model " TFC
                         "cnv_digits.onnx");
    ASSERT_EQ(i.rc, 0) << i.err;
    EXPECT_NE(i.out.find("9 layers, 2 of them width converters npusim inserted"), std::string::npos)
        << i.out;
    EXPECT_NE(i.out.find("StreamingDataWidthConverter_inserted_0  StreamingDataWidthConverter   "
                         "1->16"),
              std::string::npos)
        << i.out;
}

TEST_F(Cli, FinnMistakesAreOneLine) {
    Result r = run("run --platform " NPUSIM_SOURCE_DIR "/configs/k210.yaml --model " TFC
                   "tfc_digits.onnx --folding " TFC "folding.json");
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(r.err, "npusim: error: --folding: an option of the finn platform; " NPUSIM_SOURCE_DIR
                     "/configs/k210.yaml is a k210 platform\n");
    // FINN declares --folding for run, estimate and regress (platform::PlatformOption): the same
    // refusal on the other commands.
    r = run("regress --platform " NPUSIM_SOURCE_DIR "/configs/dlp_zcu102_int8.yaml --model " TFC
            "tfc_digits.onnx --folding " TFC "folding.json");
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("--folding: an option of the finn platform; "), std::string::npos)
        << r.err;
    // Without --platform, --folding means the built-in FINN platform (FINN's own command line).
    r = run("estimate --model " TFC "tfc_digits.onnx --folding " TFC "folding.json");
    EXPECT_EQ(r.rc, 0) << r.err;
    EXPECT_NE(r.out.find("on finn_100mhz (<built-in configs/finn.yaml>)"), std::string::npos)
        << r.out;
    const fs::path bad = write("bad.json", R"({"MVAU_hls_7": {"PE": 2}})");
    r = run("run --platform " NPUSIM_SOURCE_DIR "/configs/finn.yaml --model " TFC
            "tfc_digits.onnx --folding " +
            bad.string() + " --out " + (dir / "o").string());
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(r.err, "npusim: error: " + bad.string() +
                         ": MVAU_hls_7: the graph has no node of that name\n");
    EXPECT_FALSE(fs::exists(dir / "o"));
    const fs::path pe = write("pe.json", R"({"MVAU_hls_0": {"PE": 5}})");
    r = run("estimate --platform " NPUSIM_SOURCE_DIR "/configs/finn.yaml --model " TFC
            "tfc_digits.onnx --folding " +
            pe.string());
    EXPECT_EQ(r.rc, 2);
    EXPECT_EQ(r.err, "npusim: error: " TFC
                     "tfc_digits.onnx: node 'MVAU_hls_0' (MVAU_hls): MH % PE == 0: MH 64 is not a "
                     "multiple of PE 5 (PE from " +
                         pe.string() + ": MVAU_hls_0)\n");
    r = run(kRun + " --input " TFC "test_labels.npy");  // 297 values: not frames of 64
    EXPECT_EQ(r.rc, 2);
    EXPECT_NE(r.err.find("test_labels.npy: 297 values, expected whole frames of 64"),
              std::string::npos)
        << r.err;
    r = run(kRun + " --size-fifos");
    EXPECT_EQ(r.err,
              "npusim: error: --size-fifos writes folding_sized.json into the output "
              "directory: add --out DIR\n");
}

}  // namespace
