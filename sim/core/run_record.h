// The run record: what any platform's run, estimate or regression found, as types every writer
// reads (report.json, layers.csv, report.html, a campaign's metrics) — no writer reads a
// platform's private keys. report.json is its JSON form, schema "npusim-report/2"
// (docs/report.schema.json, docs/reports.md). Pure: no SystemC.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

namespace npu::sim {

// A named number and its unit ("" for a count, a ratio or a flag).
struct Quantity {
    std::string name;
    double value = 0;
    std::string unit;
};

// Cycles of one named part of an engine's work on a layer.
struct Part {
    std::string name;
    uint64_t cycles = 0;
};

// What one engine spent on a layer: its share of the layer's wall time and, when it counts
// cycles, the named parts of them at the clock they count (`clock`, at `clock_hz`).
struct EngineTime {
    std::string engine;  // e.g. "KPU", "CPU", "bus and DMA"
    uint64_t ps = 0;
    std::string clock;  // "" when the parts are not cycles of a clock
    double clock_hz = 0;
    std::vector<Part> parts;
};

struct LayerRecord {
    size_t index = 0;
    std::string op;     // the program's name for the layer's operation
    std::string shape;  // e.g. "1x16x16 -> 8x8x8 3x3"
    uint64_t macs = 0;
    uint64_t param_bytes = 0;  // weights and tables the layer's engines read from memory
    std::optional<uint64_t> start_ps, end_ps;  // wall time (timed runs)
    std::vector<EngineTime> engines;           // where the time went (timed runs)
    std::vector<Quantity> measures;            // further numbers of the layer
    std::string name;                          // the program's name for the layer, if any

    const Quantity* measure(const std::string& measure_name) const;  // null when it has none
};

// A tensor the run read or wrote (a file in --out when `file` is set).
struct TensorRecord {
    std::string name;
    std::string file;
    std::vector<int64_t> shape;
    std::string dtype;
    std::string note;             // e.g. how an input was made from an image
    std::string sha256;           // of its bytes, when recorded
    std::optional<size_t> layer;  // the layer that wrote it (a dump)
};

// One thing the run checked: `measured` against `limit` by `relation` ("<=" or ">=").
struct Check {
    std::string name;
    double measured = 0;
    std::string relation;
    double limit = 0;
    std::string unit;
    bool passed = true;
    std::optional<size_t> layer;  // the layer (its position in `layers`) whose measure it judges
    std::string measure;          // that measure's name, or ""
};

// A table only some runs have (a dataflow design's FIFOs, an estimate's results): named columns
// with units, each row a number or a text per column.
struct Table {
    struct Column {
        std::string name, unit;
    };
    using Cell = std::variant<double, std::string>;
    std::string name;   // its key in report.json, e.g. "fifos"
    std::string title;  // e.g. "FIFOs"
    std::string note;   // what the numbers are, or ""
    std::vector<Column> columns;
    std::vector<std::vector<Cell>> rows;  // a cell per column
    // "": a table; "matrix": counts, the first column the row's label, shaded by their share of
    // the row (a confusion matrix).
    std::string style;

    const Cell* cell(size_t row, const std::string& column) const;
    static double number(const Cell& c);  // a text counts 0
};

// What the page plots from a sweep's rows file (RunRecord::rows, one row per configuration):
// per group (rows with the same `group` value; "" for one group) and per swept parameter that
// takes more than one value in it, each measure's min, median and max at each value. A
// trade-off front, when `front_flag` is set: every row as a point of `front_y` against each of
// `front_x`, the rows whose `front_flag` is true marked.
struct SweepPlot {
    struct Measure {
        std::string key, title;
    };
    std::string group;
    std::vector<std::string> parameters;
    std::vector<Measure> measures;
    std::string front_flag;
    Measure front_y;
    std::vector<Measure> front_x;
};

struct RunRecord {
    static constexpr const char* kSchema = "npusim-report/2";
    std::string command;  // "run", "aipp", "estimate", "regress", "calibrate", "infer"
    std::string mode;     // e.g. "timed", "functional"
    struct {
        std::string kind, name, source;
        std::vector<Quantity> parameters;  // clocks; peak_ops_per_s and peak_bytes_per_s
    } platform;
    struct {
        std::string file, format;
        std::vector<Quantity> facts;  // e.g. layers
    } program;
    std::vector<TensorRecord> inputs, outputs, dumps;
    std::vector<LayerRecord> layers;
    std::vector<Quantity> totals;
    std::vector<Check> checks;
    std::vector<std::string> notes;  // what a reader of the numbers should know
    std::vector<Table> tables;
    // A file of the run's in --out with one row per layer or configuration (an estimate's
    // estimate.json), which a campaign merges into its rows; "" for none.
    std::string rows;
    std::optional<SweepPlot> plot;  // a sweep's: what the page draws from `rows`
    nlohmann::ordered_json stats;   // the models' statistics tree (sim/core/stats.h), or null
    nlohmann::ordered_json extra;   // what only this platform reports (an object), or null

    const Quantity* total(const std::string& name) const;
    const Table* table(const std::string& name) const;
    // The position in `layers` of the first layer a check judges and fails, if any.
    std::optional<size_t> first_failing_layer() const;
    bool passed() const;  // every check passed
};

// report.json: {"schema", "tool", "version", ...} in a fixed order.
nlohmann::ordered_json to_json(const RunRecord& r);
// A report.json back (npusim report, a campaign's merge); throws sim::Error naming `source` and
// the key when it is not a report of this schema.
RunRecord record_from_json(const nlohmann::ordered_json& j, const std::string& source);
bool is_record_json(const nlohmann::ordered_json& j);

// A cell as report.json writes it (a whole number as an integer).
nlohmann::ordered_json cell_json(const Table::Cell& c);

// junit.xml: a testsuite "npusim.<command>" with a testcase per check, a failed one with a
// failure naming the measured value, the relation and the limit.
std::string junit_xml(const RunRecord& r);

// layers.csv: index, name (when a layer has one), op, shape, macs, param_bytes, start_us, end_us
// (timed), then each engine's time
// (<engine> us) and parts (<engine> <part> cycles), then the measures, in first-seen order.
std::string layers_csv(const RunRecord& r);
// The parts of the layers' engines summed: per engine its time and cycles per part.
std::vector<EngineTime> engine_totals(const RunRecord& r);

}  // namespace npu::sim
