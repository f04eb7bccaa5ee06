// A bounded, seeded fuzz run of the kmodel readers inside the normal suite (the libFuzzer target
// tests/fuzz/fuzz_kmodel.cpp explores further): mutations of our own demo kmodel, always
// available, give a model or one sim::Error naming a byte offset.
#include <random>

#include <gtest/gtest.h>

#include "platforms/k210/kmodel/demo_model.h"
#include "platforms/k210/kmodel/functional.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "sim/core/error.h"

namespace npu::k210 {
namespace {

TEST(KmodelFuzzSmoke, MutatedDemoModelsParseOrFailCleanly) {
    const std::vector<uint8_t> seed = build_demo_model().kmodel;
    std::mt19937 rng(9);
    int errors = 0, parsed = 0;
    for (int i = 0; i < 4000; ++i) {
        std::vector<uint8_t> b = seed;
        const int edits = 1 + static_cast<int>(rng() % 4);
        for (int e = 0; e < edits && !b.empty(); ++e) {
            const size_t pos = rng() % 0x400;  // the header, tables and first bodies
            switch (rng() % 3) {
            case 0: b[pos % b.size()] = static_cast<uint8_t>(rng()); break;
            case 1: b[pos % b.size()] ^= static_cast<uint8_t>(1u << (rng() % 8)); break;
            default: b.resize(pos % b.size()); break;
            }
        }
        try {
            const Kmodel m = parse_kmodel(b, "m");
            for (const KpuConvLayer& c : m.convs) {
                ASSERT_LE(c.weights_offset + c.weights_bytes, m.bytes.size());
                ASSERT_LE(c.act_offset + 144, m.bytes.size());
            }
            ++parsed;
        } catch (const sim::Error& e) {
            ASSERT_EQ(std::string(e.what()).rfind("m: at byte 0x", 0), 0u) << e.what();
            ++errors;
        }
    }
    EXPECT_GT(errors, 1000);
    EXPECT_GT(parsed, 100);
}

TEST(KmodelFuzzSmoke, MutatedModelsThatParseRunOrFailCleanly) {
    // Past the reader: the runtime (KPU layer checks, CPU layer bodies, memory ranges) on
    // mutated bodies. Every run gives outputs or one sim::Error; ASan checks the memory.
    const DemoModel demo = build_demo_model();
    std::mt19937 rng(21);
    int ran = 0, errors = 0;
    for (int i = 0; i < 3000 && ran + errors < 150; ++i) {
        std::vector<uint8_t> b = demo.kmodel;
        for (int e = 0; e < 2; ++e) {
            b[rng() % b.size()] = static_cast<uint8_t>(rng());
        }
        Kmodel m;
        try {
            m = parse_kmodel(b, "m");
        } catch (const sim::Error&) {
            continue;  // the reader's part, tested above
        }
        try {
            const FunctionalResult r = run_functional(m, demo.input);
            EXPECT_EQ(r.layers.size(), m.layers.size());
            ++ran;
        } catch (const sim::Error& e) {
            const std::string what = e.what();  // names the model, or the input that misfits
            EXPECT_TRUE(what.rfind("m: ", 0) == 0 || what.rfind("input is ", 0) == 0) << what;
            ++errors;
        }
    }
    EXPECT_GT(ran, 20);
    EXPECT_GT(errors, 5);
}

}  // namespace
}  // namespace npu::k210
