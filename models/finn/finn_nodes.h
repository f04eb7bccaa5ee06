// FINN streaming layers as SystemC processes on timestamped streams (sim/tlm/stream.h). Values
// come from the pure functions (finn_func.h), one vector at a time; time follows the layer's
// hardware schedule, one iteration per cycle, touching the streams only where the hardware does:
// the MVAU (finn-hlslib Matrix_Vector_Activate_Batch) runs NF·SF iterations per vector, reads an
// input word in each of the first SF (then reuses its buffer), writes output word nf at
// iteration nf·SF + SF − 1. Stalls on either stream delay the rest. docs/finn.md, "Nodes".
#pragma once

#include <cstdint>
#include <vector>

#include <systemc>

#include "models/finn/finn_func.h"
#include "sim/tlm/stream.h"

namespace npu::finn {

// A stream word: `elements` values of the layer's type (packing happens at the design's edges).
using Word = std::vector<int64_t>;
using WordStream = sim::Stream<Word>;

class MvauNode : public sc_core::sc_module {
public:
    // Reads `vectors` input vectors of SF words of SIMD elements from `in`, writes NF words of
    // PE outputs each to `out`. Throws sim::Error when the layer breaks a folding rule.
    MvauNode(sc_core::sc_module_name name, Mvau layer, uint64_t vectors, WordStream& in,
             WordStream& out);

    uint64_t nf() const { return m_layer.mh / m_layer.pe; }
    uint64_t sf() const { return m_layer.mw / m_layer.simd; }
    uint64_t start_cycle() const { return m_start; }  // its first iteration
    uint64_t end_cycle() const { return m_end; }      // one past its last iteration
    const std::vector<uint64_t>& vector_starts() const { return m_vector_starts; }

private:
    void run();

    Mvau m_layer;
    uint64_t m_vectors;
    WordStream& m_in;
    WordStream& m_out;
    uint64_t m_start = 0, m_end = 0;
    std::vector<uint64_t> m_vector_starts;
};

// Thresholding (finn-hlslib Thresholding_Batch): C/PE iterations per vector, one input word of
// PE channels read and one output word written in each.
struct ThresholdingLayer {
    unsigned channels = 0, pe = 1;
    Thresholds thresholds;  // one row per channel, or one for all
    int64_t act_val = 0;
    bool bipolar_out = false;
};

class ThresholdingNode : public sc_core::sc_module {
public:
    // Throws sim::Error naming the rule when channels % PE != 0 or the thresholds do not fit.
    ThresholdingNode(sc_core::sc_module_name name, ThresholdingLayer layer, uint64_t vectors,
                     WordStream& in, WordStream& out);
    const std::vector<uint64_t>& vector_starts() const { return m_vector_starts; }

private:
    void run();

    ThresholdingLayer m_layer;
    uint64_t m_vectors;
    WordStream& m_in;
    WordStream& m_out;
    std::vector<uint64_t> m_vector_starts;
};

}  // namespace npu::finn
