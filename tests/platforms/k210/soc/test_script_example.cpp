// configs/scripts/kpu_conv3x3/: the register script `npusim run --script` plays as its example,
// and its binary files, made here from the KPU's pure datapath. The test fails when the committed
// files are not what this builds; NPUSIM_UPDATE_GOLDENS=1 writes them (review the diff).
#include <filesystem>
#include <fstream>
#include <set>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "models/k210_kpu/kpu_func.h"
#include "models/k210_kpu/kpu_layer_builder.h"
#include "sim/core/files.h"

namespace npu::test {
namespace {

namespace fs = std::filesystem;

constexpr uint64_t kWeights = 0x40010000, kBn = 0x40011000, kAct = 0x40012000, kAiIo = 0x40600000;

// Names of the 12 words, as the Kendryte SDK's kpu_layer_argument_t has them.
const char* const kWordNames[12] = {"interrupt_enabe", "image_addr",           "image_channel_num",
                                    "image_size",      "kernel_pool_type_cfg", "kernel_load_cfg",
                                    "kernel_offset",   "kernel_calc_type_cfg", "write_back_cfg",
                                    "conv_value",      "conv_value2",          "dma_parameter"};

struct Example {
    std::map<std::string, std::vector<uint8_t>> files;
};

// A 3x3 convolution, 3 -> 4 channels on 16x16, 8-bit: weights 0..7, BN scaling the sums into
// 0..255 with a negative offset, a ReLU-like activation table (negative sums -> 0).
Example build_example() {
    kpu::LayerShape shape;
    shape.in_channels = 3, shape.in_height = 16, shape.in_width = 16, shape.out_channels = 4;
    kpu::LayerArgs a = kpu::build_layer(shape, 0, 64);
    a.para_start_addr = static_cast<uint32_t>(kWeights);
    a.bwsx_base_addr = static_cast<uint32_t>(kBn);
    a.active_addr = static_cast<uint32_t>(kAct);
    a.int_en = true;
    Example e;
    std::vector<uint8_t>& w = e.files["weights.bin"];
    w.resize(4 * 3 * 9);
    for (size_t i = 0; i < w.size(); ++i) {
        w[i] = static_cast<uint8_t>((i * 7 + 3) % 8);
    }
    kpu::LayerParams p;
    p.weights = w.data();
    std::vector<uint8_t>& bn = e.files["bn.bin"];
    for (int oc = 0; oc < 4; ++oc) {
        p.bn.push_back({1, 6, -40 * (oc + 1)});
        const uint64_t word = kpu::encode_bn(p.bn.back());
        for (int b = 0; b < 8; ++b) {
            bn.push_back(static_cast<uint8_t>(word >> (8 * b)));
        }
    }
    p.act[0] = {-(int64_t{1} << 35), 0, 0, 0};  // below 0: 0
    p.act[1] = {-1, 1, 0, 0};                   // from 0: the value itself
    for (size_t i = 2; i < 16; ++i) {
        p.act[i] = {(int64_t{1} << 35) - 1, 0, 0, 255};  // never reached
    }
    std::vector<uint8_t>& act = e.files["act.bin"];
    act.resize(kpu::kActTableBytes);
    kpu::encode_act(p.act, act.data());
    std::vector<uint8_t> ram(kpu::kRamBytes);
    std::vector<uint8_t> image(3 * 16 * 16);
    for (size_t i = 0; i < image.size(); ++i) {
        image[i] = static_cast<uint8_t>((i * 37) % 256);
    }
    const kpu::FmapGeometry gin = kpu::input_geometry(a), gout = kpu::output_geometry(a);
    const uint64_t src = uint64_t{a.image_src_addr} * 64, dst = uint64_t{a.image_dst_addr} * 64;
    kpu::upload(image.data(), gin, ram.data() + src);
    e.files["input.bin"].assign(ram.begin() + static_cast<std::ptrdiff_t>(src),
                                ram.begin() + static_cast<std::ptrdiff_t>(src + gin.extent()));
    kpu::run_layer(a, p, true, {}, ram.data());
    e.files["expected.bin"].assign(ram.begin() + static_cast<std::ptrdiff_t>(dst),
                                   ram.begin() + static_cast<std::ptrdiff_t>(dst + gout.extent()));
    std::string words;
    const auto enc = kpu::encode(a);
    for (size_t i = 0; i < enc.size(); ++i) {
        words += fmt::format("write_reg 0x40800000 {:#018x}  # {}\n", enc[i], kWordNames[i]);
    }
    const std::string script = fmt::format(
        R"(# One KPU layer played through the CPU's port: a 3x3 convolution, 3 -> 4 channels on a
# 16x16 image, 8-bit weights, batch norm and a ReLU-like activation table, its interrupt, and its
# output read back. Made by tests/platforms/k210/soc/test_script_example.cpp from the KPU's pure
# datapath (expected.bin); run it with
#   npusim run --script configs/scripts/kpu_conv3x3/layer.script --out out
# Registers: docs/k210_kpu.md (KPU at 0x40800000; the AI SRAM's IO window at 0x40600000).
write_reg 0x40800020 7          # interrupt_clear: all three
write_reg 0x40800018 6          # interrupt_mask: only calc_done raises the line
write_reg 0x40800040 1          # eight_bit_mode
load_mem {:#x} weights.bin  # [oc][ic][ky][kx], u8
load_mem {:#x} bn.bin       # one 64-bit word per output channel
load_mem {:#x} act.bin      # 16 segments and their biases
load_mem {:#x} input.bin    # 3 channels of 16 rows, one 64-byte line each
# The 12 words of the layer argument, into the layer FIFO:
{}wait_irq kpu
read_reg 0x40800008 0x1 0x1     # interrupt_status: calc_done
write_reg 0x40800020 7
read_reg 0x40800008 0x7 0x0
compare_mem {:#x} expected.bin
dump_mem {:#x} {} output.bin
)",
        kWeights, kBn, kAct, kAiIo + src, words, kAiIo + dst, kAiIo + dst, gout.extent());
    e.files["layer.script"].assign(script.begin(), script.end());
    return e;
}

TEST(ScriptExample, CommittedFilesAreWhatTheDatapathMakes) {
    const Example e = build_example();
    const std::vector<uint8_t>& out = e.files.at("expected.bin");
    const std::set<uint8_t> values(out.begin(), out.end());
    EXPECT_GT(values.size(), 20u);  // a real picture, not all 0 or all 255
    const fs::path dir = NPUSIM_SOURCE_DIR "/configs/scripts/kpu_conv3x3";
    if (std::getenv("NPUSIM_UPDATE_GOLDENS") != nullptr) {
        fs::create_directories(dir);
        for (const auto& [name, bytes] : e.files) {
            sim::write_file_atomic((dir / name).string(), bytes);
        }
    }
    for (const auto& [name, bytes] : e.files) {
        ASSERT_TRUE(fs::exists(dir / name)) << name << ": NPUSIM_UPDATE_GOLDENS=1 writes it";
        EXPECT_EQ(sim::read_file((dir / name).string()), bytes)
            << name << " is not what the datapath makes; NPUSIM_UPDATE_GOLDENS=1 rewrites it";
    }
}

}  // namespace
}  // namespace npu::test
