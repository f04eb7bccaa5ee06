#include "models/finn/finn_chain.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/finn/finn_cost.h"
#include "sim/core/error.h"
#include "sim/core/overload.h"

namespace npu::finn {

FrameElements frame_elements(const LayerOp& op) {
    return std::visit(
        sim::Overload{
            [](const Mvau& m) {
                return FrameElements{m.vectors * m.mw, m.vectors * m.mh, m.simd, m.pe};
            },
            [](const Vvau& v) {
                return FrameElements{v.pixels * v.channels * v.k(), v.pixels * v.channels,
                                     uint64_t{v.simd} * v.pe, v.pe};
            },
            [](const ThresholdingLayer& t) {
                return FrameElements{t.vectors * t.channels, t.vectors * t.channels, t.pe, t.pe};
            },
            [](const SwgShape& s) {
                return FrameElements{s.ifm_h * s.ifm_w * s.channels,
                                     s.ofm_h() * s.ofm_w() * s.kh * s.kw * s.channels, s.simd,
                                     s.simd};
            },
            [](const PoolShape& p) {
                const uint64_t word = p.channels / p.words_per_pixel();
                return FrameElements{p.ifm_h * p.ifm_w * p.channels,
                                     p.ofm_h() * p.ofm_w() * p.channels, word, word};
            },
            [](const DwcLayer& l) {
                return FrameElements{l.frame_elements, l.frame_elements, l.in_elements,
                                     l.out_elements};
            },
            [](const LabelSelectLayer& l) {
                return FrameElements{l.labels, l.k, l.pe, 1};
            },
        },
        op);
}

std::vector<std::string> check(const LayerOp& op) {
    return std::visit([](const auto& layer) { return finn::check(layer); }, op);
}

uint64_t formula_cycles(const LayerOp& op) {
    return std::visit(
        sim::Overload{
            [](const Mvau& m) { return mvau_cycles(m.mh, m.mw, m.pe, m.simd, m.vectors); },
            [](const Vvau& v) {
                return vvau_cycles(v.channels, v.kh, v.kw, v.pe, v.simd, 1, v.pixels);
            },
            [](const ThresholdingLayer& t) {
                return thresholding_cycles(t.channels, t.pe, t.vectors);
            },
            [](const SwgShape& s) { return swg_cycles(s); },
            [](const PoolShape& p) { return maxpool_cycles(p); },
            [](const DwcLayer& l) {
                return dwc_cycles(l.frame_elements / l.in_elements,
                                  l.frame_elements / l.out_elements);
            },
            [](const LabelSelectLayer& l) { return labelselect_cycles(l.labels, l.pe, l.k); },
        },
        op);
}

uint64_t finn_exp_cycles(const LayerOp& op) {
    if (const auto* p = std::get_if<PoolShape>(&op)) {
        return finn_maxpool_cycles(*p);
    }
    if (const auto* l = std::get_if<LabelSelectLayer>(&op)) {
        return finn_labelselect_cycles(l->labels, l->pe);
    }
    if (const auto* d = std::get_if<DwcLayer>(&op)) {
        return finn_dwc_cycles(d->frame_elements);
    }
    return formula_cycles(op);
}

Resources resources(const Layer& l, bool dsp58) {
    if (const auto* m = std::get_if<Mvau>(&l.op)) {
        return mvau_resources(*m, l.style, dsp58);
    }
    if (const auto* v = std::get_if<Vvau>(&l.op)) {
        return vvau_resources(*v, l.style, dsp58);
    }
    return {};
}

const char* op_name(const LayerOp& op) {
    static const char* const names[] = {"MVAU",
                                        "VVAU",
                                        "Thresholding",
                                        "ConvolutionInputGenerator",
                                        "StreamingMaxPool",
                                        "StreamingDataWidthConverter",
                                        "LabelSelect"};
    return names[op.index()];
}

std::string fifo_name(const Design& d, size_t i) {
    const std::string from = i == 0 ? "input" : d.layers[i - 1].name;
    const std::string to = i == d.layers.size() ? "output" : d.layers[i].name;
    return from + " -> " + to;
}

std::vector<std::string> check(const Design& d) {
    std::vector<std::string> e;
    if (d.layers.empty()) {
        return {"the design has no layers"};
    }
    for (const Layer& l : d.layers) {
        for (const std::string& p : check(l.op)) {
            e.push_back(l.name + ": " + p);
        }
    }
    for (size_t i = 1; i < d.layers.size(); ++i) {
        const FrameElements from = frame_elements(d.layers[i - 1].op);
        const FrameElements to = frame_elements(d.layers[i].op);
        if (from.out != to.in) {
            e.push_back(fmt::format("{}: reads frames of {} elements, but {} writes {}",
                                    d.layers[i].name, to.in, d.layers[i - 1].name, from.out));
        } else if (from.out_word != to.in_word) {
            e.push_back(
                fmt::format("{}: reads words of {} elements, but {} writes words of {} "
                            "(a StreamingDataWidthConverter between them would convert)",
                            d.layers[i].name, to.in_word, d.layers[i - 1].name, from.out_word));
        }
    }
    if (!d.fifo_depths.empty() && d.fifo_depths.size() != d.layers.size() + 1) {
        e.push_back(
            fmt::format("{} FIFO depths for {} layers: expected one per layer and one "
                        "after the last ({})",
                        d.fifo_depths.size(), d.layers.size(), d.layers.size() + 1));
    }
    for (size_t i = 0; i < d.fifo_depths.size(); ++i) {
        if (d.fifo_depths[i] == 0) {
            e.push_back(fmt::format("FIFO {} ({}): depth 0, expected at least 1", i,
                                    fifo_name(d, std::min(i, d.layers.size()))));
        }
    }
    return e;
}

namespace {

std::vector<int64_t> layer_values(const LayerOp& op, const std::vector<int64_t>& x) {
    return std::visit(sim::Overload{
                          [&](const Mvau& m) { return mvau(m, x); },
                          [&](const Vvau& v) { return vvau(v, x); },
                          [&](const ThresholdingLayer& t) {
                              return thresholding(x, t.channels, t.thresholds, t.act_val,
                                                  t.bipolar_out);
                          },
                          [&](const SwgShape& s) { return sliding_window(s, x); },
                          [&](const PoolShape& p) { return maxpool(p, x); },
                          [&](const DwcLayer&) { return x; },
                          [&](const LabelSelectLayer& l) { return label_select(x, l.labels, l.k); },
                      },
                      op);
}

}  // namespace

std::vector<int64_t> evaluate(const Design& d, const std::vector<int64_t>& input) {
    return evaluate_layers(d, input).back();
}

std::vector<std::vector<int64_t>> evaluate_layers(const Design& d,
                                                  const std::vector<int64_t>& input) {
    const std::vector<std::string> problems = check(d);
    if (!problems.empty()) {
        throw sim::Error(problems.front());
    }
    const uint64_t per_frame = frame_elements(d.layers.front().op).in;
    if (input.empty() || input.size() % per_frame != 0) {
        throw sim::Error(fmt::format("the input holds {} values, not whole frames of {}",
                                     input.size(), per_frame));
    }
    std::vector<std::vector<int64_t>> out;
    out.reserve(d.layers.size());  // x points into it
    const std::vector<int64_t>* x = &input;
    for (const Layer& l : d.layers) {
        out.push_back(layer_values(l.op, *x));
        x = &out.back();
    }
    return out;
}

}  // namespace npu::finn
