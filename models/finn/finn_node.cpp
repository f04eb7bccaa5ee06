#include "models/finn/finn_node.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace npu::finn {

StreamNode::StreamNode(sc_core::sc_module_name name, const LayerOp& layer, uint64_t frames,
                       WordStream& in, WordStream& out)
    : sc_module(name)
    , m_op_type(op_name(layer))
    , m_frames(frames)
    , m_in(in)
    , m_out(out) {
    refuse(check(layer));
    m_formula_cycles = finn::formula_cycles(layer);
    SC_HAS_PROCESS(StreamNode);
    SC_THREAD(run);
}

void StreamNode::run() {
    uint64_t cycle = 0;
    for (uint64_t f = 0; f < m_frames; ++f) {
        m_frame_starts.push_back(cycle);
        frame(cycle);
    }
    m_end = cycle;
}

Word StreamNode::read(uint64_t& cycle, size_t elements) {
    Word w = m_in.read(cycle);
    if (!m_read_any) {
        m_read_any = true;
        m_start = cycle;
    }
    if (w.size() != elements) {
        fail(fmt::format("an input word of {} elements, expected {}", w.size(), elements));
    }
    return w;
}

void StreamNode::fail(const std::string& what) const {
    throw sim::Error(std::string(basename()) + ": " + what);
}

void StreamNode::refuse(const std::vector<std::string>& problems) const {
    if (!problems.empty()) {
        fail(problems.front());
    }
}

}  // namespace npu::finn
