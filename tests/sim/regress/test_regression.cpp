// Regression as a service (sim/regress/regression.h) on numbers worked by hand: the error
// statistics, each tolerance a check tied to the layer and measure it judges, the first diverging
// layer, outputs judged by top-1 agreement or cosine, the confusion matrices as tables, the
// tolerances file and its overrides; and the verdict's JUnit XML (sim/core/run_record.h).
#include <filesystem>
#include <fstream>

#include <gtest/gtest.h>

#include "sim/core/error.h"
#include "sim/core/run_record.h"
#include "sim/regress/regression.h"

namespace npu::test {
namespace {

using regress::ErrorStats;

// sim (1, 2, 2), ref (1, 2, 4): errors 0, 0, 2; dot 1 + 4 + 8 = 13, |sim|² 9, |ref|² 21.
TEST(Regression, ErrorStatsByHand) {
    ErrorStats s;
    const float a[] = {1, 2, 2}, b[] = {1, 2, 4};
    s.add(a, b, 3);
    EXPECT_EQ(s.max_abs, 2);
    EXPECT_DOUBLE_EQ(s.mean_abs(), 2.0 / 3);
    EXPECT_DOUBLE_EQ(s.cosine(), 13 / std::sqrt(9.0 * 21.0));
    ErrorStats zero;
    zero.add(0.0, 0.0);
    EXPECT_EQ(zero.cosine(), 1);  // both all zero: the same
    zero.add(0.0, 1.0);
    EXPECT_EQ(zero.cosine(), 0);  // only one is
}

regress::Regression two_layers() {
    regress::Regression g;
    g.program = "m.kmodel", g.reference = "m.onnx", g.samples = 4;
    g.tol.max_lsb = 2, g.tol.min_cosine = 0.99, g.tol.min_top1 = 0.75;
    regress::LayerError conv{3, "KPU conv", "conv_out", 0.1, {}};
    conv.stats.add(1.0, 1.0), conv.stats.add_lsb(3);  // 3 LSB > 2: fails
    regress::LayerError fc{5, "CPU fc", "logits", 0, {}};
    fc.stats.add(1.0, 1.0);  // not quantized: judged by cosine alone
    g.layers = {conv, fc};
    regress::OutputError scores{"logits", {}, uint64_t{3}, true};  // 3 of 4 agree: 0.75
    scores.stats.add(1.0, -1.0);  // cosine −1, but scores are judged by top-1 alone
    regress::OutputError boxes{"boxes", {}, std::nullopt, false};
    boxes.stats.add(1.0, 1.0);
    g.outputs = {scores, boxes};
    g.confusion_sim = {{2, 0}, {1, 1}};
    g.confusion_ref = {{2, 0}, {0, 2}};
    g.correct_sim = 3, g.correct_ref = 4;
    return g;
}

TEST(Regression, EachToleranceIsACheckOnItsLayersMeasure) {
    const sim::RunRecord v = regress::verdict(two_layers());
    ASSERT_EQ(v.layers.size(), 2u);
    EXPECT_EQ(v.layers[0].index, 3u);
    EXPECT_EQ(v.layers[0].name, "conv_out");
    // conv: max_error_lsb and cosine_distance; fc: cosine_distance; logits: top-1; boxes: cosine.
    ASSERT_EQ(v.checks.size(), 5u);
    EXPECT_EQ(v.checks[0].name, "layer 3 conv_out: max_error_lsb");
    EXPECT_EQ(v.checks[0].measured, 3);
    EXPECT_EQ(v.checks[0].limit, 2);
    EXPECT_FALSE(v.checks[0].passed);
    EXPECT_EQ(v.checks[0].layer, 0u);
    EXPECT_EQ(v.checks[0].measure, "max_error_lsb");
    EXPECT_EQ(v.checks[1].measure, "cosine_distance");
    EXPECT_TRUE(v.checks[1].passed);
    EXPECT_EQ(v.checks[2].layer, 1u);
    EXPECT_EQ(v.checks[3].name, "output 0 logits: top1_agreement");
    EXPECT_EQ(v.checks[3].measured, 0.75);
    EXPECT_TRUE(v.checks[3].passed);  // >= 0.75
    EXPECT_EQ(v.checks[4].name, "output 1 boxes: cosine_distance");
    EXPECT_FALSE(v.passed());
    EXPECT_EQ(regress::first_diverging(v), "3 (conv_out)");
    EXPECT_EQ(v.total("failed_checks")->value, 1);
    EXPECT_EQ(v.total("accuracy_simulated")->value, 0.75);
    EXPECT_EQ(v.total("accuracy_reference")->value, 1);
    ASSERT_NE(v.table("confusion_simulated"), nullptr);
    EXPECT_EQ(v.table("confusion_simulated")->style, "matrix");
    EXPECT_EQ(std::get<double>(*v.table("confusion_simulated")->cell(1, "0")), 1);
    EXPECT_EQ(std::get<std::string>(*v.table("outputs")->cell(1, "top1_agreement")), "-");
    EXPECT_EQ(v.notes.back(), "first diverging layer: 3 (conv_out)");
    const std::string text = regress::verdict_text(two_layers(), v);
    EXPECT_NE(text.find("EXCEEDS"), std::string::npos) << text;
    EXPECT_NE(text.find("top-1 agreement 3/4 (75.00 %) ok"), std::string::npos) << text;
    EXPECT_NE(text.find("accuracy: reference 4/4 (100.00 %), simulated 3/4 (75.00 %)"),
              std::string::npos)
        << text;
    EXPECT_NE(text.find("first diverging layer: 3 (conv_out)"), std::string::npos);
    // The record reads back the same, checks tied to their layers.
    const sim::RunRecord back = sim::record_from_json(sim::to_json(v), "r.json");
    EXPECT_EQ(sim::to_json(back), sim::to_json(v));
}

// JUnit: a testcase per check; a failure names the measured value, the relation and the limit.
TEST(Regression, TheVerdictsJunitHasACasePerCheck) {
    const std::string xml = sim::junit_xml(regress::verdict(two_layers()));
    EXPECT_NE(xml.find("<testsuite name=\"npusim.regress\" tests=\"5\" failures=\"1\">"),
              std::string::npos)
        << xml;
    EXPECT_NE(xml.find("<testcase classname=\"npusim.regress\" name=\"layer 3 conv_out: "
                       "max_error_lsb\"><failure message=\"3 LSB, expected &lt;= 2 "
                       "LSB\"/></testcase>"),
              std::string::npos)
        << xml;
}

TEST(Regression, TolerancesFromAFileThenTheCommandLine) {
    const std::filesystem::path f =
        std::filesystem::temp_directory_path() / "npusim_regress_tolerances.yaml";
    std::ofstream(f) << "max_lsb: 4\nmin_cosine: 0.95\nmin_top1_agreement: 0.9\n";
    regress::Tolerances t = regress::read_tolerances(f.string(), -1, 0.999, -1);
    EXPECT_EQ(t.max_lsb, 4);
    EXPECT_EQ(t.min_cosine, 0.999);  // the command line wins
    EXPECT_EQ(t.min_top1, 0.9);
    EXPECT_TRUE(t.top1_given);
    t = regress::read_tolerances("", -1, -1, -1);
    EXPECT_EQ(t.max_lsb, 8);
    EXPECT_FALSE(t.top1_given);
    std::ofstream(f) << "max_lsb: -1\n";
    try {
        regress::read_tolerances(f.string(), -1, -1, -1);
        ADD_FAILURE() << "no error";
    } catch (const sim::Error& e) {
        EXPECT_NE(std::string(e.what()).find("max_lsb"), std::string::npos) << e.what();
    }
    std::filesystem::remove(f);
}

}  // namespace
}  // namespace npu::test
