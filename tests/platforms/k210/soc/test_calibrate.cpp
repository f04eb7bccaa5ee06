// npusim calibrate on the K210: the measured-times CSV refused clearly when malformed, and a
// round trip — times simulated with known constants, written as a board CSV, fitted from the
// shipped constants — recovers the known constants.
#include <cmath>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "models/k210_kpu/kpu_layer_builder.h"
#include "models/k210_kpu/kpu_layout.h"
#include "platforms/k210/calibrate.h"
#include "platforms/k210/k210_calibrate.h"
#include "platforms/k210/kmodel/kmodel_writer.h"
#include "sim/core/error.h"
#include "tests/platforms/k210/soc/board_models.h"
#include "tests/platforms/k210/soc/soc_harness.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

std::string error_of(const std::string& csv) {
    try {
        k210::parse_measured_csv(csv, "t.csv");
    } catch (const sim::Error& e) {
        return e.what();
    }
    return "";
}

TEST(MeasuredCsv, ReadsRowsAndRefusesMalformedOnesNamingTheLine) {
    const std::vector<k210::MeasuredRow> rows = k210::parse_measured_csv(
        "ms,type,layer,note\n0.25,kpu_conv2d,1,x\n\n9.357,dequantize,2,\n", "t.csv");
    ASSERT_EQ(rows.size(), 2u);
    EXPECT_EQ(rows[0].layer, 1u);
    EXPECT_EQ(rows[0].type, "kpu_conv2d");
    EXPECT_EQ(rows[0].ms, 0.25);
    EXPECT_EQ(rows[1].line, 4u);
    EXPECT_EQ(error_of("layer,type\n1,a\n"),
              "t.csv:1: expected a header with the columns layer, type and ms, got 'layer,type'");
    EXPECT_EQ(error_of("layer,type,ms\n1,a\n"), "t.csv:2: 2 fields, the header has at least 3");
    EXPECT_EQ(error_of("layer,type,ms\n1,a,-3\n"),
              "t.csv:2: expected a layer index and a positive time in ms, got layer '1', ms '-3'");
    EXPECT_EQ(error_of("layer,type,ms\nx,a,3\n"),
              "t.csv:2: expected a layer index and a positive time in ms, got layer 'x', ms '3'");
    EXPECT_EQ(error_of("layer,type,ms\n1,a,3ms\n"),
              "t.csv:2: expected a layer index and a positive time in ms, got layer '1', ms '3ms'");
    EXPECT_EQ(error_of("layer,type,ms\n1,a,3\n1,a,4\n"), "t.csv:3: layer 1 appears twice");
    EXPECT_EQ(error_of("layer,type,ms\n"),
              "t.csv: no measured rows (a header layer,type,ms, then one row per layer)");
    const std::vector<std::string> types = {"kpu_upload", "kpu_conv2d"};
    try {
        k210::check_measured_rows(k210::parse_measured_csv("layer,type,ms\n1,dequantize,2\n", "t"),
                                  types, "t.csv");
        ADD_FAILURE();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "t.csv:2: layer 1 is kpu_conv2d in the model, the row says dequantize");
    }
    try {
        k210::check_measured_rows(k210::parse_measured_csv("layer,type,ms\n5,x,2\n", "t"), types,
                                  "t.csv");
        ADD_FAILURE();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(), "t.csv:2: layer 5, the model has 2 layers (0..1)");
    }
}

// Seeded byte mutations of a valid CSV: each parses or is one sim::Error, never a crash (ASan
// in CI), and what parses has positive finite times and distinct layers.
TEST(MeasuredCsv, MutatedCsvsParseOrFailCleanly) {
    const std::string seed =
        "layer,type,ms\n0,kpu_upload,0.329\n1,kpu_conv2d,26.563\n"
        "2,dequantize,9.357\n";
    std::mt19937 rng(16);
    size_t parsed = 0;
    for (int i = 0; i < 3000; ++i) {
        std::string s = seed;
        for (int e = 0; e < 1 + i % 3; ++e) {
            const size_t pos = rng() % s.size();
            switch (rng() % 3) {
            case 0: s[pos] = "0123456789,.-e\n\"x"[rng() % 17]; break;
            case 1: s.erase(pos, 1); break;
            default: s.insert(pos, 1, static_cast<char>(rng() % 128)); break;
            }
        }
        try {
            const std::vector<k210::MeasuredRow> rows = k210::parse_measured_csv(s, "m.csv");
            std::set<size_t> layers;
            for (const k210::MeasuredRow& r : rows) {
                EXPECT_TRUE(std::isfinite(r.ms) && r.ms > 0) << s;
                EXPECT_TRUE(layers.insert(r.layer).second) << s;
            }
            ++parsed;
        } catch (const sim::Error&) {
        }
    }
    EXPECT_GT(parsed, 300u);
}

// kpu_upload (320x240x3) -> KPU 3 -> 16 on 320x240 -> 16 -> 16 on 8x8, 40x30 and 20x15 (layers of
// different compute, so the fixed cost and the lane rate separate) -> 16 -> 8 on 20x15 read back
// to main memory -> dequantize.
k210::Kmodel round_trip_model() {
    const uint32_t in_bytes = 3 * 240 * 320;
    const auto big_out = static_cast<uint32_t>(kpu::fmap_lines(3, 320, 240));
    const auto small_in = big_out + static_cast<uint32_t>(kpu::fmap_lines(16, 320, 240));
    const auto small_out = small_in + static_cast<uint32_t>(kpu::fmap_lines(16, 40, 30));
    const uint32_t out_bytes = 8 * 15 * 20;
    k210::V4ModelSpec s;
    s.main_mem = in_bytes + out_bytes * 5;
    s.inputs = {{{k210::kMainMemory, k210::kUint8, 0, in_bytes}, {1, 3, 240, 320}}};
    s.outputs = {{k210::kMainMemory, k210::kFloat32, in_bytes + out_bytes, out_bytes * 4}};
    s.nodes.push_back(k210::v4_upload_node({k210::kMainMemory, k210::kUint8, 0, in_bytes},
                                           {k210::kKpuMemory, k210::kUint8, 0, in_bytes},
                                           {1, 3, 240, 320}));
    s.nodes.push_back(board::conv({3, 240, 320, 16, 3, false, 0, true}, 0, big_out));
    for (int w : {8, 40, 20}) {
        s.nodes.push_back(
            board::conv({16, w * 3 / 4, w, 16, 3, false, 0, true}, small_in, small_out));
    }
    k210::ConvLayerSpec last = board::conv({16, 15, 20, 8, 3, false, 0, true}, small_in, small_out);
    last.main_mem_out = true;
    last.main_mem_out_address = in_bytes;
    s.nodes.push_back(last);
    s.nodes.push_back(k210::v4_dequantize_node(
        {k210::kMainMemory, k210::kUint8, in_bytes, out_bytes},
        {k210::kMainMemory, k210::kFloat32, in_bytes + out_bytes, out_bytes * 4}, 0, 1.0f));
    return k210::parse_kmodel(k210::write_kmodel_v4(s), "round_trip.kmodel");
}

class Calibrate : public ScTest {};

// Truth: F = 5,000, a = 1.3, read-back 6 cycles/byte, upload 0.5 and dequantize 3 cycles per
// element (the shipped values: 3,171, 1.027, 33.894, 26.171, 11.323). The fit recovers each within
// 0.5 % and the fitted timed run matches every "measured" layer within 0.1 %.
TEST_F(Calibrate, ARoundTripRecoversKnownConstants) {
    const k210::Kmodel m = round_trip_model();
    k210::K210Config truth = k210_config();
    truth.kpu.timing.layer_fixed_cycles = 5'000;
    truth.kpu.timing.cycles_per_input_line = 1.3;
    truth.cpu.kpu_readback_cycles_per_byte = 6.0;
    truth.cpu.op_cycles_per_element["kpu_upload"] = 0.5;
    truth.cpu.op_cycles_per_element["dequantize"] = 3.0;
    std::string error;
    const std::vector<k210::LayerFeatures> measured = k210::timed_features(m, truth, error);
    ASSERT_EQ(measured.size(), 7u) << error;
    std::string csv = "layer,type,ms\n";
    for (size_t i = 0; i < measured.size(); ++i) {
        csv += fmt::format("{},{},{:.9f}\n", i, measured[i].type, measured[i].wall_us / 1e3);
    }
    const std::vector<k210::MeasuredRow> rows = k210::parse_measured_csv(csv, "board.csv");
    const k210::CalibrationRun run = k210::calibrate_model(m, rows, k210_config(), "board.csv");
    ASSERT_TRUE(run.error.empty()) << run.error;
    const k210::K210Config& f = run.fit.config;
    // F shares the small layers with the per-pass and fetch terms, which the fit frees too (their
    // truth is the shipped value): within 3 %.
    EXPECT_NEAR(static_cast<double>(f.kpu.timing.layer_fixed_cycles), 5'000, 150);
    EXPECT_NEAR(f.kpu.timing.cycles_per_input_line, 1.3, 0.0065);
    EXPECT_NEAR(f.cpu.kpu_readback_cycles_per_byte, 6.0, 0.03);
    EXPECT_NEAR(f.cpu.op_cycles_per_element.at("kpu_upload"), 0.5, 0.0025);
    EXPECT_NEAR(f.cpu.op_cycles_per_element.at("dequantize"), 3.0, 0.015);
    for (const k210::MeasuredRow& r : rows) {
        EXPECT_NEAR(run.after[r.layer].wall_us / 1e3, r.ms, 0.001 * r.ms) << "layer " << r.layer;
    }
    // Not fitted: cycles_per_mac and output_cycles_per_word (no row has MACs or a streamed
    // output), cycles_per_output_line (five KPU rows cannot tell it from the other four terms).
    EXPECT_EQ(run.fit.keys.size(), 7u);
}

// Seeded with the public figures the shipped CPU constants come from (docs/k210_platform.md "CPU
// time model"): nncase#95's read-back layer (26.563 ms) and dequantize (9.357 ms), and nncase#97's
// quantized add (58.699 ms) and upload node (20.367 ms) on their models rebuilt. The KPU rows
// cannot separate the KPU's terms from the read-back, so those stay as configured (notes say so),
// and the fit gives the shipped constants (within 1 %).
TEST_F(Calibrate, NncaseProfilesGiveTheShippedCpuConstants) {
    const k210::CpuModel shipped;
    const k210::Kmodel m95 = board::nncase95_model();
    const std::vector<k210::MeasuredRow> rows95 = k210::parse_measured_csv(
        "layer,type,ms\n3,kpu_conv2d,26.563\n4,dequantize,9.357\n", "95.csv");
    const k210::CalibrationRun run95 = k210::calibrate_model(m95, rows95, k210_config(), "95.csv");
    ASSERT_TRUE(run95.error.empty()) << run95.error;
    const k210::K210Config& f = run95.fit.config;
    EXPECT_NEAR(f.cpu.kpu_readback_cycles_per_byte, shipped.kpu_readback_cycles_per_byte,
                0.01 * shipped.kpu_readback_cycles_per_byte);
    EXPECT_NEAR(f.cpu.op_cycles_per_element.at("dequantize"),
                shipped.op_cycles_per_element.at("dequantize"),
                0.01 * shipped.op_cycles_per_element.at("dequantize"));
    ASSERT_EQ(run95.fit.notes.size(), 5u);  // the KPU's five terms the one KPU row exercises
    EXPECT_EQ(run95.fit.notes[4],
              "kpu.layer_fixed_cycles kept at 3171: the rows cannot tell it from the others");
    const std::string yaml = k210::calibration_yaml(run95.fit, "# t\n");
    EXPECT_NE(yaml.find("cpu:\n  kpu_readback_cycles_per_byte: "), std::string::npos) << yaml;

    const k210::Kmodel m97 = board::nncase97_bottleneck_model();
    const std::vector<k210::MeasuredRow> rows97 = k210::parse_measured_csv(
        "layer,type,ms\n3,quantized_binary,58.699\n4,kpu_upload,20.367\n", "97.csv");
    const k210::CalibrationRun run97 = k210::calibrate_model(m97, rows97, k210_config(), "97.csv");
    ASSERT_TRUE(run97.error.empty()) << run97.error;
    const auto& ops = run97.fit.config.cpu.op_cycles_per_element;
    for (const char* op : {"quantized_binary", "kpu_upload"}) {
        const double want = shipped.op_cycles_per_element.at(op);
        EXPECT_NEAR(ops.at(op), want, 0.01 * want) << op;
    }
}

}  // namespace
}  // namespace npu::test
