// The page of a campaign folder (`npusim campaign run/merge`): how many jobs passed, failed, erred
// or timed out, and one row per job (its axis values, status, message and metrics) with a link to
// the job's own report.html where it has one. Drawn from the merged records (campaign.json).
// Pure C++.
#pragma once

#include <functional>
#include <string>

#include <nlohmann/json.hpp>

namespace npu::report {

// `has_page(dir)` says whether "<dir>/report.html" exists beside the page (a link is made then).
std::string campaign_html(const nlohmann::ordered_json& records,
                          const std::function<bool(const std::string&)>& has_page);

}  // namespace npu::report
