#include "models/finn/finn_sweep.h"

#include <algorithm>
#include <numeric>

#include <fmt/format.h>

#include "models/finn/finn_cost.h"
#include "sim/core/error.h"
#include "sim/core/overload.h"
#include "sim/core/pareto.h"

namespace npu::finn {

namespace {

std::vector<uint64_t> divisors(uint64_t n) {
    std::vector<uint64_t> d;
    for (uint64_t i = 1; i <= n; ++i) {
        if (n % i == 0) {
            d.push_back(i);
        }
    }
    return d;
}

// The dimension an attribute folds: PE folds outputs (channels, labels), SIMD inputs.
uint64_t folded_dimension(const LayerOp& op, const std::string& attr) {
    const bool pe = attr == "PE";
    return std::visit(
        sim::Overload{
            [&](const Mvau& m) -> uint64_t { return pe ? m.mh : m.mw; },
            [&](const Vvau& v) -> uint64_t { return pe ? v.channels : v.k(); },
            [&](const ThresholdingLayer& t) -> uint64_t { return pe ? t.channels : 0; },
            [&](const SwgShape& s) -> uint64_t { return pe ? 0 : s.channels; },
            [&](const PoolShape& p) -> uint64_t { return pe && p.is_1d() ? p.channels : 0; },
            [&](const DwcLayer&) -> uint64_t { return 0; },
            [&](const LabelSelectLayer& l) -> uint64_t { return pe ? l.labels : 0; },
        },
        op);
}

void set_value(LayerOp& op, const std::string& attr, uint64_t v) {
    const bool pe = attr == "PE";
    const auto u = static_cast<unsigned>(v);
    std::visit(sim::Overload{
                   [&](Mvau& m) { (pe ? m.pe : m.simd) = u; },
                   [&](Vvau& x) { (pe ? x.pe : x.simd) = u; },
                   [&](ThresholdingLayer& t) { t.pe = u; },
                   [&](SwgShape& s) { s.simd = v; },
                   [&](PoolShape& p) { p.pe = v; },
                   [&](DwcLayer&) {},
                   [&](LabelSelectLayer& l) { l.pe = u; },
               },
               op);
}

// The chain of the graph's own layers (without the converters the import inserted).
struct Chain {
    std::vector<Layer> layers;
    std::vector<size_t> index;  // into the design's layers
};

Chain own_layers(const Design& d) {
    Chain c;
    for (size_t i = 0; i < d.layers.size(); ++i) {
        if (!d.layers[i].inserted) {
            c.layers.push_back(d.layers[i]);
            c.index.push_back(i);
        }
    }
    return c;
}

// Why the folding breaks the chain: a depthwise window's SIMD must be the VVAU's PE behind it
// (it streams channels in that order: a converter cannot reorder them), a converter must exist.
std::string chain_problem(const Chain& c) {
    for (size_t i = 1; i < c.layers.size(); ++i) {
        const auto* swg = std::get_if<SwgShape>(&c.layers[i - 1].op);
        const auto* vvau = std::get_if<Vvau>(&c.layers[i].op);
        if (swg != nullptr && vvau != nullptr && swg->depthwise && swg->simd != vvau->pe) {
            return fmt::format("{}: SIMD {} must equal {}'s PE {} (depthwise order)",
                               c.layers[i - 1].name, swg->simd, c.layers[i].name, vvau->pe);
        }
    }
    return "";
}

// The first rule of a swept window, pool or LabelSelect the configuration breaks (their checks
// are cheap; an MVAU's, VVAU's or Thresholding's would read its weights: their rule is the
// divisibility tested as the values are set).
std::string layer_problem(const Chain& c, const std::vector<Knob>& knobs,
                          const std::vector<size_t>& at) {
    for (const Knob& k : knobs) {
        const Layer& l = c.layers[at[k.layer]];
        if (std::holds_alternative<Mvau>(l.op) || std::holds_alternative<Vvau>(l.op) ||
            std::holds_alternative<ThresholdingLayer>(l.op)) {
            continue;
        }
        if (const std::vector<std::string> e = check(l.op); !e.empty()) {
            return l.name + ": " + e.front();
        }
    }
    return "";
}

// Costs one configuration of the chain into `p`: FINN's numbers over the chain's own layers,
// ours with a converter wherever neighbours' words differ (named after the layer behind it).
void cost(const Chain& c, bool dsp58, SweepPoint& p, std::vector<uint64_t>& finn,
          std::vector<uint64_t>& ours, std::vector<size_t>& owner) {
    finn.clear(), ours.clear(), owner.clear();
    for (size_t i = 0; i < c.layers.size(); ++i) {
        if (i > 0) {
            const FrameElements from = frame_elements(c.layers[i - 1].op);
            const FrameElements to = frame_elements(c.layers[i].op);
            if (from.out_word != to.in_word) {
                ours.push_back(dwc_cycles(from.out / from.out_word, to.in / to.in_word));
                owner.push_back(c.layers.size() + i);  // the converter before layer i
            }
        }
        finn.push_back(finn_exp_cycles(c.layers[i].op));
        ours.push_back(formula_cycles(c.layers[i].op));
        owner.push_back(i);
        p.resources += resources(c.layers[i], dsp58);
    }
    const NetworkEstimate f = estimate_chain(finn, 1);
    p.max_cycles = f.max_cycles, p.critical_path_cycles = f.sum_cycles;
    p.max_cycles_layer = c.index[f.bottleneck];
    const NetworkEstimate o = estimate_chain(ours, 1);
    p.formula_max_cycles = o.max_cycles, p.formula_latency_cycles = o.sum_cycles;
    const size_t b = owner[o.bottleneck];
    p.formula_bottleneck = b < c.layers.size()
                               ? c.layers[b].name
                               : "converter before " + c.layers[b - c.layers.size()].name;
}

}  // namespace

std::vector<std::string> folding_attributes(const LayerOp& op) {
    std::vector<std::string> a;
    for (const char* attr : {"PE", "SIMD"}) {
        if (folded_dimension(op, attr) != 0) {
            a.emplace_back(attr);
        }
    }
    return a;
}

std::vector<uint64_t> allowed_values(const LayerOp& op, const std::string& attr) {
    return divisors(folded_dimension(op, attr));
}

std::vector<SweepPoint> sweep(const Design& d, const std::vector<Knob>& knobs, bool dsp58,
                              uint64_t limit) {
    uint64_t count = 1;
    bool overflow = false;
    for (const Knob& k : knobs) {
        overflow |= __builtin_mul_overflow(count, k.values.size(), &count);
    }
    if (overflow || count > limit || count == 0) {
        throw sim::Error(
            fmt::format("the sweep has {} configurations; at most {}",
                        overflow ? std::string("more than 2^64") : std::to_string(count), limit));
    }
    Chain c = own_layers(d);
    std::vector<size_t> at(d.layers.size());
    for (size_t i = 0; i < c.index.size(); ++i) {
        at[c.index[i]] = i;
    }
    std::vector<SweepPoint> points(count);
    std::vector<size_t> pos(knobs.size(), 0);
    std::vector<uint64_t> finn, ours;  // reused by every configuration
    std::vector<size_t> owner;
    for (SweepPoint& p : points) {
        for (size_t k = 0; k < knobs.size(); ++k) {
            const Knob& knob = knobs[k];
            p.values.push_back(knob.values[pos[k]]);
            LayerOp& op = c.layers[at[knob.layer]].op;
            set_value(op, knob.attr, knob.values[pos[k]]);
            if (folded_dimension(op, knob.attr) % knob.values[pos[k]] != 0 && p.error.empty()) {
                p.error =
                    fmt::format("{}: {} {} does not divide {}", d.layers[knob.layer].name,
                                knob.attr, knob.values[pos[k]], folded_dimension(op, knob.attr));
            }
        }
        if (p.error.empty()) {
            p.error = layer_problem(c, knobs, at);
        }
        if (p.error.empty()) {
            p.error = chain_problem(c);
        }
        if (p.error.empty()) {
            cost(c, dsp58, p, finn, ours, owner);
        }
        for (size_t k = knobs.size(); k-- > 0;) {  // the last knob fastest
            if (++pos[k] < knobs[k].values.size()) {
                break;
            }
            pos[k] = 0;
        }
    }
    mark_pareto(points);
    return points;
}

void mark_pareto(std::vector<SweepPoint>& points) {
    std::vector<std::vector<double>> costs(points.size());
    for (size_t i = 0; i < points.size(); ++i) {
        const SweepPoint& p = points[i];
        if (p.error.empty()) {
            costs[i] = {static_cast<double>(p.max_cycles), static_cast<double>(p.resources.lut),
                        static_cast<double>(p.resources.bram_18k)};
        }
    }
    const std::vector<bool> front = sim::pareto_front(costs);
    for (size_t i = 0; i < points.size(); ++i) {
        points[i].pareto = front[i];
    }
}

}  // namespace npu::finn
