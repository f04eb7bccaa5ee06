#include "models/finn/finn_design.h"

#include <algorithm>
#include <memory>

#include <fmt/format.h>

#include "models/finn/finn_layout_nodes.h"
#include "models/finn/finn_nodes.h"
#include "sim/core/error.h"
#include "sim/core/overload.h"
#include "sim/tlm/kernel.h"

namespace npu::finn {

namespace {

std::unique_ptr<StreamNode> make_node(const Layer& l, uint64_t frames, WordStream& in,
                                      WordStream& out) {
    const char* name = l.name.c_str();
    return std::visit(sim::Overload{
                          [&](const Mvau& m) -> std::unique_ptr<StreamNode> {
                              return std::make_unique<MvauNode>(name, m, frames, in, out);
                          },
                          [&](const Vvau& v) -> std::unique_ptr<StreamNode> {
                              return std::make_unique<VvauNode>(name, v, frames, in, out);
                          },
                          [&](const ThresholdingLayer& t) -> std::unique_ptr<StreamNode> {
                              return std::make_unique<ThresholdingNode>(name, t, frames, in, out);
                          },
                          [&](const SwgShape& s) -> std::unique_ptr<StreamNode> {
                              return std::make_unique<SwgNode>(name, s, frames, in, out);
                          },
                          [&](const PoolShape& p) -> std::unique_ptr<StreamNode> {
                              return std::make_unique<MaxPoolNode>(name, p, frames, in, out);
                          },
                          [&](const DwcLayer& d) -> std::unique_ptr<StreamNode> {
                              return std::make_unique<DwcNode>(name, d, frames, in, out);
                          },
                          [&](const LabelSelectLayer& s) -> std::unique_ptr<StreamNode> {
                              return std::make_unique<LabelSelectNode>(name, s, frames, in, out);
                          },
                      },
                      l.op);
}

// The chain in SystemC: streams, nodes, a source offering a word a cycle and a sink taking one.
class Chain : public sc_core::sc_module {
public:
    Chain(sc_core::sc_module_name name, const Design& d, const std::vector<int64_t>& input,
          uint64_t frames, const SimulateOptions& opts)
        : sc_module(name)
        , m_input(input)
        , m_frames(frames)
        , m_in_word(frame_elements(d.layers.front().op).in_word)
        , m_out_words(frame_elements(d.layers.back().op).out /
                      frame_elements(d.layers.back().op).out_word) {
        const size_t n = d.layers.size();
        for (size_t i = 0; i <= n; ++i) {
            const uint64_t depth = d.fifo_depths.empty() ? 2 : d.fifo_depths[i];
            m_streams.push_back(
                std::make_unique<WordStream>(fmt::format("fifo{}", i).c_str(), depth, 0));
            m_streams.back()->record_times(opts.record);
            m_streams.back()->keep_values(opts.keep_values && i > 0);
        }
        for (size_t i = 0; i < n; ++i) {
            m_nodes.push_back(make_node(d.layers[i], frames, *m_streams[i], *m_streams[i + 1]));
        }
        SC_HAS_PROCESS(Chain);
        SC_THREAD(source);
        SC_THREAD(sink);
    }

    std::vector<std::unique_ptr<WordStream>> m_streams;
    std::vector<std::unique_ptr<StreamNode>> m_nodes;
    std::vector<int64_t> m_output;
    std::vector<uint64_t> m_frame_done;

private:
    void source() {
        const uint64_t elements = m_in_word;
        uint64_t cycle = 0;
        for (size_t i = 0; i < m_input.size(); i += elements, ++cycle) {
            m_streams.front()->write(Word(m_input.begin() + static_cast<long>(i),
                                          m_input.begin() + static_cast<long>(i + elements)),
                                     cycle);
        }
    }
    void sink() {
        const uint64_t words = m_out_words;
        uint64_t cycle = 0;
        for (uint64_t f = 0; f < m_frames; ++f) {
            for (uint64_t w = 0; w < words; ++w, ++cycle) {
                const Word x = m_streams.back()->read(cycle);
                m_output.insert(m_output.end(), x.begin(), x.end());
            }
            m_frame_done.push_back(cycle);
        }
    }

    const std::vector<int64_t>& m_input;
    uint64_t m_frames;
    uint64_t m_in_word, m_out_words;  // elements of an input word; output words a frame
};

NodeReport node_report(StreamNode& node, uint64_t cycles) {
    NodeReport r;
    r.name = node.basename(), r.op_type = node.op_type();
    r.formula_cycles = node.formula_cycles();
    const std::vector<uint64_t>& starts = node.frame_starts();
    r.frame_cycles = starts.size() >= 2 ? starts.back() - starts[starts.size() - 2]
                                        : node.end_cycle() - node.start_cycle();
    r.start = node.start_cycle(), r.end = node.end_cycle();
    r.frame_starts = starts;
    r.input_stall = node.in().stats().read_stall_cycles;
    r.output_stall = node.out().stats().write_stall_cycles;
    const uint64_t waiting = r.input_stall + r.output_stall;
    r.busy = cycles == 0 || waiting > r.end
                 ? 0
                 : static_cast<double>(r.end - waiting) / static_cast<double>(cycles);
    return r;
}

DesignRun collect(Chain& chain, const Design& d) {
    DesignRun run;
    run.output = std::move(chain.m_output);
    run.frame_done = chain.m_frame_done;
    run.cycles = run.frame_done.empty() ? 0 : run.frame_done.back();
    for (auto& node : chain.m_nodes) {
        run.nodes.push_back(node_report(*node, run.cycles));
    }
    for (size_t i = 1; i < chain.m_streams.size(); ++i) {  // kept only if asked
        const auto& words = chain.m_streams[i]->values();
        if (!words.empty()) {
            run.layer_outputs.emplace_back();
            for (const Word& w : words) {
                run.layer_outputs.back().insert(run.layer_outputs.back().end(), w.begin(), w.end());
            }
        }
    }
    for (size_t i = 0; i < chain.m_streams.size(); ++i) {
        const sim::StreamStats st = chain.m_streams[i]->stats();
        const WordStream& stream = *chain.m_streams[i];
        run.fifos.push_back({fifo_name(d, i), stream.depth(), st.max_occupancy, st.words,
                             st.write_stall_cycles, st.read_stall_cycles, stream.write_times(),
                             stream.read_times(),
                             sim::occupancy_curve(stream.write_times(), stream.read_times())});
    }
    return run;
}

}  // namespace

uint64_t DesignRun::interval() const {
    const size_t n = frame_done.size();
    return n >= 2 ? frame_done[n - 1] - frame_done[n - 2] : latency();
}

DesignRun simulate(const Design& d, const std::vector<int64_t>& input, uint64_t frames,
                   const SimulateOptions& opts) {
    const std::vector<std::string> problems = check(d);
    if (!problems.empty()) {
        throw sim::Error(problems.front());
    }
    const uint64_t per_frame = frame_elements(d.layers.front().op).in;
    if (frames == 0 || input.size() != frames * per_frame) {
        throw sim::Error(fmt::format("the input holds {} values, expected {} frames of {}",
                                     input.size(), frames, per_frame));
    }
    sim::Session session({nullptr, false, true, false});  // the caller's report handler
    auto chain = std::make_unique<Chain>("finn", d, input, frames, opts);
    session.run();
    if (chain->m_frame_done.size() != frames) {
        throw sim::Error(fmt::format("the design stopped after {} of {} frames",
                                     chain->m_frame_done.size(), frames));
    }
    return collect(*chain, d);
}

FifoSizing size_fifos(const Design& d, const std::vector<int64_t>& input, uint64_t frames,
                      uint64_t min_depth) {
    constexpr uint64_t kUnbounded = uint64_t{1} << 40;
    FifoSizing s;
    Design trial = d;
    trial.fifo_depths.assign(d.layers.size() + 1, kUnbounded);
    const DesignRun free_run = simulate(trial, input, frames);
    s.simulations = 1;
    s.target_interval = free_run.interval();
    auto keeps_rate = [&](size_t i, uint64_t depth) {
        Design t = trial;
        t.fifo_depths[i] = depth;
        ++s.simulations;
        return simulate(t, input, frames).interval() <= s.target_interval;
    };
    for (size_t i = 0; i < trial.fifo_depths.size(); ++i) {
        uint64_t lo = min_depth, hi = std::max(min_depth, free_run.fifos[i].max_occupancy);
        if (!keeps_rate(i, hi)) {
            continue;  // the FIFOs sized before it need this one deeper than it ever filled
        }
        while (lo < hi) {  // the smallest depth in [lo, hi] that keeps the rate; hi does
            const uint64_t mid = lo + (hi - lo) / 2;
            if (keeps_rate(i, mid)) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        trial.fifo_depths[i] = hi;
    }
    s.depths = trial.fifo_depths;
    s.interval = simulate(trial, input, frames).interval();
    ++s.simulations;
    return s;
}

}  // namespace npu::finn
