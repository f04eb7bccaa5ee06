// The DL processor's configuration sweep: a point costs what `estimate` costs for that
// configuration, the front and the budget against a brute-force check, the shipped sweep file,
// and the sweep file's errors.
#include <fstream>
#include <random>

#include <gtest/gtest.h>

#include "platforms/dlp/dlp_estimate.h"
#include "platforms/dlp/dlp_sweep.h"
#include "sim/core/error.h"
#include "sim/core/pareto.h"
#include "tests/fuzz/fuzz_dlp_sweep.h"
#include "tests/platforms/dlp/dlp_platform_config.h"

namespace npu::test {
namespace {

using namespace dlp;

const std::string kSource = NPUSIM_SOURCE_DIR;

std::string write(const std::string& name, const std::string& text) {
    const std::string path = ::testing::TempDir() + "/" + name;
    std::ofstream(path) << text;
    return path;
}

NetworkFile compact_cnn(const DlpPlatformConfig& cfg) {
    return load_network(kSource + "/configs/networks/dlhdl_compact_cnn.yaml", cfg);
}

std::string error_of(const std::string& text, const DlpConfig& base) {
    try {
        read_dlp_sweep(write("bad_sweep.yaml", text), base, sim::kMaxSweepConfigurations);
    } catch (const sim::Error& e) {
        return e.what();
    }
    return "";
}

TEST(DlpSweep, APointCostsWhatEstimateCostsForItsConfiguration) {
    const DlpPlatformConfig cfg = platform("dlp_zcu102_single.yaml");
    const NetworkFile f = compact_cnn(cfg);
    const std::string path = write("sweep.yaml",
                                   "sweep:\n  conv_thread_number: [4, 16]\n"
                                   "  processor_data_type: [single, int8]\n");
    const DlpSweep s = read_dlp_sweep(path, cfg.dlp, 100);
    ASSERT_EQ(s.configurations, 4u);
    const std::vector<DlpSweepPoint> points = sweep(f.network, cfg, s, path);
    ASSERT_EQ(points.size(), 4u);
    // Point 2 is 16 threads, single: the platform itself (the full compile, weights and all).
    EXPECT_EQ(points[2].value, (std::vector<size_t>{1, 0}));
    const NetworkEstimate e = estimate(f.network, compile(f.network, cfg.dlp), cfg.dlp, cfg.timing);
    EXPECT_EQ(points[2].frame_cycles, e.frame_cycles);
    EXPECT_DOUBLE_EQ(points[2].frames_per_second, e.frames_per_second());
    EXPECT_EQ(points[2].resources.dsp, 368u);
    // 4 threads is slower and cheaper; int8 moves a quarter of the bytes.
    EXPECT_GT(points[0].frame_cycles, points[2].frame_cycles);
    EXPECT_LT(points[0].resources.dsp, points[2].resources.dsp);
    EXPECT_LT(points[3].frame_cycles, points[2].frame_cycles);
}

TEST(DlpSweep, TheShippedSweepHasItsFrontAndBudgetAsABruteForceCheckFindsThem) {
    const DlpPlatformConfig cfg = platform("dlp_zcu102_single.yaml");
    const NetworkFile f = compact_cnn(cfg);
    const std::string path = kSource + "/configs/dlp_sweep.yaml";
    const DlpSweep s = read_dlp_sweep(path, cfg.dlp, sim::kMaxSweepConfigurations);
    const std::vector<DlpSweepPoint> p = sweep(f.network, cfg, s, path);
    ASSERT_EQ(p.size(), 1008u);
    size_t front = 0, valid = 0;
    for (size_t i = 0; i < p.size(); ++i) {
        valid += p[i].error.empty();
        front += p[i].pareto;
        bool dominated = false;
        for (size_t j = 0; j < p.size() && p[i].error.empty(); ++j) {
            const bool no_worse = p[j].error.empty() && p[j].latency_ms() <= p[i].latency_ms() &&
                                  p[j].resources.dsp <= p[i].resources.dsp &&
                                  p[j].resources.bram <= p[i].resources.bram;
            const bool same = p[j].latency_ms() == p[i].latency_ms() &&
                              p[j].resources.dsp == p[i].resources.dsp &&
                              p[j].resources.bram == p[i].resources.bram;
            dominated = dominated || (no_worse && (!same || j < i));
        }
        EXPECT_EQ(p[i].pareto, p[i].error.empty() && !dominated) << i;
        const bool meets = p[i].error.empty() && p[i].frames_per_second >= 2000 &&
                           p[i].resources.dsp <= 240 && p[i].resources.bram <= 400;
        EXPECT_EQ(p[i].meets, meets) << i;
    }
    EXPECT_GT(valid, 500u);
    EXPECT_GT(front, 2u);
}

TEST(DlpSweep, FileProblemsNameTheirPlace) {
    const DlpConfig base;
    std::string m = error_of("sweep:\n  conv_thread_numbr: [4]\n", base);
    EXPECT_NE(m.find("conv_thread_numbr"), std::string::npos) << m;
    m = error_of("sweep:\n  conv_thread_number: [4, 5]\n", base);
    EXPECT_NE(m.find("bad_sweep.yaml:2"), std::string::npos) << m;
    EXPECT_NE(m.find("conv_thread_number is 5"), std::string::npos) << m;
    m = error_of("sweep:\n  processor_data_type: [single, double]\n", base);
    EXPECT_NE(m.find("bad_sweep.yaml:2"), std::string::npos) << m;
    EXPECT_NE(m.find("double"), std::string::npos) << m;
    m = error_of("sweep:\n  target_frequency: [\"200MHz: {x: 1}\"]\n", base);
    EXPECT_NE(m.find("target_frequency"), std::string::npos) << m;
    m = error_of("sweep:\n  fc_thread_number: 4\n", base);
    EXPECT_NE(m.find("expected a list of values"), std::string::npos) << m;
    // A null key with an anchored value (found by fuzz_dlp_sweep): listed as a key, not found
    // again.
    m = error_of(std::string("sweep:\n  #onv_sweep\n:  &\0\0\0_thr/a\xff\x04_n\x8c", 38), base);
    EXPECT_FALSE(m.empty());
    m = error_of("sweep:\n ? conv_t: [single,null8]\n size: [[11ry_s, 3]]\n", base);
    EXPECT_NE(m.find("found a map as a key"), std::string::npos) << m;
    m = error_of("sweep: {}\n", base);
    EXPECT_NE(m.find("names no processor parameter"), std::string::npos) << m;
    std::string many = "sweep:\n";
    for (const char* k : {"conv_thread_number", "fc_thread_number", "fc_input_memory_size",
                          "fc_output_memory_size", "target_frequency"}) {
        many += std::string("  ") + k + ": [";
        for (int i = 0; i < 20; ++i) {
            many += (i ? ", " : "") + std::to_string(k[0] == 't' ? 100 + i : 4);
        }
        many += "]\n";
    }
    m = error_of(many, base);  // 20^5 = 3.2 M
    EXPECT_NE(m.find("more than 1000000 configurations"), std::string::npos) << m;
}

TEST(DlpSweep, ALayoutAloneIsTheFullCompilesLayout) {
    for (const char* file : {"dlp_zcu102_single.yaml", "dlp_zcu102_int8.yaml"}) {
        const DlpPlatformConfig cfg = platform(file);
        const NetworkFile f = compact_cnn(cfg);
        CompileOptions only;
        only.layout_only = true;
        const Program a = compile(f.network, cfg.dlp), b = compile(f.network, cfg.dlp, only);
        EXPECT_EQ(a.table(), b.table()) << file;
        ASSERT_EQ(a.records.size(), b.records.size());
        for (size_t i = 0; i < a.records.size(); ++i) {
            EXPECT_EQ(a.records[i].place.weight_addr, b.records[i].place.weight_addr);
            EXPECT_EQ(a.records[i].place.input2_addr, b.records[i].place.input2_addr);
        }
        EXPECT_TRUE(b.conv_weights.empty());
        EXPECT_TRUE(b.instructions.empty());
    }
}

// The libFuzzer target's entry point (tests/fuzz/fuzz_dlp_sweep.h) on seeded mutations of a small
// sweep file: every one a result or one sim::Error.
TEST(DlpSweep, MutatedSweepFilesReadOrFailCleanly) {
    const DlpPlatformConfig cfg = platform("dlp_zcu102_single.yaml");
    const NetworkFile f = compact_cnn(cfg);
    const std::string seed =
        "sweep:\n  conv_thread_number: [4, 16]\n  processor_data_type: [single, int8]\n"
        "  conv_input_memory_size: [[114, 114, 3]]\nbudget: {frames_per_second: 100, dsp: 300}\n";
    std::mt19937 rng(5);
    int costed = 0, refused = 0;
    for (int t = 0; t < 300; ++t) {
        std::string b = seed;
        for (int e = 0; e < 1 + t % 3; ++e) {
            const char* printable = "0123456789[]{},: -\"\n#&*!|>abcxyz";
            b[rng() % b.size()] = t % 2 ? static_cast<char>(rng()) : printable[rng() % 32];
        }
        const int r = fuzz::dlp_sweep_run(reinterpret_cast<const uint8_t*>(b.data()), b.size(), cfg,
                                          f.network);
        costed += r == 2 ? 1 : 0;
        refused += r == 0 ? 1 : 0;
    }
    EXPECT_GT(costed, 0);
    EXPECT_GT(refused, 0);
}

}  // namespace
}  // namespace npu::test
