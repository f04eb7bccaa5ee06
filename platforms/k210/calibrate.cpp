#include "platforms/k210/calibrate.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <functional>
#include <iterator>
#include <map>
#include <optional>
#include <set>
#include <sstream>

#include <fmt/format.h>

#include "models/k210_kpu/kpu_fit.h"
#include "sim/core/error.h"
#include "sim/core/nnls.h"

namespace npu::k210 {

namespace {

std::vector<std::string> split_csv_line(const std::string& line) {
    std::vector<std::string> out;
    std::string cur;
    bool quoted = false;
    for (char ch : line) {
        if (ch == '"') {
            quoted = !quoted;
        } else if (ch == ',' && !quoted) {
            out.push_back(cur);
            cur.clear();
        } else if (ch != '\r') {
            cur += ch;
        }
    }
    out.push_back(cur);
    for (std::string& s : out) {
        const size_t b = s.find_first_not_of(" \t"), e = s.find_last_not_of(" \t");
        s = b == std::string::npos ? "" : s.substr(b, e - b + 1);
    }
    return out;
}

double u64(uint64_t v) {
    return static_cast<double>(v);
}

// A layer's units of the KPU's constants, in kpu_fit.h's order (F, a, s, w, p, d): one table for
// the prediction, the fit's columns and the YAML.
std::array<double, kpu::kKpuConstants> kpu_units(const LayerFeatures& f) {
    return {u64(f.kpu_layers),   u64(f.input_lines), u64(f.passes),
            u64(f.output_lines), u64(f.fetch_bytes), u64(f.output_words)};
}

double linear_kpu_cycles(const LayerFeatures& f, const kpu::KpuTiming& t) {
    const auto units = kpu_units(f), k = kpu::constants_of(t);
    double sum = 0;
    for (size_t j = 0; j < kpu::kKpuConstants; ++j) {
        sum += k[j] * units[j];
    }
    return sum;
}

}  // namespace

namespace {

struct CsvColumns {
    int layer = -1, type = -1, ms = -1;
};

CsvColumns header_columns(const std::vector<std::string>& f, const std::string& line,
                          const std::string& name, size_t n) {
    CsvColumns c;
    for (size_t i = 0; i < f.size(); ++i) {
        const int k = static_cast<int>(i);
        c.layer = f[i] == "layer" ? k : c.layer;
        c.type = f[i] == "type" ? k : c.type;
        c.ms = f[i] == "ms" ? k : c.ms;
    }
    if (c.layer < 0 || c.type < 0 || c.ms < 0) {
        throw sim::Error(
            fmt::format("{}:{}: expected a header with the columns layer, type and "
                        "ms, got '{}'",
                        name, n, line));
    }
    return c;
}

MeasuredRow row_of(const std::vector<std::string>& f, const CsvColumns& c, const std::string& name,
                   size_t n) {
    const auto need = static_cast<size_t>(std::max({c.layer, c.type, c.ms}));
    if (f.size() <= need) {
        throw sim::Error(fmt::format("{}:{}: {} fields, the header has at least {}", name, n,
                                     f.size(), need + 1));
    }
    MeasuredRow r;
    r.line = n;
    r.type = f[static_cast<size_t>(c.type)];
    const std::string& ls = f[static_cast<size_t>(c.layer)];
    const std::string& ms = f[static_cast<size_t>(c.ms)];
    size_t used = 0;
    try {
        r.layer = std::stoul(ls, &used);
        if (used != ls.size() || ls[0] == '-') {
            throw std::invalid_argument(ls);
        }
        r.ms = std::stod(ms, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used != ms.size() || used == 0 || !std::isfinite(r.ms) || r.ms <= 0) {
        throw sim::Error(
            fmt::format("{}:{}: expected a layer index and a positive time in ms, "
                        "got layer '{}', ms '{}'",
                        name, n, ls, ms));
    }
    return r;
}

}  // namespace

std::vector<MeasuredRow> parse_measured_csv(const std::string& text, const std::string& name) {
    std::istringstream in(text);
    std::string line;
    size_t n = 0;
    std::optional<CsvColumns> cols;
    std::vector<MeasuredRow> rows;
    std::set<size_t> seen;
    while (std::getline(in, line)) {
        ++n;
        if (line.find_first_not_of(" \t\r") == std::string::npos) {
            continue;
        }
        const std::vector<std::string> f = split_csv_line(line);
        if (!cols) {
            cols = header_columns(f, line, name, n);
            continue;
        }
        rows.push_back(row_of(f, *cols, name, n));
        if (!seen.insert(rows.back().layer).second) {
            throw sim::Error(
                fmt::format("{}:{}: layer {} appears twice", name, n, rows.back().layer));
        }
    }
    if (rows.empty()) {
        throw sim::Error(
            fmt::format("{}: no measured rows (a header layer,type,ms, then one row "
                        "per layer)",
                        name));
    }
    return rows;
}

double predicted_us(const LayerFeatures& f, const K210Config& cfg, bool /*eight_bit*/) {
    const double kpu_hz = static_cast<double>(cfg.kpu.timing.clock_hz);
    const double cpu_hz = static_cast<double>(cfg.cpu.clock_hz);
    const double kpu = linear_kpu_cycles(f, cfg.kpu.timing) + f.kpu_kept;
    const double cpu =
        static_cast<double>(f.cpu_kept) +
        cfg.cpu.kpu_readback_cycles_per_byte * static_cast<double>(f.readback_bytes) +
        cfg.cpu.element_cycles(f.type) * static_cast<double>(f.cpu_elements) +
        cfg.cpu.mac_cycles(f.type) * static_cast<double>(f.cpu_macs);
    return kpu * 1e6 / kpu_hz + cpu * 1e6 / cpu_hz + f.bus_dma_us;
}

namespace {

// One fitted constant: its config key, its regressor (µs per unit of the constant) and where it
// goes in the config.
struct Column {
    std::string key;
    std::function<double(const LayerFeatures&)> x;
    std::function<void(K210Config&, double)> set;
    std::function<double(const K210Config&)> get;
};

// The per-op CPU columns (per element of each measured CPU op type, per MAC of an op with its
// own MAC constant) and the generic per-MAC one, appended to `cols`.
void add_cpu_op_columns(const std::vector<MeasuredRow>& rows,
                        const std::vector<LayerFeatures>& features, const K210Config& base,
                        std::vector<Column>& cols) {
    const double cpu_us = 1e6 / static_cast<double>(base.cpu.clock_hz);
    std::set<std::string> types;
    for (const MeasuredRow& r : rows) {
        if (features[r.layer].cpu_elements > 0) {
            types.insert(r.type);
        }
    }
    for (const std::string& t : types) {
        cols.push_back({"cpu.op_cycles_per_element." + t,
                        [=](const LayerFeatures& f) {
                            return f.type == t ? cpu_us * static_cast<double>(f.cpu_elements) : 0.0;
                        },
                        [t](K210Config& c, double v) { c.cpu.op_cycles_per_element[t] = v; },
                        [t](const K210Config& c) {
                            return c.cpu.element_cycles(t);
                        }});
    }
    // Per MAC: an op with a constant of its own has its column, the others share the generic one.
    const auto& own_mac = base.cpu.op_cycles_per_mac;
    for (const std::string& t : types) {
        if (own_mac.count(t) != 0) {
            cols.push_back({"cpu.op_cycles_per_mac." + t,
                            [=](const LayerFeatures& f) {
                                return f.type == t ? cpu_us * static_cast<double>(f.cpu_macs) : 0.0;
                            },
                            [t](K210Config& c, double v) { c.cpu.op_cycles_per_mac[t] = v; },
                            [t](const K210Config& c) {
                                return c.cpu.mac_cycles(t);
                            }});
        }
    }
    cols.push_back({"cpu.cycles_per_mac",
                    [=](const LayerFeatures& f) {
                        return own_mac.count(f.type) != 0
                                   ? 0.0
                                   : cpu_us * static_cast<double>(f.cpu_macs);
                    },
                    [](K210Config& c, double v) { c.cpu.cycles_per_mac = v; },
                    [](const K210Config& c) {
                        return c.cpu.cycles_per_mac;
                    }});
}

std::vector<Column> candidate_columns(const std::vector<MeasuredRow>& rows,
                                      const std::vector<LayerFeatures>& features,
                                      const K210Config& base) {
    const double kpu_us = 1e6 / static_cast<double>(base.kpu.timing.clock_hz);
    const double cpu_us = 1e6 / static_cast<double>(base.cpu.clock_hz);
    std::vector<Column> cols;
    for (size_t j = 0; j < kpu::kKpuConstants; ++j) {
        cols.push_back({std::string("kpu.") + kpu::kKpuConstantNames[j],
                        [=](const LayerFeatures& f) { return kpu_us * kpu_units(f)[j]; },
                        [=](K210Config& c, double v) {
                            auto k = kpu::constants_of(c.kpu.timing);
                            k[j] = v;
                            kpu::set_constants(c.kpu.timing, k);
                        },
                        [=](const K210Config& c) {
                            return kpu::constants_of(c.kpu.timing)[j];
                        }});
    }
    cols.push_back(
        {"cpu.kpu_readback_cycles_per_byte",
         [=](const LayerFeatures& f) { return cpu_us * static_cast<double>(f.readback_bytes); },
         [](K210Config& c, double v) { c.cpu.kpu_readback_cycles_per_byte = v; },
         [](const K210Config& c) {
             return c.cpu.kpu_readback_cycles_per_byte;
         }});
    add_cpu_op_columns(rows, features, base, cols);
    return cols;
}

Eigen::MatrixXd design(const std::vector<MeasuredRow>& rows,
                       const std::vector<LayerFeatures>& features,
                       const std::vector<Column>& cols) {
    Eigen::MatrixXd a(static_cast<Eigen::Index>(rows.size()),
                      static_cast<Eigen::Index>(cols.size()));
    for (size_t i = 0; i < rows.size(); ++i) {
        const double w = 1.0 / (rows[i].ms * 1e3);  // relative errors
        for (size_t j = 0; j < cols.size(); ++j) {
            a(static_cast<Eigen::Index>(i), static_cast<Eigen::Index>(j)) =
                w * cols[j].x(features[rows[i].layer]);
        }
    }
    return a;
}

// Drops the columns no row exercises, then, while the rows cannot tell the rest apart, the one
// whose rows least single it out: per MAC, the KPU's finer terms (output line, pass, fetch,
// output word), the line rate, the fixed cost, the read-back, then the per-op constants (each
// measured op type has rows of its own). Each kept constant gets a note.
void drop_undetermined(const std::vector<MeasuredRow>& rows,
                       const std::vector<LayerFeatures>& features, const K210Config& base,
                       std::vector<Column>& cols, std::vector<std::string>& notes) {
    for (size_t j = cols.size(); j-- > 0;) {
        if (design(rows, features, {cols[j]}).cwiseAbs().maxCoeff() == 0) {
            cols.erase(cols.begin() + static_cast<std::ptrdiff_t>(j));
        }
    }
    auto drop_rank = [](const std::string& key) {
        return key == "cpu.cycles_per_mac"                 ? 0
               : key == "kpu.cycles_per_output_line"       ? 1
               : key == "kpu.cycles_per_pass"              ? 2
               : key == "kpu.fetch_cycles_per_byte"        ? 3
               : key == "kpu.output_cycles_per_word"       ? 4
               : key == "kpu.cycles_per_input_line"        ? 5
               : key == "kpu.layer_fixed_cycles"           ? 6
               : key == "cpu.kpu_readback_cycles_per_byte" ? 7
                                                           : 8;
    };
    while (!cols.empty()) {
        const Eigen::MatrixXd a = design(rows, features, cols);
        if (a.colPivHouseholderQr().rank() == a.cols()) {
            break;
        }
        size_t drop = cols.size() - 1;
        for (size_t j = 0; j < cols.size(); ++j) {
            drop = drop_rank(cols[j].key) < drop_rank(cols[drop].key) ? j : drop;
        }
        notes.push_back(fmt::format("{} kept at {:g}: the rows cannot tell it from the others",
                                    cols[drop].key, cols[drop].get(base)));
        cols.erase(cols.begin() + static_cast<std::ptrdiff_t>(drop));
    }
}

}  // namespace

void check_measured_rows(const std::vector<MeasuredRow>& rows,
                         const std::vector<std::string>& layer_types, const std::string& csv_name) {
    for (const MeasuredRow& r : rows) {
        if (r.layer >= layer_types.size()) {
            throw sim::Error(fmt::format("{}:{}: layer {}, the model has {} layers (0..{})",
                                         csv_name, r.line, r.layer, layer_types.size(),
                                         layer_types.size() - 1));
        }
        if (layer_types[r.layer] != r.type) {
            throw sim::Error(fmt::format("{}:{}: layer {} is {} in the model, the row says {}",
                                         csv_name, r.line, r.layer, layer_types[r.layer], r.type));
        }
    }
}

Fit fit_constants(const std::vector<MeasuredRow>& rows, const std::vector<LayerFeatures>& features,
                  const K210Config& base, bool eight_bit, const std::string& csv_name) {
    std::vector<std::string> types;
    for (const LayerFeatures& f : features) {
        types.push_back(f.type);
    }
    check_measured_rows(rows, types, csv_name);
    std::vector<Column> cols = candidate_columns(rows, features, base);
    Fit fit{base, {}, {}};
    drop_undetermined(rows, features, base, cols, fit.notes);
    if (cols.empty()) {
        throw sim::Error(fmt::format("{}: the rows determine no constant", csv_name));
    }
    // b: the measured time less what the fitted constants do not cover.
    K210Config zero = base;
    for (const Column& c : cols) {
        c.set(zero, 0.0);
    }
    Eigen::VectorXd b(static_cast<Eigen::Index>(rows.size()));
    for (size_t i = 0; i < rows.size(); ++i) {
        b(static_cast<Eigen::Index>(i)) =
            (rows[i].ms * 1e3 - predicted_us(features[rows[i].layer], zero, eight_bit)) /
            (rows[i].ms * 1e3);
    }
    const Eigen::VectorXd x = sim::nnls(design(rows, features, cols), b);
    for (size_t j = 0; j < cols.size(); ++j) {
        cols[j].set(fit.config, x(static_cast<Eigen::Index>(j)));
        fit.keys.push_back(cols[j].key);
    }
    return fit;
}

void add_kpu_features(LayerFeatures& f, const kpu::LayerCost& c, const kpu::KpuTiming& t) {
    LayerFeatures one;
    one.kpu_layers = 1;
    one.input_lines = c.work.input_lines, one.passes = c.work.passes;
    one.output_lines = c.work.output_lines, one.output_words = c.work.output_words;
    one.fetch_bytes = c.param_bytes + c.first_chunk_bytes;
    f.kpu_layers += 1;
    f.input_lines += one.input_lines, f.passes += one.passes, f.output_lines += one.output_lines;
    f.output_words += one.output_words, f.fetch_bytes += one.fetch_bytes;
    f.kpu_kept += static_cast<double>(c.total_cycles) - linear_kpu_cycles(one, t);
}

std::string calibration_yaml(const Fit& fit, const std::string& header) {
    std::map<std::string, std::map<std::string, std::string>> groups;  // section -> key -> value
    const K210Config& c = fit.config;
    for (const std::string& key : fit.keys) {
        const size_t dot = key.find('.');
        const std::string section = key.substr(0, dot), rest = key.substr(dot + 1);
        std::string value;
        if (section == "kpu") {
            const auto k = kpu::constants_of(c.kpu.timing);
            for (size_t j = 0; j < kpu::kKpuConstants; ++j) {
                value = rest == kpu::kKpuConstantNames[j] ? fmt::format("{:.6g}", k[j]) : value;
            }
        } else if (rest == "kpu_readback_cycles_per_byte") {
            value = fmt::format("{:.6g}", c.cpu.kpu_readback_cycles_per_byte);
        } else if (rest == "cycles_per_mac") {
            value = fmt::format("{:.6g}", c.cpu.cycles_per_mac);
        } else if (rest.rfind("op_cycles_per_mac.", 0) == 0) {
            value = fmt::format("{:.6g}", c.cpu.mac_cycles(rest.substr(rest.find('.') + 1)));
        } else {
            value = fmt::format("{:.6g}", c.cpu.element_cycles(rest.substr(rest.find('.') + 1)));
        }
        groups[section][rest] = value;
    }
    std::string s = header;
    auto it = std::back_inserter(s);
    for (const auto& [section, keys] : groups) {
        fmt::format_to(it, "{}:\n", section);
        // op_cycles_per_element.<type> and op_cycles_per_mac.<type> keys, as nested maps at the end
        std::map<std::string, std::string> per_op;
        for (const auto& [key, value] : keys) {
            const size_t dot = key.find('.');
            if (key.rfind("op_cycles_per_", 0) == 0 && dot != std::string::npos) {
                per_op[key.substr(0, dot)] +=
                    fmt::format("    {}: {}\n", key.substr(dot + 1), value);
            } else {
                fmt::format_to(it, "  {}: {}\n", key, value);
            }
        }
        for (const auto& [map, entries] : per_op) {
            s += "  " + map + ":\n" + entries;
        }
    }
    return s;
}

}  // namespace npu::k210
