#include "models/finn/finn_layout_nodes.h"

#include <algorithm>

#include <fmt/format.h>

#include "models/finn/finn_cost.h"
#include "models/finn/finn_func.h"

namespace npu::finn {

SwgNode::SwgNode(sc_core::sc_module_name name, SwgShape shape, uint64_t frames, WordStream& in,
                 WordStream& out)
    : StreamNode(name, shape, frames, in, out)
    , m_shape(shape) {
    m_sources = swg_sources(m_shape);
}

void SwgNode::frame(uint64_t& cycle) {
    m_frame.clear();
    if (m_shape.is_1d()) {
        frame_1d(cycle);
    } else {
        frame_2d(cycle);
    }
}

void SwgNode::read_word(uint64_t& cycle) {
    const Word w = read(cycle, m_shape.simd);
    m_frame.insert(m_frame.end(), w.begin(), w.end());
}

void SwgNode::write_word(uint64_t i, uint64_t& cycle) {
    const uint64_t simd = m_shape.simd;
    Word w(simd);
    for (uint64_t lane = 0; lane < simd; ++lane) {
        const uint32_t src = m_sources[i * simd + lane];
        if (src >= m_frame.size()) {  // the schedule wrote before reading: a model error
            fail(fmt::format("output word {} needs input element {} before it was read", i, src));
        }
        w[lane] = m_frame[src];
    }
    write(std::move(w), cycle);
}

void SwgNode::frame_2d(uint64_t& cycle) {
    const SwgShape& s = m_shape;
    const uint64_t q = s.folds(), total = s.in_words();
    const uint64_t preload = s.preload_words();
    const uint64_t row_writes = s.ofm_w() * s.kw * s.kh * q, row_reads = s.stride_h * s.ifm_w * q;
    const uint64_t row_cycles = std::max(row_writes, row_reads) + s.row_bubbles();
    uint64_t reads = 0;
    for (uint64_t t = 0; t < preload; ++t, ++cycle) {
        if (reads < total) {
            read_word(cycle), ++reads;
        }
    }
    for (uint64_t oy = 0; oy < s.ofm_h(); ++oy) {
        for (uint64_t t = 0; t < row_cycles; ++t, ++cycle) {
            if (t < row_writes) {
                write_word(oy * row_writes + t, cycle);
            }
            if (t < row_reads && reads < total) {
                read_word(cycle), ++reads;
            }
        }
    }
    for (; reads < total; ++reads, ++cycle) {  // none are left: the rows read every word
        read_word(cycle);
    }
    cycle += s.frame_bubbles();
}

void SwgNode::frame_1d(uint64_t& cycle) {
    const SwgShape& s = m_shape;
    const uint64_t total = s.in_words(), writes = s.out_words(), simd = s.simd;
    const uint64_t ahead = (s.dil_w * (s.kw - 1) + 1 + s.stride_w) * s.folds();
    auto need = [&](uint64_t i) {
        return uint64_t{m_sources[i * simd]} / simd;
    };
    uint64_t reads = 0, i = 0;
    while (i < writes || reads < total) {
        const uint64_t reads_before = reads;
        if (reads < total && (i >= writes || reads <= need(i) + ahead)) {
            read_word(cycle), ++reads;
        }
        if (i < writes && need(i) < reads_before) {
            write_word(i++, cycle);
        }
        ++cycle;
    }
}

MaxPoolNode::MaxPoolNode(sc_core::sc_module_name name, PoolShape shape, uint64_t frames,
                         WordStream& in, WordStream& out)
    : StreamNode(name, shape, frames, in, out)
    , m_shape(shape) {
}

uint64_t MaxPoolNode::word_elements() const {
    return m_shape.channels / m_shape.words_per_pixel();
}

std::vector<int64_t> MaxPoolNode::read_pixels(uint64_t pixels, uint64_t& cycle) {
    std::vector<int64_t> v;
    v.reserve(pixels * m_shape.channels);
    for (uint64_t w = 0; w < pixels * m_shape.words_per_pixel(); ++w, ++cycle) {
        const Word x = read(cycle, word_elements());
        v.insert(v.end(), x.begin(), x.end());
    }
    return v;
}

// A band of kh rows (2D) or of k pixels (1D) is read, then its outputs written; what is left
// after the last whole band is read.
void MaxPoolNode::frame(uint64_t& cycle) {
    const PoolShape& s = m_shape;
    const uint64_t band_pixels = s.is_1d() ? s.k : s.kh() * s.ifm_w;
    const uint64_t bands = s.is_1d() ? s.ofm_w() : s.ofm_h();
    PoolShape band = s;
    band.ifm_h = s.kh(), band.ifm_w = s.is_1d() ? s.k : s.ifm_w;
    const uint64_t elements = word_elements();
    for (uint64_t b = 0; b < bands; ++b) {
        const std::vector<int64_t> y = maxpool(band, read_pixels(band_pixels, cycle));
        for (size_t o = 0; o < y.size(); o += elements, ++cycle) {
            write(
                Word(y.begin() + static_cast<long>(o), y.begin() + static_cast<long>(o + elements)),
                cycle);
        }
    }
    read_pixels(s.ifm_h * s.ifm_w - bands * band_pixels, cycle);
}

DwcNode::DwcNode(sc_core::sc_module_name name, DwcLayer layer, uint64_t frames, WordStream& in,
                 WordStream& out)
    : StreamNode(name, layer, frames, in, out)
    , m_layer(layer) {
}

void DwcNode::frame(uint64_t& cycle) {
    const uint64_t n_in = m_layer.frame_elements / m_layer.in_elements;
    const uint64_t n_out = m_layer.frame_elements / m_layer.out_elements;
    const auto out_len = static_cast<long>(m_layer.out_elements);
    Word buffer;
    uint64_t reads = 0, writes = 0;
    while (writes < n_out) {
        if (reads < n_in && buffer.size() < m_layer.out_elements) {
            const Word w = read(cycle, m_layer.in_elements);
            buffer.insert(buffer.end(), w.begin(), w.end());
            ++reads;
        }
        if (buffer.size() >= m_layer.out_elements) {
            write(Word(buffer.begin(), buffer.begin() + out_len), cycle);
            buffer.erase(buffer.begin(), buffer.begin() + out_len);
            ++writes;
        }
        ++cycle;
    }
}

LabelSelectNode::LabelSelectNode(sc_core::sc_module_name name, LabelSelectLayer layer,
                                 uint64_t frames, WordStream& in, WordStream& out)
    : StreamNode(name, layer, frames, in, out)
    , m_layer(layer) {
}

void LabelSelectNode::frame(uint64_t& cycle) {
    std::vector<int64_t> x;
    x.reserve(m_layer.labels);
    for (uint64_t w = 0; w < m_layer.labels / m_layer.pe; ++w, ++cycle) {
        const Word v = read(cycle, m_layer.pe);
        x.insert(x.end(), v.begin(), v.end());
    }
    for (int64_t index : label_select(x, m_layer.labels, m_layer.k)) {
        write(Word{index}, cycle);
        ++cycle;
    }
}

}  // namespace npu::finn
