// One inference on the timed K210 platform in a fresh simulation context: the harness of the
// SoC tests.
#pragma once

#include <random>

#include "platforms/k210/soc/driver.h"
#include "platforms/k210/soc/k210_config.h"
#include "platforms/k210/soc/k210_platform.h"
#include "sim/core/config.h"
#include "sim/core/tensor.h"
#include "sim/tlm/kernel.h"

namespace npu::test {

inline k210::K210Config k210_config() {
    auto doc = sim::ConfigDocument::load_file(NPUSIM_SOURCE_DIR "/configs/k210.yaml");
    k210::K210Config c = k210::read_k210_config(doc.root().child("platform"));
    doc.finish();
    return c;
}

inline sim::Tensor random_image(unsigned seed, sim::Shape shape = {1, 3, 240, 320}) {
    sim::Tensor t(sim::DType::u8, shape);
    std::mt19937 rng(seed);
    for (size_t i = 0; i < t.numel(); ++i) {
        t.data<uint8_t>()[i] = static_cast<uint8_t>(rng());
    }
    return t;
}

struct Inference {
    k210::RunResult result;
    uint64_t kpu_cycles = 0;
    size_t kpu_layers = 0;
    std::vector<uint64_t> kpu_layer_cycles;  // each KPU layer record's total_cycles
};

// One inference in a fresh simulation context (with `dump_all`, every layer's result kept).
inline Inference infer(const k210::Kmodel& m, const sim::Tensor& input, bool dump_all = false) {
    sim::reset_simulation();
    sim::TraceWriter trace(false);
    k210::K210Platform soc("k210", k210_config(), trace);
    k210::K210Driver driver("driver", soc, trace);
    driver.load(m, input);
    driver.dump_all(dump_all);
    sc_core::sc_start();
    Inference r{driver.result(), 0, soc.kpu.layers().size(), {}};
    for (const auto& l : soc.kpu.layers()) {
        r.kpu_cycles += l.cost.total_cycles;
        r.kpu_layer_cycles.push_back(l.cost.total_cycles);
    }
    return r;
}

}  // namespace npu::test
