// AIPP jobs under seeded mutations (the normal suite's share of fuzz_aipp_run): mutations of job
// YAML files covering every input format, output type, padding mode, swap, single-line copy and a
// raw source, each read, checked and run by the load-image function (a tile or one sim::Error,
// never a crash: ASan checks memory in CI). The first mutants that run also run on the timed
// platform (scalar unit, bus, AIPP module, GM and L1), whose tile must equal the function's.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "platforms/ascend/ascend_config.h"
#include "platforms/ascend/ascend_platform.h"
#include "sim/tlm/kernel.h"
#include "tests/fuzz/fuzz_aipp_run.h"
#include "tests/fuzz/yaml_mutation.h"
#include "tests/platforms/ascend/ascend_harness.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

// XRGB to half with swaps, min/var and mirror padding (mode 2).
constexpr const char* kXrgbHalf = R"(aipp:
  format: XRGB8888_U8
  output: half
  params:
    paddingParams: {paddingMode: 2}
    swapParams: {isSwapRB: true, isSwapUV: false, isSwapAX: true}
    dtcParams: {dtcMeanCh0: 120, dtcMeanCh1: 110, dtcMeanCh2: 100, dtcMinCh0: 0.5,
                dtcMinCh1: 0, dtcMinCh2: -1, dtcVarCh0: 0.0078125, dtcVarCh1: 0.01,
                dtcVarCh2: 2}
    cPaddingParams: {cPaddingMode: 0, cPaddingValue: 0}
  load: {horizSize: 96, vertSize: 40, horizStartPos: 16, vertStartPos: 100,
         topPadSize: 2, botPadSize: 3, leftPadSize: 4, rightPadSize: 1}
)";

// RGB888 to uint8 through a CSC with constant padding (mode 1 with a value).
constexpr const char* kRgbCsc = R"(aipp:
  format: RGB888_U8
  output: uint8
  params:
    paddingParams: {paddingMode: 1, paddingValueCh0: 9, paddingValueCh1: 8, paddingValueCh2: 7}
    cscParams: {isEnableCsc: true, cscMatrixR0C0: 77, cscMatrixR0C1: 150, cscMatrixR0C2: 29,
                cscMatrixR1C0: -43, cscMatrixR1C1: -85, cscMatrixR1C2: 128,
                cscMatrixR2C0: 128, cscMatrixR2C1: -107, cscMatrixR2C2: -21,
                cscBiasOut0: 0, cscBiasOut1: 128, cscBiasOut2: 128}
    cPaddingParams: {cPaddingMode: 1, cPaddingValue: 255}
  load: {horizSize: 33, vertSize: 17, horizStartPos: 4, vertStartPos: 5,
         topPadSize: 1, botPadSize: 1, leftPadSize: 0, rightPadSize: 5}
  fidelity: {csc_rounding: shift, saturate: true}
)";

// YUV400 raw source of a declared size, single-line copy, int8.
constexpr const char* kYuv400Raw = R"(aipp:
  format: YUV400_U8
  output: int8
  params:
    singleLineParams: {isSingleLineCopy: true}
    dtcParams: {dtcMeanCh0: 7}
  load: {horizSize: 50, vertSize: 2, horizStartPos: 6, vertStartPos: 11}
  source: {width: 64, height: 48}
)";

std::string mutate(const std::string& s, std::mt19937& rng) {
    static const std::vector<const char*> kValues = {
        "0",   "1",   "2",   "3",  "4",    "8",    "16",    "31",  "32",  "33",   "64",  "127",
        "128", "255", "256", "-1", "-128", "4095", "65535", "1e9", "0.5", "-0.0", "224", "320"};
    return fuzz::mutate_yaml(s, rng, kValues);
}

class AippMutations : public ScTest {};

TEST_F(AippMutations, EveryMutantRunsOrFailsCleanlyAndTimedEqualsTheFunction) {
    const std::vector<std::string> seeds = {fuzz::read_text(NPUSIM_SOURCE_DIR "/configs/aipp.yaml"),
                                            kXrgbHalf, kRgbCsc, kYuv400Raw};
    ASSERT_FALSE(seeds[0].empty());
    for (const std::string& s : seeds) {
        EXPECT_TRUE(fuzz::aipp_run(reinterpret_cast<const uint8_t*>(s.data()), s.size())) << s;
    }
    std::vector<std::pair<fuzz::AippPrepared, std::vector<uint8_t>>> runnable;
    std::mt19937 rng(22);
    size_t ran = 0;
    const size_t total = 800;
    for (size_t i = 0; i < total; ++i) {
        const std::string text = mutate(seeds[i % seeds.size()], rng);
        std::vector<uint8_t> tile;
        if (!fuzz::aipp_run(reinterpret_cast<const uint8_t*>(text.data()), text.size(), &tile)) {
            continue;
        }
        ++ran;
        if (runnable.size() < 8 && i % 9 == 0 && text != seeds[i % seeds.size()]) {
            fuzz::AippPrepared p;
            ASSERT_TRUE(fuzz::aipp_prepare(text, p));
            runnable.emplace_back(std::move(p), std::move(tile));
        }
    }
    // The timed runs after every functional one (nothing throws once SystemC switched stacks).
    const ascend::AscendConfig cfg = shipped_ascend_config();
    for (const auto& [p, tile] : runnable) {
        sim::reset_simulation();
        const ascend::AippProgram program{p.job.params, p.job.load, p.src.src0, p.src.src1};
        ascend::AscendPlatform soc("soc", cfg,
                                   ascend::engine_config(cfg, p.job.timing, p.job.fidelity));
        soc.load(program);
        sc_core::sc_start();
        ASSERT_TRUE(soc.result().done) << soc.result().error;
        EXPECT_TRUE(soc.result().tile == tile);
    }
    std::printf("%zu mutants: %zu ran, %zu of them also timed\n", total, ran, runnable.size());
    EXPECT_GT(ran, total / 10);
    EXPECT_GE(runnable.size(), 4u);
}

}  // namespace
}  // namespace npu::test
