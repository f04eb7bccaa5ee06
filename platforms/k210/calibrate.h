// `npusim calibrate` for the K210: fit the time model's constants to per-layer times measured on
// a board (a CSV: layer, type, ms — e.g. what nncase's NNCASE_DEBUG prints per node, numbered as
// `npusim info --model` numbers the layers). Each measured layer's time is linear in the fitted
// constants given what a timed run says about it (KPU layers run, lane lines, read-back bytes,
// CPU work units, and the parts kept: parameter fetch, dispatch, interrupts, bus and DMA), so
// they are fitted by non-negative least squares on relative errors. docs/k210_platform.md
// "Calibrating against a board". No SystemC (its config type lives in the platform's library).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "platforms/k210/soc/k210_config.h"

namespace npu::k210 {

struct MeasuredRow {
    size_t line = 0;  // in the CSV, for messages
    size_t layer = 0;
    std::string type;
    double ms = 0;
};

// A CSV with the header `layer,type,ms` (more columns are ignored); throws one sim::Error naming
// `name`, the line and what was expected. Layers appear at most once.
std::vector<MeasuredRow> parse_measured_csv(const std::string& text, const std::string& name);

// What a timed run says about one layer: the fit's regressors and the parts it keeps.
struct LayerFeatures {
    std::string type;
    double wall_us = 0;           // the layer's simulated time
    uint64_t kpu_layers = 0;      // × kpu.layer_fixed_cycles
    uint64_t input_lines = 0;     // × kpu.cycles_per_input_line
    uint64_t passes = 0;          // × kpu.cycles_per_pass
    uint64_t output_lines = 0;    // × kpu.cycles_per_output_line
    uint64_t fetch_bytes = 0;     // × kpu.fetch_cycles_per_byte: tables and weight chunk 0
    uint64_t output_words = 0;    // × kpu.output_cycles_per_word
    double kpu_kept = 0;          // KPU cycles not fitted: later weight chunks not hidden
    uint64_t readback_bytes = 0;  // × kpu_readback_cycles_per_byte
    uint64_t cpu_elements = 0;    // × op_cycles_per_element.<type>
    uint64_t cpu_macs = 0;        // × cycles_per_mac
    uint64_t cpu_kept = 0;        // CPU cycles not fitted: dispatch, interrupts
    double bus_dma_us = 0;        // not fitted: the bus transactions and DMA drains
    uint64_t kpu_cycles = 0;      // Σ the KPU layers' total_cycles
    std::vector<kpu::LayerArgs> kpu_args;  // the KPU layers as the runtime issued them
};

// Every row names a layer of the model (by index into `layer_types`) of the row's type; else one
// sim::Error naming `csv_name`:line.
void check_measured_rows(const std::vector<MeasuredRow>& rows,
                         const std::vector<std::string>& layer_types, const std::string& csv_name);

struct Fit {
    K210Config config;               // the base config with the fitted constants
    std::vector<std::string> keys;   // the config keys fitted ("kpu.layer_fixed_cycles", ...)
    std::vector<std::string> notes;  // constants left as they were, and why
};

// Fits the constants the rows can determine. `features` is indexed by layer; every row's layer
// must exist and have the row's type (else one sim::Error naming `csv_name`:line).
Fit fit_constants(const std::vector<MeasuredRow>& rows, const std::vector<LayerFeatures>& features,
                  const K210Config& base, bool eight_bit, const std::string& csv_name);

// The predicted time of a layer under `cfg` from its features (what the fit minimises).
double predicted_us(const LayerFeatures& f, const K210Config& cfg, bool eight_bit);

// The KPU part of a layer's features from its cost under `t` (kpu_kept: what the linear terms
// do not give, i.e. later weight chunks not hidden behind compute, and rounding).
void add_kpu_features(LayerFeatures& f, const kpu::LayerCost& c, const kpu::KpuTiming& t);

// The fitted keys as a calibration YAML (`calibration:` of a k210 platform includes it).
std::string calibration_yaml(const Fit& fit, const std::string& header);

}  // namespace npu::k210
