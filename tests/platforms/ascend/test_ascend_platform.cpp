// The Ascend AIPP platform (configs/ascend.yaml): a job programmed by the scalar unit over the
// bus, run by the AIPP module between GM and L1 through TLM. Its tile equals the pure function
// byte for byte and its time the cost model; a job the engine refuses comes back as its reason.
#include <random>

#include <gtest/gtest.h>

#include "models/aipp/aipp_func.h"
#include "platforms/ascend/ascend_platform.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "tests/platforms/ascend/ascend_harness.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

// A 64x48 NV12 frame; a BT.601 job to int8 with mirror padding (as the module test's).
ascend::AippProgram job() {
    ascend::AippProgram j;
    j.params.format = aipp::InputFormat::YUV420SP_U8;
    j.params.output = aipp::OutputType::i8;
    j.params.csc_enable = true;
    j.params.csc_matrix = {298, 0, 409, 298, -100, -208, 298, 516, 0};
    j.params.csc_bias_in = {16, 128, 128};
    j.params.dtc_mean = {128, 128, 128};
    j.params.padding_mode = 3;
    j.load.horiz_size = 40, j.load.vert_size = 30, j.load.horiz_start = 10, j.load.vert_start = 6;
    j.load.src_horiz_size = 64;
    j.load.top_pad = j.load.bot_pad = j.load.left_pad = j.load.right_pad = 3;
    std::mt19937 rng(7);
    j.src0.resize(64 * 48), j.src1.resize(64 * 24);
    for (uint8_t& b : j.src0) {
        b = static_cast<uint8_t>(rng());
    }
    for (uint8_t& b : j.src1) {
        b = static_cast<uint8_t>(rng());
    }
    return j;
}

class AscendPlatform : public ScTest {};

TEST_F(AscendPlatform, JobThroughTlmEqualsThePureFunctionAndTheCostModel) {
    const ascend::AscendConfig cfg = shipped_ascend_config();
    const ascend::AippProgram p = job();
    ascend::AscendPlatform soc("soc", cfg, ascend::engine_config(cfg, {}, {}));
    soc.load(p);
    sc_core::sc_start();
    const ascend::AippRun& r = soc.result();
    ASSERT_TRUE(r.done) << r.error;
    std::vector<uint8_t> want(aipp::geometry(p.params, p.load).elements());
    aipp::load_image(p.params, p.load, {},
                     {p.src0.data(), p.src0.size(), p.src1.data(), p.src1.size()}, want.data());
    EXPECT_EQ(r.tile, want);
    // src0 at GM 0, src1 at 64·48 = 3072, the tile at L1 0x40000000. By hand (as in the module
    // test): 30 Y rows + 15 UV rows of 40 B starting ≡ 10 mod 32: 2 beats each = 90 bus cycles;
    // tile 36·46·32 = 52992 B, 64-aligned: 828 beats; rows 36·8 = 288;
    // 64 + 288 + max(90, 828) = 1180 cycles = 1180 ns at 1 GHz.
    EXPECT_EQ(r.src1_addr, 3072u);
    EXPECT_EQ(r.dst_addr, 0x40000000u);
    EXPECT_EQ(r.end_ps - r.start_ps, 1180000u);
    // The scalar unit's 16 register writes before CMD.start, each 1 bus cycle of latency + 1 beat
    // at 1 GHz (configs/ascend.yaml bus) = 2 ns, plus 1 ns register latency: 16 · 3 = 48 ns.
    EXPECT_EQ(r.start_ps, 48000u);
    const auto stats = soc.aipp.stats().to_json();
    EXPECT_EQ(stats["read_bytes"]["value"], 45 * 40);
    EXPECT_EQ(stats["write_bytes"]["value"], 52992);
    EXPECT_EQ(stats["regs"]["writes"]["value"],
              18);  // 10 SPR, 3 load, dst, type, int_en, cmd, status
}

TEST_F(AscendPlatform, ARefusedJobComesBackAsItsReason) {
    const ascend::AscendConfig cfg = shipped_ascend_config();
    ascend::AippProgram p = job();
    p.load.top_pad = 40;  // 0..32
    ascend::AscendPlatform soc("soc", cfg, ascend::engine_config(cfg, {}, {}));
    soc.load(p);
    ExpectWarnings w;
    sc_core::sc_start();
    EXPECT_FALSE(soc.result().done);
    EXPECT_EQ(soc.result().error,
              "topPadSize is 40, expected 0..32; topPadSize is 40, expected at most vertSize = 30 "
              "(padding modes 2 and 3 copy blocks of the image)");
    EXPECT_EQ(w.messages().size(), 1u);
}

TEST_F(AscendPlatform, ConfigNeedsGmAndL1) {
    sim::ConfigDocument doc = sim::ConfigDocument::parse(
        "platform:\n  kind: ascend\n  name: x\n  memories:\n"
        "    - {name: dram, base_addr: 0, size_bytes: 1MiB}\n",
        "a.yaml");
    (void)ascend::read_ascend_config(doc.root().child("platform"));
    try {
        doc.finish();
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_NE(std::string(e.what()).find(
                      "a.yaml:5:5: platform.memories: expected a memory named gm and one named l1"),
                  std::string::npos)
            << e.what();
    }
}

}  // namespace
}  // namespace npu::test
