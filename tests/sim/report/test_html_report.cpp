// The HTML report pages: charts have one mark per item and series with sizes in proportion to
// the values, text is escaped, and a report without layers is one clear error. The pages in a
// real browser: tests/sim/report/test_report_browser.cpp.
#include <regex>
#include <string>

#include <gtest/gtest.h>

#include "sim/core/error.h"
#include "sim/core/run_record.h"
#include "sim/report/estimate_page.h"
#include "sim/report/html_report.h"
#include "sim/report/svg.h"

namespace npu::test {
namespace {

size_t count(const std::string& s, const std::string& what) {
    size_t n = 0;
    for (size_t p = s.find(what); p != std::string::npos; p = s.find(what, p + 1)) {
        ++n;
    }
    return n;
}

// The height attribute of the bar of item `i`, series `name`.
double bar_height(const std::string& svg, size_t i, const std::string& name) {
    const std::regex re("data-item=\"" + std::to_string(i) + "\" data-series=\"" + name +
                        "\"[^>]* height=\"([0-9.]+)\"");
    std::smatch m;
    EXPECT_TRUE(std::regex_search(svg, m, re)) << i << " " << name;
    return m.empty() ? -1 : std::stod(m[1]);
}

TEST(Svg, StackedBarsHaveOneMarkPerItemAndSeriesInProportion) {
    const std::string svg = report::stacked_bars(
        {"a", "b", "c"}, {{"x", {1, 2, 4}}, {"y", {3, 0, 1}}}, {"layer", "time (µs)", 600, 300});
    EXPECT_EQ(count(svg, "class=\"bar\""), 6u);
    EXPECT_NE(svg.find(">time (µs)</text>"), std::string::npos);
    EXPECT_NE(svg.find(">layer</text>"), std::string::npos);
    // Heights in proportion: x of c is 4 times x of a, y of a 3 times x of a, y of b 0.
    const double unit = bar_height(svg, 0, "x");
    EXPECT_GT(unit, 0);
    EXPECT_NEAR(bar_height(svg, 2, "x"), 4 * unit, 0.02);
    EXPECT_NEAR(bar_height(svg, 0, "y"), 3 * unit, 0.02);
    EXPECT_EQ(bar_height(svg, 1, "y"), 0);
}

TEST(Svg, TextIsEscapedAndTimelinesHaveOneSpanEach) {
    EXPECT_EQ(report::escape("a<b & \"c\">'"), "a&lt;b &amp; &quot;c&quot;&gt;&#39;");
    const std::string svg = report::timeline(
        {{"kpu", "layer <0>", 0, 10}, {"cpu", "x", 10, 12}, {"kpu", "layer 1", 12, 20}},
        {"simulated time (µs)", "", 600, 0});
    EXPECT_EQ(count(svg, "class=\"span\""), 3u);
    EXPECT_EQ(count(svg, "data-series=\"kpu\""), 2u);
    EXPECT_NE(svg.find("<title>layer &lt;0&gt;</title>"), std::string::npos);
}

// Roofline: peak 1e12 ops/s, 1e10 bytes/s (ridge at 100 ops/byte); the points sit on log axes
// (a point at 10 ops/byte and 1e11 ops/s, on the bandwidth roof, has the roof's y there); a point
// with a zero coordinate is left out.
TEST(Svg, RooflinePlacesPointsOnLogAxesUnderTheRoof) {
    const std::string svg =
        report::roofline({{"a", 10, 1e11}, {"b", 1000, 5e11}, {"c", 0, 1e9}}, 1e12, 1e10,
                         {"operational intensity (ops/byte)", "attained (ops/s)", 600, 300});
    EXPECT_EQ(count(svg, "class=\"point\""), 2u);
    EXPECT_EQ(count(svg, "class=\"roof\""), 1u);
    EXPECT_NE(svg.find(">attained (ops/s)</text>"), std::string::npos);
    const std::regex cy("data-item=\"0\" cx=\"([0-9.]+)\" cy=\"([0-9.]+)\"");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(svg, m, cy));
    // The roof's polyline passes through (10 ops/byte, 1e11 ops/s) too: its first vertex is
    // (xs, y0) on the same line; the point's y equals the roof's at its x.
    const std::regex roof("points=\"([0-9.]+),([0-9.]+) ([0-9.]+),([0-9.]+)");
    std::smatch r;
    ASSERT_TRUE(std::regex_search(svg, r, roof));
    const double x0 = std::stod(r[1]), y0 = std::stod(r[2]), x1 = std::stod(r[3]),
                 y1 = std::stod(r[4]);
    const double px = std::stod(m[1]), py = std::stod(m[2]);
    EXPECT_NEAR(py, y0 + (y1 - y0) * (px - x0) / (x1 - x0), 0.2);
}

// A regress page (a record with checks tied to layers' measures): per measure judged, each
// layer's value as a bar in "within tolerance" or "exceeds", the checks' limit as a line, and the
// first layer a check fails on (kmodel layer 7, the second row) marked on both charts.
TEST(HtmlReport, ARegressPageMarksTheFirstDivergingLayer) {
    sim::RunRecord r;
    r.command = "regress";
    const double lsb[] = {1.0, 4.0, 3.0}, distance[] = {0.001, 0.02, 0.03};
    const size_t index[] = {3, 7, 9};
    for (size_t k = 0; k < 3; ++k) {
        sim::LayerRecord l;
        l.index = index[k], l.op = "conv", l.name = "t" + std::to_string(k);
        l.measures = {{"max_error_lsb", lsb[k], "LSB"}, {"cosine_distance", distance[k], ""}};
        r.layers.push_back(l);
        r.checks.push_back({"lsb", lsb[k], "<=", 2, "LSB", lsb[k] <= 2, k, "max_error_lsb"});
        r.checks.push_back(
            {"cos", distance[k], "<=", 0.01, "", distance[k] <= 0.01, k, "cosine_distance"});
    }
    const std::string html = report::html_report(sim::to_json(r), nullptr, "report.json");
    EXPECT_EQ(count(html, "class=\"bar\""), 2u * 3 * 2);  // 2 charts, 3 layers, 2 series
    EXPECT_EQ(count(html, "class=\"tolerance\""), 2u);
    EXPECT_EQ(count(html, "class=\"marked\" data-item=\"1\""), 2u);
    const std::string chart = html.substr(html.find("id=\"check-max_error_lsb\""));
    EXPECT_NEAR(bar_height(chart, 1, "exceeds"), 4 * bar_height(chart, 0, "within tolerance"),
                0.02);
    EXPECT_EQ(bar_height(chart, 1, "within tolerance"), 0);
    EXPECT_NE(html.find("<h2>Checks: FAILED</h2>"), std::string::npos);
}

// A run record's page: one bar per layer and per engine part (any engines: here an "NPU" with
// two parts and a "DMA" without), in proportion to each engine's time split by its cycles.
TEST(HtmlReport, ARunPageDrawsEveryLayerAndRefusesAReportWithoutLayers) {
    sim::RunRecord r;
    r.command = "run";
    r.program.file = "m.kmodel";
    r.platform = {"test", "npu", "p.yaml", {}};
    for (size_t i = 0; i < 4; ++i) {
        sim::LayerRecord l;
        l.index = i, l.op = "t";
        l.start_ps = i * 1000000, l.end_ps = i * 1000000 + 900000;
        l.engines = {{"NPU", 600000, "npu", 4e8, {{"fetch", 1}, {"compute", 2}}},
                     {"DMA", 300000, "", 0, {}}};
        r.layers.push_back(l);
    }
    const std::string html = report::html_report(sim::to_json(r), nullptr, "report.json");
    EXPECT_NE(html.find("<title>npusim run: m.kmodel on npu</title>"), std::string::npos);
    EXPECT_EQ(count(html, "class=\"bar\""), 4u * 3);  // NPU fetch, NPU compute, DMA
    EXPECT_EQ(count(html, "class=\"span\""), 4u);     // no trace: one span per layer
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_EQ(html.find("<link"), std::string::npos);  // nothing loaded from elsewhere
    EXPECT_EQ(html.find("src="), std::string::npos);
    // NPU 0.6 µs split 1:2: compute 0.4 µs, twice the fetch's 0.2 µs; DMA 0.3 µs, the fetch's
    // one and a half.
    const std::string bars = html.substr(html.find("id=\"layer-time\""));
    EXPECT_NEAR(bar_height(bars, 0, "NPU compute"), 2 * bar_height(bars, 0, "NPU fetch"), 0.02);
    EXPECT_NEAR(bar_height(bars, 0, "DMA"), 1.5 * bar_height(bars, 0, "NPU fetch"), 0.02);
    // Parts that counted no cycles: the engine's time goes to its first part, not nowhere.
    r.layers[3].engines[0].parts = {{"fetch", 0}, {"compute", 0}};
    const std::string zero = report::html_report(sim::to_json(r), nullptr, "report.json");
    const std::string zbars = zero.substr(zero.find("id=\"layer-time\""));
    EXPECT_NEAR(bar_height(zbars, 3, "NPU fetch"), 2 * bar_height(zbars, 3, "DMA"), 0.02);
    EXPECT_EQ(bar_height(zbars, 3, "NPU compute"), 0);
    r.layers.clear();
    try {
        report::html_report(sim::to_json(r), nullptr, "d/report.json");
        ADD_FAILURE();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "d/report.json: no per-layer results to draw (a report.json of npusim run)");
    }
}

// RFC 4648's test vectors.
TEST(HtmlReport, Base64OfTheRfcVectors) {
    auto b64 = [](const std::string& s) {
        return report::base64(std::vector<uint8_t>(s.begin(), s.end()));
    };
    EXPECT_EQ(b64(""), "");
    EXPECT_EQ(b64("f"), "Zg==");
    EXPECT_EQ(b64("fo"), "Zm8=");
    EXPECT_EQ(b64("foo"), "Zm9v");
    EXPECT_EQ(b64("foob"), "Zm9vYg==");
    EXPECT_EQ(b64("fooba"), "Zm9vYmE=");
    EXPECT_EQ(b64("foobar"), "Zm9vYmFy");
    EXPECT_EQ(report::base64({0xff, 0xfe, 0xfd}), "//79");
}

// A sweep of two groups: "a" sweeps w over {1, 2} (k fixed), "b" sweeps k over {3, 1, 5}
// (unsorted in the data). cycles at w = 1 in a: {10, 30, 20} -> min 10, median 20, max 30.
TEST(EstimatePage, WhiskersPerSweptValueWithTheirMedians) {
    using J = nlohmann::ordered_json;
    J rows = J::array();
    for (int c : {10, 30, 20}) {
        rows.push_back({{"name", "a"}, {"w", 1}, {"k", 3}, {"cycles", c}});
    }
    rows.push_back({{"name", "a"}, {"w", 2}, {"k", 3}, {"cycles", 50}});
    for (int k : {3, 1, 5}) {
        rows.push_back({{"name", "b"}, {"w", 1}, {"k", k}, {"cycles", 100 * k}});
    }
    const sim::SweepPlot plot{"name", {"w", "k"}, {{"cycles", "cycles"}}, "", {}, {}};
    const std::string html = report::sweep_html(rows, plot, "e.json");
    EXPECT_EQ(count(html, "class=\"range\""), 2u + 3u);  // a: w (2 values); b: k (3 values)
    EXPECT_NE(html.find("<title>1: 10 to 30 (3 configurations)</title>"), std::string::npos);
    EXPECT_NE(html.find("<title>1: median 20</title>"), std::string::npos);
    // b's k in numeric order 1, 3, 5 (labels under the whiskers).
    const size_t p1 = html.find("<title>1: 100 to 100"), p3 = html.find("<title>3: 300 to 300");
    const size_t p5 = html.find("<title>5: 500 to 500");
    ASSERT_NE(p1, std::string::npos);
    EXPECT_LT(p1, p3);
    EXPECT_LT(p3, p5);
    // The same numbers in the table.
    EXPECT_NE(html.find("<th>cycles median</th>"), std::string::npos);
    // Rows that are not configurations: one clear error naming the file.
    for (const J& bad : {J::array(), J::object(), J::array({1, 2})}) {
        try {
            report::sweep_html(bad, plot, "dir/estimate.json");
            FAIL() << "no error for " << bad.dump();
        } catch (const sim::Error& e) {
            EXPECT_EQ(std::string(e.what()).rfind("dir/estimate.json: ", 0), 0u) << e.what();
        }
    }
}

}  // namespace
}  // namespace npu::test
