// Pieces every report page shares: the page frame with its inline style, and a table of JSON
// rows (every scalar key a column). Pure C++.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace npu::report {

// "<!DOCTYPE html>...<h1>title</h1>" + body + "</body></html>".
std::string page(const std::string& title, const std::string& body);

// Every scalar key of the rows as a column, in first-seen order.
std::string json_table(const nlohmann::ordered_json& rows);

}  // namespace npu::report
