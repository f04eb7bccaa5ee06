// npusim regress on the FINN platform (FinnFace::regress): the streaming design — each layer a
// SystemC process moving words through FIFOs with back-pressure, the path a timed run takes —
// against each layer's function on whole frames (models/finn/finn_chain.h evaluate_layers: the
// integer arithmetic FINN's own Python execution of the layers computes, which our tests hold
// to the NumPy references bit for bit), layer by layer, element by element, judged by the
// regression service (sim/regress). The values are integers (raw, for fixed-point types), so an
// LSB is 1 and the default tolerance 0 LSB. docs/finn.md, "Regression".
#include <algorithm>

#include <fmt/format.h>

#include "models/finn/finn_design.h"
#include "platforms/finn/finn_face.h"
#include "platforms/finn/finn_import.h"
#include "sim/core/error.h"
#include "sim/onnx/samples.h"
#include "sim/regress/regression.h"
#include "sim/tlm/kernel.h"

namespace npu::finn {

namespace {

constexpr size_t kMaxClasses = 4096;  // confusion matrices up to this many classes

// Frames whose output words all agree, and with labels the accuracy and confusion of a one-value
// output (LabelSelect with K = 1: the class; no matrices beyond kMaxClasses classes).
void judge_outputs(const std::vector<int64_t>& sim, const std::vector<int64_t>& ref,
                   uint64_t per_frame, const std::vector<int64_t>& labels, regress::Regression& g) {
    regress::OutputError& out = g.outputs.back();
    uint64_t agree = 0, right_sim = 0, right_ref = 0;
    const bool classes = per_frame == 1 && !labels.empty();
    int64_t top = 0;
    for (int64_t v : ref) {
        top = std::max(top, v);
    }
    for (int64_t l : labels) {
        top = std::max(top, l);
    }
    // A label of 10^18 allocates nothing (and top + 1 cannot overflow).
    const bool matrices = classes && top < static_cast<int64_t>(kMaxClasses);
    const size_t n = matrices ? static_cast<size_t>(top + 1) : 0;
    if (matrices) {
        g.confusion_sim.assign(n, std::vector<uint64_t>(n, 0));
        g.confusion_ref.assign(n, std::vector<uint64_t>(n, 0));
    }
    for (size_t f = 0; f < g.samples && (f + 1) * per_frame <= std::min(sim.size(), ref.size());
         ++f) {
        const auto at = static_cast<long>(f * per_frame), end = at + static_cast<long>(per_frame);
        agree += std::equal(sim.begin() + at, sim.begin() + end, ref.begin() + at) ? 1u : 0u;
        if (classes) {
            const int64_t s = sim[f], r = ref[f];
            right_sim += s == labels[f] ? 1u : 0u;
            right_ref += r == labels[f] ? 1u : 0u;
        }
        if (matrices && labels[f] >= 0) {
            const auto label = static_cast<size_t>(labels[f]);
            const int64_t s = sim[f], r = ref[f];
            if (s >= 0 && static_cast<size_t>(s) < n) {
                ++g.confusion_sim[label][static_cast<size_t>(s)];
            }
            if (r >= 0 && static_cast<size_t>(r) < n) {
                ++g.confusion_ref[label][static_cast<size_t>(r)];
            }
        }
    }
    out.agree = agree;
    if (classes) {
        g.correct_sim = right_sim, g.correct_ref = right_ref;
    }
}

// Each layer's streamed elements against its function's, in order.
void compare_layers(const Design& d, const std::vector<std::vector<int64_t>>& streamed,
                    const std::vector<std::vector<int64_t>>& ref, regress::Regression& g) {
    for (size_t i = 0; i < d.layers.size(); ++i) {
        regress::ErrorStats st;
        const std::vector<int64_t>& s = streamed.at(i);
        const std::vector<int64_t>& r = ref[i];
        for (size_t e = 0; e < std::min(s.size(), r.size()); ++e) {
            const auto a = static_cast<double>(s[e]), b = static_cast<double>(r[e]);
            st.add(a, b);
            st.add_lsb(std::fabs(a - b));
        }
        if (s.size() != r.size()) {  // a design that lost or invented words fails the LSB check
            st.add_lsb(static_cast<double>(std::max(s.size(), r.size())));
        }
        const Layer& l = d.layers[i];
        g.layers.push_back({i, op_name(l.op), l.name, 1, st});
    }
}

}  // namespace

platform::RunReport FinnFace::regress(const platform::RegressRequest& req) const {
    if (req.model.empty() || !req.onnx.empty() || req.timed || !req.report.empty()) {
        throw sim::Error(source() +
                         ": a FINN regress takes --model NET.onnx [--folding F.json] [--inputs "
                         "X.npy] [--labels L.npy] and the tolerances (no --onnx, --report or "
                         "--timed)");
    }
    regress::Tolerances base;
    base.max_lsb = 0;  // integers: the design's values are exact
    const regress::Tolerances tol =
        regress::read_tolerances(req.tolerances, req.max_lsb, req.min_cosine, req.min_top1, base);
    const FinnModel m = load_finn(req.model, req.option("folding"));
    regress::Regression g;
    g.program = req.model;
    g.reference = "each layer's function on whole frames (FINN's execution)";
    const std::vector<int64_t> x = read_inputs(req.inputs, m, m_cfg, g.input_note);
    g.samples = x.size() / m.in_elements;
    g.tol = tol;
    const std::vector<int64_t> labels =
        req.labels.empty() ? std::vector<int64_t>{} : onnx::read_labels(req.labels);
    if (!labels.empty() && labels.size() != g.samples) {
        throw sim::Error(
            fmt::format("{}: {} labels for {} frames", req.labels, labels.size(), g.samples));
    }
    const std::vector<std::vector<int64_t>> ref = evaluate_layers(m.design, x);
    sim::install_report_handler({}, false);
    SimulateOptions opts;
    opts.keep_values = true;
    const DesignRun streamed = simulate(m.design, x, g.samples, opts);
    compare_layers(m.design, streamed.layer_outputs, ref, g);
    g.outputs.push_back({m.output_name, g.layers.back().stats, std::nullopt, false});
    judge_outputs(streamed.output, ref.back(), m.out_elements, labels, g);
    sim::RunRecord v = regress::verdict(g);
    v.platform = {
        "finn", m_cfg.name, source(), {{"clock_hz", static_cast<double>(m_cfg.clock_hz), "Hz"}}};
    v.program.format = "FINN-ONNX";
    v.program.facts = {{"layers", static_cast<double>(m.design.layers.size()), ""}};
    v.extra["folding"] = req.option("folding");
    std::string text = fmt::format("{} streamed vs {} on {} frames of {}\n", req.model, g.reference,
                                   g.samples, g.input_note) +
                       regress::verdict_text(g, v);
    return platform::verdict_report(std::move(v), std::move(text));
}

}  // namespace npu::finn
