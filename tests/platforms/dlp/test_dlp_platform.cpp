// A small network (conv -> pool -> conv -> fc) through the DL processor platform for both data
// types and two frames: the results equal the modules' arithmetic chained directly on CHW
// tensors (no DDR formats, no bus), and every layer's simulated time equals the estimate.
#include <random>
#include <set>

#include "models/dlp/dlp_exec.h"
#include "platforms/dlp/dlp_estimate.h"
#include "platforms/dlp/dlp_platform.h"
#include "sim/core/config.h"
#include "sim/tlm/kernel.h"
#include "tests/platforms/dlp/dlp_platform_config.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

using namespace dlp;

Network network(const DlpConfig& cfg) {
    auto doc = sim::ConfigDocument::parse(R"(network:
  name: small
  input: {channels: 3, height: 16, width: 16}
  input_exp: -6
  frames: 2
  layers:
    - {name: conv1, type: conv, out_channels: 8, kernel: 3, padding: 1, activation: relu,
       pool: max, pool_size: 2, pool_stride: 2, w_exp: -7, out_exp: -3}
    - {name: conv2, type: conv, out_channels: 8, kernel: 3, padding: 1, activation: relu,
       w_exp: -7, out_exp: -2}
    - {name: fc1, type: fc, out_features: 10, w_exp: -7, out_exp: 1}
)",
                                          "small.yaml");
    NetworkFile f = read_network(doc.root().child("network"));
    doc.finish();
    check_network(f.network, cfg);
    fill_parameters(f.network, cfg, 5);
    return f.network;
}

class DlpPlatformTest : public ScTest {
protected:
    void run(const char* config_file, bool streaming = false) {
        const DlpPlatformConfig cfg = platform(config_file);
        const Network n = network(cfg.dlp);
        CompileOptions co;
        co.ddr_base_addr = cfg.ddr_base_addr;
        co.frames = 2;
        const Program p = compile(n, cfg.dlp, co);
        const bool single = cfg.dlp.data_type == DataType::single;
        std::mt19937 rng(9);
        std::vector<std::vector<float>> in_f(2);
        std::vector<std::vector<int8_t>> in_q(2);
        std::vector<std::vector<uint8_t>> images;
        for (size_t f = 0; f < 2; ++f) {
            for (int i = 0; i < 3 * 16 * 16; ++i) {
                in_f[f].push_back(std::uniform_real_distribution<float>(-1, 1)(rng));
                in_q[f].push_back(static_cast<int8_t>(static_cast<int>(rng() % 255) - 127));
            }
            images.push_back(single ? format_activation(in_f[f], n.input, cfg.dlp)
                                    : format_activation(in_q[f], n.input, cfg.dlp));
        }
        DlpPlatform soc("soc", cfg);
        soc.load(p, images, streaming);
        sc_core::sc_start();
        const HostResult& r = soc.result();
        ASSERT_TRUE(r.done) << r.error;
        ASSERT_EQ(r.outputs.size(), 2u);
        const Layer &c1 = n.layers[0], &c2 = n.layers[1], &fc = n.layers[2];
        for (size_t f = 0; f < 2; ++f) {
            if (single) {
                const auto a =
                    conv_single(c1.conv, in_f[f].data(), c1.weights.data(), c1.bias.data());
                const auto b = conv_single(c2.conv, a.data(), c2.weights.data(), c2.bias.data());
                const auto y = fc_single(fc.fc, b.data(), fc.weights.data(), fc.bias.data());
                EXPECT_EQ(read_activation_single(r.outputs[f].data(), {10, 1, 1}, cfg.dlp, true), y)
                    << "frame " << f;
            } else {
                const auto a = conv_int8(c1.conv, c1.quant, in_q[f].data(), c1.weights_q.data(),
                                         c1.bias_q.data());
                const auto b =
                    conv_int8(c2.conv, c2.quant, a.data(), c2.weights_q.data(), c2.bias_q.data());
                const auto y =
                    fc_int8(fc.fc, fc.quant, b.data(), fc.weights_q.data(), fc.bias_q.data());
                EXPECT_EQ(read_activation_int8(r.outputs[f].data(), {10, 1, 1}, cfg.dlp, true), y)
                    << "frame " << f;
                // A meaningful comparison: the ten scores are not all clipped or zero.
                EXPECT_GE(std::set<int8_t>(y.begin(), y.end()).size(), 5u);
            }
        }
        // Time: each layer of each frame as estimated, back to back.
        const NetworkEstimate e = estimate(n, p, cfg.dlp, cfg.timing);
        const std::vector<LayerRun>& runs = soc.dlp.runs();
        ASSERT_EQ(runs.size(), 6u);
        const uint64_t period_ps = 1'000'000'000'000u / cfg.dlp.target_frequency_hz;
        uint64_t sum = 0;
        for (const LayerRun& run : runs) {
            EXPECT_EQ(run.cost.total_cycles, e.layers[run.layer].cost.total_cycles)
                << run.layer << " " << run.kind;
            EXPECT_EQ(run.cost.read_cycles, e.layers[run.layer].cost.read_cycles);
            EXPECT_EQ(run.end_ps - run.start_ps, run.cost.total_cycles * period_ps);
            sum += run.cost.total_cycles;
        }
        EXPECT_EQ(sum, e.total_cycles);
        if (!streaming) {  // batch: back to back; streaming waits for the host between frames
            EXPECT_EQ(runs.back().end_ps - runs.front().start_ps, e.total_cycles * period_ps);
        } else {
            uint32_t done = 0;
            sc_core::sc_time t = sc_core::SC_ZERO_TIME;
            ASSERT_EQ(soc.host.read(cfg.register_base_addr + regs::StreamingDone, &done, 4, t),
                      tlm::TLM_OK_RESPONSE);
            EXPECT_EQ(done, 1u);
            EXPECT_GT(runs[3].start_ps, runs[2].end_ps);  // the host's handshake in between
        }
    }
};

TEST_F(DlpPlatformTest, SingleNetworkEqualsTheModulesAndTheEstimate) {
    run("dlp_zcu102_single.yaml");
}

TEST_F(DlpPlatformTest, Int8NetworkEqualsTheModulesAndTheEstimate) {
    run("dlp_zcu102_int8.yaml");
}

TEST_F(DlpPlatformTest, StreamingModeHandshakesEachFrame) {
    run("dlp_zcu102_single.yaml", true);
}

}  // namespace
}  // namespace npu::test
