// The DL processor's compiler and estimator: the memory map of a small network, instruction
// records round trip, a layer's cycles worked by hand from the cost formulas and the bus model,
// and network errors with their messages.
#include <random>

#include <gtest/gtest.h>

#include "models/dlp/dlp_cost.h"
#include "models/dlp/dlp_exec.h"
#include "platforms/dlp/dlp_compiler.h"
#include "platforms/dlp/dlp_estimate.h"
#include "platforms/dlp/dlp_job.h"
#include "sim/core/config.h"
#include "sim/core/error.h"

namespace npu::test {
namespace {

using namespace dlp;

struct Loaded {
    DlpPlatformConfig platform;
    NetworkFile file;
};

Loaded load(const std::string& network_yaml, const char* platform = "dlp_zcu102_single.yaml") {
    auto pdoc =
        sim::ConfigDocument::load_file(std::string(NPUSIM_SOURCE_DIR "/configs/") + platform);
    Loaded l;
    l.platform = read_dlp_platform(pdoc.root().child("platform"));
    pdoc.finish();
    auto ndoc = sim::ConfigDocument::parse(network_yaml, "net.yaml");
    l.file = read_network(ndoc.root().child("network"));
    ndoc.finish();
    check_network(l.file.network, l.platform.dlp);
    fill_parameters(l.file.network, l.platform.dlp, l.file.seed);
    return l;
}

const char* kTiny = R"(network:
  name: tiny
  input: {channels: 3, height: 32, width: 32}
  layers:
    - {name: conv1, type: conv, out_channels: 8, kernel: 3, padding: 1, activation: relu,
       pool: max, pool_size: 2, pool_stride: 2}
    - {name: fc1, type: fc, out_features: 10}
)";

TEST(DlpCompiler, MemoryMapOfASmallNetwork) {
    Loaded l = load(kTiny);
    const Program p = compile(l.file.network, l.platform.dlp);
    // Input 32x32x3 in conv format with C = N = 4: 32·32·⌈3/4⌉·4 floats = 16384 B. Output: fc 10
    // padded to 12 floats = 48 B -> 64. Scheduler: conv1's 16x16x8 image, 16·16·2·4 floats =
    // 8192 B. Instructions 2 · 128 B. Conv weights 8·3·9 floats = 864 -> 896 B, bias 32 -> 64 B.
    ASSERT_EQ(p.map.size(), 8u);
    EXPECT_EQ(p.map[0].name, "InputDataOffset");
    EXPECT_EQ(p.map[0].addr, 0x80000000u);
    EXPECT_EQ(p.map[0].size, 16384u);
    EXPECT_EQ(p.map[1].addr, 0x80004000u);  // OutputResultOffset, 4 KiB aligned
    EXPECT_EQ(p.map[1].size, 64u);
    EXPECT_EQ(p.map[2].size, 8192u);                // SchedulerDataOffset
    EXPECT_EQ(p.map[4].size, 256u);                 // InstructionDataOffset
    EXPECT_EQ(p.map[5].size, 960u);                 // ConvWeightDataOffset
    EXPECT_EQ(p.map[6].size, 2048u * 10 * 4 + 64);  // fc 2048x10 floats, bias 40 B -> 64
    EXPECT_EQ(p.map[7].name, "EndOffset");
    EXPECT_EQ(p.instructions.size(), 256u);
    EXPECT_NE(p.table().find("InputDataOffset                0x80000000           16 KiB"),
              std::string::npos)
        << p.table();
}

TEST(DlpCompiler, RecordsRoundTrip) {
    Loaded l = load(kTiny);
    const Program p = compile(l.file.network, l.platform.dlp);
    for (size_t i = 0; i < p.records.size(); ++i) {
        Record back;
        ASSERT_EQ(decode(p.instructions.data() + i * kRecordBytes, back), "");
        const Record& r = p.records[i];
        EXPECT_EQ(back.layer.kind, r.layer.kind);
        EXPECT_EQ(back.last, i + 1 == p.records.size());
        EXPECT_EQ(back.place.input_addr, r.place.input_addr);
        EXPECT_EQ(back.place.output_addr, r.place.output_addr);
        EXPECT_EQ(back.place.weight_addr, r.place.weight_addr);
        EXPECT_EQ(back.layer.out.z, r.layer.out.z);
        if (r.layer.kind == LayerKind::conv) {
            EXPECT_EQ(back.layer.conv.kernel_h, 3);
            EXPECT_EQ(back.layer.conv.pool, PoolType::max);
            EXPECT_EQ(back.layer.conv.in_c, 3);
        } else {
            EXPECT_EQ(back.layer.fc.in, 8 * 16 * 16);
            EXPECT_EQ(back.layer.fc.out, 10);
        }
    }
    std::array<uint8_t, kRecordBytes> bad = encode(p.records[0]);
    bad[4] = 9;
    Record r;
    EXPECT_EQ(decode(bad.data(), r),
              "record kind is 9, expected 1 (conv), 2 (fc), 3 (add), 4 (multiply), 5 (pool) or 6 "
              "(concat)");
}

TEST(DlpCompiler, ConvLayerCyclesWorkedByHand) {
    // conv1 on zcu102_single (C = N = 4; 512-bit AXI: 64 B beats, bursts of up to 256 beats
    // split at 4 KiB, 58 cycles latency each; the constants of docs/dlp.md "Timing"):
    // compute: 32·32 windows · 1 pass (3x3) · ⌈3/4⌉·⌈8/4⌉ = 2048 cycles.
    // input 16384 B from 0x80000000: 256 beats in 4 pieces of 4 KiB, 1 burst each:
    //   256 + 4·58 = 488; weights 864 B: 14 beats + 58 = 72; bias 32 B: 1 + 58 = 59;
    // output 16x16x8 = 8192 B: 128 + 2·58 = 244.
    // overhead: conv set-up 6975 + the network's start 2167 (the first layer), one tile.
    // total 9142 + 2048 + 488 + 131 + 244 = 12053 (compute and transfers add up).
    Loaded l = load(kTiny);
    const Program p = compile(l.file.network, l.platform.dlp);
    const LayerCost c = layer_cost(l.file.network.layers[0], p.records[0].place, l.platform.dlp,
                                   l.platform.timing, true);
    EXPECT_EQ(c.compute_cycles, 2048u);
    EXPECT_EQ(c.read_cycles, 488u);
    EXPECT_EQ(c.weight_cycles, 131u);
    EXPECT_EQ(c.write_cycles, 244u);
    EXPECT_EQ(c.overhead_cycles, 6975u + 2167);
    EXPECT_EQ(c.total_cycles, 12053u);
    // fc1: 2048 inputs x 10 outputs on 4 threads: 5120 compute cycles; input (conv format)
    // 8192 B: 128 + 2·58 = 244; weights 81920 B: 1280 beats in 20 pieces of 4 KiB -> 1280 +
    // 20·58 = 2440, bias 40 B: 1 + 58; output 48 B: 1 + 58. fc set-up 24.
    const LayerCost f = layer_cost(l.file.network.layers[1], p.records[1].place, l.platform.dlp,
                                   l.platform.timing, false);
    EXPECT_EQ(f.compute_cycles, 5120u);
    EXPECT_EQ(f.total_cycles, 24u + 5120 + 244 + 2440 + 59 + 59);
    const NetworkEstimate e = estimate(l.file.network, p, l.platform.dlp, l.platform.timing);
    EXPECT_EQ(e.frame_cycles, c.total_cycles + f.total_cycles);
    EXPECT_DOUBLE_EQ(e.frames_per_second(), 200e6 / static_cast<double>(e.frame_cycles));
}

std::string error_of(const std::string& yaml) {
    try {
        load(yaml);
    } catch (const sim::Error& e) {
        return e.what();
    }
    return "no error";
}

TEST(DlpCompiler, BadNetworksAreNamed) {
    EXPECT_EQ(error_of(R"(network:
  name: n
  input: {channels: 3, height: 8, width: 8}
  layers:
    - {name: c, type: conv, out_channels: 4, kernel: 9}
)"),
              "n: layer 0 (c): conv layer: kernel_h is 9, expected 1..7; kernel_w is 9, expected "
              "1..7");
    EXPECT_EQ(error_of(R"(network:
  name: n
  input: {channels: 3, height: 8, width: 8}
  layers:
    - {name: a, type: conv, out_channels: 4, padding: 1}
    - {name: b, type: conv, out_channels: 8, padding: 1}
    - {name: s, type: add, inputs: [a, b]}
)"),
              "n: layer 2 (s): operands 4x8x8 and 8x8x8 differ");
    // batch_norm is folded into float weights: an int8 platform refuses it.
    try {
        load(R"(network:
  name: n
  input: {channels: 3, height: 8, width: 8}
  layers:
    - {name: c, type: conv, out_channels: 2, batch_norm: {gamma: [1, 1], beta: [0, 0],
       mean: [0, 0], variance: [1, 1]}}
)",
             "dlp_zcu102_int8.yaml");
        ADD_FAILURE();
    } catch (const sim::Error& e) {
        EXPECT_STREQ(e.what(),
                     "n: layer 0 (c): batch_norm needs processor_data_type single (fold "
                     "it before quantizing)");
    }
    const std::string unknown = error_of(R"(network:
  name: n
  input: {channels: 3, height: 8, width: 8}
  layers:
    - {name: s, type: add, inputs: [input, nope]}
)");
    EXPECT_NE(unknown.find("network.layers[0].inputs: no earlier layer named 'nope'"),
              std::string::npos)
        << unknown;
}

TEST(DlpCompiler, MutatedRecordsDecodeOrFailCleanly) {
    // The processor decodes records from DDR: any bytes give a record it can run, or one error
    // string; a runnable record's layer gives its output image or one sim::Error.
    Loaded l = load(kTiny);
    const Program p = compile(l.file.network, l.platform.dlp);
    std::mt19937 rng(77);
    int decoded = 0, refused = 0;
    for (int t = 0; t < 3000; ++t) {
        std::array<uint8_t, kRecordBytes> b = encode(p.records[static_cast<size_t>(t % 2)]);
        for (int e = 0; e < 1 + t % 3; ++e) {
            b[rng() % kRecordBytes] = static_cast<uint8_t>(rng());
        }
        Record r;
        std::string why = decode(b.data(), r);
        if (why.empty()) {
            why = derive_sizes(r, l.platform.dlp, 1u << 20);
        }
        if (!why.empty()) {
            ++refused;
            continue;
        }
        ++decoded;
        const std::vector<uint8_t> in(r.place.input_bytes), in2(r.place.input2_bytes),
            w(r.place.weight_bytes), bias(r.place.bias_bytes);
        try {
            const std::vector<uint8_t> out =
                execute_layer(r, l.platform.dlp, {in.data(), in2.data(), w.data(), bias.data()});
            EXPECT_EQ(out.size(), r.place.output_bytes);
        } catch (const sim::Error&) {
        }
    }
    EXPECT_GT(decoded, 500);
    EXPECT_GT(refused, 100);
}

}  // namespace
}  // namespace npu::test
