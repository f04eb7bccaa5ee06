// The DL processor's configuration (C and N from ConvThreadNumber, defaults, every invalid value)
// and external-memory formats: the seed document's worked examples value by value, the spatial
// axis switch, round trips on odd shapes for every thread number and both data types.
#include <random>

#include <gtest/gtest.h>

#include "models/dlp/dlp_config.h"
#include "models/dlp/dlp_format.h"
#include "sim/core/config.h"
#include "sim/core/error.h"

namespace npu::test {
namespace {

using dlp::ActShape;
using dlp::ConvFormat;

TEST(DlpConfig, ThreadsAndTransferWidthFromConvThreadNumber) {
    // C = √ConvThreadNumber, N = 2^⌈log2 C⌉ (ConvThreadNumber 9 -> C 3, N 4, as the doc says)
    const unsigned ctn[] = {4, 9, 16, 25, 36, 49, 64};
    const unsigned c[] = {2, 3, 4, 5, 6, 7, 8}, n[] = {2, 4, 4, 8, 8, 8, 8};
    for (size_t i = 0; i < 7; ++i) {
        dlp::DlpConfig cfg;
        cfg.conv_thread_number = ctn[i];
        EXPECT_EQ(cfg.threads_c(), c[i]) << ctn[i];
        EXPECT_EQ(cfg.transfer_n(), n[i]) << ctn[i];
        EXPECT_TRUE(cfg.problems().empty()) << cfg.problems().front();
    }
    dlp::DlpConfig cfg;  // the AXI width fitted to dlhdl's estimator (docs/dlp.md): 512 bits
    EXPECT_EQ(cfg.axi_bits(), 512u);
    cfg.data_type = dlp::DataType::int8;  // the same DDR interface
    EXPECT_EQ(cfg.axi_bits(), 512u);
    EXPECT_EQ(cfg.ddr_bus().data_width_bytes, 64u);
    cfg.axi_data_width_bits = 32;  // 8·N = 32 bits moves one int8 word a beat
    EXPECT_EQ(cfg.ddr_bus().data_width_bytes, 4u);
}

TEST(DlpConfig, EveryInvalidValueIsOneLine) {
    dlp::DlpConfig cfg;
    cfg.conv_thread_number = 10;
    cfg.fc_thread_number = 3;
    cfg.axi_data_width_bits = 48;
    try {
        cfg.validate("dlp.yaml");
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "dlp.yaml: conv_thread_number is 10, expected one of 4, 9, 16, 25, 36, 49, "
                     "64 (perfect squares: C = √ConvThreadNumber threads); fc_thread_number is 3, "
                     "expected a power of two in 2..64; axi_data_width_bits is 48, expected a "
                     "power of two in 32..1024");
    }
}

TEST(DlpConfig, ReadFromYaml) {
    auto doc = sim::ConfigDocument::parse(
        "dlp:\n  conv_thread_number: 9\n  processor_data_type: int8\n  target_frequency: 250MHz\n"
        "  conv_input_memory_size: [56, 56, 64]\n  spatial_x: width\n",
        "d.yaml");
    const dlp::DlpConfig c = dlp::read_dlp_config(doc.root().child("dlp"));
    doc.finish();
    EXPECT_EQ(c.conv_thread_number, 9u);
    EXPECT_EQ(c.data_type, dlp::DataType::int8);
    EXPECT_EQ(c.target_frequency_hz, 250'000'000u);
    EXPECT_EQ(c.conv_input_memory_size[2], 64u);
    EXPECT_FALSE(c.x_is_height);
    auto bad = sim::ConfigDocument::parse("dlp:\n  conv_thread_numbr: 9\n", "b.yaml");
    dlp::read_dlp_config(bad.root().child("dlp"));
    try {
        bad.finish();
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_NE(std::string(e.what()).find("unknown key (did you mean 'conv_thread_number'?)"),
                  std::string::npos)
            << e.what();
    }
}

// A Z x 3 x 3 activation whose value names its place: 100·z + 10·x + y, x = row (h), y = column.
std::vector<float> labelled(int64_t z) {
    std::vector<float> v;
    for (int64_t c = 0; c < z; ++c) {
        for (int64_t h = 0; h < 3; ++h) {
            for (int64_t w = 0; w < 3; ++w) {
                v.push_back(static_cast<float>(100 * c + 10 * h + w));
            }
        }
    }
    return v;
}

TEST(DlpFormat, ThreeByThreeByFourIsThirtySixValues) {
    // C = N = 4: N values along z, then x, then y.
    const ActShape s{4, 3, 3};
    const ConvFormat f{4, 4, true};
    EXPECT_EQ(dlp::conv_ddr_elements(s, f), 36u);  // 3·3·⌈4/4⌉·4
    const std::vector<float> want = {0, 100, 200, 300, 10, 110, 210, 310, 20, 120, 220, 320,
                                     1, 101, 201, 301, 11, 111, 211, 311, 21, 121, 221, 321,
                                     2, 102, 202, 302, 12, 112, 212, 312, 22, 122, 222, 322};
    EXPECT_EQ(dlp::to_ddr_conv(labelled(4).data(), s, f), want);
}

TEST(DlpFormat, FiveChannelsWithFourThreadsAreSeventyTwo) {
    // 3x3x5, C = N = 4: channel 4 starts the second N·X·Y block; its lanes 1..3 are zero
    // (the three padded 3x3 planes).
    const ActShape s{5, 3, 3};
    const ConvFormat f{4, 4, true};
    EXPECT_EQ(dlp::conv_ddr_elements(s, f), 72u);  // 3·3·⌈5/4⌉·4
    const std::vector<float> ddr = dlp::to_ddr_conv(labelled(5).data(), s, f);
    for (size_t p = 0; p < 9; ++p) {
        const float x = static_cast<float>(p % 3), y = static_cast<float>(p / 3);
        EXPECT_EQ(ddr[36 + 4 * p], 400 + 10 * x + y) << p;
        EXPECT_EQ(ddr[36 + 4 * p + 1], 0);
        EXPECT_EQ(ddr[36 + 4 * p + 3], 0);
    }
    EXPECT_EQ(dlp::from_ddr_conv(ddr.data(), ddr.size(), s, f), labelled(5));  // padding removed
}

TEST(DlpFormat, ThreeThreadsPadAfterEveryThirdChannel) {
    // C = 3, N = 4, Z = 4: a zero plane after channel 2 (lane 3 of block 0) and three after
    // channel 3 (lanes 1..3 of block 1): 3x3x4 becomes 3x3x8, 72 values.
    const ActShape s{4, 3, 3};
    const ConvFormat f{3, 4, true};
    EXPECT_EQ(dlp::conv_ddr_elements(s, f), 72u);  // 3·3·⌈4/3⌉·4
    const std::vector<float> ddr = dlp::to_ddr_conv(labelled(4).data(), s, f);
    const std::vector<float> first = {0, 100, 200, 0, 10, 110, 210, 0};  // pixels (0,0), (1,0)
    EXPECT_EQ(std::vector<float>(ddr.begin(), ddr.begin() + 8), first);
    const std::vector<float> second = {300, 0, 0, 0, 310, 0, 0, 0};  // block 1
    EXPECT_EQ(std::vector<float>(ddr.begin() + 36, ddr.begin() + 44), second);
    EXPECT_EQ(dlp::from_ddr_conv(ddr.data(), ddr.size(), s, f), labelled(4));
}

TEST(DlpFormat, SpatialAxisSwitch) {
    // x = columns instead: pixel (h, w) = (1, 0) is the 4th word (y·X + x = 1·3 + 0) instead of
    // the 2nd.
    const ActShape s{4, 3, 3};
    EXPECT_EQ(dlp::conv_ddr_index(s, {4, 4, true}, 0, 1, 0), 4u);
    EXPECT_EQ(dlp::conv_ddr_index(s, {4, 4, false}, 0, 1, 0), 12u);
    EXPECT_EQ(dlp::conv_ddr_index(s, {4, 4, false}, 2, 0, 1), 6u);
}

TEST(DlpFormat, RoundTripsOnOddShapesForEveryThreadNumber) {
    std::mt19937 rng(4);
    for (unsigned ctn : {4u, 9u, 16u, 25u, 36u, 49u, 64u}) {
        dlp::DlpConfig cfg;
        cfg.conv_thread_number = ctn;
        const ConvFormat f{cfg.threads_c(), cfg.transfer_n(), (ctn & 1) != 0};
        const ActShape s{static_cast<int64_t>(1 + rng() % 23), static_cast<int64_t>(1 + rng() % 9),
                         static_cast<int64_t>(1 + rng() % 11)};
        std::vector<int8_t> a(static_cast<size_t>(s.z * s.h * s.w));
        for (int8_t& v : a) {
            v = static_cast<int8_t>(rng());
        }
        const std::vector<int8_t> ddr = dlp::to_ddr_conv(a.data(), s, f);
        ASSERT_EQ(ddr.size(), static_cast<size_t>(s.h * s.w * ((s.z + f.c - 1) / f.c) * f.n));
        EXPECT_EQ(dlp::from_ddr_conv(ddr.data(), ddr.size(), s, f), a) << ctn;
        // Every padding lane is zero: the count of lanes >= C.
        size_t zeros = 0;
        for (size_t i = 0; i < ddr.size(); ++i) {
            zeros += (i % f.n) >= f.c ? 1u : 0u;
            if ((i % f.n) >= f.c) {
                ASSERT_EQ(ddr[i], 0);
            }
        }
        EXPECT_EQ(zeros, ddr.size() / f.n * (f.n - f.c));
    }
}

TEST(DlpFormat, FullyConnectedPadsToTheThreadNumber) {
    const std::vector<float> v = {1, 2, 3, 4, 5, 6};  // six output features, 4 threads -> 8
    const std::vector<float> ddr = dlp::to_ddr_fc(v.data(), v.size(), 4);
    EXPECT_EQ(ddr, (std::vector<float>{1, 2, 3, 4, 5, 6, 0, 0}));
    EXPECT_EQ(dlp::from_ddr_fc(ddr.data(), ddr.size(), 6), v);
    EXPECT_EQ(dlp::fc_ddr_elements(8, 4), 8u);
    const std::vector<uint8_t> b = dlp::ddr_bytes(std::vector<float>{1.0f});
    EXPECT_EQ(b, (std::vector<uint8_t>{0x00, 0x00, 0x80, 0x3f}));  // little-endian IEEE 1.0
}

TEST(DlpFormat, ShortImagesAreRefused) {
    const std::vector<float> ddr(10);
    try {
        dlp::from_ddr_conv(ddr.data(), ddr.size(), {4, 3, 3}, {4, 4, true});
        FAIL();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "DL processor format: the DDR image holds 10 values, a 4x3x3 activation "
                     "with C = 4, N = 4 needs 36");
    }
}

}  // namespace
}  // namespace npu::test
