// The common frame of a FINN streaming layer as a SystemC process on timestamped streams
// (sim/tlm/stream.h): one input and one output stream of words, a number of frames, and per
// frame the layer's hardware schedule, one iteration per cycle, touching the streams only where
// the hardware does (a stall on either delays everything after it). Each layer also names FINN's
// formula for its cycles per frame (finn_cost.h), so tests and reports can set the simulated
// cycles beside it. docs/finn.md, "Nodes".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <systemc>

#include "models/finn/finn_chain.h"
#include "sim/tlm/stream.h"

namespace npu::finn {

// A stream word: the values of its elements (packing happens at the design's edges).
using Word = std::vector<int64_t>;
using WordStream = sim::Stream<Word>;

class StreamNode : public sc_core::sc_module {
public:
    // `layer`: what the node runs (its op type and formula are taken from it). Throws
    // sim::Error "<name>: <problem>" with the first folding or shape rule it breaks.
    StreamNode(sc_core::sc_module_name name, const LayerOp& layer, uint64_t frames, WordStream& in,
               WordStream& out);

    const char* op_type() const { return m_op_type; }             // FINN's, e.g. "MVAU"
    uint64_t formula_cycles() const { return m_formula_cycles; }  // a frame, finn_cost.h

    uint64_t frames() const { return m_frames; }
    const std::vector<uint64_t>& frame_starts() const { return m_frame_starts; }
    uint64_t start_cycle() const { return m_start; }  // its first read
    uint64_t end_cycle() const { return m_end; }      // one past its last iteration
    WordStream& in() { return m_in; }
    WordStream& out() { return m_out; }

protected:
    // One frame from `cycle` (its first iteration); on return, one past its last iteration.
    virtual void frame(uint64_t& cycle) = 0;
    // The next input word at `cycle` or later; the word must hold `elements` values.
    Word read(uint64_t& cycle, size_t elements);
    void write(Word w, uint64_t& cycle) { m_out.write(std::move(w), cycle); }
    [[noreturn]] void fail(const std::string& what) const;
    // Throws sim::Error "<name>: <first problem>" when `problems` is not empty.
    void refuse(const std::vector<std::string>& problems) const;

private:
    void run();

    const char* m_op_type;
    uint64_t m_formula_cycles = 0;
    uint64_t m_frames;
    WordStream& m_in;
    WordStream& m_out;
    bool m_read_any = false;
    uint64_t m_start = 0, m_end = 0;
    std::vector<uint64_t> m_frame_starts;
};

}  // namespace npu::finn
