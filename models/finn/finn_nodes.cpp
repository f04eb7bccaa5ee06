#include "models/finn/finn_nodes.h"

#include "models/finn/finn_cost.h"

namespace npu::finn {

namespace {
Word slice(const std::vector<int64_t>& v, uint64_t from, uint64_t n) {
    return Word(v.begin() + static_cast<long>(from), v.begin() + static_cast<long>(from + n));
}
}  // namespace

MvauNode::MvauNode(sc_core::sc_module_name name, Mvau layer, uint64_t frames, WordStream& in,
                   WordStream& out)
    : StreamNode(name, layer, frames, in, out)
    , m_layer(std::move(layer)) {
}

void MvauNode::frame(uint64_t& cycle) {
    for (uint64_t v = 0; v < m_layer.vectors; ++v) {
        vector(cycle);
    }
}

// Iteration `it` of a vector runs at its first cycle + it plus the stalls met so far.
void MvauNode::vector(uint64_t& cycle) {
    const uint64_t nf = this->nf(), sf = this->sf();
    Word x;
    x.reserve(m_layer.mw);
    for (uint64_t s = 0; s < sf; ++s) {  // iterations 0..SF-1: one input word each
        const Word w = read(cycle, m_layer.simd);
        x.insert(x.end(), w.begin(), w.end());
        if (s + 1 < sf) {
            ++cycle;
        }
    }
    const std::vector<int64_t> y = mvau(m_layer, x);  // MH outputs
    for (uint64_t n = 0; n < nf; ++n) {               // output word n at iteration n·SF + SF − 1
        if (n > 0) {
            cycle += sf;
        }
        write(slice(y, n * m_layer.pe, m_layer.pe), cycle);
    }
    ++cycle;  // past the vector's last iteration
}

VvauNode::VvauNode(sc_core::sc_module_name name, Vvau layer, uint64_t frames, WordStream& in,
                   WordStream& out)
    : StreamNode(name, layer, frames, in, out)
    , m_layer(std::move(layer)) {
}

// Iteration (nf, sf) of a pixel reads the word of kernel positions sf·SIMD.. of channels
// nf·PE..; the PE outputs of nf leave at its last sf.
void VvauNode::frame(uint64_t& cycle) {
    const size_t word = size_t{m_layer.simd} * m_layer.pe;
    Word block;
    for (uint64_t p = 0; p < m_layer.pixels; ++p) {
        for (uint64_t n = 0; n < nf(); ++n) {
            block.clear();
            for (uint64_t s = 0; s < sf(); ++s, ++cycle) {
                const Word w = read(cycle, word);
                block.insert(block.end(), w.begin(), w.end());
            }
            --cycle;  // the fold's outputs leave in its last iteration
            write(vvau_fold(m_layer, block.data(), static_cast<unsigned>(n)), cycle);
            ++cycle;
        }
    }
}

ThresholdingNode::ThresholdingNode(sc_core::sc_module_name name, ThresholdingLayer layer,
                                   uint64_t frames, WordStream& in, WordStream& out)
    : StreamNode(name, layer, frames, in, out)
    , m_layer(std::move(layer)) {
}

void ThresholdingNode::frame(uint64_t& cycle) {
    const unsigned pe = m_layer.pe;
    for (uint64_t v = 0; v < m_layer.vectors; ++v) {
        for (uint64_t f = 0; f < folds(); ++f, ++cycle) {
            const Word w = read(cycle, pe);
            Word y(w.size());
            for (size_t p = 0; p < w.size(); ++p) {
                const size_t c = f * pe + p;  // channel
                y[p] = activation(w[p], threshold_row(m_layer.thresholds, c), m_layer.act_val,
                                  m_layer.bipolar_out);
            }
            write(std::move(y), cycle);
        }
    }
}

}  // namespace npu::finn
