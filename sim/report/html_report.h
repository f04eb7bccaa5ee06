// report.html: one self-contained page (inline CSS and SVG, no script, nothing loaded from
// elsewhere) drawn from a run directory's report.json — and its trace.json when there is one —
// so `npusim report DIR` can draw it again from the files alone. The plots show the numbers of
// report.json; tables under them hold the same numbers. Pure C++.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace npu::report {

// `trace` may be null. Throws sim::Error naming `source` when the report has nothing to draw.
std::string html_report(const nlohmann::ordered_json& report, const nlohmann::json* trace,
                        const std::string& source);

}  // namespace npu::report
