// The KPU time model's calibration as a reproducible command: the board's per-layer profile of
// face_detect_v3 (nncase#77) and the Sipeed table, fitted together (models/k210_kpu/kpu_fit.h)
// with leave-one-out errors, printed as the Markdown tables of docs/k210_kpu.md "Timing".
// `scripts/k210-kpu-fit` runs it; a test checks the doc and the shipped constants against it.
#pragma once

#include <string>
#include <vector>

#include "platforms/k210/soc/k210_config.h"

namespace npu::k210 {

struct KpuFitInputs {
    std::string face_model;  // face_detect_v3.kmodel
    std::string face_csv;    // layer,type,ms (platforms/k210/data/nncase77_face_detect_v3.csv)
    std::string sipeed_csv;  // width,height,ms (platforms/k210/data/sipeed_691_conv3x3.csv)
};

struct KpuFitRow {
    std::string name;
    bool face = false;  // a layer of the face model's timed run (else a Sipeed cost-function row)
    double board_us = 0, sim_us = 0;  // sim: with the platform's (shipped) constants
    double loo_error = 0;             // NaN where a row cannot be predicted without itself
};

struct KpuFitReport {
    std::vector<KpuFitRow> rows;
    double board_kpu_ms = 0, sim_kpu_ms = 0;      // nncase#77: Σ its KPU layers
    double board_model_ms = 0, sim_model_ms = 0;  // nncase#77: Σ every measured layer
    std::string markdown;                         // the tables, between the doc's markers
    kpu::KpuTiming fitted;                        // the constants the fit gives
    bool shipped_match = false;  // each platform constant lies in the fit's leave-one-out range
    std::string error;           // a problem met after a simulation ran
};

// `cfg`: the platform whose runtime and constants are fitted (the built-in k210.yaml).
KpuFitReport kpu_fit_report(const KpuFitInputs& in, const K210Config& cfg);

// The text between "<!-- kpu-fit:begin -->" and "<!-- kpu-fit:end -->" of `doc` replaced by
// `markdown` (throws sim::Error when the markers are missing).
std::string with_fit_tables(const std::string& doc, const std::string& markdown);

}  // namespace npu::k210
