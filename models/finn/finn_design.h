// A FINN dataflow design: a chain of streaming layers joined by FIFOs, fed by a source that
// offers one input word a cycle and drained by a sink that takes one output word a cycle, run in
// SystemC with real back-pressure. What comes out: the output values, per layer its cycles per
// frame beside FINN's formula, its stalls and busy share, per FIFO its largest occupancy and
// stalls, and for the design the interval between frames (the initiation interval once the
// pipeline is full) and the latency of the first frame. size_fifos() finds the smallest depths
// that keep the interval of unbounded FIFOs, by simulation. docs/finn.md, "Designs".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/finn/finn_chain.h"

namespace npu::finn {

struct NodeReport {
    std::string name, op_type;
    uint64_t formula_cycles = 0;  // FINN's cycles a frame (finn_cost.h)
    uint64_t frame_cycles = 0;    // simulated: between its last two frame starts (one frame: all)
    uint64_t start = 0, end = 0;  // its first read, one past its last iteration
    std::vector<uint64_t> frame_starts;
    uint64_t input_stall = 0;   // cycles it waited for input words
    uint64_t output_stall = 0;  // cycles it was held by a full output FIFO
    double busy = 0;            // share of the design's cycles it was neither waiting nor held
};

struct FifoReport {
    std::string name;  // "<producer> -> <consumer>" ("input", "output" at the ends)
    uint64_t depth = 0, max_occupancy = 0, words = 0;
    uint64_t write_stall = 0, read_stall = 0;
    // With SimulateOptions::record: each word's write and read cycle, and (cycle, words in the
    // FIFO from that cycle on) at each change.
    std::vector<uint64_t> write_cycles, read_cycles;
    std::vector<std::pair<uint64_t, uint64_t>> occupancy;
};

struct DesignRun {
    std::vector<int64_t> output;
    std::vector<NodeReport> nodes;
    std::vector<FifoReport> fifos;
    std::vector<uint64_t> frame_done;  // per frame, the cycle after its last output word
    uint64_t cycles = 0;               // the whole run
    // With SimulateOptions::keep_values: per layer the elements it wrote, in stream order.
    std::vector<std::vector<int64_t>> layer_outputs;
    // The interval between the last two frames (one frame: its latency).
    uint64_t interval() const;
    uint64_t latency() const { return frame_done.empty() ? 0 : frame_done.front(); }
};

// Runs `frames` frames of `input` (frames · the first layer's input elements, channel-last).
// Throws sim::Error with the first problem check() finds or on input of the wrong size.
struct SimulateOptions {
    bool record = false;       // each FIFO's occupancy over time (FifoReport::occupancy)
    bool keep_values = false;  // each layer's output values (DesignRun::layer_outputs)
};
DesignRun simulate(const Design& d, const std::vector<int64_t>& input, uint64_t frames,
                   const SimulateOptions& opts = {});

struct FifoSizing {
    std::vector<uint64_t> depths;  // per FIFO, as Design::fifo_depths
    uint64_t target_interval = 0;  // with FIFOs that never fill
    uint64_t interval = 0;         // with `depths`
    uint64_t simulations = 0;
};

// The target is the interval with FIFOs deep enough never to fill; each FIFO in turn (input side
// first) then gets the smallest depth, at least `min_depth`, that keeps the interval at the
// target with the FIFOs before it already sized, by bisection between min_depth and the
// occupancy it reached.
FifoSizing size_fifos(const Design& d, const std::vector<int64_t>& input, uint64_t frames,
                      uint64_t min_depth = 2);

}  // namespace npu::finn
