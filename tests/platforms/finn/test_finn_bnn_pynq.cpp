// The BNN-PYNQ topologies as FINN 0.10+ writes them after step_specialize_layers (every node
// with its _hls suffix, StreamingMaxPool with the PE 1 InferStreamingMaxPool writes, an input
// Thresholding, LabelSelect), 1- and 2-bit, with finn-examples' own folding files: they import
// unchanged; each layer's cycles equal FINN's get_exp_cycles worked out here from its
// formulas; FINN's critical path on TFC-w1a1 is the 226 cycles FINN's own estimate gives (issue
// #38); and the design's values equal an independent reference computed in this file (plain
// loops: thresholds, im2col convolutions with XNOR-popcount or integer products, 2×2 max-pool,
// top-1), on random weights and inputs.
#include <algorithm>
#include <functional>
#include <random>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "models/finn/finn_cost.h"
#include "platforms/finn/finn_import.h"
#include "platforms/finn/finn_sweep_file.h"
#include "sim/onnx/onnx_import.h"
#include "tests/platforms/finn/finn_onnx_builder.h"

namespace npu::test {
namespace {

using Values = std::vector<int64_t>;

// A network built node by node, its reference values carried along, and FINN's cycles of each
// node by FINN's formulas (with the folding given here).
class Net {
public:
    Net(int64_t h, int64_t w, int64_t c, unsigned seed)
        : m_b(h == 1 && w == 1 ? std::vector<int64_t>{1, c} : std::vector<int64_t>{1, h, w, c})
        , m_h(h)
        , m_w(w)
        , m_c(c)
        , m_rng(seed) {
        m_in.resize(static_cast<size_t>(h * w * c));
        for (int64_t& v : m_in) {
            v = static_cast<int64_t>(m_rng() % 256);  // UINT8 pixels
        }
        m_x = m_in;
    }

    // Thresholding of every element to `out_bits` (1: BINARY, 2: UINT2) at PE `pe`.
    void threshold(unsigned out_bits, int64_t pe) {
        const int64_t steps = (1 << out_bits) - 1;
        ::onnx::NodeProto* n = m_b.layer("Thresholding_hls", name("Thresholding_hls"));
        FinnBuilder::set(n, "NumChannels", m_c), FinnBuilder::set(n, "PE", pe);
        FinnBuilder::set(n, "inputDataType", type_name());
        m_type = out_bits == 1 ? "BINARY" : "UINT2";
        FinnBuilder::set(n, "outputDataType", m_type);
        FinnBuilder::set(n, "numInputVectors", vectors());
        const Values t = thresholds(m_c, steps, 0, 255);
        m_b.initializer(n, {m_c, steps}, t);
        apply_thresholds(t, steps);
        m_cycles.push_back(m_c / pe * m_h * m_w);
    }

    // A 3×3 convolution (no padding) to `cout` channels as FINN lowers it: a sliding window
    // (SIMD `swg_simd`) and an MVAU (PE, SIMD) with `wbits`-bit weights (1: XNOR-popcount on
    // BINARY inputs, or BIPOLAR weights on wider inputs) and `abits`-bit outputs.
    void conv(int64_t cout, unsigned wbits, unsigned abits, int64_t swg_simd, int64_t pe,
              int64_t simd) {
        const int64_t oh = m_h - 2, ow = m_w - 2;
        ::onnx::NodeProto* s = m_b.layer("ConvolutionInputGenerator_hls", name("SWG"));
        FinnBuilder::set(s, "ConvKernelDim", std::vector<int64_t>{3, 3});
        FinnBuilder::set(s, "IFMChannels", m_c);
        FinnBuilder::set(s, "IFMDim", std::vector<int64_t>{m_h, m_w});
        FinnBuilder::set(s, "OFMDim", std::vector<int64_t>{oh, ow});
        FinnBuilder::set(s, "SIMD", swg_simd);
        FinnBuilder::set(s, "inputDataType", type_name());
        FinnBuilder::set(s, "outputDataType", type_name());
        // FINN's HLS formula: IFM_w·K_h·C/SIMD + OFM_h·max(OFM_w·K_w·K_h·C/SIMD, IFM_w·C/SIMD).
        const int64_t f = m_c / swg_simd;
        m_cycles.push_back(m_w * 3 * f + oh * std::max(ow * 9 * f, m_w * f));
        Values cols;  // im2col rows in (ky, kx, c) order
        for (int64_t y = 0; y < oh; ++y) {
            for (int64_t x = 0; x < ow; ++x) {
                for (int64_t k = 0; k < 9; ++k) {
                    for (int64_t c = 0; c < m_c; ++c) {
                        cols.push_back(
                            m_x[static_cast<size_t>(((y + k / 3) * m_w + x + k % 3) * m_c + c)]);
                    }
                }
            }
        }
        m_x = cols;
        m_h = oh, m_w = ow, m_c *= 9;
        mvau(cout, wbits, abits, pe, simd, false);
    }

    void pool() {
        ::onnx::NodeProto* n = m_b.layer("StreamingMaxPool_hls", name("StreamingMaxPool_hls"));
        FinnBuilder::set(n, "ImgDim", std::vector<int64_t>{m_h, m_w});
        FinnBuilder::set(n, "PoolDim", std::vector<int64_t>{2, 2});
        FinnBuilder::set(n, "NumChannels", m_c);
        FinnBuilder::set(n, "PE", 1);  // as InferStreamingMaxPool writes it
        FinnBuilder::set(n, "dataType", type_name());
        m_cycles.push_back(static_cast<int64_t>(static_cast<double>(m_w * m_w) * 1.25));
        Values out;
        for (int64_t y = 0; y < m_h / 2; ++y) {
            for (int64_t x = 0; x < m_w / 2; ++x) {
                for (int64_t c = 0; c < m_c; ++c) {
                    int64_t v = INT64_MIN;
                    for (int64_t k = 0; k < 4; ++k) {
                        v = std::max(v, at((2 * y + k / 2) * m_w + 2 * x + k % 2, c));
                    }
                    out.push_back(v);
                }
            }
        }
        m_x = out, m_h /= 2, m_w /= 2;
    }

    // A fully connected MVAU over the whole (h, w, c) map; `last`: no activation (accumulators).
    void fc(int64_t mh, unsigned wbits, unsigned abits, int64_t pe, int64_t simd, bool last) {
        m_c *= m_h * m_w, m_h = m_w = 1;
        mvau(mh, wbits, abits, pe, simd, last);
    }

    void labelselect() {
        ::onnx::NodeProto* n = m_b.layer("LabelSelect_hls", name("LabelSelect_hls"));
        FinnBuilder::set(n, "Labels", m_c), FinnBuilder::set(n, "PE", 1);
        FinnBuilder::set(n, "K", 1);
        FinnBuilder::set(n, "inputDataType", type_name());
        FinnBuilder::set(n, "outputDataType", std::string("UINT8"));
        m_cycles.push_back(m_c);  // FINN: Labels / PE
        m_scores = m_x;
        m_x = {std::max_element(m_x.begin(), m_x.end()) - m_x.begin()};
    }

    finn::FinnModel import() {
        onnx::ImportOptions o;
        o.run_checker = false;
        o.other_domains = true;
        const std::vector<uint8_t> bytes = m_b.bytes({1, 1});
        return finn::import_finn(onnx::import_model_bytes(bytes, "net.onnx", o), "net.onnx");
    }
    const Values& input() const { return m_in; }
    const Values& reference() const { return m_x; }
    const Values& scores() const { return m_scores; }  // the last MVAU's accumulators
    const std::vector<int64_t>& finn_cycles() const { return m_cycles; }

private:
    std::string name(const std::string& op) { return fmt::format("{}_{}", op, m_count[op]++); }
    std::string type_name() const { return m_type; }
    std::vector<int64_t> vectors() const {
        return m_h == 1 && m_w == 1 ? std::vector<int64_t>{1} : std::vector<int64_t>{1, m_h, m_w};
    }
    int64_t at(int64_t pixel, int64_t c) const { return m_x[static_cast<size_t>(pixel * m_c + c)]; }

    // Sorted thresholds per channel in [lo, hi].
    Values thresholds(int64_t channels, int64_t steps, int64_t lo, int64_t hi) {
        Values t;
        for (int64_t c = 0; c < channels; ++c) {
            Values row;
            for (int64_t k = 0; k < steps; ++k) {
                row.push_back(lo +
                              static_cast<int64_t>(m_rng() % static_cast<uint64_t>(hi - lo + 1)));
            }
            std::sort(row.begin(), row.end());
            t.insert(t.end(), row.begin(), row.end());
        }
        return t;
    }
    void apply_thresholds(const Values& t, int64_t steps) {
        for (size_t i = 0; i < m_x.size(); ++i) {
            const auto c = static_cast<int64_t>(i) % m_c;
            int64_t n = 0;
            for (int64_t k = 0; k < steps; ++k) {
                n += m_x[i] >= t[static_cast<size_t>(c * steps + k)] ? 1 : 0;
            }
            m_x[i] = n;
        }
    }

    // MH outputs per vector of m_c inputs (m_x holds h·w vectors).
    void mvau(int64_t mh, unsigned wbits, unsigned abits, int64_t pe, int64_t simd, bool last) {
        const int64_t mw = m_c;
        const bool xnor = wbits == 1 && m_type == "BINARY";
        const std::string wtype = wbits == 1 ? (xnor ? "BINARY" : "BIPOLAR") : "INT2";
        ::onnx::NodeProto* n = m_b.layer("MVAU_hls", name("MVAU_hls"));
        FinnBuilder::set(n, "MW", mw), FinnBuilder::set(n, "MH", mh);
        FinnBuilder::set(n, "PE", pe), FinnBuilder::set(n, "SIMD", simd);
        FinnBuilder::set(n, "inputDataType", type_name());
        FinnBuilder::set(n, "weightDataType", wtype);
        FinnBuilder::set(n, "binaryXnorMode", xnor ? 1 : 0);
        FinnBuilder::set(n, "numInputVectors", vectors());
        Values w(static_cast<size_t>(mw * mh));  // [MW][MH], as on file
        for (int64_t& v : w) {
            v = wbits == 1 ? (xnor ? int64_t(m_rng() % 2) : 2 * int64_t(m_rng() % 2) - 1)
                           : int64_t(m_rng() % 4) - 2;
        }
        m_b.initializer(n, {mw, mh}, w);
        Values acc;
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (size_t v = 0; v < m_x.size() / static_cast<size_t>(mw); ++v) {
            for (int64_t o = 0; o < mh; ++o) {
                int64_t a = 0;
                for (int64_t i = 0; i < mw; ++i) {
                    const int64_t x = m_x[v * static_cast<size_t>(mw) + static_cast<size_t>(i)];
                    const int64_t wi = w[static_cast<size_t>(i * mh + o)];
                    a += xnor ? (x == wi ? 1 : 0) : x * wi;
                }
                acc.push_back(a);
                lo = std::min(lo, a), hi = std::max(hi, a);
            }
        }
        m_cycles.push_back(mh / pe * (mw / simd) * static_cast<int64_t>(acc.size()) / mh);
        m_x = acc, m_c = mh;
        if (last) {
            FinnBuilder::set(n, "noActivation", 1);
            m_type = "INT32";
            FinnBuilder::set(n, "outputDataType", m_type);
            return;
        }
        const int64_t steps = (1 << abits) - 1;
        m_type = abits == 1 ? "BINARY" : "UINT2";
        FinnBuilder::set(n, "outputDataType", m_type);
        const Values t = thresholds(mh, steps, lo, hi);
        m_b.initializer(n, {mh, steps}, t);
        apply_thresholds(t, steps);
    }

    FinnBuilder m_b;
    int64_t m_h, m_w, m_c;
    std::mt19937 m_rng;
    Values m_in, m_x, m_scores;
    std::string m_type = "UINT8";
    std::map<std::string, int> m_count;
    std::vector<int64_t> m_cycles;
};

// The design's values on the reference's input, and FINN's cycles of its own layers.
void expect_design(Net& net) {
    const finn::FinnModel m = net.import();
    EXPECT_EQ(finn::evaluate(m.design, net.input()), net.reference());
    finn::Design scores = m.design;  // up to the last MVAU: its ten accumulators
    scores.layers.pop_back();
    scores.fifo_depths.pop_back();
    EXPECT_EQ(finn::evaluate(scores, net.input()), net.scores());
    std::vector<int64_t> got;
    for (const finn::Layer& l : m.design.layers) {
        if (!l.inserted) {
            got.push_back(static_cast<int64_t>(finn::finn_exp_cycles(l.op)));
        }
    }
    EXPECT_EQ(got, net.finn_cycles());
}

// TFC: 784 → 64 → 64 → 64 → 10 → top-1, finn-examples' tfc-w1a1 folding (Thresholding PE 49;
// MVAUs PE/SIMD 16/49, 8/8, 8/8, 10/8).
Net tfc(unsigned bits, unsigned seed) {
    Net n(1, 1, 784, seed);
    n.threshold(bits, 49);
    n.fc(64, bits, bits, 16, 49, false);
    n.fc(64, bits, bits, 8, 8, false);
    n.fc(64, bits, bits, 8, 8, false);
    n.fc(10, bits, bits, 10, 8, true);
    n.labelselect();
    return n;
}

TEST(FinnBnnPynq, TfcW1a1AndW2a2) {
    for (unsigned bits : {1u, 2u}) {
        SCOPED_TRACE(fmt::format("w{0}a{0}", bits));
        Net n = tfc(bits, 7 + bits);
        expect_design(n);
        // FINN's critical path: 784/49 + 4·16 + 8·8 + 8·8 + 1·8 + 10 = 226, FINN's own figure.
        int64_t sum = 0;
        for (int64_t c : n.finn_cycles()) {
            sum += c;
        }
        EXPECT_EQ(sum, 226);
    }
}

// CNV: 32×32×3 → conv 64, 64, pool, 128, 128, pool, 256, 256 → fc 512, 512, 10 → top-1, with
// finn-examples' cnv-w1a1 folding.
Net cnv(unsigned bits) {
    Net n(32, 32, 3, 3 + bits);
    n.threshold(bits, 1);
    n.conv(64, bits, bits, 3, 16, 3);
    n.conv(64, bits, bits, 32, 32, 32);
    n.pool();
    n.conv(128, bits, bits, 32, 16, 32);
    n.conv(128, bits, bits, 32, 16, 32);
    n.pool();
    n.conv(256, bits, bits, 32, 4, 32);
    n.conv(256, bits, bits, 32, 1, 32);
    n.fc(512, bits, bits, 1, 4, false);
    n.fc(512, bits, bits, 1, 8, false);
    n.fc(10, bits, bits, 5, 1, true);
    n.labelselect();
    return n;
}

TEST(FinnBnnPynq, CnvW1a1AndW2a2) {
    for (unsigned bits : {1u, 2u}) {
        SCOPED_TRACE(fmt::format("w{0}a{0}", bits));
        Net n = cnv(bits);
        expect_design(n);
        // By hand (docs/finn.md): 3,072 + 8,196 + 32,400 + 14,292 + 28,224 + 980 + 2,676 +
        // 20,736 + 3,744 + 28,800 + 125 + 384 + 20,736 + 144 + 18,432 + 32,768 + 32,768 + 1,024
        // + 10.
        int64_t sum = 0;
        for (int64_t c : n.finn_cycles()) {
            sum += c;
        }
        EXPECT_EQ(sum, 249511);
    }
}

// A folding sweep of the CNV-w1a1 graph: the PE of five of its convolutions' MVAUs (not
// MVAU_hls_1, whose PE 32 is not in the list) over 1, 2, 4, 8, 16: 5^5 = 3,125 configurations.
// The one with finn-examples' values (16, 16, 16, 4, 1) has FINN's critical path by hand, and
// the front's fastest configuration is as fast as the bottleneck the unswept layers leave
// (MVAU_hls_6 and MVAU_hls_7 at 32,768 cycles).
TEST(FinnBnnPynq, CnvFoldingSweep) {
    Net n = cnv(1);
    const finn::FinnModel m = n.import();
    const std::string file = R"({"MVAU_hls_0": {"PE": [1, 2, 4, 8, 16]},
        "MVAU_hls_2": {"PE": [1, 2, 4, 8, 16]}, "MVAU_hls_3": {"PE": [1, 2, 4, 8, 16]},
        "MVAU_hls_4": {"PE": [1, 2, 4, 8, 16]}, "MVAU_hls_5": {"PE": [1, 2, 4, 8, 16]}})";
    const std::vector<finn::Knob> knobs =
        finn::read_sweep({file.begin(), file.end()}, m.design, "sweep.json");
    const std::vector<finn::SweepPoint> p = finn::sweep(m.design, knobs, false, 1'000'000);
    ASSERT_EQ(p.size(), 3125u);
    // finn-examples' PEs 16, 16, 16, 4, 1: indices 4, 4, 4, 2, 0 in base 5.
    const finn::SweepPoint& given = p[(((4 * 5 + 4) * 5 + 4) * 5 + 2) * 5 + 0];
    EXPECT_EQ(given.values, (std::vector<uint64_t>{16, 16, 16, 4, 1}));
    EXPECT_EQ(given.critical_path_cycles, 249511u);
    EXPECT_EQ(given.max_cycles, 32768u);
    uint64_t fastest = UINT64_MAX;
    for (const finn::SweepPoint& q : p) {
        if (q.pareto) {
            fastest = std::min(fastest, q.max_cycles);
        }
    }
    EXPECT_EQ(fastest, 32768u);
}

}  // namespace
}  // namespace npu::test
