#include "sim/campaign/results.h"

#include <algorithm>
#include <filesystem>
#include <set>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/json_text.h"
#include "sim/core/run_record.h"
#include "sim/core/xml.h"

namespace npu::campaign {

namespace {

namespace fs = std::filesystem;
using Json = nlohmann::ordered_json;

std::string csv_cell(const Json& v) {
    std::string s = v.is_string() ? v.get<std::string>() : v.is_null() ? "" : sim::json_text(v);
    if (s.find_first_of(",\"\n") != std::string::npos) {
        std::string q = "\"";
        for (char ch : s) {
            q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        }
        return q + "\"";
    }
    return s;
}

// A job folder as records name it: relative, inside the campaign folder, no scheme (a page links
// to it).
bool relative_dir(const std::string& d) {
    if (d.empty() || d[0] == '/' || d.find_first_of(":\\") != std::string::npos) {
        return false;
    }
    const fs::path p(d);
    return std::none_of(p.begin(), p.end(), [](const fs::path& part) { return part == ".."; });
}

// The keys the merge reads, each of the type it reads (a hand-edited record is one error naming
// the file and the key, not an internal error).
void check_types(const Json& j, const fs::path& p) {
    const auto expect = [&](const char* key, bool ok, const char* what) {
        if (j.contains(key) && !j[key].is_null() && !ok) {  // null: as if absent
            throw sim::Error(
                fmt::format("{}: not a job record: '{}' must be {}", p.string(), key, what));
        }
    };
    const auto is = [&](const char* key, Json::value_t t) {
        return j.contains(key) && j[key].type() == t;
    };
    for (const char* key : {"name", "status", "campaign", "command", "message", "dir"}) {
        expect(key, is(key, Json::value_t::string), "a string");
    }
    expect("exit_code", j.value("exit_code", Json()).is_number_integer(), "an integer");
    expect("axes", is("axes", Json::value_t::object), "an object");
    expect("metrics", is("metrics", Json::value_t::object), "an object");
    const bool rows_ok = is("rows", Json::value_t::array) &&
                         std::all_of(j["rows"].begin(), j["rows"].end(),
                                     [](const Json& r) { return r.is_object(); });
    expect("rows", rows_ok, "a list of objects");
    expect("dir", relative_dir(j.value("dir", std::string())),
           "a folder relative to the campaign folder");
}

Json read_record(const fs::path& p) {
    const std::vector<uint8_t> bytes = sim::read_file(p.string());
    Json j;
    try {
        j = Json::parse(bytes.begin(), bytes.end());
    } catch (const nlohmann::json::exception& e) {
        throw sim::Error(p.string() + ": not a job record (JSON: " + e.what() + ")");
    }
    if (!j.is_object() || !j.contains("id") || !j["id"].is_number_unsigned() ||
        !j.contains("name") || !j.contains("status")) {
        throw sim::Error(p.string() + ": not a job record (expected id, name and status)");
    }
    check_types(j, p);
    return j;
}

std::string junit(const std::vector<Json>& records, const Merged& m) {
    const std::string suite =
        records.empty() ? "campaign" : records.front().value("campaign", std::string("campaign"));
    std::string s = fmt::format(
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n  <testsuite "
        "name=\"npusim.campaign.{}\" tests=\"{}\" failures=\"{}\" errors=\"{}\">\n",
        sim::xml_escape(suite), m.jobs, m.failed + m.timeouts, m.errors);
    for (const Json& r : records) {
        const std::string status = r["status"].get<std::string>();
        const std::string msg = sim::xml_escape(r.value("message", std::string()));
        std::string body;
        if (status == "failed" || status == "timeout") {
            body = fmt::format("<failure message=\"{}: {}\"/>", status, msg);
        } else if (status != "passed") {
            body = fmt::format("<error message=\"exit {}: {}\"/>", r.value("exit_code", 0), msg);
        }
        s += fmt::format(
            "    <testcase classname=\"npusim.campaign.{}\" name=\"{}\">{}</testcase>\n",
            sim::xml_escape(r.value("command", std::string())),
            sim::xml_escape(r["name"].get<std::string>()), body);
    }
    return s + "  </testsuite>\n</testsuites>\n";
}

// The keys of `obj` not yet in `keys`, appended in their order (columns in first-seen order).
void add_keys(std::vector<std::string>& keys, const Json& obj) {
    for (const auto& [k, v] : obj.items()) {
        if (std::find(keys.begin(), keys.end(), k) == keys.end()) {
            keys.push_back(k);
        }
    }
}

std::string csv(const std::vector<Json>& records) {
    std::vector<std::string> axes, metrics;
    for (const Json& r : records) {
        add_keys(axes, r.value("axes", Json::object()));
        add_keys(metrics, r.value("metrics", Json::object()));
    }
    std::string s = "id,name";
    for (const std::string& a : axes) {
        s += "," + csv_cell(a);
    }
    s += ",status,exit_code";
    for (const std::string& m : metrics) {
        s += "," + csv_cell(m);
    }
    s += ",message\n";
    for (const Json& r : records) {
        s += fmt::format("{},{}", r["id"].get<uint64_t>(), csv_cell(r["name"]));
        const Json a = r.value("axes", Json::object()), m = r.value("metrics", Json::object());
        for (const std::string& k : axes) {
            s += "," + (a.contains(k) ? csv_cell(a[k]) : std::string());
        }
        s += "," + csv_cell(r["status"]) + "," + std::to_string(r.value("exit_code", 0));
        for (const std::string& k : metrics) {
            s += "," + (m.contains(k) ? csv_cell(m[k]) : std::string());
        }
        s += "," + csv_cell(r.value("message", std::string())) + "\n";
    }
    return s;
}

// Every job's rows, each prefixed with its job's id, name and axis values.
std::string rows_csv(const std::vector<Json>& records) {
    std::vector<std::string> axes, keys;
    bool any = false;
    for (const Json& r : records) {
        if (!r.contains("rows")) {
            continue;
        }
        any = true;
        add_keys(axes, r.value("axes", Json::object()));
        for (const Json& row : r["rows"]) {
            add_keys(keys, row);
        }
    }
    if (!any) {
        return "";
    }
    std::string s = "job_id,job";  // prefixed, so that no row key takes a job column's name
    for (const std::string& k : axes) {
        s += "," + csv_cell("axis." + k);
    }
    for (const std::string& k : keys) {
        s += "," + csv_cell(k);
    }
    s += "\n";
    for (const Json& r : records) {
        if (!r.contains("rows")) {
            continue;
        }
        std::string head = fmt::format("{},{}", r["id"].get<uint64_t>(), csv_cell(r["name"]));
        const Json a = r.value("axes", Json::object());
        for (const std::string& k : axes) {
            head += "," + (a.contains(k) ? csv_cell(a[k]) : std::string());
        }
        for (const Json& row : r["rows"]) {
            s += head;
            for (const std::string& k : keys) {
                s += "," + (row.contains(k) ? csv_cell(row[k]) : std::string());
            }
            s += "\n";
        }
    }
    return s;
}

}  // namespace

Json record(const Campaign& c, const Job& j, const JobResult& r) {
    Json axes = Json::object();
    for (const auto& [axis, value] : j.axes) {
        axes[axis] = value;
    }
    Json rec = {{"campaign", c.name},
                {"command", c.command},
                {"id", j.id},
                {"name", j.name},
                {"dir", "jobs/" + job_dir_name(j)},  // relative: the same wherever the folder is
                {"axes", axes},
                {"status", r.status},
                {"exit_code", r.exit_code},
                {"message", r.message},
                {"metrics", r.metrics}};
    if (!r.rows.is_null()) {
        rec["rows"] = r.rows;
    }
    return rec;
}

Json rows_of(const Json& report, const std::string& job_dir) {
    if (!report.is_object() || !report.contains("rows") || !report["rows"].is_string()) {
        return nullptr;
    }
    const std::string name = report["rows"].get<std::string>();
    const fs::path file = fs::path(job_dir) / name;
    if (name.empty() || name.find('/') != std::string::npos || !fs::is_regular_file(file)) {
        return nullptr;
    }
    const std::vector<uint8_t> bytes = sim::read_file(file.string());
    Json j = Json::parse(bytes.begin(), bytes.end(), nullptr, false);
    if (j.is_object() && j.contains("layers")) {
        j = j["layers"];
    }
    if (!j.is_array()) {
        return nullptr;
    }
    for (const Json& row : j) {
        if (!row.is_object()) {
            return nullptr;
        }
    }
    return j;
}

Json metrics_of(const Json& report) {
    Json m = Json::object();
    if (sim::is_record_json(report)) {  // the run record: its totals and checks
        sim::RunRecord r;
        try {
            r = sim::record_from_json(report, "report.json");
        } catch (const sim::Error& e) {  // a job's report edited by hand: said, not fatal
            m["report_error"] = e.what();
            return m;
        }
        if (!r.checks.empty()) {
            m["passed"] = r.passed();
        }
        for (const sim::Quantity& q : r.totals) {
            m["totals." + q.name] = sim::cell_json(q.value);  // a whole number as an integer
        }
        for (const sim::Check& c : r.checks) {
            m["checks." + c.name] = sim::cell_json(c.measured);
        }
        return m;
    }
    if (!report.is_null()) {  // a report.json of another kind: said, not fatal
        m["report_error"] =
            "report.json is not a run record (" + std::string(sim::RunRecord::kSchema) + ")";
    }
    return m;
}

std::string result_path(const std::string& dir, const Job& j) {
    return (fs::path(dir) / "results" / (job_dir_name(j) + ".json")).string();
}

Merged merge(const std::vector<std::string>& dirs) {
    std::vector<Json> records;
    std::set<uint64_t> seen;
    for (const std::string& d : dirs) {
        const fs::path results = fs::path(d) / "results";
        if (!fs::is_directory(results)) {
            throw sim::Error(d + ": not a campaign folder (no results/ in it)");
        }
        std::vector<fs::path> files;
        for (const auto& e : fs::directory_iterator(results)) {
            if (e.path().extension() == ".json") {
                files.push_back(e.path());
            }
        }
        std::sort(files.begin(), files.end());
        for (const fs::path& p : files) {
            Json r = read_record(p);
            if (seen.insert(r["id"].get<uint64_t>()).second) {
                records.push_back(std::move(r));
            }
        }
    }
    std::sort(records.begin(), records.end(), [](const Json& a, const Json& b) {
        return a["id"].get<uint64_t>() < b["id"].get<uint64_t>();
    });
    Merged m;
    m.jobs = records.size();
    for (const Json& r : records) {
        const std::string st = r["status"].get<std::string>();
        m.passed += st == "passed", m.failed += st == "failed", m.timeouts += st == "timeout";
        m.errors += st != "passed" && st != "failed" && st != "timeout";
    }
    m.junit_xml = junit(records, m);
    m.csv = csv(records);
    m.rows_csv = rows_csv(records);
    Json all = Json::array();
    for (const Json& r : records) {
        all.push_back(r);
        all.back().erase("rows");  // in campaign_rows.csv
    }
    m.json = sim::json_text(all, 1) + "\n";
    m.summary = fmt::format("{} jobs: {} passed, {} failed, {} errors, {} timed out\n", m.jobs,
                            m.passed, m.failed, m.errors, m.timeouts);
    for (const Json& r : records) {
        if (r["status"] != "passed") {
            m.summary +=
                fmt::format("  {} {}: {}\n", r["status"].get<std::string>(),
                            r["name"].get<std::string>(), r.value("message", std::string()));
        }
    }
    return m;
}

}  // namespace npu::campaign
