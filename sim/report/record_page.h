// report.html of a run record (sim/core/run_record.h), drawn from its types alone: the totals,
// each layer's time stacked by engine and by the named cycle parts of each engine, the engines
// over time (the trace's spans, or each layer's span), the roofline of the layers' first engine
// when the platform gives its peaks, the pictures and the layer table. Any platform, any engines.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/core/run_record.h"
#include "sim/report/html_report.h"

namespace npu::report {

// `trace` may be null. Throws sim::Error naming `source` when the record has no layers.
std::string record_page(const sim::RunRecord& r, const nlohmann::json* trace,
                        const std::string& source, const std::vector<Picture>& pictures);

}  // namespace npu::report
