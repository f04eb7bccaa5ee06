// The DL processor's resource fit: the shipped constants and docs/dlp.md against a fresh fit of the
// published figures (platforms/dlp/data/dlhdl_resources.yaml), leave-one-out predictions worked by
// hand, and the figures file's errors.
#include <cmath>
#include <fstream>

#include <gtest/gtest.h>

#include "platforms/dlp/dlp_resource_fit.h"
#include "sim/core/error.h"
#include "sim/core/files.h"

namespace npu::test {
namespace {

using namespace dlp;

const std::string kSource = NPUSIM_SOURCE_DIR;
const std::string kFigures = kSource + "/platforms/dlp/data/dlhdl_resources.yaml";

TEST(DlhdlResources, DocTablesAndShippedConstantsEqualAFreshFit) {
    const ResourceFitReport rep = resource_fit_report(read_resource_figures(kFigures), 9);
    EXPECT_TRUE(rep.shipped_match) << rep.mismatch;
    const std::string doc = sim::read_text_file(kSource + "/docs/dlp.md");
    EXPECT_EQ(sim::replace_between(doc, "<!-- dlp-resources:begin -->",
                                   "<!-- dlp-resources:end -->", rep.markdown),
              doc)
        << "docs/dlp.md's resource tables differ from the fit: scripts/dlp-fit --write\n"
        << rep.markdown;
}

TEST(DlhdlResources, EachConstantFromTheFiguresThatIdentifyIt) {
    const std::vector<ResourceFigure> figs = read_resource_figures(kFigures);
    ASSERT_EQ(figs.size(), 7u);  // five module rows, two DL_Processor rows
    const ResourceModel m = fit_resources(figs, 9);
    EXPECT_DOUBLE_EQ(m.conv_dsp_per_lane, 343.0 / 144);  // 16 threads · 9 lanes
    EXPECT_DOUBLE_EQ(m.fc_dsp_per_lane, 17.0 / 4);
    EXPECT_DOUBLE_EQ(m.conv_bram, 481 - 2 * 151);  // 154,587 words · 32 bits → 151 tiles each
    EXPECT_DOUBLE_EQ(m.fc_bram, 34 - (25 + 4));    // 25,088 and 4,096 words
    EXPECT_DOUBLE_EQ(m.lut_per_dsp, 234175.0 / 377);
    // Arria 10: 231 DSP against the Xilinx model's 4·9·343/144 + 4·17/4 + 8 = 110.75.
    EXPECT_DOUBLE_EQ(m.intel_dsp_factor, 231 / 110.75);
    // Its bits less its memories' ((784 + 100) + (1024 + 1024)) · 32, over 193 tiles' bits.
    EXPECT_DOUBLE_EQ(m.intel_bram_factor, (16442624.0 - 2932 * 32) / (193 * 36864.0));
}

TEST(DlhdlResources, LeftOutRowsArePredictedByTheOthers) {
    std::vector<ResourceFigure> figs = read_resource_figures(kFigures);
    const ResourceFigure conv = figs[0];
    figs.erase(figs.begin());
    // Without conv_module's row its DSPs are R2021b's 377 less fc 17 and adder 8: 352.
    const ResourceValues v = predict(conv, fit_resources(figs, 9), 9);
    EXPECT_DOUBLE_EQ(v.dsp, 352);
    EXPECT_DOUBLE_EQ(v.bram, 508 - 34 - 6 - 2 - 1);
    // Without the Intel row: factor 1, the Xilinx model of that configuration.
    figs = read_resource_figures(kFigures);
    const ResourceFigure arria = figs.back();
    figs.pop_back();
    EXPECT_DOUBLE_EQ(predict(arria, fit_resources(figs, 9), 9).dsp, 110.75);
}

TEST(DlhdlResources, AFiguresFileProblemNamesItsPlace) {
    const std::string path = ::testing::TempDir() + "/figures.yaml";
    std::ofstream(path) << "configurations:\n  - name: x\n    family: altera\n    dlp: {}\n"
                           "    modules: {conv_modul: {dsp: 1}}\n";
    try {
        read_resource_figures(path);
        FAIL() << "accepted";
    } catch (const sim::Error& e) {
        const std::string m = e.what();
        EXPECT_NE(m.find("figures.yaml:3"), std::string::npos) << m;
        EXPECT_NE(m.find("conv_modul"), std::string::npos) << m;
    }
}

}  // namespace
}  // namespace npu::test
