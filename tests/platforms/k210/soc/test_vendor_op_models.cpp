// Hand-built kmodels that chain every CPU layer type and opcode added for vendor models, written
// by our kmodel writer and run on the timed platform (every access a bus transaction, costed per
// layer) and by the functional executor: the two agree bit for bit, and each layer is costed by
// the documented formula. Plus the real iris_v4 (float input, CPU only) from ../shared.
#include <algorithm>
#include <cmath>
#include <filesystem>
#include <limits>
#include <random>

#include <boost/endian/conversion.hpp>
#include <gtest/gtest.h>

#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/kmodel/kmodel_writer.h"
#include "sim/core/error.h"
#include "tests/platforms/k210/kmodel/chain_models.h"
#include "tests/platforms/k210/kmodel/node_harness.h"
#include "tests/platforms/k210/soc/soc_harness.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

class VendorOpModels : public ScTest {};

void expect_timed_equals_functional(const k210::Kmodel& m, const sim::Tensor& in,
                                    const std::vector<std::string>& types) {
    const Inference timed = infer(m, in);
    ASSERT_TRUE(timed.result.done) << timed.result.error;
    const k210::FunctionalResult f = k210::run_functional(m, in);
    ASSERT_EQ(timed.result.outputs.size(), f.outputs.size());
    for (size_t i = 0; i < f.outputs.size(); ++i) {
        EXPECT_TRUE(timed.result.outputs[i] == f.outputs[i]) << "output " << i;
    }
    ASSERT_EQ(timed.result.layers.size(), types.size());
    const k210::K210Config c = k210_config();
    for (size_t i = 0; i < types.size(); ++i) {
        const k210::LayerRun& l = timed.result.layers[i];
        const k210::FunctionalLayer& work = f.layers[i];
        EXPECT_EQ(l.type, types[i]) << "layer " << i;
        // docs/k210_platform.md "CPU time model": dispatch + ⌈per element · elements + per MAC ·
        // MACs⌉ for every CPU layer, with the work the functional run counted (the board-measured
        // ops have their own cost per element).
        const auto own = c.cpu.op_cycles_per_element.find(types[i]);
        const double per =
            own != c.cpu.op_cycles_per_element.end() ? own->second : c.cpu.cycles_per_element;
        const auto own_mac = c.cpu.op_cycles_per_mac.find(types[i]);
        const double per_mac =
            own_mac != c.cpu.op_cycles_per_mac.end() ? own_mac->second : c.cpu.cycles_per_mac;
        const double want = static_cast<double>(c.cpu.layer_dispatch_cycles) +
                            std::ceil(per * static_cast<double>(work.elements) +
                                      per_mac * static_cast<double>(work.cpu_macs));
        EXPECT_EQ(static_cast<double>(l.cpu_cycles), want) << "layer " << i;
        EXPECT_GT(work.elements, 0u) << "layer " << i;
    }
}

TEST_F(VendorOpModels, EveryNewV4OpcodeRunsTimedAsFunctionally) {
    const k210::Kmodel m = k210::parse_kmodel(chain::v4_chain(), "chain_v4.kmodel");
    expect_timed_equals_functional(
        m, random_image(7, {1, 2, 4, 4}),
        {"dequantize", "unary", "nnil_unary_method", "reduce", "resize_image", "strided_slice",
         "conv2d_transpose", "cpu_conv2d", "cpu_depthwise_conv2d", "cpu_reduce_window2d",
         "quantize", "quantized_conv2d", "quantized_matmul", "table_lookup1d",
         "cpu_quantized_conv2d", "cpu_quantized_depthwise_conv2d", "resize_image", "dequantize"});
}

TEST_F(VendorOpModels, EveryNewV3LayerTypeRunsTimedAsFunctionally) {
    const k210::Kmodel m = k210::parse_kmodel(chain::v3_chain(), "chain_v3.kmodel");
    sim::Tensor in(sim::DType::f32, {1, 8, 1, 1});
    std::mt19937 rng(5);
    std::normal_distribution<float> nd(0.0f, 2.0f);
    for (size_t i = 0; i < 8; ++i) {
        in.data<float>()[i] = nd(rng);
    }
    expect_timed_equals_functional(
        m, in,
        {"FULLY_CONNECTED", "L2_NORMALIZATION", "LOGISTIC", "TENSORFLOW_FLATTEN",
         "RESIZE_NEAREST_NEIGHBOR", "AVERAGE_POOL2D", "QUANTIZE", "QUANTIZED_ADD",
         "QUANTIZED_MAX_POOL2D", "REQUANTIZE", "QUANTIZED_RESIZE_NEAREST_NEIGHBOR",
         "QUANTIZED_CONCAT", "CHANNELWISE_DEQUANTIZE", "K210_ADD_PADDING", "K210_REMOVE_PADDING",
         "DEQUANTIZE"});
}

// nncase pads each body to 8 bytes by seeking, so a real file's last body can lack up to 7
// declared bytes: the chain's last node (a 40-byte dequantize) declared 44 bytes and cut 4
// short loads and runs; a body 8 bytes short is refused at load.
TEST_F(VendorOpModels, ALastBodyShortOfItsPaddingLoads) {
    std::vector<uint8_t> bytes = chain::v4_chain();
    const k210::Kmodel full = k210::parse_kmodel(bytes, "chain_v4.kmodel");
    const size_t last_header = full.layers.front().body_offset - 8;
    ASSERT_EQ(full.layers.back().body_size, 40u);
    boost::endian::store_little_u32(bytes.data() + last_header + 4, 44);
    const k210::Kmodel m = k210::parse_kmodel(bytes, "short.kmodel");
    EXPECT_EQ(m.layers.back().body_size, 44u);
    EXPECT_EQ(m.bytes.size(), full.bytes.size());  // 4 declared bytes past the end of the file
    const k210::FunctionalResult f = k210::run_functional(m, random_image(7, {1, 2, 4, 4}));
    EXPECT_TRUE(f.outputs[3] ==
                k210::run_functional(full, random_image(7, {1, 2, 4, 4})).outputs[3]);
    boost::endian::store_little_u32(bytes.data() + last_header + 4, 48);
    EXPECT_THROW(k210::parse_kmodel(bytes, "short.kmodel"), sim::Error);
}

// nncase's iris example: 4 float features -> 3 class scores, on the CPU only. Fisher's iris
// data: sample 1 (5.1, 3.5, 1.4, 0.2) is setosa, 51 (7.0, 3.2, 4.7, 1.4) versicolor, 101
// (6.3, 3.3, 6.0, 2.5) virginica: the model's largest score names each; timed = functional.
TEST_F(VendorOpModels, IrisClassifiesFishersSamples) {
    const std::string path = std::string(NPUSIM_SHARED_DIR) + "/k210/iris_v4.kmodel";
    if (!std::filesystem::exists(path)) {
        GTEST_SKIP() << path << " is absent (../shared not here)";
    }
    const k210::Kmodel m = k210::load_kmodel(path);
    EXPECT_EQ(k210::model_input_dtype(m), sim::DType::f32);
    const float samples[3][4] = {
        {5.1f, 3.5f, 1.4f, 0.2f}, {7.0f, 3.2f, 4.7f, 1.4f}, {6.3f, 3.3f, 6.0f, 2.5f}};
    for (int species = 0; species < 3; ++species) {
        sim::Tensor in(sim::DType::f32, {1, 1, 1, 4});
        std::copy(samples[species], samples[species] + 4, in.data<float>());
        const Inference timed = infer(m, in);
        ASSERT_TRUE(timed.result.done) << timed.result.error;
        const sim::Tensor& scores = timed.result.outputs.at(0);
        ASSERT_EQ(scores.numel(), 3u);
        const float* s = scores.data<float>();
        EXPECT_EQ(std::max_element(s, s + 3) - s, species);
        EXPECT_TRUE(scores == k210::run_functional(m, in).outputs.at(0));
    }
}

}  // namespace
}  // namespace npu::test
