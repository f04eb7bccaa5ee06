// `npusim estimate --model` against the timed run: every layer's KPU cycles and CPU cycles equal
// (the same cost functions at the same addresses, the same work counts), for models using every
// layer type we run (the v3 and v4 op chains, the edges demo) and the shared real kmodels
// (skipped when ../shared is absent).
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "platforms/k210/estimate_model.h"
#include "platforms/k210/kmodel/demo_model.h"
#include "platforms/k210/kmodel/kmodel_runtime.h"
#include "tests/platforms/k210/kmodel/chain_models.h"
#include "tests/platforms/k210/soc/soc_harness.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

class EstimateModel : public ScTest {
protected:
    void expect_equal(const k210::Kmodel& m) {
        const std::vector<k210::ModelEstimateRow> est = k210::estimate_model(m, k210_config());
        const sim::Shape shape = k210::model_input_shape(m);
        const sim::DType type = k210::model_input_dtype(m);
        const Inference t =
            infer(m, type == sim::DType::u8 ? random_image(5, shape) : sim::Tensor(type, shape));
        ASSERT_TRUE(t.result.done) << m.name << ": " << t.result.error;
        ASSERT_EQ(t.result.layers.size(), est.size()) << m.name;
        for (size_t i = 0; i < est.size(); ++i) {
            const k210::LayerRun& l = t.result.layers[i];
            uint64_t kpu = 0;
            for (int b = 0; l.kpu_layer >= 0 && b < l.kpu_layers; ++b) {
                kpu += t.kpu_layer_cycles.at(static_cast<size_t>(l.kpu_layer + b));
            }
            EXPECT_EQ(est[i].type, l.type) << m.name << " layer " << i;
            EXPECT_EQ(est[i].kpu_cycles, kpu) << m.name << " layer " << i;
            EXPECT_EQ(est[i].cpu_cycles, l.cpu_cycles) << m.name << " layer " << i;
            EXPECT_EQ(est[i].cpu_work, l.cpu_work_cycles) << m.name << " layer " << i;
            EXPECT_EQ(est[i].cpu_overhead, l.cpu_overhead_cycles) << m.name << " layer " << i;
            EXPECT_EQ(est[i].readback, l.readback_cycles) << m.name << " layer " << i;
        }
    }
};

TEST_F(EstimateModel, EqualsTheTimedRunOnTheOpChainsAndTheDemo) {
    expect_equal(k210::parse_kmodel(chain::v3_chain(), "chain_v3.kmodel"));
    expect_equal(k210::parse_kmodel(chain::v4_chain(), "chain_v4.kmodel"));
    expect_equal(k210::parse_kmodel(k210::build_demo_model().kmodel, "demo.kmodel"));
}

TEST_F(EstimateModel, EqualsTheTimedRunOnTheSharedKmodels) {
    const std::string dir = std::string(NPUSIM_SHARED_DIR) + "/k210/";
    size_t ran = 0;
    for (const char* f : {"face_detect_v3.kmodel", "yolo20_v3.kmodel", "yolo20_v4.kmodel",
                          "ulffd_landmark_v4.kmodel"}) {
        if (std::filesystem::exists(dir + f)) {
            expect_equal(k210::load_kmodel(dir + f));
            ++ran;
        }
    }
    if (ran == 0) {
        GTEST_SKIP() << dir << " is absent (../shared not here)";
    }
}

}  // namespace
}  // namespace npu::test
