// The DL processor's time constants fitted to dlhdl's own estimator (docs/dlp.md "Timing"): the
// conv, adder and fc modules' set-up cycles, the network's start and the DDR's burst latency, by
// non-negative least squares over a published table's rows, for each candidate AXI data width,
// with every row also predicted by a fit that did not see it (leave-one-out). The model is
// dlp::layer_cost itself (compute and beats at zero set-up and latency, bursts as the growth of
// one cycle of latency): the fit and the simulator share one formula. scripts/dlp-fit prints the
// tables; a test checks the doc and the shipped constants against a fresh fit.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "models/dlp/dlp_cost.h"
#include "platforms/dlp/dlp_compiler.h"

namespace npu::dlp {

struct MeasuredLayer {
    std::string name;
    uint64_t cycles = 0;
};

// `name,cycles` rows (a header and `#` comments allowed); throws sim::Error naming the line.
std::vector<MeasuredLayer> read_measured_layers(const std::string& text, const std::string& source);

struct DlpFit {
    unsigned width_bits = 0;
    DlpTiming timing;                   // the fitted set-ups and start (rounded to cycles)
    unsigned burst_latency_cycles = 0;  // the fitted DDR burst latency (rounded)
    std::vector<uint64_t> predicted;    // each row with the fitted constants
    std::vector<uint64_t> left_out;     // each row by the fit without it
    double rms_loo_percent = 0;         // leave-one-out errors: root mean square
    double max_abs_loo_percent = 0;     // and the largest
};

// Fits the constants at the AXI width `width_bits` (the other timing values from `base`) to the
// network's measured rows (matched to its layers by name; every row must name a layer).
DlpFit fit_dlp_timing(const Network& n, const Program& p, DlpConfig cfg, const DlpTiming& base,
                      const std::vector<MeasuredLayer>& rows, unsigned width_bits);

struct DlpFitReport {
    std::string markdown;       // the tables of docs/dlp.md between its dlp-fit markers
    bool shipped_match = true;  // the shipped constants equal the fit at the shipped width
    std::string mismatch;       // which constant differs, when one does
};

// Every candidate width (128, 256, 512 bits) and the shipped one in full, against the shipped
// constants (`shipped_cfg`, `shipped`: the platform file's and DlpTiming's).
DlpFitReport dlp_fit_report(const Network& n, const DlpConfig& shipped_cfg,
                            const DlpTiming& shipped, const std::vector<MeasuredLayer>& rows);

}  // namespace npu::dlp
