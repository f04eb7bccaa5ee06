// Fuzz entry point for the FINN-ONNX importer: any bytes give a design or one sim::Error. Used by
// libFuzzer (fuzz_finn.cpp) and by the seeded mutation test in the normal suite
// (tests/platforms/finn/test_finn_import.cpp), which also runs under ASan.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "platforms/finn/finn_import.h"
#include "platforms/finn/finn_sweep_file.h"
#include "sim/core/error.h"
#include "sim/onnx/onnx_import.h"

namespace npu::fuzz {

// Returns 0 when the bytes were refused, 1 when they imported.
inline int finn_model(const uint8_t* data, size_t size) {
    try {
        onnx::ImportOptions o;
        o.run_checker = false;
        o.other_domains = true;
        const onnx::Graph g =
            onnx::import_model_bytes(std::vector<uint8_t>(data, data + size), "fuzz.onnx", o);
        finn::import_finn(g, "fuzz.onnx");
        return 1;
    } catch (const sim::Error&) {
        return 0;
    }
}

// A design with a layer of every kind that folds (its weights all 1): what a sweep file is read
// against.
inline const finn::Design& sweep_design() {
    static const finn::Design d = [] {
        finn::SwgShape w;
        w.ifm_h = w.ifm_w = 6, w.channels = 4, w.kh = w.kw = 3;
        finn::Mvau m;
        m.mw = 36, m.mh = 8, m.vectors = 16;
        m.in = m.weight = finn::DataType::sint(4);
        m.weights.assign(36 * 8, 1);
        finn::ThresholdingLayer t;
        t.channels = 8, t.vectors = 16;
        t.thresholds = finn::Thresholds(8, std::vector<int64_t>{0});
        finn::PoolShape p;
        p.ifm_h = p.ifm_w = 4, p.channels = 8, p.k = 2;
        finn::Mvau fc;
        fc.mw = 32, fc.mh = 6;
        fc.in = fc.weight = finn::DataType::sint(4);
        fc.weights.assign(32 * 6, 1);
        finn::LabelSelectLayer l;
        l.labels = 6;
        finn::Design x;
        x.layers = {{"ConvolutionInputGenerator_hls_0", w, false, {}},
                    {"MVAU_hls_0", m, false, {}},
                    {"Thresholding_hls_0", t, false, {}},
                    {"StreamingMaxPool_hls_0", p, false, {}},
                    {"MVAU_hls_1", fc, false, {}},
                    {"LabelSelect_hls_0", l, false, {}}};
        return x;
    }();
    return d;
}

// A folding sweep file: read against sweep_design() and, when it is one, swept (at most 20,000
// configurations). Returns 0 when refused, 1 when swept.
inline int finn_sweep(const uint8_t* data, size_t size) {
    try {
        const std::vector<finn::Knob> knobs =
            finn::read_sweep(std::vector<uint8_t>(data, data + size), sweep_design(), "s.json");
        finn::sweep(sweep_design(), knobs, false, 20'000);
        return 1;
    } catch (const sim::Error&) {
        return 0;
    }
}

}  // namespace npu::fuzz
