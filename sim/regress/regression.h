// Regression as a service (issue #34): a platform runs its program and a float reference on the
// same samples and hands over, per compared layer and per output, the error statistics of its
// (simulated, reference) tensor pairs; this judges them against the tolerances and gives the
// verdict as a run record — a layer per compared layer with its error measures, a check per
// tolerance (tied to the layer and measure it judges), the outputs and confusion matrices as
// tables — and the text printed. report.json, the page and junit.xml are the record's writers.
// docs/regress.md. Pure: no SystemC.
#pragma once

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/run_record.h"

namespace npu::regress {

// Error statistics of one tensor over every sample.
struct ErrorStats {
    double max_abs = 0, sum_abs = 0, max_lsb = 0;
    uint64_t count = 0;
    double dot = 0, sim_sq = 0, ref_sq = 0;

    double mean_abs() const { return count == 0 ? 0 : sum_abs / static_cast<double>(count); }
    // 1 when both are all zero, 0 when only one is.
    double cosine() const {
        return sim_sq == 0 || ref_sq == 0 ? (sim_sq == ref_sq ? 1.0 : 0.0)
                                          : dot / std::sqrt(sim_sq * ref_sq);
    }
    // Adds the element pairs (simulated, reference) of one sample; not the LSB error.
    void add(const float* sim, const float* ref, size_t n);
    void add(double sim, double ref);
    void add_lsb(double lsb_error) { max_lsb = std::max(max_lsb, lsb_error); }
};

struct Tolerances {
    double max_lsb = 8, min_cosine = 0.99, min_top1 = 0.95;
    bool top1_given = false;  // min_top1 given explicitly
};
// The tolerances of a YAML file (max_lsb, min_cosine, min_top1_agreement; "" for none), then
// each value given on the command line (negative: not given). A bad file is one sim::Error
// naming the file, line and key.
// `defaults`: the platform's (FINN's integer designs: 0 LSB).
Tolerances read_tolerances(const std::string& file, double max_lsb, double min_cosine,
                           double min_top1, const Tolerances& defaults = {});

// One layer's output against the reference tensor it equals, over every sample.
struct LayerError {
    size_t index = 0;    // the program's layer
    std::string op;      // e.g. "kpu K210_CONV"
    std::string tensor;  // the reference's tensor
    double lsb = 0;      // its quantization step; 0: judged by cosine alone
    ErrorStats stats;
};

struct OutputError {
    std::string name;
    ErrorStats stats;
    std::optional<uint64_t> agree;  // samples whose arg-max agrees with the reference's
    bool scores = false;            // a vector of scores: judged by top-1 agreement, not cosine
};

struct Regression {
    std::string program, reference;  // the files compared
    std::string input_note;          // how a sample became each engine's input
    size_t samples = 0;
    Tolerances tol;
    std::vector<LayerError> layers;  // in the order the program ran them
    std::vector<OutputError> outputs;
    // With labels: [label][top-1 class] counts of each engine and the samples each got right.
    std::vector<std::vector<uint64_t>> confusion_sim, confusion_ref;
    std::optional<uint64_t> correct_sim, correct_ref;
};

// The verdict as a run record (command "regress", mode "functional"; docs/regress.md):
// - a layer per compared layer: index, op, name = the reference tensor, measures max_abs_error,
//   mean_abs_error, cosine, cosine_distance (1 − cosine), max_error_lsb and lsb when quantized;
// - checks, each tied to the layer and measure it judges: per layer max_error_lsb <= max_lsb
//   (quantized layers) and cosine_distance <= 1 − min_cosine; per output top1_agreement >=
//   min_top1 (counted, and scores or min_top1 given) and cosine_distance unless scores;
// - tables "outputs" and, with labels, "confusion_simulated" and "confusion_reference";
// - totals samples, failed_checks, and with labels accuracy_simulated and accuracy_reference;
// - a note naming the first diverging layer.
sim::RunRecord verdict(const Regression& r);
// The printed report: the tolerances, a row per layer, the outputs, the accuracy, the first
// diverging layer.
std::string verdict_text(const Regression& r, const sim::RunRecord& v);
// "3 (conv_1)": the first layer with a failed check, or "".
std::string first_diverging(const sim::RunRecord& v);

}  // namespace npu::regress
