// npusim report DIR: draws DIR/report.html again from DIR/report.json (and DIR/trace.json when
// there is one), as `npusim run --out DIR` drew it; for a sweep, from the rows file and the plot
// its record names; for a campaign folder, from DIR/campaign.json.
#include <algorithm>
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "app/app.h"
#include "app/report_writer.h"
#include "sim/core/error.h"
#include "sim/core/files.h"
#include "sim/core/run_record.h"
#include "sim/report/campaign_page.h"
#include "sim/report/estimate_page.h"
#include "sim/report/html_report.h"

namespace npu::app {

namespace {

nlohmann::ordered_json read_json(const std::filesystem::path& p) {
    const std::vector<uint8_t> bytes = sim::read_file(p.string());
    try {
        return nlohmann::ordered_json::parse(bytes.begin(), bytes.end());
    } catch (const nlohmann::json::exception& e) {
        throw sim::Error(p.string() + ": not JSON: " + e.what());
    }
}

// DIR/report.html, whole or not at all.
int write_page(const std::string& dir, const std::string& html) {
    sim::OutputDir out(dir);
    out.write_text("report.html", html);
    commit_and_report(out);
    return kExitOk;
}

}  // namespace

int cmd_report(const ReportOptions& opts) {
    const std::filesystem::path dir(opts.dir);
    if (!std::filesystem::exists(dir / "report.json") &&
        std::filesystem::exists(dir / "campaign.json")) {  // a campaign folder
        return write_page(
            opts.dir,
            report::campaign_html(read_json(dir / "campaign.json"), [&](const std::string& job) {
                return std::filesystem::exists(dir / job / "report.html");
            }));
    }
    const nlohmann::ordered_json report = read_json(dir / "report.json");
    if (sim::is_record_json(report)) {
        const sim::RunRecord rec = sim::record_from_json(report, (dir / "report.json").string());
        if (rec.plot && !rec.rows.empty()) {  // a sweep: drawn from its rows file (the reader
            // took only a plain file name for it)
            return write_page(opts.dir, report::sweep_html(read_json(dir / rec.rows), *rec.plot,
                                                           (dir / rec.rows).string()));
        }
    }
    nlohmann::json trace;
    const bool traced = std::filesystem::exists(dir / "trace.json");
    if (traced) {
        trace = read_json(dir / "trace.json");
    }
    // The pictures come from the directory's files, in name order (the run's order may differ),
    // and from its lcd/ folder (a firmware run's LCD frames: the page's strip).
    std::vector<std::string> names;
    for (const auto& e : std::filesystem::directory_iterator(dir)) {
        names.push_back(e.path().filename().string());
    }
    if (std::filesystem::is_directory(dir / "lcd")) {
        for (const auto& e : std::filesystem::directory_iterator(dir / "lcd")) {
            if (e.path().extension() == ".png") {
                names.push_back("lcd/" + e.path().filename().string());
            }
        }
    }
    std::sort(names.begin(), names.end());
    std::vector<std::pair<std::string, std::vector<uint8_t>>> files;
    for (const std::string& n : names) {
        if (may_be_picture(n)) {
            files.emplace_back(n, sim::read_file((dir / n).string()));
        }
    }
    return write_page(opts.dir,
                      report::html_report(report, traced ? &trace : nullptr,
                                          (dir / "report.json").string(), pictures_of(files)));
}

}  // namespace npu::app
