// The page of a sweep (`npusim estimate --layers SWEEP --out DIR`): what to plot comes from the
// record's typed plot (sim::SweepPlot, kept in report.json), the numbers from its rows file
// (estimate.json, an array of configurations) — nothing here knows a platform's keys. Per group
// and per parameter that takes more than one value in it, each measure's min, median and max at
// each value, as whiskers and as a table; a front, when the plot has one. Pure C++.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "sim/core/run_record.h"

namespace npu::report {

// Throws sim::Error naming `source` when the rows are not an array of configurations.
std::string sweep_html(const nlohmann::ordered_json& rows, const sim::SweepPlot& plot,
                       const std::string& source);

}  // namespace npu::report
