#include "models/finn/finn_nodes.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::finn {

MvauNode::MvauNode(sc_core::sc_module_name name, Mvau layer, uint64_t vectors, WordStream& in,
                   WordStream& out)
    : sc_module(name)
    , m_layer(std::move(layer))
    , m_vectors(vectors)
    , m_in(in)
    , m_out(out) {
    const std::vector<std::string> problems = check(m_layer);
    if (!problems.empty()) {
        throw sim::Error(std::string(basename()) + ": " + problems.front());
    }
    SC_HAS_PROCESS(MvauNode);
    SC_THREAD(run);
}

// Iteration `it` of a vector runs at cycle `base + it` plus the stalls met so far; `cycle` is the
// current iteration's cycle.
void MvauNode::run() {
    const uint64_t nf = this->nf(), sf = this->sf();
    uint64_t cycle = 0;
    for (uint64_t v = 0; v < m_vectors; ++v) {
        m_vector_starts.push_back(cycle);
        Word x;
        x.reserve(m_layer.mw);
        for (uint64_t s = 0; s < sf; ++s) {  // iterations 0..SF-1: one input word each
            const Word w = m_in.read(cycle);
            if (v == 0 && s == 0) {
                m_start = cycle;
            }
            x.insert(x.end(), w.begin(), w.end());
            if (s + 1 < sf) {
                ++cycle;
            }
        }
        if (x.size() != m_layer.mw) {
            throw sim::Error(std::string(basename()) + ": input words do not hold SIMD elements");
        }
        const std::vector<int64_t> y = mvau(m_layer, x);  // MH outputs
        for (uint64_t n = 0; n < nf; ++n) {  // output word n at iteration n·SF + SF − 1
            if (n > 0) {
                cycle += sf;
            }
            m_out.write(Word(y.begin() + static_cast<long>(n * m_layer.pe),
                             y.begin() + static_cast<long>((n + 1) * m_layer.pe)),
                        cycle);
        }
        ++cycle;  // past the vector's last iteration
    }
    m_end = cycle;
}

ThresholdingNode::ThresholdingNode(sc_core::sc_module_name name, ThresholdingLayer layer,
                                   uint64_t vectors, WordStream& in, WordStream& out)
    : sc_module(name)
    , m_layer(std::move(layer))
    , m_vectors(vectors)
    , m_in(in)
    , m_out(out) {
    const ThresholdingLayer& l = m_layer;
    if (l.channels == 0 || l.pe == 0 || l.channels % l.pe != 0) {
        throw sim::Error(
            fmt::format("{}: NumChannels % PE == 0: NumChannels {} is not a multiple "
                        "of PE {}",
                        basename(), l.channels, l.pe));
    }
    if (l.thresholds.empty() || (l.thresholds.size() != 1 && l.thresholds.size() != l.channels)) {
        throw sim::Error(fmt::format("{}: thresholds: {} rows, expected 1 or NumChannels = {}",
                                     basename(), l.thresholds.size(), l.channels));
    }
    SC_HAS_PROCESS(ThresholdingNode);
    SC_THREAD(run);
}

void ThresholdingNode::run() {
    const unsigned pe = m_layer.pe, folds = m_layer.channels / pe;
    uint64_t cycle = 0;
    for (uint64_t v = 0; v < m_vectors; ++v) {
        m_vector_starts.push_back(cycle);
        for (unsigned f = 0; f < folds; ++f, ++cycle) {
            const Word w = m_in.read(cycle);
            Word y(w.size());
            for (size_t p = 0; p < w.size(); ++p) {
                const size_t c = size_t{f} * pe + p;  // channel
                y[p] = activation(w[p], threshold_row(m_layer.thresholds, c), m_layer.act_val,
                                  m_layer.bipolar_out);
            }
            m_out.write(std::move(y), cycle);
        }
    }
}

}  // namespace npu::finn
