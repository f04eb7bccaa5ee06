// The DL processor's whole path under seeded mutations (the normal suite's share of
// fuzz_dlp_run): mutations of network YAML files using every layer kind, activation, pooling and
// fc output, each read, compiled and run on a DDR image for both data types (a run or one
// sim::Error, never a crash: ASan checks memory in CI). The first mutants that run also run on
// the timed SystemC platform, whose result images must equal the DDR-image run's byte for byte.
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "platforms/dlp/dlp_platform.h"
#include "sim/core/config.h"
#include "sim/tlm/kernel.h"
#include "tests/fuzz/fuzz_dlp_run.h"
#include "tests/fuzz/yaml_mutation.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

// Every layer kind and option the network format has; kSingleOnly adds what only the single
// data type runs (batch norm folding, a softmax output), which the int8 platform refuses.
constexpr const char* kEveryFeature = R"(network:
  name: every
  input: {channels: 4, height: 12, width: 10}
  input_exp: -6
  frames: 2
  seed: 3
  layers:
    - {name: c1, type: conv, out_channels: 8, kernel: 3, stride: 1, padding: [1, 1, 0, 2],
       activation: leaky_relu, leaky_slope: 0.125, w_exp: -7, out_exp: -3}
    - {name: d1, type: conv, out_channels: 8, kernel: 3, padding: 1, groups: depthwise,
       activation: clipped_relu, clip_ceiling: 4, pool: average, pool_size: 2, pool_stride: 2,
       pool_padding: 1, w_exp: -7, out_exp: -3}
    - {name: c2, type: conv, out_channels: 8, kernel: 1, inputs: d1, activation: relu,
       pool: max, pool_size: 3, pool_stride: 1, pool_padding: 1, w_exp: -7, out_exp: -3}
    - {name: m1, type: multiply, inputs: [c2, d1], out_exp: -4}
    - {name: a1, type: add, inputs: [m1, c2], activation: relu, out_exp: -3}
    - {name: f1, type: fc, out_features: 12, activation: leaky_relu, w_exp: -7, out_exp: -2}
    - {name: f2, type: fc, out_features: 5, output: plain, w_exp: -7, out_exp: 0}
)";

std::string single_only() {
    std::string s = kEveryFeature;
    s.replace(s.find("output: plain"), 13, "output: softmax");
    s.replace(s.find("w_exp: -7, out_exp: -3}"), 23,
              "w_exp: -7, out_exp: -3,\n"
              "       batch_norm: {gamma: [1, 2, 1, 1, 0.5, 1, 1, 1], beta: [0, 0, 0, 0, 0, 0, 0, "
              "0.5],\n"
              "                    mean: [0, 0, 0, 0, 0, 0, 0, 1], variance: [1, 1, 1, 1, 4, 1, 1, "
              "1]}}");
    return s;
}

std::string mutate(const std::string& s, std::mt19937& rng) {
    static const std::vector<const char*> kValues = {
        "0",  "1",    "2",    "3",     "7",          "8",   "9",   "64", "255",
        "-1", "-128", "4096", "65536", "2147483647", "1e9", "0.0", "-7", "31"};
    return fuzz::mutate_yaml(s, rng, kValues);
}

dlp::DlpPlatformConfig platform(const char* file) {
    auto doc = sim::ConfigDocument::load_file(std::string(NPUSIM_SOURCE_DIR "/configs/") + file);
    dlp::DlpPlatformConfig c = dlp::read_dlp_platform(doc.root().child("platform"));
    doc.finish();
    return c;
}

class DlpMutations : public ScTest {};

TEST_F(DlpMutations, EveryMutantRunsOrFailsCleanlyAndTimedEqualsDdrImageRun) {
    const std::vector<std::string> seeds = {
        fuzz::read_text(NPUSIM_SOURCE_DIR "/configs/networks/dlp_tiny.yaml"), kEveryFeature,
        single_only()};
    ASSERT_FALSE(seeds[0].empty());
    const dlp::DlpPlatformConfig cfgs[] = {platform("dlp_zcu102_single.yaml"),
                                           platform("dlp_zcu102_int8.yaml")};
    // The seeds themselves run on both platforms, but for the int8 refusing the single-only one.
    for (const std::string& s : seeds) {
        const auto* b = reinterpret_cast<const uint8_t*>(s.data());
        EXPECT_TRUE(fuzz::dlp_run(b, s.size(), cfgs[0]));
        EXPECT_EQ(fuzz::dlp_run(b, s.size(), cfgs[1]), s != seeds[2]);
    }
    struct Runnable {
        size_t cfg;
        fuzz::DlpCompiled c;
        std::vector<std::vector<uint8_t>> out;
    };
    std::vector<Runnable> runnable;
    std::mt19937 rng(22);
    size_t ran = 0, total = 0;
    for (int i = 0; i < 450; ++i) {
        const std::string text = mutate(seeds[static_cast<size_t>(i) % 3], rng);
        for (size_t k = 0; k < 2; ++k, ++total) {
            const auto* b = reinterpret_cast<const uint8_t*>(text.data());
            std::vector<std::vector<uint8_t>> out;
            if (!fuzz::dlp_run(b, text.size(), cfgs[k], &out)) {
                continue;
            }
            ++ran;
            if (runnable.size() < 8 && text != seeds[static_cast<size_t>(i) % 3] && i % 7 == 0) {
                Runnable r{k, {}, std::move(out)};
                ASSERT_TRUE(fuzz::dlp_compile(text, cfgs[k], r.c));
                runnable.push_back(std::move(r));
            }
        }
    }
    // The timed runs after every functional one (nothing throws once SystemC switched stacks).
    for (const Runnable& r : runnable) {
        sim::reset_simulation();
        const dlp::DlpPlatformConfig& cfg = cfgs[r.cfg];
        dlp::DlpPlatform soc("dlp", cfg);
        soc.load(r.c.program, fuzz::dlp_zero_inputs(r.c, cfg.dlp));
        sc_core::sc_start();
        ASSERT_TRUE(soc.result().done) << soc.result().error;
        EXPECT_TRUE(soc.result().outputs == r.out);
    }
    std::printf("%zu mutant runs: %zu ran, %zu of them also timed\n", total, ran, runnable.size());
    EXPECT_GT(ran, total / 10);
    EXPECT_GE(runnable.size(), 4u);
}

}  // namespace
}  // namespace npu::test
