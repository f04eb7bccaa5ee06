// Real K210 model files (../shared/k210, skipped when absent): every KPU convolution decodes,
// validates, matches the facts published about these files, and runs through the datapath
// bit-identically with the naive reference. Plus malformed files with exact error messages.
#include <algorithm>
#include <filesystem>
#include <random>

#include <boost/endian/conversion.hpp>
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "models/k210_kpu/kpu_func.h"
#include "models/k210_kpu/kpu_layer_builder.h"
#include "platforms/k210/kmodel/kmodel.h"
#include "sim/core/error.h"
#include "tests/models/k210_kpu/naive_reference.h"

namespace npu::k210 {
namespace {

std::string shared_file(const char* name) {
    return std::string(NPUSIM_SHARED_DIR) + "/k210/" + name;
}

#define LOAD_OR_SKIP(var, file)                                                 \
    if (!std::filesystem::exists(shared_file(file))) {                          \
        GTEST_SKIP() << shared_file(file) << " is absent (../shared not here)"; \
    }                                                                           \
    const Kmodel var = load_kmodel(shared_file(file))

TEST(RealKmodels, StructureMatchesThePublishedDescription) {
    LOAD_OR_SKIP(face, "face_detect_v3.kmodel");
    LOAD_OR_SKIP(yolo3, "yolo20_v3.kmodel");
    LOAD_OR_SKIP(yolo4, "yolo20_v4.kmodel");
    LOAD_OR_SKIP(ulffd, "ulffd_landmark_v4.kmodel");
    // Reference §6: 23 K210_CONV + DEQUANTIZE; 16 K210_CONV; 43 kpu_conv2d and 10 kpu_upload.
    EXPECT_EQ(face.version, 3);
    EXPECT_EQ(face.layers.size(), 24u);
    EXPECT_EQ(face.convs.size(), 23u);
    EXPECT_STREQ(face.layers.back().type_name, "DEQUANTIZE");
    EXPECT_EQ(yolo3.convs.size(), 16u);
    EXPECT_EQ(yolo4.version, 4);
    EXPECT_EQ(yolo4.convs.size(), 16u);
    EXPECT_EQ(ulffd.layers.size(), 99u);
    EXPECT_EQ(ulffd.convs.size(), 43u);
    EXPECT_EQ(std::count_if(
                  ulffd.layers.begin(), ulffd.layers.end(),
                  [](const KmodelLayer& l) { return std::string(l.type_name) == "kpu_upload"; }),
              10);
}

TEST(RealKmodels, PublishedFieldValues) {
    LOAD_OR_SKIP(face, "face_detect_v3.kmodel");
    LOAD_OR_SKIP(yolo3, "yolo20_v3.kmodel");
    LOAD_OR_SKIP(yolo4, "yolo20_v4.kmodel");
    // §3.1/§5.4: the 320x240 input sits at line 29168, 5 lines per row, 1200 lines per channel.
    const kpu::LayerArgs& f0 = face.convs[0].args;
    EXPECT_EQ(f0.image_src_addr, 29168u);
    EXPECT_EQ(f0.channel_switch_addr, 1200u);
    EXPECT_EQ(f0.row_switch_addr, 5u);
    // §3.1/§3.7: the last layer's 20-wide output: wb_group 2, 15 lines per channel, dst 30623.
    const kpu::LayerArgs& f22 = face.convs[22].args;
    EXPECT_EQ(f22.wb_group, 2u);
    EXPECT_EQ(f22.wb_channel_switch_addr, 15u);
    EXPECT_EQ(f22.image_dst_addr, 30623u);
    // §3.3: nncase v0.1 folds zero points with shr_x = 15 and arg_x = -5,799,936.
    EXPECT_EQ(f0.shr_x, 15u);
    EXPECT_EQ(f0.arg_x, -5799936);
    // §2: the 512 -> 1024 1x1 layer loads 18 chunks of 60 kernels, 30720 bytes each.
    const kpu::LayerArgs& y12 = yolo3.convs[12].args;
    EXPECT_EQ(y12.in_channels(), 512);
    EXPECT_EQ(y12.out_channels(), 1024);
    EXPECT_EQ(y12.para_size, 30720u);
    EXPECT_EQ(y12.o_ch_num_coef + 1, 60u);
    EXPECT_EQ(y12.load_time, 17u);
    // §4.2: v4 yolo node 0 body at 0xE0, layer argument at 0xF8, BN 0x200, activation 0x300,
    // weights 0x400 (each after a 256-alignment skip).
    const KpuConvLayer& c0 = yolo4.convs[0];
    EXPECT_EQ(yolo4.layers[0].body_offset, 0xe0u);
    EXPECT_EQ(c0.args_offset, 0xf8u);
    EXPECT_EQ(c0.bn_offset, 0x200u);
    EXPECT_EQ(c0.act_offset, 0x300u);
    EXPECT_EQ(c0.weights_offset, 0x400u);
    // §3.5: its activation is a LeakyReLU: {x > -1966080: mul 6, shift 20, bias 0},
    // {x > 0: mul 64, shift 20, bias 12}.
    const kpu::ActTable t = kpu::decode_act(yolo4.bytes.data() + c0.act_offset);
    EXPECT_EQ(t[0].x_start, -(int64_t{1} << 35));
    EXPECT_EQ(t[1].x_start, -1966080);
    EXPECT_EQ(t[1].y_mul, 6);
    EXPECT_EQ(t[1].shift, 20u);
    EXPECT_EQ(t[2].x_start, 0);
    EXPECT_EQ(t[2].y_mul, 64);
    EXPECT_EQ(t[2].bias, 12);
    // §3.5: the v3 face detector uses a ReLU in segment 10: x_start 0, mul 1024, shift 20.
    const kpu::ActTable r = kpu::decode_act(face.bytes.data() + face.convs[0].act_offset);
    EXPECT_EQ(r[10].x_start, 0);
    EXPECT_EQ(r[10].y_mul, 1024);
    EXPECT_EQ(r[10].shift, 20u);
}

TEST(RealKmodels, EveryConvLayerValidatesAndRunsBitExactly) {
    size_t files = 0, layers = 0, compared = 0;
    for (const char* name : {"face_detect_v3.kmodel", "yolo20_v3.kmodel", "yolo20_v4.kmodel",
                             "ulffd_landmark_v4.kmodel"}) {
        if (!std::filesystem::exists(shared_file(name))) {
            continue;
        }
        ++files;
        const Kmodel m = load_kmodel(shared_file(name));
        std::mt19937 rng(static_cast<unsigned>(m.bytes.size()));
        for (const KpuConvLayer& c : m.convs) {
            const auto problems = kpu::validate(c.runtime_args(0x40010000), m.eight_bit);
            EXPECT_TRUE(problems.empty())
                << name << " layer " << c.layer_index << ": " << problems.front().field << " "
                << problems.front().message;
            // Random input where the layer reads it; zeros elsewhere.
            std::vector<uint8_t> ram(kpu::kRamBytes);
            std::vector<uint8_t> input(
                static_cast<size_t>(c.args.in_channels() * c.args.in_width() * c.args.in_height()));
            for (uint8_t& b : input) {
                b = static_cast<uint8_t>(rng());
            }
            kpu::upload(input.data(), kpu::input_geometry(c.args),
                        ram.data() + uint64_t{c.args.image_src_addr} * kpu::kLineBytes);
            std::vector<uint8_t> ram_ref = ram;
            const kpu::LayerParams p = conv_params(m, c);
            const kpu::LayerResult res =
                kpu::run_layer(c.args, p, m.eight_bit, kpu::Fidelity{}, ram.data());
            EXPECT_EQ(res.overflows, 0u) << name << " layer " << c.layer_index;
            ++layers;
            if (res.macs <= 1'500'000) {  // the naive reference is slow: compare the smaller layers
                std::vector<uint64_t> bn;
                for (int o = 0; o < c.args.out_channels(); ++o) {
                    bn.push_back(boost::endian::load_little_u64(m.bytes.data() + c.bn_offset +
                                                                8 * static_cast<size_t>(o)));
                }
                const auto ref =
                    test::naive_layer(c.args, m.bytes.data() + c.weights_offset, bn,
                                      m.bytes.data() + c.act_offset, {}, ram_ref.data());
                ASSERT_EQ(res.dense_output, ref) << name << " layer " << c.layer_index;
                ASSERT_TRUE(ram == ram_ref) << name << " layer " << c.layer_index;
                ++compared;
            }
        }
    }
    if (files == 0) {
        GTEST_SKIP() << "../shared/k210 is absent";
    }
    EXPECT_EQ(layers, 98u);
    EXPECT_GE(compared, 20u);
}

// ---- malformed files

std::vector<uint8_t> le32s(std::initializer_list<uint32_t> words) {
    std::vector<uint8_t> out;
    for (uint32_t w : words) {
        for (int i = 0; i < 4; ++i) {
            out.push_back(static_cast<uint8_t>(w >> (8 * i)));
        }
    }
    return out;
}

std::string error_of(std::vector<uint8_t> bytes) {
    try {
        parse_kmodel(std::move(bytes), "m.kmodel");
    } catch (const sim::Error& e) {
        return e.what();
    }
    return "no error";
}

TEST(Kmodel, MalformedFilesNameTheOffset) {
    EXPECT_EQ(error_of({0x7f, 'E', 'L', 'F'}),
              "m.kmodel: at byte 0x0 (header): not a kmodel: expected version 3 or the identifier "
              "'KMDL' version 4");
    EXPECT_EQ(error_of({3, 0, 0, 0, 1, 0}),
              "m.kmodel: at byte 0x4 (flags): needs 4 bytes, the file has 2 left");
    // v3 header claiming a million layers in a 28-byte file.
    EXPECT_EQ(error_of(le32s({3, 1, 0, 1000000, 0, 0, 0})),
              "m.kmodel: at byte 0xc (layers_length): 1000000 entries of 8 bytes do not fit in the "
              "12 bytes that follow");
    // One K210_CONV layer whose body runs 100 bytes past the end.
    auto v3 = le32s({3, 1, 0, 1, 0, 0, 0, 10240, 124});
    EXPECT_EQ(error_of(v3),
              "m.kmodel: at byte 0x24 (layer body): layer 0 (K210_CONV) declares 124 "
              "bytes, the file has 0 left");
    // A K210_CONV body whose layer_offset points past the end.
    auto v3b = le32s({3, 1, 0, 1, 0, 0, 0, 10240, 24, 0, 0, 0x10000, 0, 0, 0});
    EXPECT_EQ(error_of(v3b),
              "m.kmodel: at byte 0x10000 (layer_offset): offset 0x10000 is past the "
              "end of the 60-byte file");
    auto v5 = le32s({0x4b4d444c, 5, 32});
    EXPECT_EQ(error_of(v5),
              "m.kmodel: at byte 0x4 (version): KMDL version 5 is not supported: "
              "expected 4 (nncase v0.2); version 5 (nncase v1) is not supported yet");
}

TEST(Kmodel, ZeroBatchesAreRefused) {
    if (!std::filesystem::exists(shared_file("yolo20_v4.kmodel"))) {
        GTEST_SKIP() << "../shared/k210 is absent";
    }
    const Kmodel m = load_kmodel(shared_file("yolo20_v4.kmodel"));
    std::vector<uint8_t> b = m.bytes;
    const size_t at = m.layers[0].body_offset + 16;  // after main_mem_output
    ASSERT_EQ(b[at], 1);
    b[at] = 0;
    EXPECT_EQ(error_of(b), fmt::format("m.kmodel: at byte {:#x} (kpu_conv2d batches): is 0, "
                                       "expected 1..4096",
                                       at));
}

TEST(Kmodel, TruncatedRealFilesFailCleanlyAtEveryLength) {
    if (!std::filesystem::exists(shared_file("yolo20_v4.kmodel"))) {
        GTEST_SKIP() << "../shared/k210 is absent";
    }
    const std::vector<uint8_t> whole = load_kmodel(shared_file("yolo20_v4.kmodel")).bytes;
    std::mt19937 rng(5);
    int errors = 0;
    for (int i = 0; i < 300; ++i) {
        const size_t cut = rng() % whole.size();
        std::vector<uint8_t> part(whole.begin(), whole.begin() + static_cast<std::ptrdiff_t>(cut));
        const std::string e = error_of(part);
        EXPECT_EQ(e.rfind("m.kmodel: at byte 0x", 0), 0u) << "cut at " << cut << ": " << e;
        errors += e != "no error";
        // Flip a byte of the header or node table too: error or a valid parse, never a crash.
        std::vector<uint8_t> flipped = whole;
        flipped[rng() % 0x200] ^= static_cast<uint8_t>(1u << (rng() % 8));
        error_of(flipped);
    }
    EXPECT_EQ(errors, 300);
}

}  // namespace
}  // namespace npu::k210

namespace npu::k210 {
namespace {

// build_layer() fills the fields as a compiler does: on every real layer, given only the shape,
// it must reproduce what nncase v0.1 and v0.2 wrote for layout, weight chunks and DMA counts.
TEST(RealKmodels, BuildLayerReproducesTheCompilersFields) {
    size_t checked = 0;
    for (const char* name : {"face_detect_v3.kmodel", "yolo20_v3.kmodel", "yolo20_v4.kmodel",
                             "ulffd_landmark_v4.kmodel"}) {
        if (!std::filesystem::exists(shared_file(name))) {
            continue;
        }
        const Kmodel m = load_kmodel(shared_file(name));
        for (const KpuConvLayer& c : m.convs) {
            const kpu::LayerArgs& a = c.args;
            const kpu::LayerArgs b =
                kpu::build_layer({a.in_channels(), a.in_height(), a.in_width(), a.out_channels(),
                                  a.kernel_size(), a.depth_wise_layer, a.pool_type, m.eight_bit},
                                 a.image_src_addr, a.image_dst_addr);
            const std::string at = std::string(name) + " layer " + std::to_string(c.layer_index);
            EXPECT_EQ(b.coef_group, a.coef_group) << at;
            EXPECT_EQ(b.row_switch_addr, a.row_switch_addr) << at;
            EXPECT_EQ(b.channel_switch_addr, a.channel_switch_addr) << at;
            EXPECT_EQ(b.wb_group, a.wb_group) << at;
            EXPECT_EQ(b.wb_row_switch_addr, a.wb_row_switch_addr) << at;
            EXPECT_EQ(b.wb_channel_switch_addr, a.wb_channel_switch_addr) << at;
            EXPECT_EQ(b.o_row_wid, a.o_row_wid) << at;
            EXPECT_EQ(b.o_col_high, a.o_col_high) << at;
            EXPECT_EQ(b.o_ch_num_coef, a.o_ch_num_coef) << at;
            EXPECT_EQ(b.para_size, a.para_size) << at;
            EXPECT_EQ(b.load_time, a.load_time) << at;
            EXPECT_EQ(b.dma_total_byte, a.dma_total_byte) << at;
            ++checked;
        }
    }
    if (checked == 0) {
        GTEST_SKIP() << "../shared/k210 is absent";
    }
    EXPECT_EQ(checked, 98u);
}

}  // namespace
}  // namespace npu::k210
