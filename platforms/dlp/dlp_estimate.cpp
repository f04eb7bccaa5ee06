#include "platforms/dlp/dlp_estimate.h"

#include <fmt/format.h>

namespace npu::dlp {

double NetworkEstimate::frames_per_second() const {
    return total_cycles == 0 ? 0
                             : static_cast<double>(frames) * static_cast<double>(clock_hz) /
                                   static_cast<double>(total_cycles);
}

NetworkEstimate estimate(const Network& n, const Program& p, const DlpConfig& cfg,
                         const DlpTiming& t) {
    NetworkEstimate e;
    e.frames = p.frames;
    e.clock_hz = cfg.target_frequency_hz;
    for (size_t i = 0; i < n.layers.size(); ++i) {
        const Layer& l = n.layers[i];
        LayerEstimate le{l.name, module_name(l.kind),
                         layer_cost(l, p.records[i].place, cfg, t, i == 0)};
        e.frame_cycles += le.cost.total_cycles;
        e.layers.push_back(le);
    }
    e.total_cycles = e.frame_cycles * e.frames;
    return e;
}

std::string table(const NetworkEstimate& e) {
    const double hz = static_cast<double>(e.clock_hz);
    auto seconds = [&](uint64_t c) {
        return static_cast<double>(c) / hz;
    };
    std::string s = "Deep Learning Processor Estimator Performance Results\n\n";
    s += fmt::format("{:<28}{:>26}{:>28}{:>12}{:>16}{:>12}\n", "", "LastFrameLatency(cycles)",
                     "LastFrameLatency(seconds)", "FramesNum", "Total Latency", "Frames/s");
    s += fmt::format("{:<28}{:>26}{:>28}{:>12}{:>16}{:>12}\n", "", "-------------", "-------------",
                     "---------", "---------", "---------");
    s += fmt::format("{:<28}{:>26}{:>28.6g}{:>12}{:>16}{:>12.1f}\n", "Network", e.frame_cycles,
                     seconds(e.frame_cycles), e.frames, e.total_cycles, e.frames_per_second());
    // One row per layer in network order, as dlhdl's estimator prints them (R2024a).
    for (const LayerEstimate& l : e.layers) {
        s += fmt::format("{:<28}{:>26}{:>28.6g}\n", "    " + l.name, l.cost.total_cycles,
                         seconds(l.cost.total_cycles));
    }
    s +=
        fmt::format(" * The clock frequency of the DL processor is: {}MHz\n", e.clock_hz / 1000000);
    return s;
}

nlohmann::ordered_json to_json(const NetworkEstimate& e) {
    nlohmann::ordered_json j;
    j["clock_hz"] = e.clock_hz;
    j["frames"] = e.frames;
    j["last_frame_latency_cycles"] = e.frame_cycles;
    j["total_latency_cycles"] = e.total_cycles;
    j["frames_per_second"] = e.frames_per_second();
    nlohmann::ordered_json layers = nlohmann::ordered_json::array();
    for (const LayerEstimate& l : e.layers) {
        const LayerCost& c = l.cost;
        layers.push_back({{"name", l.name},
                          {"module", l.module},
                          {"total_cycles", c.total_cycles},
                          {"compute_cycles", c.compute_cycles},
                          {"read_cycles", c.read_cycles},
                          {"weight_cycles", c.weight_cycles},
                          {"write_cycles", c.write_cycles},
                          {"overhead_cycles", c.overhead_cycles},
                          {"tiles", c.tiles},
                          {"read_bytes", c.read_bytes},
                          {"weight_bytes", c.weight_bytes},
                          {"write_bytes", c.write_bytes},
                          {"macs", c.macs}});
    }
    j["layers"] = layers;
    return j;
}

}  // namespace npu::dlp
