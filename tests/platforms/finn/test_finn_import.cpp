// The FINN-ONNX importer: a small TFC-like chain (two MVAUs and a LabelSelect) written as FINN
// writes it becomes the design those attributes and initializers describe; a folding config
// changes it as FINN's ApplyConfig would; every broken graph or config is one message naming
// the file, the node and the attribute or rule; mutated models import or fail cleanly.
#include <functional>
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "platforms/finn/finn_import.h"
#include "sim/core/error.h"
#include "sim/onnx/onnx_import.h"
#include "tests/fuzz/fuzz_finn_target.h"
#include "tests/platforms/finn/finn_onnx_builder.h"

namespace npu::test {
namespace {

using Edit = std::function<void(::onnx::ModelProto&)>;

// W0 [MW 8][MH 4]: w0[i][o] = (i + 2·o) % 4 − 2 (INT2); thresholds per channel {−2, 0, 2}.
// W1 [4][3]: w1[i][o] = (i + o) % 3 − 1.
std::vector<uint8_t> tiny_tfc(const Edit& edit = {}) {
    FinnBuilder b({1, 8});
    ::onnx::NodeProto* m0 = b.layer("MVAU_hls", "MVAU_hls_0");
    FinnBuilder::set(m0, "MW", 8), FinnBuilder::set(m0, "MH", 4);
    FinnBuilder::set(m0, "PE", 2), FinnBuilder::set(m0, "SIMD", 4);
    FinnBuilder::set(m0, "inputDataType", std::string("INT2"));
    FinnBuilder::set(m0, "weightDataType", std::string("INT2"));
    FinnBuilder::set(m0, "outputDataType", std::string("UINT2"));
    FinnBuilder::set(m0, "numInputVectors", std::vector<int64_t>{1});
    std::vector<int64_t> w0, t0, w1;
    for (int64_t i = 0; i < 8; ++i) {
        for (int64_t o = 0; o < 4; ++o) {
            w0.push_back((i + 2 * o) % 4 - 2);
        }
    }
    for (int c = 0; c < 4; ++c) {
        t0.insert(t0.end(), {-2, 0, 2});
    }
    b.initializer(m0, {8, 4}, w0);
    b.initializer(m0, {4, 3}, t0);
    ::onnx::NodeProto* m1 = b.layer("MVAU_hls", "MVAU_hls_1");
    FinnBuilder::set(m1, "MW", 4), FinnBuilder::set(m1, "MH", 3);
    FinnBuilder::set(m1, "PE", 1), FinnBuilder::set(m1, "SIMD", 2);
    FinnBuilder::set(m1, "inputDataType", std::string("UINT2"));
    FinnBuilder::set(m1, "weightDataType", std::string("INT2"));
    FinnBuilder::set(m1, "outputDataType", std::string("INT32"));
    FinnBuilder::set(m1, "noActivation", 1);
    for (int64_t i = 0; i < 4; ++i) {
        for (int64_t o = 0; o < 3; ++o) {
            w1.push_back((i + o) % 3 - 1);
        }
    }
    b.initializer(m1, {4, 3}, w1);
    ::onnx::NodeProto* ls = b.layer("LabelSelect_hls", "LabelSelect_hls_0");
    FinnBuilder::set(ls, "Labels", 3), FinnBuilder::set(ls, "PE", 1), FinnBuilder::set(ls, "K", 1);
    FinnBuilder::set(ls, "inputDataType", std::string("INT32"));
    FinnBuilder::set(ls, "outputDataType", std::string("UINT2"));
    if (edit) {
        edit(b.model());
    }
    return b.bytes({1, 1});
}

finn::FinnModel import(const std::vector<uint8_t>& bytes, const nlohmann::json* folding = nullptr) {
    onnx::ImportOptions o;
    o.run_checker = false;
    o.other_domains = true;
    onnx::Graph g = onnx::import_model_bytes(bytes, "tfc.onnx", o);
    if (folding != nullptr) {
        finn::apply_folding(g, *folding, "folding.json");
    }
    return finn::import_finn(g, "tfc.onnx");
}

std::string error_of(const std::vector<uint8_t>& bytes, const nlohmann::json* folding = nullptr) {
    try {
        import(bytes, folding);
    } catch (const sim::Error& e) {
        return e.what();
    }
    return "(no error)";
}

::onnx::AttributeProto* attribute(::onnx::ModelProto& m, int node, const std::string& name) {
    for (auto& a : *m.mutable_graph()->mutable_node(node)->mutable_attribute()) {
        if (a.name() == name) {
            return &a;
        }
    }
    return nullptr;
}

TEST(FinnImport, ATfcChainBecomesItsDesign) {
    const finn::FinnModel m = import(tiny_tfc());
    ASSERT_EQ(m.design.layers.size(), 3u);
    const auto& m0 = std::get<finn::Mvau>(m.design.layers[0].op);
    EXPECT_EQ(m.design.layers[0].name, "MVAU_hls_0");
    EXPECT_EQ(m0.mw, 8u);
    EXPECT_EQ(m0.pe, 2u);
    EXPECT_EQ(m0.out, finn::DataType::uint(2));
    // [MW][MH] on file, W[o][i] in the layer: W[o = 1][i = 2] = (2 + 2) % 4 − 2 = −2.
    EXPECT_EQ(m0.weights[1 * 8 + 2], -2);
    EXPECT_EQ(m0.weights[3 * 8 + 5], (5 + 6) % 4 - 2);
    ASSERT_EQ(m0.thresholds.size(), 4u);
    EXPECT_EQ(m0.thresholds[3], (std::vector<int64_t>{-2, 0, 2}));
    const auto& m1 = std::get<finn::Mvau>(m.design.layers[1].op);
    EXPECT_TRUE(m1.thresholds.empty());  // noActivation: the accumulator
    const auto& ls = std::get<finn::LabelSelectLayer>(m.design.layers[2].op);
    EXPECT_EQ(ls.labels, 3u);
    EXPECT_EQ(m.design.fifo_depths, (std::vector<uint64_t>{2, 2, 2, 2}));
    EXPECT_EQ(m.in_type, finn::DataType::sint(2));
    EXPECT_EQ(m.out_type, finn::DataType::uint(2));
    EXPECT_EQ(m.in_shape, (std::vector<int64_t>{1, 8}));
    EXPECT_EQ(m.in_elements, 8u);
    EXPECT_EQ(m.out_elements, 1u);
}

TEST(FinnImport, AFoldingConfigAndFifoNodesSetFoldingAndDepths) {
    const nlohmann::json folding = nlohmann::json::parse(R"({
        "Defaults": {"ram_style": ["block", "all"], "SIMD": [4, ["MVAU_hls"]]},
        "MVAU_hls_0": {"PE": 4, "SIMD": 8, "inFIFODepths": [16], "ram_style": "distributed"},
        "MVAU_hls_1": {"outFIFODepths": [5]}
    })");
    const finn::FinnModel m = import(tiny_tfc(), &folding);
    const auto& m0 = std::get<finn::Mvau>(m.design.layers[0].op);
    const auto& m1 = std::get<finn::Mvau>(m.design.layers[1].op);
    EXPECT_EQ(m0.pe, 4u);
    EXPECT_EQ(m0.simd, 8u);
    EXPECT_EQ(m1.simd, 4u);  // from Defaults: its own entry does not set SIMD
    EXPECT_EQ(m.design.fifo_depths, (std::vector<uint64_t>{16, 2, 5, 2}));
    // PE 4 into SIMD 4: the same words. With SIMD 2 a converter goes between, as FINN's InsertDWC.
    nlohmann::json narrow = folding;
    narrow["MVAU_hls_1"]["SIMD"] = 2;
    const finn::FinnModel c = import(tiny_tfc(), &narrow);
    ASSERT_EQ(c.design.layers.size(), 4u);
    EXPECT_TRUE(c.design.layers[1].inserted);
    EXPECT_EQ(c.design.layers[1].name, "StreamingDataWidthConverter_inserted_0");
    const auto& dwc = std::get<finn::DwcLayer>(c.design.layers[1].op);
    EXPECT_EQ(dwc.in_elements, 4u);
    EXPECT_EQ(dwc.out_elements, 2u);
    EXPECT_EQ(c.design.fifo_depths, (std::vector<uint64_t>{16, 2, 2, 5, 2}));
    // A StreamingFIFO node between the MVAUs sets that FIFO's depth.
    const auto with_fifo = tiny_tfc([](::onnx::ModelProto& model) {
        auto* g = model.mutable_graph();
        ::onnx::NodeProto fifo;
        fifo.set_op_type("StreamingFIFO_rtl");
        fifo.set_name("StreamingFIFO_rtl_0");
        fifo.set_domain("finn.custom_op.fpgadataflow.rtl");
        fifo.add_input("MVAU_hls_0_out");
        fifo.add_output("fifo_out");
        FinnBuilder::set(&fifo, "depth", 32);
        g->mutable_node(1)->set_input(0, "fifo_out");
        *g->add_node() = fifo;
        // keep chain order: move the FIFO between the MVAUs
        for (int i = g->node_size() - 1; i > 1; --i) {
            g->mutable_node()->SwapElements(i, i - 1);
        }
    });
    EXPECT_EQ(import(with_fifo).design.fifo_depths, (std::vector<uint64_t>{2, 32, 2, 2}));
}

TEST(FinnImport, FixedPointThresholdsAreOnTheRawScale) {
    // FIXED<8,4> input (raw = value · 16): thresholds 0.5 and 1.25 are raw 8 and 20; 0.3 is not
    // a multiple of 2^-4.
    auto model = [](float second) {
        FinnBuilder b({1, 2});
        ::onnx::NodeProto* t = b.layer("Thresholding_hls", "Thresholding_hls_0");
        FinnBuilder::set(t, "NumChannels", 2), FinnBuilder::set(t, "PE", 1);
        FinnBuilder::set(t, "inputDataType", std::string("FIXED<8,4>"));
        FinnBuilder::set(t, "outputDataType", std::string("UINT2"));
        b.initializer(t, {1, 2}, {0, 0});
        auto* init = b.model().mutable_graph()->mutable_initializer(0);
        init->set_float_data(0, 0.5f), init->set_float_data(1, second);
        return b.bytes({1, 2});
    };
    const finn::FinnModel m = import(model(1.25f));
    const auto& t = std::get<finn::ThresholdingLayer>(m.design.layers[0].op);
    EXPECT_EQ(t.thresholds, (finn::Thresholds{{8, 20}}));
    EXPECT_EQ(m.in_type, finn::DataType::fixed(8, 4));
    EXPECT_NE(error_of(model(0.3f)).find("thresholds value 1 is 0.3: not a multiple of 2^-4"),
              std::string::npos)
        << error_of(model(0.3f));
}

TEST(FinnImport, AnRtlWindowUsesTheRtlSchedule) {
    auto window = [](const char* op, int64_t ofm) {
        FinnBuilder b({1, 8, 8, 2});
        ::onnx::NodeProto* n = b.layer(op, "ConvolutionInputGenerator_0");
        FinnBuilder::set(n, "ConvKernelDim", std::vector<int64_t>{3, 3});
        FinnBuilder::set(n, "IFMDim", std::vector<int64_t>{8, 8});
        FinnBuilder::set(n, "OFMDim", std::vector<int64_t>{ofm, ofm});
        FinnBuilder::set(n, "IFMChannels", 2), FinnBuilder::set(n, "SIMD", 2);
        FinnBuilder::set(n, "inputDataType", std::string("UINT4"));
        return b.bytes({1, ofm, ofm, 18});
    };
    const finn::FinnModel rtl = import(window("ConvolutionInputGenerator_rtl", 6));
    const finn::FinnModel hls = import(window("ConvolutionInputGenerator_hls", 6));
    EXPECT_TRUE(std::get<finn::SwgShape>(rtl.design.layers[0].op).rtl);
    EXPECT_FALSE(std::get<finn::SwgShape>(hls.design.layers[0].op).rtl);
    // Preload: RTL (2·8 + 2 + 1)·1 = 19 words, HLS 8·3·1 = 24; then 6·max(54, 8) either way.
    EXPECT_EQ(finn::formula_cycles(rtl.design.layers[0].op), 19u + 324);
    EXPECT_EQ(finn::formula_cycles(hls.design.layers[0].op), 24u + 324);
    EXPECT_NE(error_of(window("ConvolutionInputGenerator_rtl", 5))
                  .find("OFMDim [5, 5] does not follow from IFMDim, ConvKernelDim, Stride and "
                        "Dilation (no padding): expected [6, 6]"),
              std::string::npos);
}

// A 2D StreamingMaxPool as FINN's InferStreamingMaxPool writes it, PE 1 (issue #38): FINN
// ignores PE there (whole pixels stream), and so does the importer; a single row folds by PE.
TEST(FinnImport, A2dMaxPoolIgnoresPeAsFinnDoes) {
    const auto pool = [](int64_t h, int64_t pe) {
        FinnBuilder b({1, h, 4, 8});
        ::onnx::NodeProto* n = b.layer("StreamingMaxPool_hls", "StreamingMaxPool_hls_0");
        FinnBuilder::set(n, "ImgDim", std::vector<int64_t>{h, 4});
        FinnBuilder::set(n, "PoolDim", std::vector<int64_t>{h == 1 ? 1 : 2, 2});
        FinnBuilder::set(n, "NumChannels", 8), FinnBuilder::set(n, "PE", pe);
        FinnBuilder::set(n, "dataType", std::string("UINT4"));
        return b.bytes({1, h == 1 ? 1 : h / 2, 2, 8});
    };
    const finn::FinnModel two_d = import(pool(4, 1));
    EXPECT_EQ(std::get<finn::PoolShape>(two_d.design.layers[0].op).pe, 0u);  // whole pixels
    const finn::FinnModel row = import(pool(1, 2));
    EXPECT_EQ(std::get<finn::PoolShape>(row.design.layers[0].op).pe, 2u);
    EXPECT_NE(error_of(pool(1, 3)).find("NumChannels % PE == 0"), std::string::npos);
}

TEST(FinnImport, EachBrokenGraphIsOneMessageNamingNodeAndRule) {
    const std::pair<Edit, std::string> cases[] = {
        {[](auto& m) {
             m.mutable_graph()->mutable_node(0)->mutable_attribute()->DeleteSubrange(0, 1);
         },
         "tfc.onnx: node 'MVAU_hls_0' (MVAU_hls): attribute MW is missing"},
        {[](auto& m) { attribute(m, 0, "PE")->set_i(3); },
         "tfc.onnx: node 'MVAU_hls_0' (MVAU_hls): MH % PE == 0: MH 4 is not a multiple of PE 3"},
        {[](auto& m) { attribute(m, 1, "MW")->set_i(5); },
         "tfc.onnx: node 'MVAU_hls_1' (MVAU_hls): weights have shape [4, 3], expected [MW, MH] = "
         "[5, 3]"},
        {[](auto& m) { attribute(m, 1, "inputDataType")->set_s("INT2"); },
         "tfc.onnx: node 'MVAU_hls_1' (MVAU_hls): inputDataType is INT2, but 'MVAU_hls_0' writes "
         "UINT2"},
        {[](auto& m) { attribute(m, 0, "inputDataType")->set_s("INT"); },
         "tfc.onnx: node 'MVAU_hls_0' (MVAU_hls): attribute inputDataType: "},
        {[](auto& m) { m.mutable_graph()->mutable_initializer(0)->set_float_data(3, 0.5f); },
         "tfc.onnx: node 'MVAU_hls_0' (MVAU_hls): weights value 3 is 0.5: not an integer"},
        {[](auto& m) { m.mutable_graph()->mutable_initializer(0)->set_float_data(3, 2.0f); },
         "tfc.onnx: node 'MVAU_hls_0' (MVAU_hls): weight 24 is 2: not a INT2 value"},
        {[](auto& m) {
             m.mutable_graph()->mutable_initializer(0)->set_dims(0, 4);
             m.mutable_graph()->mutable_initializer(0)->set_dims(1, 8);
         },
         "tfc.onnx: node 'MVAU_hls_0' (MVAU_hls): weights have shape [4, 8], expected [MW, MH] = "
         "[8, 4]"},
        {[](auto& m) { m.mutable_graph()->mutable_node(1)->set_op_type("FMPadding_hls"); },
         "tfc.onnx: npusim runs chains of MVAU, VVAU, Thresholding, ConvolutionInputGenerator, "
         "StreamingMaxPool, StreamingDataWidthConverter, LabelSelect and StreamingFIFO layers "
         "(domain finn.custom_op.fpgadataflow); it does not run 'MVAU_hls_1' (FMPadding_hls)"},
        {[](auto& m) { m.mutable_graph()->mutable_node(2)->set_domain(""); },
         "does not run 'LabelSelect_hls_0' (LabelSelect_hls, domain '')"},
        {[](auto& m) { m.mutable_graph()->mutable_node(2)->set_input(0, "global_in"); },
         "tfc.onnx: node 'LabelSelect_hls_0' (LabelSelect_hls): reads 'global_in', but the "
         "chain's stream so far is 'MVAU_hls_1_out': npusim runs a chain"},
        {[](auto& m) {
             m.mutable_graph()
                 ->mutable_input(0)
                 ->mutable_type()
                 ->mutable_tensor_type()
                 ->mutable_shape()
                 ->mutable_dim(1)
                 ->set_dim_value(9);
         },
         "tfc.onnx: graph input 'global_in' has shape [1, 9] (9 values), but the chain's first "
         "layer takes frames of 8"},
    };
    for (const auto& [edit, want] : cases) {
        const std::string got = error_of(tiny_tfc(edit));
        EXPECT_NE(got.find(want), std::string::npos) << "got: " << got << "\nwant: " << want;
    }
}

TEST(FinnImport, EachBrokenFoldingConfigIsOneMessage) {
    const std::pair<const char*, std::string> cases[] = {
        {R"({"MVAU_hls_9": {"PE": 1}})",
         "folding.json: MVAU_hls_9: the graph has no node of that name"},
        {R"({"MVAU_hls_0": {"PE": 1.5}})",
         "folding.json: MVAU_hls_0: PE: 1.5 is not an integer, a string or a list of integers"},
        {R"({"MVAU_hls_0": 4})", "folding.json: MVAU_hls_0: expected an object of attributes"},
        {R"({"Defaults": {"PE": 4}})",
         "folding.json: Defaults: PE: expected [value, [op types]] or [value, \"all\"]"},
        {R"([1, 2])", "folding.json: expected a JSON object of node names"},
        // Values the folding file gave are its problems, not the model's (issue #38).
        {R"({"MVAU_hls_0": {"PE": 0}})",
         "folding.json: MVAU_hls_0: attribute PE is 0, expected 1..2^32 (node 'MVAU_hls_0', "
         "MVAU_hls)"},
        {R"({"MVAU_hls_0": {"PE": -8}})",
         "folding.json: MVAU_hls_0: attribute PE is -8, expected 1..2^32"},
        {R"({"MVAU_hls_0": {"PE": "8"}})",
         "folding.json: MVAU_hls_0: attribute PE must be an integer"},
        // A rule broken by a folding value names the user's node and the rule, not a converter
        // npusim would insert after it (issue #38).
        {R"({"MVAU_hls_1": {"SIMD": 3}})",
         "tfc.onnx: node 'MVAU_hls_1' (MVAU_hls): MW % SIMD == 0: MW 4 is not a multiple of SIMD 3 "
         "(SIMD from folding.json: MVAU_hls_1)"},
        {R"({"Defaults": {"SIMD": [0, ["MVAU_hls"]]}})",
         "folding.json: Defaults: attribute SIMD is 0, expected 1..2^32 (node 'MVAU_hls_0'"},
    };
    for (const auto& [text, want] : cases) {
        const nlohmann::json f = nlohmann::json::parse(text);
        const std::string got = error_of(tiny_tfc(), &f);
        EXPECT_NE(got.find(want), std::string::npos) << "got: " << got << "\nwant: " << want;
    }
}

TEST(FinnImport, MutatedModelsImportOrFailCleanly) {
    const std::vector<uint8_t> seed = tiny_tfc();
    std::mt19937 rng(5);
    int imported = 0, refused = 0;
    for (int t = 0; t < 3000; ++t) {
        std::vector<uint8_t> b = seed;
        for (int e = 0; e < 1 + t % 4; ++e) {
            b[rng() % b.size()] = static_cast<uint8_t>(rng());
        }
        ++(fuzz::finn_model(b.data(), b.size()) == 1 ? imported : refused);
    }
    EXPECT_GT(imported, 50);  // most single-byte changes land in weights and names
    EXPECT_GT(refused, 1000);
}

// Random folding configs over the chain's nodes and FINN's attribute names, with values of every
// JSON kind and size: each imports or is one sim::Error (never a crash or another exception).
TEST(FinnImport, RandomFoldingConfigsImportOrFailCleanly) {
    const std::vector<uint8_t> model = tiny_tfc();
    const char* nodes[] = {"MVAU_hls_0", "MVAU_hls_1", "LabelSelect_hls_0", "Defaults"};
    const char* attrs[] = {"PE",
                           "SIMD",
                           "MW",
                           "MH",
                           "inFIFODepths",
                           "outFIFODepths",
                           "K",
                           "Labels",
                           "numInputVectors",
                           "inputDataType",
                           "noActivation",
                           "ActVal"};
    const nlohmann::json values[] = {0,
                                     1,
                                     2,
                                     4,
                                     -3,
                                     int64_t{1} << 40,
                                     1.5,
                                     "INT4",
                                     "",
                                     nullptr,
                                     true,
                                     nlohmann::json::array(),
                                     {2},
                                     {1, 2},
                                     {-1},
                                     nlohmann::json::object(),
                                     {"block", "all"},
                                     {4, {"MVAU_hls"}}};
    std::mt19937 rng(9);
    int imported = 0, refused = 0;
    for (int t = 0; t < 3000; ++t) {
        nlohmann::json f = nlohmann::json::object();
        for (int k = 0; k < 1 + t % 3; ++k) {
            f[nodes[rng() % 4]][attrs[rng() % 12]] = values[rng() % 18];
        }
        try {
            import(model, &f);
            ++imported;
        } catch (const sim::Error&) {
            ++refused;
        }
    }
    EXPECT_GT(imported, 100);
    EXPECT_GT(refused, 1000);
}

}  // namespace
// Folding sweep files: the mistakes a user makes, each one line naming the file and the key; then
// random files over the design's names, op types, attributes and JSON values of every kind: each
// is swept or is one sim::Error.
TEST(FinnSweepFile, MistakesAreNamedAndRandomFilesAreSweptOrRefused) {
    const std::pair<const char*, const char*> cases[] = {
        {"[1]", "s.json: expected a JSON object of layer names or op types"},
        {"{", "s.json: not JSON"},
        {R"({"MVAU_hls_9": {"PE": [1]}})",
         "s.json: MVAU_hls_9: the graph has no layer and no op type of that name"},
        {R"({"MVAU_hls_0": {"K": [1]}})", "s.json: MVAU_hls_0: K: a MVAU folds PE, SIMD"},
        {R"({"StreamingMaxPool": {"PE": [1]}})",
         "s.json: StreamingMaxPool_hls_0: PE: a StreamingMaxPool folds nothing"},
        {R"({"MVAU": {"PE": [0]}})", "s.json: MVAU_hls_0: PE: 0 is not an integer from 1 to 2^20"},
        {R"({"MVAU": {"PE": [2, 2]}})", "s.json: MVAU_hls_0: PE: 2 is given twice"},
        {R"({"MVAU": {"PE": "some"}})",
         "s.json: MVAU_hls_0: PE: expected a list of positive integers or \"all\""},
        {R"({"Thresholding": {"PE": 4}})", "expected a list of positive integers"},
        {R"({"MVAU": {"PE": "all", "SIMD": "all"}, "ConvolutionInputGenerator": {"SIMD": "all"},
             "Thresholding": {"PE": "all"}, "LabelSelect": {"PE": "all"}})",
         // 3 · 4 · 9 · 4 · 4 · 6 · 4 (the windows', MVAUs', Thresholding's, LabelSelect's
         // divisors); sweep() names no file (the command adds it)
         "the sweep has 41472 configurations; at most 20000"},
    };
    for (const auto& [text, want] : cases) {
        try {
            const std::string t(text);
            finn::sweep(fuzz::sweep_design(),
                        finn::read_sweep({t.begin(), t.end()}, fuzz::sweep_design(), "s.json"),
                        false, 20'000);
            ADD_FAILURE() << "accepted: " << text;
        } catch (const sim::Error& e) {
            EXPECT_NE(std::string(e.what()).find(want), std::string::npos)
                << "got: " << e.what() << "\nwant: " << want;
        }
    }
    const char* keys[] = {"MVAU_hls_0",
                          "MVAU",
                          "MVAU_rtl",
                          "Thresholding_hls_0",
                          "ConvolutionInputGenerator",
                          "LabelSelect_hls_0",
                          "StreamingMaxPool",
                          "x",
                          ""};
    const char* attrs[] = {"PE", "SIMD", "K", ""};
    const char* values[] = {"[1]",          "[1, 2, 4]", "\"all\"", "[0]", "[3, 5, 7, 9]",
                            "[-1]",         "[1.5]",     "\"x\"",   "{}",  "null",
                            "[4294967296]", "[]",        "[2, 2]"};
    std::mt19937 rng(11);
    int swept = 0, refused = 0;
    for (int t = 0; t < 2000; ++t) {
        std::string f = "{";
        for (int e = 0; e < 1 + t % 3; ++e) {
            f += fmt::format("{}\"{}\": {{\"{}\": {}}}", e ? ", " : "", keys[rng() % 9],
                             attrs[rng() % 4], values[rng() % 13]);
        }
        f += "}";
        const std::vector<uint8_t> b(f.begin(), f.end());
        ++(fuzz::finn_sweep(b.data(), b.size()) == 1 ? swept : refused);
    }
    EXPECT_GT(swept, 50);  // most random files have a key or value the design refuses
    EXPECT_GT(refused, 1000);
}

}  // namespace npu::test
