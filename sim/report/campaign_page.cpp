#include "sim/report/campaign_page.h"

#include <algorithm>
#include <iterator>
#include <vector>

#include <fmt/format.h>

#include "sim/core/json_text.h"
#include "sim/report/html_parts.h"
#include "sim/report/svg.h"

namespace npu::report {

namespace {

using Json = nlohmann::ordered_json;

const char* status_colour(const std::string& s) {
    return s == "passed" ? "#d8f0d8" : s == "failed" || s == "timeout" ? "#f8d8d8" : "#f0e0b0";
}

std::string cell(const Json& v) {
    if (v.is_string()) {
        return escape(v.get<std::string>());
    }
    if (v.is_number_float()) {
        return fmt::format("{:.6g}", v.get<double>());
    }
    return v.is_null() ? "" : escape(sim::json_text(v));
}

// One job's row: id, name (linked to its page where it wrote one), axes, status, message, metrics.
std::string job_row(const Json& r, const std::vector<std::string>& axes,
                    const std::vector<std::string>& metrics,
                    const std::function<bool(const std::string&)>& has_page) {
    const std::string status = r.value("status", std::string());
    const std::string dir = r.value("dir", std::string());
    const std::string name = escape(r.value("name", std::string()));
    // Links only to a relative folder of the campaign (a record is a file someone may edit).
    const bool relative = !dir.empty() && dir[0] != '/' &&
                          dir.find_first_of(":\\") == std::string::npos &&
                          dir.find("..") == std::string::npos;
    const std::string link =
        relative && has_page(dir)
            ? fmt::format("<a class=\"job-page\" href=\"{}/report.html\">{}</a>", escape(dir), name)
            : name;
    std::string s = fmt::format("<tr class=\"job\" data-status=\"{}\"><td>{}</td><td>{}</td>",
                                escape(status), cell(r.value("id", Json())), link);
    const Json a = r.value("axes", Json::object()), m = r.value("metrics", Json::object());
    for (const std::string& k : axes) {
        s += "<td>" + (a.contains(k) ? cell(a[k]) : std::string()) + "</td>";
    }
    s += fmt::format("<td style=\"background:{}\">{}</td><td>{}</td>", status_colour(status),
                     escape(status), escape(r.value("message", std::string())));
    for (const std::string& k : metrics) {
        s += "<td>" + (m.contains(k) ? cell(m[k]) : std::string()) + "</td>";
    }
    return s + "</tr>\n";
}

}  // namespace

std::string campaign_html(const Json& records,
                          const std::function<bool(const std::string&)>& has_page) {
    const std::vector<std::string> statuses{"passed", "failed", "error", "timeout"};
    std::vector<double> counts(statuses.size(), 0.0);
    std::vector<std::string> axes, metrics;
    for (const Json& r : records) {
        for (size_t i = 0; i < statuses.size(); ++i) {
            counts[i] += r.value("status", std::string()) == statuses[i] ? 1 : 0;
        }
        for (const char* part : {"axes", "metrics"}) {
            std::vector<std::string>& cols = std::string(part) == "axes" ? axes : metrics;
            const Json m = r.value(part, Json::object());
            for (const auto& [k, v] : m.items()) {
                if (std::find(cols.begin(), cols.end(), k) == cols.end()) {
                    cols.push_back(k);
                }
            }
        }
    }
    std::string s = fmt::format(
        "<p class=\"note\">{} jobs. Each row links to the job's own page where it wrote one; "
        "campaign.csv, campaign.json and campaign.xml (JUnit) hold the same records.</p>\n"
        "<div id=\"status\">{}</div>\n",
        records.size(),
        stacked_bars(statuses, {Series{"jobs", counts}}, Axes("status", "jobs", 480, 240)));
    s += "<h2>Jobs</h2>\n<table>\n<tr><th>id</th><th>job</th>";
    for (const std::string& a : axes) {
        s += "<th>" + escape(a) + "</th>";
    }
    s += "<th>status</th><th>message</th>";
    for (const std::string& m : metrics) {
        s += "<th>" + escape(m) + "</th>";
    }
    s += "</tr>\n";
    for (const Json& r : records) {
        s += job_row(r, axes, metrics, has_page);
    }
    s += "</table>\n";
    const std::string name =
        records.empty() ? "" : records.front().value("campaign", std::string());
    return page("npusim campaign " + name, s);
}

}  // namespace npu::report
