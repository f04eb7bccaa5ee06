// The DL processor's time against what MathWorks' own tool printed: the compact CNN of
// ../shared/reference/dlhdl_published_figures.md §1 (its estimator table typed in below from that
// page, not from our data file) on zcu102_single, row for row and in total; the fit that sets the
// constants (scripts/dlp-fit) against docs/dlp.md and the shipped constants; the fit's pieces.
#include <cmath>

#include <gtest/gtest.h>

#include "platforms/dlp/dlp_estimate.h"
#include "platforms/dlp/dlp_fit.h"
#include "platforms/dlp/dlp_job.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "tests/platforms/dlp/dlp_platform_config.h"

namespace npu::test {
namespace {

using namespace dlp;

const std::string kSource = NPUSIM_SOURCE_DIR;

TEST(DlhdlFigures, CompactCnnOnZcu102SingleAsDlhdlsEstimatorPrintsIt) {
    // dlhdl's estimatePerformance (R2024a, default ProcessorConfig, FrameCount 1): every row.
    const std::pair<const char*, double> dlhdl[] = {{"imageinput_norm_add", 5520},
                                                    {"imageinput_norm", 3353},
                                                    {"conv_1", 13697},
                                                    {"maxpool_1", 13526},
                                                    {"conv_2", 17261},
                                                    {"maxpool_2", 10346},
                                                    {"conv_3", 18157},
                                                    {"gap", 8466},
                                                    {"fc", 303}};
    const DlpPlatformConfig cfg = platform("dlp_zcu102_single.yaml");
    const NetworkFile f = load_network(kSource + "/configs/networks/dlhdl_compact_cnn.yaml", cfg);
    const Program p = compile(f.network, cfg.dlp);
    const NetworkEstimate e = estimate(f.network, p, cfg.dlp, cfg.timing);
    ASSERT_EQ(e.layers.size(), std::size(dlhdl));  // the same rows: norm layers and pools too
    for (size_t i = 0; i < e.layers.size(); ++i) {
        EXPECT_EQ(e.layers[i].name, dlhdl[i].first);
        const double got = static_cast<double>(e.layers[i].cost.total_cycles);
        EXPECT_LE(std::fabs(got - dlhdl[i].second) / dlhdl[i].second, 0.20) << dlhdl[i].first;
    }
    // Network 90629 cycles, 2206.7991 frames/s at 200 MHz: within 10 %.
    EXPECT_LE(std::fabs(static_cast<double>(e.frame_cycles) - 90629) / 90629, 0.10);
    EXPECT_NEAR(e.frames_per_second(), 2206.7991, 2206.7991 * 0.10);
}

TEST(DlhdlFigures, DocTablesAndShippedConstantsEqualAFreshFit) {
    const DlpPlatformConfig cfg = platform("dlp_zcu102_single.yaml");
    const NetworkFile f = load_network(kSource + "/configs/networks/dlhdl_compact_cnn.yaml", cfg);
    const std::string csv = kSource + "/platforms/dlp/data/dlhdl_compact_cnn_zcu102_single.csv";
    const DlpFitReport rep = dlp_fit_report(f.network, cfg.dlp, cfg.timing,
                                            read_measured_layers(sim::read_text_file(csv), csv));
    EXPECT_TRUE(rep.shipped_match) << rep.mismatch;
    const std::string doc = sim::read_text_file(kSource + "/docs/dlp.md");
    EXPECT_EQ(
        sim::replace_between(doc, "<!-- dlp-fit:begin -->", "<!-- dlp-fit:end -->", rep.markdown),
        doc)
        << "docs/dlp.md's fit tables are stale: scripts/dlp-fit --write\n"
        << rep.markdown;
    // The int8 bitstream shares the DDR and the modules' set-ups.
    const DlpPlatformConfig i8 = platform("dlp_zcu102_int8.yaml");
    EXPECT_EQ(i8.timing.conv_setup_cycles, cfg.timing.conv_setup_cycles);
    EXPECT_EQ(i8.timing.start_cycles, cfg.timing.start_cycles);
    EXPECT_EQ(i8.dlp.ddr_burst_latency_cycles, cfg.dlp.ddr_burst_latency_cycles);
    EXPECT_EQ(i8.dlp.axi_bits(), cfg.dlp.axi_bits());
}

TEST(DlhdlFigures, TheShippingBitstreamsShareTheFitAndTheirClocksGiveTheirSeconds) {
    // The same cycles on every bitstream (their thread numbers are the defaults, the fit
    // assumed theirs); the Arria 10 SoC's 150 MHz makes them 200/150 times as long.
    const DlpPlatformConfig z = platform("dlp_zcu102_single.yaml");
    const NetworkFile f = load_network(kSource + "/configs/networks/dlhdl_compact_cnn.yaml", z);
    const NetworkEstimate ez = estimate(f.network, compile(f.network, z.dlp), z.dlp, z.timing);
    for (const char* name : {"dlp_zc706_single.yaml", "dlp_arria10soc_single.yaml"}) {
        const DlpPlatformConfig c = platform(name);
        const NetworkEstimate e = estimate(f.network, compile(f.network, c.dlp), c.dlp, c.timing);
        EXPECT_EQ(e.frame_cycles, ez.frame_cycles) << name;
    }
    const DlpPlatformConfig a = platform("dlp_arria10soc_int8.yaml");
    EXPECT_EQ(a.dlp.target_frequency_hz, 150'000'000u);
    EXPECT_EQ(a.dlp.data_type, DataType::int8);
    EXPECT_EQ(platform("dlp_zc706_int8.yaml").dlp.target_frequency_hz, 200'000'000u);
}

TEST(DlhdlFigures, TheFitRecoversConstantsItWasGiven) {
    // Rows made by the cost function from known constants come back exactly (no noise), and each
    // left-out row is predicted exactly too when every constant keeps support.
    const DlpPlatformConfig cfg = platform("dlp_zcu102_single.yaml");
    const NetworkFile f = load_network(kSource + "/configs/networks/dlhdl_compact_cnn.yaml", cfg);
    const Program p = compile(f.network, cfg.dlp);
    DlpTiming known = cfg.timing;
    known.conv_setup_cycles = 5000, known.adder_setup_cycles = 700, known.fc_setup_cycles = 90;
    known.start_cycles = 1234;
    DlpConfig d = cfg.dlp;
    d.ddr_burst_latency_cycles = 40;
    std::vector<MeasuredLayer> rows;
    for (size_t i = 0; i < f.network.layers.size(); ++i) {
        rows.push_back(
            {f.network.layers[i].name,
             layer_cost(f.network.layers[i], p.records[i].place, d, known, i == 0).total_cycles});
    }
    const DlpFit fit = fit_dlp_timing(f.network, p, d, cfg.timing, rows, d.axi_bits());
    EXPECT_EQ(fit.timing.conv_setup_cycles, 5000u);
    EXPECT_EQ(fit.timing.adder_setup_cycles, 700u);
    EXPECT_EQ(fit.timing.fc_setup_cycles, 90u);
    EXPECT_EQ(fit.timing.start_cycles, 1234u);
    EXPECT_EQ(fit.burst_latency_cycles, 40u);
    for (size_t r = 3; r < rows.size(); ++r) {  // conv-module rows keep their support
        if (rows[r].name != "fc") {
            EXPECT_EQ(fit.left_out[r], rows[r].cycles) << rows[r].name;
        }
    }
}

TEST(DlhdlFigures, MeasuredRowsAreCheckedLineByLine) {
    EXPECT_EQ(read_measured_layers("# a comment\nlayer,cycles\nconv_1,13697\nfc,303\n", "m.csv")
                  .at(1)
                  .cycles,
              303u);
    try {
        read_measured_layers("layer,cycles\nconv_1,13697\nfc,-3\n", "m.csv");
        FAIL() << "no error";
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(), "m.csv:3: expected layer,cycles (a positive number): fc,-3");
    }
}

}  // namespace
}  // namespace npu::test
