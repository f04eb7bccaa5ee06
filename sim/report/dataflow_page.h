// The body of report.html for a dataflow design (a report.json with "fifos": npusim run on the
// FINN platform): the interval beside FINN's estimate, where each layer's cycles went (busy,
// waiting for input, held by a full FIFO), each layer's cycles a frame against the interval, the
// frames over time from trace.json, and the layer, FIFO and FIFO-sizing tables. Pure C++.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace npu::report {

std::string dataflow_body(const nlohmann::ordered_json& report, const nlohmann::json* trace);

}  // namespace npu::report
