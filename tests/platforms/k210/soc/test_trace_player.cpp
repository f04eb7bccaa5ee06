// Trace-player integration test (NVDLA cmod style): a register script drives the KPU through the
// K210 platform, and the AI SRAM is compared with a golden image computed by the pure datapath.
#include <boost/endian/conversion.hpp>
#include <fmt/format.h>

#include "models/k210_kpu/kpu_func.h"
#include "platforms/k210/kmodel/demo_model.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "platforms/k210/soc/trace_player.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

constexpr uint64_t kWeights = 0x40010000, kBn = 0x40020000, kAct = 0x40030000, kAiIo = 0x40600000;

k210::K210Config k210_config() {
    auto doc = sim::ConfigDocument::load_file(NPUSIM_SOURCE_DIR "/configs/k210.yaml");
    k210::K210Config c = k210::read_k210_config(doc.root().child("platform"));
    doc.finish();
    return c;
}

struct Case {
    std::map<std::string, std::vector<uint8_t>> blobs;
    std::string script;
};

// The demo's first layer (3x3, 3 -> 5, 160x120) as a script, with a golden output image.
Case demo_layer_case() {
    const k210::DemoModel d = k210::build_demo_model();
    const k210::Kmodel m = k210::parse_kmodel(d.kmodel, "demo");
    const k210::KpuConvLayer& c = m.convs[0];
    kpu::LayerArgs a = c.args;
    a.para_start_addr = static_cast<uint32_t>(kWeights);
    a.bwsx_base_addr = static_cast<uint32_t>(kBn);
    a.active_addr = static_cast<uint32_t>(kAct);
    a.int_en = true;
    Case k;
    k.blobs["weights"].assign(
        m.bytes.begin() + static_cast<std::ptrdiff_t>(c.weights_offset),
        m.bytes.begin() + static_cast<std::ptrdiff_t>(c.weights_offset + c.weights_bytes));
    k.blobs["bn"].assign(m.bytes.begin() + static_cast<std::ptrdiff_t>(c.bn_offset),
                         m.bytes.begin() + static_cast<std::ptrdiff_t>(c.bn_offset + 8 * 5));
    k.blobs["act"].assign(
        m.bytes.begin() + static_cast<std::ptrdiff_t>(c.act_offset),
        m.bytes.begin() + static_cast<std::ptrdiff_t>(c.act_offset + kpu::kActTableBytes));
    // Input in the row layout, and the golden output region, from the pure datapath.
    std::vector<uint8_t> ram(kpu::kRamBytes);
    const uint64_t src = uint64_t{a.image_src_addr} * 64, dst = uint64_t{a.image_dst_addr} * 64;
    const kpu::FmapGeometry gin = kpu::input_geometry(a), gout = kpu::output_geometry(a);
    kpu::upload(d.input.bytes(), gin, ram.data() + src);
    k.blobs["input"].assign(ram.begin() + static_cast<std::ptrdiff_t>(src),
                            ram.begin() + static_cast<std::ptrdiff_t>(src + gin.extent()));
    kpu::run_layer(a, k210::conv_params(m, c), true, {}, ram.data());
    k.blobs["golden"].assign(ram.begin() + static_cast<std::ptrdiff_t>(dst),
                             ram.begin() + static_cast<std::ptrdiff_t>(dst + gout.extent()));
    std::string words;
    for (uint64_t w : kpu::encode(a)) {
        words += fmt::format("write_reg 0x40800000 {:#x}\n", w);
    }
    k.script = fmt::format(R"(# KPU init, as the SDK does it
write_reg 0x40800020 7          # INTERRUPT_CLEAR
write_reg 0x40800018 6          # INTERRUPT_MASK: calc_done only
write_reg 0x40800040 1          # EIGHT_BIT_MODE
load_mem {:#x} @weights
load_mem {:#x} @bn
load_mem {:#x} @act
load_mem {:#x} @input
{}wait_irq kpu
read_reg 0x40800008 0x1 0x1     # INTERRUPT_STATUS: calc_done
write_reg 0x40800020 7
read_reg 0x40800008 0x7 0x0
compare_mem {:#x} @golden
)",
                           kWeights, kBn, kAct, kAiIo + src, words, kAiIo + dst);
    return k;
}

class TracePlayerTest : public ScTest {};

TEST_F(TracePlayerTest, DemoLayerMatchesTheGoldenImage) {
    const Case k = demo_layer_case();
    sim::TraceWriter trace(false);
    k210::K210Platform soc("k210", k210_config(), trace);
    k210::TracePlayer player("player", soc, k210::parse_trace(k.script, "demo.trace", k.blobs),
                             k.blobs);
    sc_core::sc_start();
    EXPECT_TRUE(player.finished());
    EXPECT_TRUE(player.failures().empty()) << player.failures().front();
    EXPECT_EQ(soc.kpu.layers().size(), 1u);
}

TEST_F(TracePlayerTest, AMismatchNamesTheLineAndTheFirstByte) {
    Case k = demo_layer_case();
    k.blobs["golden"][100] ^= 0xff;
    sim::TraceWriter trace(false);
    k210::K210Platform soc("k210", k210_config(), trace);
    k210::TracePlayer player("player", soc, k210::parse_trace(k.script, "demo.trace", k.blobs),
                             k.blobs);
    sc_core::sc_start();
    ASSERT_EQ(player.failures().size(), 1u);
    EXPECT_EQ(player.failures()[0].rfind(
                  "line 25: compare_mem 0x40600000 @golden: first difference at byte 100 "
                  "(0x40600064)",
                  0),
              0u)
        << player.failures()[0];
}

TEST(TraceScript, ParseErrorsNameTheLine) {
    const std::map<std::string, std::vector<uint8_t>> blobs{{"x", {1}}};
    auto error_of = [&](const std::string& text) {
        try {
            k210::parse_trace(text, "t.trace", blobs);
        } catch (const sim::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    EXPECT_EQ(error_of("write_reg 0x10 1\n\nfrobnicate 1\n"),
              "t.trace:3: unknown command 'frobnicate': expected load_mem, write_reg, read_reg, "
              "wait_irq, compare_mem or dump_mem");
    EXPECT_EQ(error_of("read_reg 0x10 1\n"), "t.trace:1: expected 'read_reg ADDR MASK EXPECT'");
    EXPECT_EQ(error_of("load_mem 0x10 @nope\n"),
              "t.trace:1: '@nope' is not a known blob (@name) or file");
    EXPECT_EQ(error_of("wait_irq dma9\n"),
              "t.trace:1: unknown interrupt 'dma9': expected kpu or dma0..dma5");
    EXPECT_EQ(error_of("write_reg 0xzz 1  # comment\n"),
              "t.trace:1: '0xzz': expected an unsigned integer (decimal, 0x hex or 0b binary) up "
              "to 2^64-1");
    EXPECT_EQ(k210::parse_trace("# only a comment\n  \nload_mem 8 @x\n", "t", blobs).size(), 1u);
}

}  // namespace
}  // namespace npu::test
