// Pieces every report page shares: the page frame with its inline style, a table of JSON rows
// (every scalar key a column), the pictures, a trace's spans. Pure C++.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/report/html_report.h"
#include "sim/report/svg.h"

namespace npu::report {

// "<!DOCTYPE html>...<h1>title</h1>" + body + "</body></html>".
std::string page(const std::string& title, const std::string& body);

// Every scalar key of the rows as a column, in first-seen order.
std::string json_table(const nlohmann::ordered_json& rows);

// Each picture at least 128 pixels wide, captioned ("" without pictures).
std::string pictures_section(const std::vector<Picture>& pictures);

// A trace.json's complete spans ("X" events) as timeline spans in µs, a lane per track (named by
// its thread_name; its category when it has none), without the nested "... parts" categories;
// none without a trace.
std::vector<Span> trace_spans(const nlohmann::json* trace);

}  // namespace npu::report
