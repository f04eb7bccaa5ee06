#include "sim/report/html_parts.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "sim/report/svg.h"

namespace npu::report {

namespace {

const char* kStyle =
    "body{font-family:sans-serif;margin:24px;color:#222}h1{font-size:20px}h2{font-size:16px;"
    "margin-top:28px}h3{font-size:14px}table{border-collapse:collapse;font-size:12px}td,th{border:"
    "1px solid #ccc;padding:2px 6px;text-align:right}th{background:#f3f3f3}.note{color:#555;"
    "font-size:12px}";

std::string cell(const nlohmann::ordered_json& v) {
    if (v.is_string()) {
        return escape(v.get<std::string>());
    }
    if (v.is_number_float()) {
        return fmt::format("{:.6g}", v.get<double>());
    }
    return escape(v.dump());
}

}  // namespace

std::string page(const std::string& title, const std::string& body) {
    return fmt::format(
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{0}"
        "</title><style>{1}</style></head><body>\n<h1>{0}</h1>\n{2}</body></html>\n",
        escape(title), kStyle, body);
}

std::string json_table(const nlohmann::ordered_json& rows) {
    std::vector<std::string> cols;
    for (const auto& r : rows) {
        for (const auto& [k, v] : r.items()) {
            if (!v.is_structured() && std::find(cols.begin(), cols.end(), k) == cols.end()) {
                cols.push_back(k);
            }
        }
    }
    std::string s = "<table>\n<tr>";
    for (const std::string& c : cols) {
        s += "<th>" + escape(c) + "</th>";
    }
    s += "</tr>\n";
    for (const auto& r : rows) {
        s += "<tr>";
        for (const std::string& c : cols) {
            s += "<td>" + (r.contains(c) ? cell(r[c]) : std::string()) + "</td>";
        }
        s += "</tr>\n";
    }
    return s + "</table>\n";
}

}  // namespace npu::report
