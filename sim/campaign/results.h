// A campaign's results: one record per finished job (results/<job>.json in the campaign folder,
// written whole or not at all, so a killed run leaves no half record and a re-run skips exactly
// the jobs that have one), and their merge into one JUnit XML, one CSV, one JSON and a summary.
// Records hold no host times or paths, so shards run anywhere merge to the same bytes. Pure C++.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "sim/campaign/campaign.h"

namespace npu::campaign {

struct JobResult {
    std::string status;  // passed | failed (a check failed: exit 1) | error | timeout
    int exit_code = 0;
    std::string message;             // the job's last line on stderr, for failures
    nlohmann::ordered_json metrics;  // from the job's report.json (docs/campaigns.md)
    nlohmann::ordered_json rows;     // the job's rows (an estimate's configurations); null: none
};

// The record of a finished job.
nlohmann::ordered_json record(const Campaign& c, const Job& j, const JobResult& r);

// Metrics a job's report.json (a run record) gives a campaign: passed (when it has checks), its
// totals ("totals.inference_ms", ...) and its checks' measured values ("checks.<name>"). For a
// report.json that is not a run record, "report_error" says so.
nlohmann::ordered_json metrics_of(const nlohmann::ordered_json& report);

// The rows of a job whose report.json names a file of them ("rows": "estimate.json", in the job's
// folder): that file's JSON array of objects, or its "layers" array. Null when there are none or
// the file is not such JSON (the job's own checks report that).
nlohmann::ordered_json rows_of(const nlohmann::ordered_json& report, const std::string& job_dir);

// results/<job_dir_name>.json under `dir`.
std::string result_path(const std::string& dir, const Job& j);

struct Merged {
    size_t jobs = 0, passed = 0, failed = 0, errors = 0, timeouts = 0;
    std::string junit_xml, csv, json, summary;
    // campaign_rows.csv: every job's rows, each after its job's id, name and axis values (columns
    // job_id, job, axis.<name>..., then every row key in first-seen order). Empty when no job
    // has rows.
    std::string rows_csv;
};

// Every record under each dir's results/ (a job found twice keeps its first record), in job order.
// Throws sim::Error naming a record that is not one.
Merged merge(const std::vector<std::string>& dirs);

}  // namespace npu::campaign
