// FINN's compute layers as streaming processes (finn_node.h), values from the pure functions
// (finn_func.h) one vector at a time, time from finn-hlslib's schedules:
// - MVAU (Matrix_Vector_Activate_Batch): NF·SF iterations per vector; an input word in each of
//   the first SF (then the buffer is reused), output word nf at iteration nf·SF + SF − 1;
// - VVAU (Vector_Vector_Activate_Batch): NF·SF iterations per pixel, an input word of SIMD·PE
//   elements in each, output word nf (PE channels) at iteration nf·SF + SF − 1;
// - Thresholding (Thresholding_Batch): C/PE iterations per vector, a word in and out in each.
// docs/finn.md, "Nodes".
#pragma once

#include <cstdint>

#include "models/finn/finn_func.h"
#include "models/finn/finn_node.h"

namespace npu::finn {

class MvauNode : public StreamNode {
public:
    // Throws sim::Error naming the first folding or shape rule the layer breaks.
    MvauNode(sc_core::sc_module_name name, Mvau layer, uint64_t frames, WordStream& in,
             WordStream& out);

    uint64_t nf() const { return m_layer.mh / m_layer.pe; }
    uint64_t sf() const { return m_layer.mw / m_layer.simd; }

private:
    void frame(uint64_t& cycle) override;
    void vector(uint64_t& cycle);

    Mvau m_layer;
};

class VvauNode : public StreamNode {
public:
    VvauNode(sc_core::sc_module_name name, Vvau layer, uint64_t frames, WordStream& in,
             WordStream& out);

    uint64_t nf() const { return m_layer.channels / m_layer.pe; }
    uint64_t sf() const { return m_layer.k() / m_layer.simd; }

private:
    void frame(uint64_t& cycle) override;

    Vvau m_layer;
};

class ThresholdingNode : public StreamNode {
public:
    // Throws sim::Error naming the rule when channels % PE != 0 or the thresholds do not fit.
    ThresholdingNode(sc_core::sc_module_name name, ThresholdingLayer layer, uint64_t frames,
                     WordStream& in, WordStream& out);

    uint64_t folds() const { return m_layer.channels / m_layer.pe; }

private:
    void frame(uint64_t& cycle) override;

    ThresholdingLayer m_layer;
};

}  // namespace npu::finn
