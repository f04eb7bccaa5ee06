// dlhdl's layers of their own through the DL processor platform: the input normalization (two
// adder layers with constant operands the compiler writes into DDR), max pooling and global
// average pooling on the conv module, for both data types: the results equal the modules'
// functions chained directly on CHW tensors (dlp_chain: no DDR formats, no bus), every layer's
// time equals the estimate; and the network file's normalization and pool keys as check_network
// sees them.
#include <random>

#include "models/dlp/dlp_chain.h"
#include "models/dlp/dlp_exec.h"
#include "platforms/dlp/dlp_estimate.h"
#include "platforms/dlp/dlp_platform.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "tests/platforms/dlp/dlp_platform_config.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

using namespace dlp;

const char* kNet = R"(network:
  name: normpool
  input: {channels: 3, height: 12, width: 12, normalization: {mean: [0.5, 0.25, -0.5], std: 2}}
  input_exp: -6
  seed: 3
  layers:
    - {name: conv_1, type: conv, out_channels: 8, kernel: 3, padding: 1, activation: relu,
       w_exp: -7, out_exp: -4}
    - {name: maxpool_1, type: pool, pool: max, pool_size: 2}
    - {name: avgpool, type: pool, pool: average, pool_size: 3, pool_stride: 1, pool_padding: 1}
    - {name: gap, type: global_average_pool}
    - {name: fc, type: fc, out_features: 4, w_exp: -7, out_exp: -3}
)";

Network network(const DlpConfig& cfg, const char* yaml = kNet) {
    auto doc = sim::ConfigDocument::parse(yaml, "net.yaml");
    NetworkFile f = read_network(doc.root().child("network"));
    doc.finish();
    check_network(f.network, cfg);
    fill_parameters(f.network, cfg, f.seed);
    return f.network;
}

class DlhdlLayersTest : public ScTest {
protected:
    // `memory`: the conv module's input and output memories (0: the file's).
    void run(const char* config_file, uint64_t memory = 0) {
        DlpPlatformConfig cfg = platform(config_file);
        if (memory != 0) {
            cfg.dlp.conv_input_memory_size = cfg.dlp.conv_output_memory_size = {memory, memory, 1};
        }
        const Network n = network(cfg.dlp);
        CompileOptions co;
        co.ddr_base_addr = cfg.ddr_base_addr;
        const Program p = compile(n, cfg.dlp, co);
        const bool single = cfg.dlp.data_type == DataType::single;
        std::mt19937 rng(4);
        std::vector<float> in_f;
        std::vector<int8_t> in_q;
        for (int i = 0; i < 3 * 12 * 12; ++i) {
            in_f.push_back(std::uniform_real_distribution<float>(0, 1)(rng));
            in_q.push_back(static_cast<int8_t>(rng() % 128));
        }
        DlpPlatform soc("soc", cfg);
        soc.load(p,
                 {single ? format_activation(in_f, n.input, cfg.dlp)
                         : format_activation(in_q, n.input, cfg.dlp)},
                 false);
        sc_core::sc_start();
        const HostResult& r = soc.result();
        ASSERT_TRUE(r.done) << r.error;
        if (single) {
            EXPECT_EQ(read_activation_single(r.outputs[0].data(), {4, 1, 1}, cfg.dlp, true),
                      run_chain_single(n, in_f).back());
        } else {
            EXPECT_EQ(read_activation_int8(r.outputs[0].data(), {4, 1, 1}, cfg.dlp, true),
                      run_chain_int8(n, in_q).back());
        }
        const NetworkEstimate e = estimate(n, p, cfg.dlp, cfg.timing);
        ASSERT_EQ(soc.dlp.runs().size(), n.layers.size());
        for (const LayerRun& run : soc.dlp.runs()) {
            EXPECT_EQ(run.cost.total_cycles, e.layers[run.layer].cost.total_cycles) << run.layer;
            EXPECT_EQ(run.cost.read_cycles, e.layers[run.layer].cost.read_cycles) << run.layer;
        }
        if (memory != 0) {  // 289 values: worked below
            // conv_1: an output column is 12 x 8 = 96 values: 3 fit; they need 5 input columns
            // of 12 x 3 = 180 values: 12 / 3 = 4 tiles. maxpool_1: output columns of 6 x 8 = 48;
            // 2 of them need 4 input columns of 12 x 8 = 384 > 289, 1 needs 192: 6 tiles.
            // avgpool and gap: their 8x6x6 = 288 values fit whole.
            EXPECT_EQ(e.layers[2].cost.tiles, 4u);
            EXPECT_EQ(e.layers[3].cost.tiles, 6u);
            EXPECT_EQ(e.layers[4].cost.tiles, 1u);
            EXPECT_EQ(e.layers[5].cost.tiles, 1u);
        }
    }
};

// Layers larger than the conv module's memories (17x17x1 here) run in tiles: the same values,
// the time of the tiles' transfers, as estimated.
TEST_F(DlhdlLayersTest, TilesGiveTheSameValuesAndTheirTimeEqualsTheEstimate) {
    run("dlp_zcu102_single.yaml", 17);
}

TEST_F(DlhdlLayersTest, Int8TilesGiveTheSameValuesAndTheirTimeEqualsTheEstimate) {
    run("dlp_zcu102_int8.yaml", 17);
}

TEST_F(DlhdlLayersTest, SingleNetworkEqualsTheModulesAndTheEstimate) {
    run("dlp_zcu102_single.yaml");
}

TEST_F(DlhdlLayersTest, Int8NetworkEqualsTheModulesAndTheEstimate) {
    run("dlp_zcu102_int8.yaml");
}

TEST(DlhdlLayers, NormalizationBecomesTwoAdderLayersInFront) {
    const Network n = network(platform("dlp_zcu102_single.yaml").dlp);
    ASSERT_EQ(n.layers.size(), 7u);
    EXPECT_EQ(n.layers[0].name, "imageinput_norm_add");
    EXPECT_EQ(n.layers[0].kind, LayerKind::add);
    EXPECT_EQ(n.layers[0].input, -1);
    EXPECT_EQ(n.layers[0].input2, kConstantOperand);
    EXPECT_EQ(n.layers[0].constant, (std::vector<float>{-0.5f, -0.25f, 0.5f}));
    EXPECT_EQ(n.layers[1].name, "imageinput_norm");
    EXPECT_EQ(n.layers[1].input, 0);
    EXPECT_EQ(n.layers[1].constant, (std::vector<float>{0.5f, 0.5f, 0.5f}));  // 1 / std, each
    EXPECT_EQ(n.layers[2].input, 1);  // conv_1 reads the normalized image
    // Pools: 12x12 -> 6x6 (2x2, stride the size) -> 6x6 (3x3, stride 1, padding 1) -> 1x1.
    EXPECT_EQ(n.layers[3].out.h, 6);
    EXPECT_EQ(n.layers[4].out.h, 6);
    EXPECT_EQ(n.layers[5].out.h, 1);
    EXPECT_EQ(n.layers[5].conv.pool_h, 6);
    EXPECT_EQ(n.layers[5].out.z, 8);
}

TEST(DlhdlLayers, Int8ConstantsTakeTheExponentOfTheirLargestMagnitude) {
    const Network n = network(platform("dlp_zcu102_int8.yaml").dlp);
    // −mean: largest 0.5 -> 2^-8 (0.5 / 2^-8 = 128 > 127 -> 2^-7: 64); 1/std 0.5 -> 2^-7: 64.
    EXPECT_EQ(n.layers[0].quant.in2_exp, -7);
    EXPECT_EQ(n.layers[0].constant_q, (std::vector<int8_t>{-64, -32, 64}));
    EXPECT_EQ(n.layers[1].constant_q, (std::vector<int8_t>{64, 64, 64}));
}

TEST(DlhdlLayers, BadPoolsAndConstantsAreOneMessage) {
    const DlpConfig cfg = platform("dlp_zcu102_single.yaml").dlp;
    auto error_of = [&](const std::string& layers) {
        const std::string yaml =
            "network:\n  name: bad\n  input: {channels: 2, height: 4, width: 4}\n  layers:\n" +
            layers;
        try {
            network(cfg, yaml.c_str());
        } catch (const sim::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error_of("    - {name: p, type: pool, pool_size: 5}\n"),
              "bad: layer 0 (p): pool layer: the 5x5 window does not fit the 4x4 input");
    // A kernel larger than its input (the size formula's division truncated toward zero and
    // once let one partial window through).
    EXPECT_EQ(error_of("    - {name: c, type: conv, out_channels: 2, kernel: 5, stride: 7}\n"),
              "bad: layer 0 (c): conv layer: the 5x5 kernel does not fit the padded 4x4 input");
    EXPECT_EQ(error_of("    - {name: a, type: add, constant: [1, 2, 3]}\n"),
              "bad: layer 0 (a): the constant operand has 3 values, expected 2 (one per channel)");
    EXPECT_EQ(error_of("    - {name: c, type: conv, out_channels: 2}\n"
                       "    - {name: f, type: fc, out_features: 2}\n"
                       "    - {name: p, type: global_average_pool}\n"),
              "bad: layer 2 (p): a pool layer cannot read an fc output");
}

}  // namespace
}  // namespace npu::test
