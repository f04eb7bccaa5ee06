// Depth concatenation on the DL processor (docs/dlp.md "Concatenation"): the inputs write their
// outputs into the concat's image, which no module copies. An Inception-style ONNX block (three
// branches, a pool among them, a nested concat, a concat as the network's output) runs on the
// timed platform equal to the ONNX reference evaluator, in time equal to its estimate; the inputs'
// addresses are the concat's plus offsets worked by hand; int8 inputs share the exponent of the
// largest; what the layout cannot hold is one message naming the layer.
#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <set>

#include "models/dlp/dlp_chain.h"
#include "models/dlp/dlp_exec.h"
#include "platforms/dlp/dlp_estimate.h"
#include "platforms/dlp/dlp_onnx.h"
#include "platforms/dlp/dlp_platform.h"
#include "platforms/dlp/dlp_quantize.h"
#include "sim/core/config.h"
#include "sim/core/error.h"
#include "sim/onnx/evaluator.h"
#include "sim/onnx/onnx_import.h"
#include "tests/platforms/dlp/dlhdl_onnx_models.h"
#include "tests/platforms/dlp/dlp_platform_config.h"
#include "tests/platforms/dlp/dlp_timed_run.h"
#include "tests/sim/tlm/sc_harness.h"

namespace npu::test {
namespace {

using namespace dlp;

std::string conv1x1(OnnxGraphBuilder& b, const std::string& x, const std::string& name,
                    int64_t in_c, int64_t out_c) {
    b.node("Conv", {x, b.random(name + "_W", {out_c, in_c, 1, 1}, -0.5f, 0.5f)}, name);
    b.node("Relu", {name}, name + "_relu");
    return name + "_relu";
}

// input 3x12x12 -> c0 (8, 3x3) -> [a: 1x1 8 | b: 3x3 4 | p: maxpool 3x3/1 of c0 (8)] -> cat1 (20)
// -> [cat1 | e: 1x1 3 of c0] -> cat2 (23), the output; or with `head`, GAP + Gemm of cat2.
std::vector<uint8_t> inception(bool head) {
    OnnxGraphBuilder b("inception", "x", {1, 3, 12, 12}, 13, 4);
    const std::string c0 = conv_bn_relu(b, "x", "c0", 3, 8);
    const std::string a = conv1x1(b, c0, "a", 8, 8);
    const std::string bb = conv_bn_relu(b, c0, "b", 8, 4);
    auto* p = b.node("MaxPool", {c0}, "p");
    OnnxGraphBuilder::set(p, "kernel_shape", std::vector<int64_t>{3, 3});
    OnnxGraphBuilder::set(p, "pads", std::vector<int64_t>{1, 1, 1, 1});
    OnnxGraphBuilder::set(b.node("Concat", {a, bb, "p"}, "cat1"), "axis", int64_t{1});
    const std::string e = conv1x1(b, c0, "e", 8, 3);
    OnnxGraphBuilder::set(b.node("Concat", {"cat1", e}, "cat2"), "axis", int64_t{-3});
    if (!head) {
        return b.bytes("cat2", {1, 23, 12, 12});
    }
    b.node("GlobalAveragePool", {"cat2"}, "gap");
    b.node("Flatten", {"gap"}, "flat");
    auto* fc = b.node("Gemm", {"flat", b.random("fc_W", {5, 23}, -0.5f, 0.5f)}, "fc");
    OnnxGraphBuilder::set(fc, "transB", int64_t{1});
    return b.bytes("fc", {1, 5});
}

size_t index_of(const Network& n, const std::string& name) {
    for (size_t i = 0; i < n.layers.size(); ++i) {
        if (n.layers[i].name == name) {
            return i;
        }
    }
    ADD_FAILURE() << "no layer " << name;
    return 0;
}

std::vector<float> sample(size_t n, uint32_t seed) {
    std::mt19937 rng(seed);
    std::vector<float> x(n);
    for (float& v : x) {
        v = std::uniform_real_distribution<float>(-1, 1)(rng);
    }
    return x;
}

class DlpConcat : public ScTest {
protected:
    // The network on the timed platform (single): its output values and the run's layers.
    std::vector<float> run_single(const NetworkFile& f, const DlpPlatformConfig& cfg,
                                  const std::vector<float>& x, const ActShape& out, bool fc) {
        CompileOptions co;
        co.ddr_base_addr = cfg.ddr_base_addr;
        const Program p = compile(f.network, cfg.dlp, co);
        DlpPlatform soc("soc", cfg);
        soc.load(p, {format_activation(x, f.network.input, cfg.dlp)}, false);
        sc_core::sc_start();
        EXPECT_TRUE(soc.result().done) << soc.result().error;
        const NetworkEstimate e = estimate(f.network, p, cfg.dlp, cfg.timing);
        uint64_t sum = 0;
        for (const LayerRun& run : soc.dlp.runs()) {
            EXPECT_EQ(run.cost.total_cycles, e.layers[run.layer].cost.total_cycles) << run.layer;
            sum += run.cost.total_cycles;
        }
        EXPECT_EQ(sum, e.total_cycles);
        if (soc.result().outputs.empty()) {
            return {};
        }
        return read_activation_single(soc.result().outputs[0].data(), out, cfg.dlp, fc);
    }

    // The block, its output the concat itself (head false) or logits of it (true): the timed
    // platform against the ONNX reference, the chain's cat1 against the reference's.
    void check_inception(bool head) {
        const DlpPlatformConfig cfg = platform("dlp_zcu102_single.yaml");
        const std::vector<float> x = sample(3 * 12 * 12, 7);
        const std::vector<uint8_t> bytes = inception(head);
        const onnx::Graph g = onnx::import_model_bytes(bytes, "inception.onnx");
        const NetworkFile f = network_from_onnx(g, "inception.onnx", cfg);
        const Layer& cat2 = f.network.layers[index_of(f.network, "cat2")];
        ASSERT_EQ(cat2.kind, LayerKind::concat);
        EXPECT_EQ(cat2.out.z, 23);
        const ActShape out = head ? ActShape{5, 1, 1} : ActShape{23, 12, 12};
        const std::vector<float> got = run_single(f, cfg, x, out, head);
        std::map<std::string, std::vector<float>> seen;  // every tensor, cat1 among them
        onnx::EvalOptions eo;
        eo.on_value = [&](const std::string& name, const onnx::Value& v) {
            seen[name] = v.f;
        };
        const auto ref = onnx::evaluate(g, {{"x", onnx::Value::floats({1, 3, 12, 12}, x)}}, eo);
        const std::vector<float>& want = ref.at(head ? "fc" : "cat2").f;
        ASSERT_EQ(got.size(), want.size());
        for (size_t i = 0; i < got.size(); ++i) {
            EXPECT_NEAR(got[i], want[i], 1e-4 * (1 + std::fabs(static_cast<double>(want[i]))))
                << (head ? "fc " : "cat2 ") << i;
        }
        // The chain (values concatenated, no layout) agrees layer by layer with the reference.
        const std::vector<std::vector<float>> v = run_chain_single(f.network, x);
        const std::vector<float>& cat1 = seen.at("cat1");
        const std::vector<float>& mine = v[index_of(f.network, "cat1")];
        ASSERT_EQ(mine.size(), cat1.size());
        for (size_t i = 0; i < cat1.size(); ++i) {
            EXPECT_NEAR(mine[i], cat1[i], 1e-4 * (1 + std::fabs(static_cast<double>(cat1[i]))))
                << i;
        }
    }
};

TEST_F(DlpConcat, AnInceptionBlockEndingInAConcatEqualsTheOnnxReferenceOnTheTimedPlatform) {
    check_inception(false);
}

TEST_F(DlpConcat, AnInceptionBlockWithAHeadEqualsTheOnnxReferenceOnTheTimedPlatform) {
    check_inception(true);
}

// int8: the quantized block on the timed platform equals the modules' arithmetic chained on CHW
// values (run_chain_int8: the concatenation as values, no layout) bit for bit.
TEST_F(DlpConcat, AnInt8BlockOnTheTimedPlatformEqualsTheChainBitForBit) {
    const DlpPlatformConfig cfg = platform("dlp_zcu102_int8.yaml");
    NetworkFile f = network_from_onnx(onnx::import_model_bytes(inception(false), "inception.onnx"),
                                      "inception.onnx", cfg);
    Network& n = f.network;
    quantize_network(n, {sample(3 * 12 * 12, 1), sample(3 * 12 * 12, 2)});
    check_network(n, cfg.dlp);
    std::vector<int8_t> q;
    for (float v : sample(3 * 12 * 12, 3)) {
        q.push_back(static_cast<int8_t>(std::clamp(
            std::round(std::ldexp(static_cast<double>(v), -n.input_exp)), -128.0, 127.0)));
    }
    DlpPlatform soc("soc", cfg);
    run_int8_frame(soc, n, cfg, q);
    ASSERT_TRUE(soc.result().done);
    const std::vector<int8_t> got =
        read_activation_int8(soc.result().outputs[0].data(), {23, 12, 12}, cfg.dlp, false);
    const std::vector<int8_t> want = run_chain_int8(n, q).back();
    EXPECT_EQ(got, want);
    EXPECT_GE(std::set<int8_t>(want.begin(), want.end()).size(), 20u);  // not all clipped
}

TEST(DlpConcatLayout, InputsWriteAtTheirOffsetsInTheConcatImage) {
    const DlpPlatformConfig cfg = platform("dlp_zcu102_single.yaml");
    const NetworkFile f = network_from_onnx(
        onnx::import_model_bytes(inception(true), "inception.onnx"), "inception.onnx", cfg);
    const Network& n = f.network;
    const Program p = compile(n, cfg.dlp);
    auto index = [&](const std::string& name) {
        return index_of(n, name);
    };
    auto out = [&](const std::string& name) {
        return p.records[index(name)].place.output_addr;
    };
    // C = 4 threads of N = 4 lanes, float32: a 12x12 map of z channels is 12·12·⌈z/4⌉·4·4 bytes.
    const uint32_t block = 12 * 12 * 4 * 4;
    EXPECT_EQ(out("a"), out("cat1"));
    EXPECT_EQ(out("b"), out("cat1") + 2 * block);  // after a's 8 channels: 2 blocks
    EXPECT_EQ(out("p"), out("cat1") + 3 * block);  // after b's 4: 1 block
    EXPECT_EQ(out("cat1"), out("cat2"));           // nested: cat1 first in cat2
    EXPECT_EQ(out("e"), out("cat2") + 5 * block);  // after cat1's 20 channels
    EXPECT_EQ(p.records[index("cat2")].place.output_bytes, 6u * block);  // ⌈23/4⌉ blocks
    EXPECT_EQ(p.records[index("cat2")].place.input_bytes, 0u);           // it reads nothing
    // The concat's record decodes as kind 6 and costs nothing.
    Record r;
    ASSERT_EQ(decode(p.instructions.data() + index("cat1") * kRecordBytes, r), "");
    EXPECT_EQ(r.layer.kind, LayerKind::concat);
    const NetworkEstimate e = estimate(n, p, cfg.dlp, cfg.timing);
    EXPECT_EQ(e.layers[index("cat1")].cost.total_cycles, 0u);
}

TEST(DlpConcatLayout, Int8InputsShareTheExponentOfTheLargest) {
    const DlpPlatformConfig cfg = platform("dlp_zcu102_int8.yaml");
    NetworkFile f = network_from_onnx(onnx::import_model_bytes(inception(false), "inception.onnx"),
                                      "inception.onnx", cfg);
    Network& n = f.network;
    std::vector<std::vector<float>> samples;
    for (uint32_t s = 0; s < 4; ++s) {
        samples.push_back(sample(3 * 12 * 12, s));
    }
    quantize_network(n, samples);
    check_network(n, cfg.dlp);
    // One exponent for all: cat2 holds cat1 and e, cat1 holds a, b and p, and the pool p keeps
    // the scale of c0; the one that holds cat2's largest magnitude (every other's is within it).
    double top = 0;
    for (const std::vector<float>& x : samples) {
        const std::vector<std::vector<float>> v = run_chain_single(n, x);
        for (float y : v.back()) {
            top = std::max(top, std::fabs(static_cast<double>(y)));
        }
    }
    const auto want = static_cast<int32_t>(std::ceil(std::log2(top / 127)));
    ASSERT_EQ(n.layers.size(), 7u);
    for (const Layer& l : n.layers) {
        EXPECT_EQ(l.quant.out_exp, want) << l.name;
    }
}

TEST(DlpConcatLayout, WhatTheLayoutCannotHoldIsOneMessageNamingTheLayer) {
    auto graph = [](int64_t first_c, bool from_input, const char* after) {
        OnnxGraphBuilder b("g", "x", {1, 4, 6, 6});
        b.node("Conv", {"x", b.random("w1", {first_c, 4, 1, 1}, -1, 1)}, "r");
        b.node("Conv", {"x", b.random("w2", {4, 4, 1, 1}, -1, 1)}, "s");
        OnnxGraphBuilder::set(b.node("Concat", {from_input ? "x" : "r", "s"}, "cat"), "axis",
                              int64_t{1});
        if (after == nullptr) {
            return b.bytes("cat", {1, first_c + 4, 6, 6});
        }
        b.node(after, {"cat"}, "act");
        return b.bytes("act", {1, first_c + 4, 6, 6});
    };
    const char* single = "dlp_zcu102_single.yaml";
    EXPECT_EQ(onnx_error_of(graph(4, false, nullptr), single), "no error");
    EXPECT_EQ(onnx_error_of(graph(2, false, nullptr), single),
              "m.onnx: Concat 'cat': input 'r' has 2 channels, not a multiple of the conv "
              "module's 4 threads: only the last input of a concat may");
    EXPECT_EQ(onnx_error_of(graph(4, true, nullptr), single),
              "m.onnx: Concat 'cat': reads the network input 'x': a concatenation holds layers' "
              "outputs (no layer writes the input into it)");
    EXPECT_NE(onnx_error_of(graph(4, false, "Relu"), single).find("cannot fuse into concat 'cat'"),
              std::string::npos);
    OnnxGraphBuilder b("g", "x", {1, 4, 6, 6});
    b.node("Conv", {"x", b.random("w1", {4, 4, 1, 1}, -1, 1)}, "r");
    auto* s = b.node("Conv", {"x", b.random("w2", {4, 4, 3, 3}, -1, 1)}, "s");
    (void)s;
    OnnxGraphBuilder::set(b.node("Concat", {"r", "s"}, "cat"), "axis", int64_t{1});
    EXPECT_EQ(onnx_error_of(b.bytes("cat", {1, 8, 6, 6}), single),
              "m.onnx: Concat 'cat': input 's' is 4x4, the first 6x6: a concat joins maps of one "
              "size");
}

TEST(DlpConcatLayout, ANetworkFileRefusesInputsTwiceAndExponentsThatDiffer) {
    const DlpConfig cfg = platform("dlp_zcu102_int8.yaml").dlp;
    auto check = [&](const char* layers) {
        auto doc = sim::ConfigDocument::parse(
            std::string("network:\n  input: {channels: 4, height: 4, width: 4}\n  layers:\n") +
                layers,
            "n.yaml");
        NetworkFile f = read_network(doc.root().child("network"));
        doc.finish();
        try {
            check_network(f.network, cfg);
        } catch (const sim::Error& e) {
            return std::string(e.what());
        }
        return std::string("no error");
    };
    const char* a = "    - {name: a, type: conv, out_channels: 4, kernel: 1, out_exp: -3}\n";
    EXPECT_EQ(check((std::string(a) +
                     "    - {name: b, type: conv, inputs: input, out_channels: 4, kernel: 1, "
                     "out_exp: -3}\n"
                     "    - {name: c, type: concat, inputs: [a, b]}\n")
                        .c_str()),
              "no error");
    EXPECT_EQ(check((std::string(a) +
                     "    - {name: b, type: conv, inputs: input, out_channels: 4, kernel: 1, "
                     "out_exp: -2}\n"
                     "    - {name: c, type: concat, inputs: [a, b]}\n")
                        .c_str()),
              "network: layer 2 (c): input 'b' is at exponent -2, the first at -3: a concat's "
              "inputs share one exponent");
    EXPECT_EQ(check((std::string(a) + "    - {name: c, type: concat, inputs: [a, a]}\n").c_str()),
              "network: layer 1 (c): input 'a' is already written into another concat (or twice "
              "into this one)");
}

}  // namespace
}  // namespace npu::test
