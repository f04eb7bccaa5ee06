// KL730 layouts: worked examples from the layout tables, the 16-bit splits of known values,
// round trips and agreement with the documentation's per-element algorithm for every layout over
// odd shapes, the documentation's two traps, and the exact errors for bad input.
#include <cmath>
#include <functional>
#include <random>
#include <set>

#include <gtest/gtest.h>

#include "models/kl730/kl730_layout.h"
#include "sim/core/error.h"
#include "tests/models/kl730/kl730_reference.h"

namespace npu::test {
namespace {

using kl730::Layout;

size_t byte_at(const kl730::TensorInfo& t, int64_t c, int64_t h, int64_t w) {
    return kl730::place(t, {0, c, h, w}).byte;
}

TEST(Kl730Layout, OneW16CEightBitAcrossTwoChannelGroupsWorkedByHand) {
    // 1x32x1x2: W = 2, two channel groups. Outer groups (1W16C8B since PLUS 3.1.0): byte =
    // (c >> 4)·(16·H·W) + (h·W + w)·16 + (c & 15): all pixels of group 0 (bytes 0..31), then
    // group 1 (32..63).
    const kl730::TensorInfo outer = kl730::make_info(Layout::L1W16C8B, {1, 32, 1, 2}, {{1, 0}});
    EXPECT_EQ(outer.stride_npu, (std::vector<int64_t>{32, 1, 32, 16}));
    EXPECT_EQ(byte_at(outer, 0, 0, 0), 0u);
    EXPECT_EQ(byte_at(outer, 15, 0, 0), 15u);
    EXPECT_EQ(byte_at(outer, 0, 0, 1), 16u);
    EXPECT_EQ(byte_at(outer, 16, 0, 0), 32u);
    EXPECT_EQ(byte_at(outer, 17, 0, 1), 49u);
    EXPECT_EQ(kl730::npu_bytes(outer), 64u);
    // Inner groups (1W16C8B_CH_COMPACT, v3.0.0's "1W16C8B"): byte = (h·W + w)·32 + c: both
    // groups of pixel 0 first.
    const kl730::TensorInfo inner =
        kl730::make_info(Layout::L1W16C8B_CH_COMPACT, {1, 32, 1, 2}, {{1, 0}});
    EXPECT_EQ(byte_at(inner, 16, 0, 0), 16u);
    EXPECT_EQ(byte_at(inner, 0, 0, 1), 32u);
    EXPECT_EQ(byte_at(inner, 17, 0, 1), 49u);
}

TEST(Kl730Layout, OtherTablesWorkedByHand) {
    // 4W4C8B, 1x3x2x5: W4 = 8, byte = (h·8 + w)·4 + c
    EXPECT_EQ(byte_at(kl730::make_info(Layout::L4W4C8B, {1, 3, 2, 5}, {{1, 0}}), 2, 1, 4), 50u);
    // 16W1C8B, 1x2x3x20: W16 = 32, byte = (c·3 + h)·32 + w
    EXPECT_EQ(byte_at(kl730::make_info(Layout::L16W1C8B, {1, 2, 3, 20}, {{1, 0}}), 1, 2, 19), 179u);
    // 8W1C16B, 1x2x2x9: W8 = 16, element (c·2 + h)·16 + w, two bytes each
    EXPECT_EQ(byte_at(kl730::make_info(Layout::L8W1C16B, {1, 2, 2, 9}, {{1, 0}}), 1, 1, 8), 112u);
    // 16W1C8BHL, 1x1x1x20: position w; w = 17 -> low (17 >> 4)·32 + 1 = 33, high 49
    const kl730::Place p =
        kl730::place(kl730::make_info(Layout::L16W1C8BHL, {1, 1, 1, 20}, {{1, 0}}), {0, 0, 0, 17});
    EXPECT_EQ(p.byte, 33u);
    EXPECT_EQ(p.high_byte, 49u);
    EXPECT_EQ(p.entry, 2u);
    EXPECT_EQ(p.lane, 1u);
    // HW4C8B_DROP_A, 1x3x2x3 (no width alignment): byte = (h·3 + w)·4 + c
    EXPECT_EQ(byte_at(kl730::make_info(Layout::HW4C8B_DROP_A, {1, 3, 2, 3}, {{1, 0}}), 2, 1, 2),
              22u);
}

TEST(Kl730Layout, SixteenBitSplitsOfKnownValues) {
    uint8_t lo = 0, hi = 0;
    kl730::hl_split(0x1234, lo, hi);  // u = 0x1234 >> 1 = 0x091a: low 0x1a, high 0x12
    EXPECT_EQ(lo, 0x1a);
    EXPECT_EQ(hi, 0x12);
    EXPECT_EQ(kl730::hl_merge(lo, hi), 0x1234);
    kl730::hl_split(-3, lo, hi);  // 0xfffd >> 1 = 0x7ffe: low 0x7e, high 0xff
    EXPECT_EQ(lo, 0x7e);
    EXPECT_EQ(hi, 0xff);
    EXPECT_EQ(kl730::hl_merge(lo, hi), -4);        // the LSB is lost
    EXPECT_EQ(kl730::hl_merge(0xff, 0x00), 0xfe);  // bit 7 of the low byte is ignored
    // HW1C16B_BE: the high byte first; LE: low first. 0x1234 = 4660 at pixel (0, 1).
    const std::vector<float> x = {0, 4660};
    const std::vector<uint8_t> be =
        kl730::to_npu(kl730::make_info(Layout::HW1C16B_BE, {1, 1, 1, 2}, {{1, 0}}), x.data(), 2);
    EXPECT_EQ(be[2], 0x12);
    EXPECT_EQ(be[3], 0x34);
    const std::vector<uint8_t> le =
        kl730::to_npu(kl730::make_info(Layout::HW1C16B_LE, {1, 1, 1, 2}, {{1, 0}}), x.data(), 2);
    EXPECT_EQ(le[2], 0x34);
    EXPECT_EQ(le[3], 0x12);
    // 8W1C16B drops the LSB: 4661 is stored as 4660.
    const std::vector<float> odd = {4661};
    const std::vector<uint8_t> w16 =
        kl730::to_npu(kl730::make_info(Layout::L8W1C16B, {1, 1, 1, 1}, {{1, 0}}), odd.data(), 1);
    EXPECT_EQ(w16[0] | (w16[1] << 8), 4660);
}

TEST(Kl730Layout, QuantizationRoundsHalfToEvenAndClips) {
    const kl730::TensorInfo t = kl730::make_info(Layout::RAW_8B, {1, 1, 1, 6}, {{1, 0}});
    const std::vector<float> x = {0.5f, 1.5f, 2.5f, -0.5f, 200.0f, -1000.0f};
    const std::vector<int32_t> q =
        kl730::to_onnx_fixed(t, kl730::to_npu(t, x.data(), 6).data(), 16);
    EXPECT_EQ(q, (std::vector<int32_t>{0, 2, 2, 0, 127, -128}));
    // scale 0.75, radix 3: factor 6; 1.25 · 6 = 7.5 -> 8; back 8 / 6
    const kl730::TensorInfo s = kl730::make_info(Layout::RAW_8B, {1, 1, 1, 1}, {{0.75f, 3}});
    const float y = 1.25f;
    const std::vector<float> back = kl730::to_onnx(s, kl730::to_npu(s, &y, 1).data(), 16);
    EXPECT_EQ(back[0], 8.0f / 6.0f);
}

TEST(Kl730Layout, PerChannelQuantizationFollowsTheAxis) {
    // x = 1 everywhere, factors 1, 2, 3 along axis 1 (channels): q = channel + 1 at every pixel,
    // whatever the other axes (the correct broadcast, not PLUS < 3.2.0's stride).
    const kl730::TensorInfo t =
        kl730::make_info(Layout::L1W16C8B_CH_COMPACT, {1, 3, 2, 3}, {{1, 0}, {2, 0}, {3, 0}}, 1);
    const std::vector<float> x(18, 1.0f);
    const std::vector<int32_t> q =
        kl730::to_onnx_fixed(t, kl730::to_npu(t, x.data(), 18).data(), kl730::npu_bytes(t));
    for (size_t i = 0; i < 18; ++i) {
        EXPECT_EQ(q[i], static_cast<int32_t>(i / 6 + 1)) << i;
    }
}

// Shapes each layout can hold, with C and W that are not multiples of 4, 8 or 16.
std::vector<int64_t> odd_shape(Layout l) {
    switch (l) {
    case Layout::L4W4C8B:
    case Layout::L4W4C8BHL:
    case Layout::HW4C8B_KEEP_A: return {1, 3, 5, 7};
    case Layout::HW4C8B_DROP_A: return {1, 3, 4, 9};
    case Layout::HW1C8B:
    case Layout::HW1C16B_LE:
    case Layout::HW1C16B_BE: return {1, 1, 3, 13};
    case Layout::L1W16C8B:
    case Layout::L1W16C8BHL: return {1, 37, 3, 5};
    default: return {1, 19, 3, 9};
    }
}

TEST(Kl730Layout, EveryLayoutMatchesTheDocumentedAlgorithmAndRoundTrips) {
    std::mt19937 rng(23);
    std::uniform_real_distribution<float> u(-3.0f, 3.0f);
    for (Layout l : kl730::all_layouts()) {
        const std::vector<int64_t> shape = odd_shape(l);
        const bool per_channel = l != Layout::HW1C8B && shape[1] > 1;
        std::vector<kl730::QuantParam> q;
        const kl730::Storage st = kl730::storage_of(l);
        const bool wide = st != kl730::Storage::int8;
        for (int64_t c = 0; c < (per_channel ? shape[1] : 1); ++c) {
            q.push_back({0.5f + 0.25f * static_cast<float>(c % 3), wide ? 10 : 4});
        }
        const kl730::TensorInfo t = kl730::make_info(l, shape, q, per_channel ? 1 : -1);
        std::vector<float> x(static_cast<size_t>(shape[0] * shape[1] * shape[2] * shape[3]));
        for (float& v : x) {
            v = u(rng);
        }
        const std::vector<uint8_t> npu = kl730::to_npu(t, x.data(), x.size());
        ASSERT_EQ(npu, kl730_reference_to_npu(t, x)) << kl730::layout_name(l);
        // Every element lands on its own byte(s).
        std::set<size_t> bytes;
        for (int64_t c = 0; c < shape[1]; ++c) {
            for (int64_t h = 0; h < shape[2]; ++h) {
                for (int64_t w = 0; w < shape[3]; ++w) {
                    ASSERT_TRUE(bytes.insert(kl730::place(t, {0, c, h, w}).byte).second)
                        << kl730::layout_name(l);
                }
            }
        }
        // Back to ONNX: the quantized values (16-bit: without their LSB, as stored).
        const std::vector<float> back = kl730::to_onnx(t, npu.data(), npu.size());
        for (size_t i = 0; i < x.size(); ++i) {
            const size_t c = per_channel ? i / static_cast<size_t>(shape[2] * shape[3]) : 0;
            const float f = q[c].scale * std::ldexp(1.0f, q[c].radix);
            float want = x[i];  // RAW_FLOAT keeps the value (x · f / f)
            if (st != kl730::Storage::float32) {
                auto fixed = static_cast<int32_t>(std::nearbyint(x[i] * f));
                if (st == kl730::Storage::int16 || st == kl730::Storage::hl) {
                    fixed &= ~1;
                }
                want = static_cast<float>(fixed) / f;
            }
            ASSERT_FLOAT_EQ(back[i], want) << kl730::layout_name(l) << " element " << i;
        }
    }
}

TEST(Kl730Layout, OuterGroupStrideSubtractsSixteenOnce) {
    // The documentation's Python subtracts 16 twice: its group stride for 1x32x1x2 would be 0, and
    // channel 16 of pixel 0 would collide with channel 0 of pixel 1 (both byte 16).
    const kl730::TensorInfo t = kl730::make_info(Layout::L1W16C8B, {1, 32, 1, 2}, {{1, 0}});
    const int64_t once = 32 - 16, twice = 32 - 16 - 16;
    EXPECT_EQ(byte_at(t, 16, 0, 0), static_cast<size_t>(16 + once));
    EXPECT_EQ(16 + twice, 16);  // the collision the double subtraction causes
    EXPECT_NE(byte_at(t, 16, 0, 0), byte_at(t, 0, 0, 1));
}

TEST(Kl730Layout, TheV310Rename) {
    // PLUS 3.1.0: 1W16C8B (enum 2) is the outer-group layout; the old 1W16C8B is
    // 1W16C8B_CH_COMPACT (enum 11). Names parse to the current meaning.
    EXPECT_EQ(kl730::parse_layout("1W16C8B"), Layout::L1W16C8B);
    EXPECT_EQ(static_cast<int>(Layout::L1W16C8B), 2);
    EXPECT_EQ(kl730::parse_layout("KP_MODEL_TENSOR_DATA_LAYOUT_1W16C8B_CH_COMPACT"),
              Layout::L1W16C8B_CH_COMPACT);
    EXPECT_EQ(static_cast<int>(Layout::L1W16C8B_CH_COMPACT), 11);
    EXPECT_EQ(kl730::parse_layout("1w16c8bhl"), Layout::L1W16C8BHL);
    EXPECT_EQ(static_cast<int>(Layout::L1W16C8BHL_CH_COMPACT), 12);
}

std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const sim::Error& e) {
        return e.what();
    }
    return "no error";
}

TEST(Kl730Layout, BadInputIsAClearError) {
    EXPECT_EQ(error_of([] { kl730::parse_layout("2W8C8B"); }),
              "KL730 layout: unknown layout '2W8C8B', expected one of 4W4C8B, 1W16C8B, 16W1C8B, "
              "8W1C16B, 4W4C8BHL, 1W16C8BHL, 16W1C8BHL, RAW_8B, RAW_16B, RAW_FLOAT, "
              "1W16C8B_CH_COMPACT, 1W16C8BHL_CH_COMPACT, HW4C8B_KEEP_A, HW4C8B_DROP_A, HW1C8B, "
              "HW1C16B_LE, HW1C16B_BE");
    EXPECT_EQ(error_of([] {
                  kl730::make_info(Layout::L4W4C8B, {1, 5, 2, 2}, {{1, 0}});
              }),
              "KL730 layout: 4W4C8B holds at most 4 channels, the shape has 5");
    EXPECT_EQ(error_of([] {
                  kl730::make_info(Layout::RAW_8B, {1, 2}, {{1, 40}});
              }),
              "KL730 layout: radix 40 (parameter 0) is out of range -31..31");
    EXPECT_EQ(error_of([] {
                  kl730::make_info(Layout::RAW_8B, {1, 3}, {{1, 0}, {1, 0}}, 1);
              }),
              "KL730 layout: 2 quantization parameters, expected 1 or 3 (shape[1])");
    kl730::TensorInfo t = kl730::make_info(Layout::L16W1C8B, {1, 2, 2, 2}, {{1, 0}});
    t.stride_npu.pop_back();
    EXPECT_EQ(error_of([&] { kl730::validate(t); }),
              "KL730 layout: shape has 4 dimensions but stride_onnx has 4 and stride_npu 3");
    const kl730::TensorInfo ok = kl730::make_info(Layout::L16W1C8B, {1, 2, 2, 2}, {{1, 0}});
    const std::vector<uint8_t> small(20);
    EXPECT_EQ(error_of([&] { kl730::to_onnx(ok, small.data(), small.size()); }),
              "KL730 layout: the NPU buffer holds 20 bytes, layout 16W1C8B with this shape needs "
              "64");  // last position 1·32 + 1·16 + 1 = 49: 50 bytes -> 4 entries
    const std::vector<float> few(3);
    EXPECT_EQ(error_of([&] { kl730::to_npu(ok, few.data(), few.size()); }),
              "KL730 layout: the ONNX buffer holds 3 elements, the shape and stride_onnx need 8");
}

}  // namespace
}  // namespace npu::test
