// FINN's data-movement layers as streaming processes (finn_node.h): the sliding window
// (ConvolutionInputGenerator, HLS schedules), StreamingMaxPool, StreamingDataWidthConverter and
// LabelSelect. Values from the pure functions (finn_window.h, finn_func.h); cycles per frame,
// unstalled, equal their formulas in finn_cost.h. docs/finn.md, "Nodes".
#pragma once

#include <cstdint>
#include <vector>

#include "models/finn/finn_func.h"
#include "models/finn/finn_node.h"
#include "models/finn/finn_window.h"

namespace npu::finn {

// 2D: K_h·dil_h input rows are read first, then per output row max(its output words, stride_h
// input rows) iterations, each writing the row's next output word and reading the next input
// word while either remains. 1D: input words are read one an iteration (at most a window span
// and a stride ahead of the output), output words one an iteration once their source word is in.
class SwgNode : public StreamNode {
public:
    SwgNode(sc_core::sc_module_name name, SwgShape shape, uint64_t frames, WordStream& in,
            WordStream& out);

private:
    void frame(uint64_t& cycle) override;
    void frame_2d(uint64_t& cycle);
    void frame_1d(uint64_t& cycle);
    void read_word(uint64_t& cycle);
    void write_word(uint64_t i, uint64_t& cycle);

    SwgShape m_shape;
    std::vector<uint32_t> m_sources;  // per output element, its input element
    std::vector<int64_t> m_frame;     // the frame's input values read so far
};

// 2D (a word is a whole pixel): per output row, K·IFM_w reads then OFM_w writes; rows past the
// last window are read. 1D: per output pixel, K pixels of NF = C/PE words read, then NF written.
class MaxPoolNode : public StreamNode {
public:
    MaxPoolNode(sc_core::sc_module_name name, PoolShape shape, uint64_t frames, WordStream& in,
                WordStream& out);

private:
    void frame(uint64_t& cycle) override;
    std::vector<int64_t> read_pixels(uint64_t pixels, uint64_t& cycle);
    uint64_t word_elements() const;

    PoolShape m_shape;
};

// Each iteration reads a word while fewer than an output word's elements wait, and writes an
// output word when enough wait: max(words in, words out) iterations a frame.
class DwcNode : public StreamNode {
public:
    DwcNode(sc_core::sc_module_name name, DwcLayer layer, uint64_t frames, WordStream& in,
            WordStream& out);

private:
    void frame(uint64_t& cycle) override;

    DwcLayer m_layer;
};

// Labels/PE reads, then K words of one index each (label_select()).
class LabelSelectNode : public StreamNode {
public:
    LabelSelectNode(sc_core::sc_module_name name, LabelSelectLayer layer, uint64_t frames,
                    WordStream& in, WordStream& out);

private:
    void frame(uint64_t& cycle) override;

    LabelSelectLayer m_layer;
};

}  // namespace npu::finn
