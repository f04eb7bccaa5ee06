// The DL processor's resources against dlhdl's published figures
// (../shared/reference/dlhdl_published_figures.md §2, typed in below from that page) and against
// the formulas of docs/dlp.md "Resources" worked by hand.
#include <cmath>

#include <gtest/gtest.h>

#include "models/dlp/dlp_resources.h"

namespace npu::test {
namespace {

using namespace dlp;

TEST(DlpResources, TheDefaultProcessorPerModuleAsDlhdlR2021aPrintsIt) {
    // conv_module 343 / 481, fc_module 17 / 34, adder_module 8 / 6, debug_module 0 / 2,
    // sched_module 0 / 1; DL_Processor 368 / 524 (DSP / BRAM tiles).
    const DlpResources r = resources(DlpConfig{}, FpgaFamily::xilinx, ResourceModel{}, 9);
    const uint64_t dsp[] = {343, 17, 8, 0, 0}, bram[] = {481, 34, 6, 2, 1};
    for (size_t i = 0; i < r.modules.size(); ++i) {
        EXPECT_EQ(r.modules[i].dsp, dsp[i]) << r.modules[i].module;
        EXPECT_EQ(r.modules[i].bram, bram[i]) << r.modules[i].module;
    }
    EXPECT_EQ(r.dsp, 368u);
    EXPECT_EQ(r.bram, 524u);
    // R2021b and later print 377 DSP, 508 BRAM, 234175 LUTs for the same processor: the model
    // (fitted on R2021a's modules) is within 3 % of DSP and BRAM; LUTs follow the DSPs.
    EXPECT_NEAR(static_cast<double>(r.dsp), 377, 377 * 0.03);
    EXPECT_NEAR(static_cast<double>(r.bram), 508, 508 * 0.035);
    EXPECT_NEAR(static_cast<double>(r.lut), 234175, 234175 * 0.03);
}

TEST(DlpResources, FormulasWorkedByHand) {
    DlpConfig c;
    c.conv_thread_number = 64, c.fc_thread_number = 8, c.data_type = DataType::int8;
    c.conv_input_memory_size = {100, 100, 4};  // 40,000 int8 words: 320,000 bits → 10 tiles
    c.conv_output_memory_size = {64, 64, 8};   // 32,768 words: 262,144 bits → 8 tiles
    c.fc_input_memory_size = 4096, c.fc_output_memory_size = 4097;  // 8193 · 8 bits → 3 tiles
    const ResourceModel m;
    const DlpResources r = resources(c, FpgaFamily::xilinx, m, 9);
    EXPECT_EQ(r.modules[0].dsp, 576u);  // int8: one DSP per lane, 64 threads · 9 taps
    EXPECT_EQ(r.modules[1].dsp, 8u);
    EXPECT_EQ(r.modules[0].bram, 10u + 8u + 179u);
    EXPECT_EQ(r.modules[1].bram, 3u + 5u);
    EXPECT_EQ(r.modules[0].lut, static_cast<uint64_t>(std::llround(576 * m.lut_per_dsp)));
    // Intel counts bits: the memories' bits plus the fixed part in Xilinx bits times the factor.
    const DlpResources i = resources(c, FpgaFamily::intel, m, 9);
    EXPECT_EQ(i.modules[0].bram, static_cast<uint64_t>(std::llround(
                                     320000.0 + 262144.0 + 179.0 * 36864.0 * m.intel_bram_factor)));
    EXPECT_EQ(i.modules[0].dsp, static_cast<uint64_t>(std::llround(576 * m.intel_dsp_factor)));
}

TEST(DlpResources, MoreThreadsAndMemoryCostMoreAsDlhdlsParameterPageSays) {
    // "ConvThreadNumber up: more resources; FCThreadNumber up: more resources" (§3).
    DlpConfig a, b;
    b.conv_thread_number = 64;
    EXPECT_GT(resources(b, FpgaFamily::xilinx, {}, 9).dsp,
              resources(a, FpgaFamily::xilinx, {}, 9).dsp);
    b = a, b.fc_thread_number = 16;
    EXPECT_GT(resources(b, FpgaFamily::xilinx, {}, 9).dsp,
              resources(a, FpgaFamily::xilinx, {}, 9).dsp);
    b = a, b.conv_input_memory_size = {454, 454, 3};
    EXPECT_GT(resources(b, FpgaFamily::xilinx, {}, 9).bram,
              resources(a, FpgaFamily::xilinx, {}, 9).bram);
}

TEST(DlpResources, TheTableShowsUseAgainstTheDevice) {
    const DlpResources r = resources(DlpConfig{}, FpgaFamily::xilinx, ResourceModel{}, 9);
    const std::string t = resource_table(r, {"xczu9eg", FpgaFamily::xilinx, 2520, 912, 274080});
    EXPECT_NE(t.find("368( 15%)"), std::string::npos) << t;  // 368 / 2520 = 14.6 %
    EXPECT_NE(t.find("524( 57%)"), std::string::npos) << t;
    EXPECT_NE(t.find("conv_module"), std::string::npos);
}

}  // namespace
}  // namespace npu::test
