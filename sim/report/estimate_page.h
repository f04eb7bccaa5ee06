// The page of `npusim estimate --out DIR`. What to plot comes from the platform (its estimate's
// `plot`, kept in report.json), not from knowledge of its keys here:
//   {"group": "name", "parameters": ["width", ...], "measures": [{"key": "total_cycles",
//    "title": "KPU cycles"}, ...]}
// A sweep (estimate.json an array of configurations): per group (configurations with the same
// `group` value) and per parameter that takes more than one value in it, each measure's min,
// median and max at each value, as whiskers and as a table. A program's estimate
// ({"layers": [...]}): one bar per layer for each measure, and the layer table. Pure C++.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace npu::report {

// Throws sim::Error naming `source` when the plot or the estimate is not what it expects.
std::string estimate_html(const nlohmann::ordered_json& estimate,
                          const nlohmann::ordered_json& plot, const std::string& source);

}  // namespace npu::report
